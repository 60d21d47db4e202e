/**
 * ImageStore over SQLite (migration 2, table images). Each write is one synchronous immediate
 * transaction running the core's pure `decide` against the stored rows, like SqliteCatalogStore.
 * Images reference parts(rowid_) without cascade (a part with images cannot be deleted).
 */
import type { ImageStore } from '../../core/ports.js';
import { IMAGE_COLUMNS, imageFromColumns, type ImageColumns } from '../rows.js';
import type { SqliteDatabase } from './database.js';
import type { Decision, ImageWrite, KeysetPage, StoredImage } from '../../core/model.js';

const COLUMNS = IMAGE_COLUMNS;
const FROM = 'images i JOIN parts p ON p.rowid_ = i.part_rowid';

/** Largest number of ids bound in one `IN (...)` list. */
const MAX_IN = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const countStatements = new WeakMap<SqliteDatabase, { get(rowid: number): { n: number } | undefined }>();

/**
 * How many images reference the part with this rowid (for SqliteCatalogStore.deleteParts: a part
 * with images is an item error, decisions §4). Runs inside the caller's transaction.
 */
export function countImagesOfPart(db: SqliteDatabase, partRowid: number): number {
  let stmt = countStatements.get(db);
  if (!stmt) {
    stmt = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM images WHERE part_rowid = ?');
    countStatements.set(db, stmt);
  }
  return stmt.get(partRowid)?.n ?? 0;
}

/** The SQLite implementation of image metadata, over the catalog's own connection. */
export class SqliteImageStore implements ImageStore {
  readonly db: SqliteDatabase;
  private readonly stmt;

  constructor(db: SqliteDatabase) {
    this.db = db;
    this.stmt = {
      partRowid: db.prepare<[string], number>('SELECT rowid_ FROM parts WHERE part_id = ?').pluck(),
      byId: db.prepare<[string], ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.image_id = ?`),
      insert: db.prepare<[string, number, string, number, string, string, number | null, Uint8Array | null, number, number]>(
        'INSERT INTO images (image_id, part_rowid, sha256, size, mime, info, position, features, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      update: db.prepare<[number, string, number, string, string, number | null, number, string]>(
        'UPDATE images SET part_rowid = ?, sha256 = ?, size = ?, mime = ?, info = ?, position = ?, modified_at = ? WHERE image_id = ?',
      ),
      updateFeatures: db.prepare<[Uint8Array | null, string]>('UPDATE images SET features = ? WHERE image_id = ?'),
      delete: db.prepare<[string]>('DELETE FROM images WHERE image_id = ?'),
      list: db.prepare<[string, number], ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.image_id > ? ORDER BY i.image_id LIMIT +?`),
      ofPart: db.prepare<[number], ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.part_rowid = ? ORDER BY i.image_id`),
      referenced: db.prepare<[string], number>('SELECT 1 FROM images WHERE sha256 = ? LIMIT 1').pluck(),
      allShas: db.prepare<[], string>('SELECT DISTINCT sha256 FROM images').pluck(),
    };
  }

  async upsertImages<I extends { image_id: string; part_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: StoredImage | undefined, partExists: boolean) => Decision<ImageWrite>,
  ): Promise<Decision<ImageWrite>[]> {
    return this.db.transaction(() =>
      items.map((item) => {
        const row = this.stmt.byId.get(item.image_id);
        const partRowid = this.stmt.partRowid.get(item.part_id);
        const decision = decide(item, row ? imageFromColumns(row) : undefined, partRowid !== undefined);
        if (decision.kind !== 'write') return decision;
        const { image, features } = decision.value;
        const target = image.part_id === item.part_id ? partRowid : this.stmt.partRowid.get(image.part_id);
        if (target === undefined) throw new Error(`image '${image.image_id}': part '${image.part_id}' vanished inside the transaction`);
        if (row) {
          this.stmt.update.run(target, image.sha256, image.size, image.mime, image.info, image.position, image.modifiedAt, image.image_id);
          if (features !== undefined) this.stmt.updateFeatures.run(features, image.image_id);
        } else {
          this.stmt.insert.run(image.image_id, target, image.sha256, image.size, image.mime, image.info, image.position, features ?? null, image.createdAt, image.modifiedAt);
        }
        return decision;
      }),
    ).immediate();
  }

  async deleteImages(ids: readonly string[], decide: (id: string, existing: StoredImage | undefined) => Decision<null>): Promise<Decision<null>[]> {
    return this.db.transaction(() =>
      ids.map((id) => {
        const row = this.stmt.byId.get(id);
        const decision = decide(id, row ? imageFromColumns(row) : undefined);
        if (decision.kind === 'write' && row) this.stmt.delete.run(id);
        return decision;
      }),
    ).immediate();
  }

  async listImages(page: KeysetPage, partIds: readonly string[] | undefined): Promise<StoredImage[]> {
    if (partIds === undefined) return this.stmt.list.all(page.after ?? '', page.limit).map(imageFromColumns);
    const unique = [...new Set(partIds)];
    if (unique.length === 0) return [];
    // Per part (index images_by_part), merged: at most `limit` rows from each part are needed.
    const rows: ImageColumns[] = [];
    for (const chunk of chunks(unique, MAX_IN)) {
      const sql = `SELECT ${COLUMNS} FROM ${FROM} WHERE p.part_id IN (${chunk.map(() => '?').join(',')}) AND i.image_id > ? ORDER BY i.image_id LIMIT +?`;
      rows.push(...this.db.prepare<unknown[], ImageColumns>(sql).all(...chunk, page.after ?? '', page.limit));
    }
    // Binary (UTF-8 byte) order, as SQLite sorts; only needed when the ids span several chunks.
    rows.sort((a, b) => Buffer.compare(Buffer.from(a.image_id), Buffer.from(b.image_id)));
    return rows.slice(0, page.limit).map(imageFromColumns);
  }

  async getImages(ids: readonly string[]): Promise<StoredImage[]> {
    const out: StoredImage[] = [];
    for (const chunk of chunks([...new Set(ids)], MAX_IN)) {
      const rows = this.db.prepare<string[], ImageColumns>(`SELECT ${COLUMNS} FROM ${FROM} WHERE i.image_id IN (${chunk.map(() => '?').join(',')})`).all(...chunk);
      out.push(...rows.map(imageFromColumns));
    }
    return out;
  }

  async imagesOfPart(partId: string): Promise<StoredImage[] | undefined> {
    return this.db.transaction(() => {
      const rowid = this.stmt.partRowid.get(partId);
      return rowid === undefined ? undefined : this.stmt.ofPart.all(rowid).map(imageFromColumns);
    })();
  }

  async isBlobReferenced(sha256: string): Promise<boolean> {
    return this.stmt.referenced.get(sha256) !== undefined;
  }

  async referencedBlobs(): Promise<Set<string>> {
    return new Set(this.stmt.allShas.all());
  }
}
