/**
 * ImageStore and ReferenceFeatureStore over PostgreSQL (table images). Each write is one
 * transaction holding the catalog write lock, running the core's pure `decide` against the stored
 * rows like PgCatalogStore. Images reference parts without cascade (a part with images cannot be
 * deleted, decisions §4).
 */
import type { ImageStore, ReferenceFeatures, ReferenceFeatureStore } from '../../core/ports.js';
import type { Decision, ImageWrite, KeysetPage, StoredImage } from '../../core/model.js';
import type { PgDatabase } from './database.js';
import { IMAGE_COLUMNS, imageFromColumns, type ImageColumns } from '../rows.js';

const COLUMNS = IMAGE_COLUMNS;
const FROM = 'images i JOIN parts p ON p.pk = i.part_pk';

/** The PostgreSQL implementation of image metadata. */
export class PgImageStore implements ImageStore {
  private readonly db: PgDatabase;

  constructor(db: PgDatabase) {
    this.db = db;
  }

  async upsertImages<I extends { image_id: string; part_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: StoredImage | undefined, partExists: boolean) => Decision<ImageWrite>,
  ): Promise<Decision<ImageWrite>[]> {
    return this.db.write(async (c) => {
      const decisions: Decision<ImageWrite>[] = [];
      const partPk = async (partId: string) => (await c.query<{ pk: number }>('SELECT pk FROM parts WHERE part_id = $1', [partId])).rows[0]?.pk;
      for (const item of items) {
        const row = (await c.query<ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.image_id = $1`, [item.image_id])).rows[0];
        const pk = await partPk(item.part_id);
        const decision = decide(item, row ? imageFromColumns(row) : undefined, pk !== undefined);
        decisions.push(decision);
        if (decision.kind !== 'write') continue;
        const { image, features } = decision.value;
        const target = image.part_id === item.part_id ? pk : await partPk(image.part_id);
        if (target === undefined) throw new Error(`image '${image.image_id}': part '${image.part_id}' vanished inside the transaction`);
        if (row) {
          await c.query(
            'UPDATE images SET part_pk = $1, sha256 = $2, size = $3, mime = $4, info = $5, position = $6, modified_at = $7 WHERE image_id = $8',
            [target, image.sha256, image.size, image.mime, image.info, image.position, image.modifiedAt, image.image_id],
          );
          if (features !== undefined) await c.query('UPDATE images SET features = $1 WHERE image_id = $2', [features === null ? null : Buffer.from(features), image.image_id]);
        } else {
          await c.query(
            'INSERT INTO images (image_id, part_pk, sha256, size, mime, info, position, features, created_at, modified_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
            [image.image_id, target, image.sha256, image.size, image.mime, image.info, image.position, features ? Buffer.from(features) : null, image.createdAt, image.modifiedAt],
          );
        }
      }
      return decisions;
    });
  }

  async deleteImages(ids: readonly string[], decide: (id: string, existing: StoredImage | undefined) => Decision<null>): Promise<Decision<null>[]> {
    return this.db.write(async (c) => {
      const decisions: Decision<null>[] = [];
      for (const id of ids) {
        const row = (await c.query<ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.image_id = $1`, [id])).rows[0];
        const decision = decide(id, row ? imageFromColumns(row) : undefined);
        if (decision.kind === 'write' && row) await c.query('DELETE FROM images WHERE image_id = $1', [id]);
        decisions.push(decision);
      }
      return decisions;
    });
  }

  async listImages(page: KeysetPage, partIds: readonly string[] | undefined): Promise<StoredImage[]> {
    if (partIds === undefined) {
      return (await this.db.query<ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.image_id > $1 ORDER BY i.image_id LIMIT $2`, [page.after ?? '', page.limit])).map(imageFromColumns);
    }
    if (partIds.length === 0) return [];
    const rows = await this.db.query<ImageColumns>(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE p.part_id = ANY($1::text[]) AND i.image_id > $2 ORDER BY i.image_id LIMIT $3`,
      [[...new Set(partIds)], page.after ?? '', page.limit],
    );
    return rows.map(imageFromColumns);
  }

  async getImages(ids: readonly string[]): Promise<StoredImage[]> {
    if (ids.length === 0) return [];
    return (await this.db.query<ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.image_id = ANY($1::text[])`, [[...new Set(ids)]])).map(imageFromColumns);
  }

  async imagesOfPart(partId: string): Promise<StoredImage[] | undefined> {
    return this.db.read(async (c) => {
      const pk = (await c.query<{ pk: number }>('SELECT pk FROM parts WHERE part_id = $1', [partId])).rows[0]?.pk;
      if (pk === undefined) return undefined;
      return (await c.query<ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.part_pk = $1 ORDER BY i.image_id`, [pk])).rows.map(imageFromColumns);
    });
  }

  async isBlobReferenced(sha256: string): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM images WHERE sha256 = $1 LIMIT 1', [sha256])).length > 0;
  }

  async referencedBlobs(): Promise<Set<string>> {
    return new Set((await this.db.query<{ sha256: string }>('SELECT DISTINCT sha256 FROM images')).map((r) => r.sha256));
  }
}

/** The stored features of searchable reference images (decisions §8). */
export class PgReferenceFeatureStore implements ReferenceFeatureStore {
  private readonly db: PgDatabase;

  constructor(db: PgDatabase) {
    this.db = db;
  }

  /**
   * The image_features change counter (migration 5): bumped by triggers in every transaction that
   * writes a row's features or moves a row with features to another part, on any server. One
   * primary-key read, whatever the number of images, and independent of the writers' clocks.
   */
  async fingerprint(): Promise<string> {
    const row = (await this.db.query<{ version: number }>("SELECT version FROM change_counters WHERE name = 'image_features'"))[0];
    return `v${row?.version ?? 0}`;
  }

  async featuresOf(imageIds: readonly string[]): Promise<Map<string, Uint8Array>> {
    if (imageIds.length === 0) return new Map();
    const rows = await this.db.query<{ image_id: string; features: Buffer }>('SELECT image_id, features FROM images WHERE image_id = ANY($1::text[]) AND features IS NOT NULL', [[...new Set(imageIds)]]);
    return new Map(rows.map((r) => [r.image_id, new Uint8Array(r.features)]));
  }

  async *all(): AsyncIterable<ReferenceFeatures> {
    const rows = await this.db.query<{ image_id: string; part_id: string; features: Buffer }>(
      'SELECT i.image_id, p.part_id, i.features FROM images i JOIN parts p ON p.pk = i.part_pk WHERE i.features IS NOT NULL',
    );
    for (const row of rows) yield { image_id: row.image_id, part_id: row.part_id, features: new Uint8Array(row.features) };
  }
}
