/**
 * ImageStore and ReferenceFeatureStore over PostgreSQL (table images). Each write is one
 * transaction holding the catalog write lock, running the core's pure `decide` against the stored
 * rows like PgCatalogStore. Images reference parts without cascade (a part with images cannot be
 * deleted, decisions §4).
 */
import type { ImageStore, ReferenceChanges, ReferenceFeatures, ReferenceFeatureStore } from '../../core/ports.js';
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

  /** The image_features change counter: the number of the latest change in the change log (migration 7). */
  async changeVersion(): Promise<number> {
    const row = (await this.db.query<{ version: string }>("SELECT version FROM change_counters WHERE name = 'image_features'"))[0];
    return Number(row?.version ?? 0);
  }

  async changesSince(since: number, limit: number): Promise<ReferenceChanges> {
    // The counter first: changes are numbered in commit order under the counter row's lock, so
    // every change up to `version` is visible to the next statement's snapshot; later ones are
    // left for the next call.
    const version = await this.changeVersion();
    if (version <= since) return { version: Math.max(version, since), complete: true, more: false, upserted: [], removed: [] };
    const rows = await this.db.query<{ seq: string; image_id: string; part_id: string | null; features: Buffer | null; oldest: string | null }>(
      `WITH changed AS (SELECT seq, image_id FROM image_feature_changes WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3)
       SELECT c.seq, c.image_id, p.part_id, i.features, (SELECT min(seq) FROM image_feature_changes) AS oldest
       FROM changed c LEFT JOIN images i ON i.image_id = c.image_id AND i.features IS NOT NULL LEFT JOIN parts p ON p.pk = i.part_pk
       ORDER BY c.seq`,
      [since, version, Math.max(1, limit)],
    );
    const oldest = Number(rows[0]?.oldest ?? version + 1);
    if (oldest > since + 1) return { version, complete: false, more: false, upserted: [], removed: [] };
    const last = rows.length > 0 ? Number(rows.at(-1)?.seq) : version;
    const upserted: ReferenceFeatures[] = [];
    const removed: string[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.image_id)) continue;
      seen.add(row.image_id);
      if (row.features && row.part_id !== null) upserted.push({ image_id: row.image_id, part_id: row.part_id, features: new Uint8Array(row.features) });
      else removed.push(row.image_id);
    }
    return { version: last, complete: true, more: last < version, upserted, removed };
  }

  async staleFeatures(prefix: Uint8Array, after: string, limit: number): Promise<{ images: { image_id: string; sha256: string }[]; remaining: number }> {
    const p = Buffer.from(prefix.buffer, prefix.byteOffset, prefix.byteLength);
    const images = await this.db.query<{ image_id: string; sha256: string }>(
      'SELECT image_id, sha256 FROM images WHERE features IS NOT NULL AND substring(features from 1 for $1) <> $2 AND image_id > $3 ORDER BY image_id LIMIT $4',
      [prefix.length, p, after, limit],
    );
    const count = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM images WHERE features IS NOT NULL AND substring(features from 1 for $1) <> $2', [prefix.length, p]);
    return { images, remaining: Number(count[0]?.n ?? 0) };
  }

  async replaceStaleFeatures(imageId: string, sha256: string, prefix: Uint8Array, features: Uint8Array): Promise<boolean> {
    // One statement: the condition and the write are atomic, so a newer upload is never overwritten.
    const rows = await this.db.query<{ image_id: string }>(
      'UPDATE images SET features = $1 WHERE image_id = $2 AND sha256 = $3 AND features IS NOT NULL AND substring(features from 1 for $4) <> $5 RETURNING image_id',
      [Buffer.from(features.buffer, features.byteOffset, features.byteLength), imageId, sha256, prefix.length, Buffer.from(prefix.buffer, prefix.byteOffset, prefix.byteLength)],
    );
    return rows.length === 1;
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
