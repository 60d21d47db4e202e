/**
 * The stored features of searchable reference images (images.features, migration 3), read for the
 * image similarity index (decisions §8). Implements ReferenceFeatureStore.
 */
import type { ReferenceChanges, ReferenceFeatures, ReferenceFeatureStore } from '../../core/ports.js';
import type { SqliteDatabase } from './database.js';

interface FeatureRow {
  image_id: string;
  part_id: string;
  features: Buffer;
}

/** ReferenceFeatureStore over the catalog database. */
export class SqliteReferenceFeatureStore implements ReferenceFeatureStore {
  private readonly fingerprintStmt;
  private readonly loadStmt;
  private readonly staleStmt;
  private readonly staleCountStmt;
  private readonly replaceStmt;
  private readonly featuresStmt;
  private readonly versionStmt;
  private readonly oldestStmt;
  private readonly changesStmt;
  private readonly changedStmt;

  constructor(db: SqliteDatabase) {
    this.fingerprintStmt = db.prepare<[], { n: number; s: number; m: number; l: number }>(
      // total(length(features)): a feature upgrade (backfill) changes no row id or modification time.
      'SELECT count(*) AS n, total(seq) AS s, coalesce(max(modified_at), 0) AS m, total(length(features)) AS l FROM images WHERE features IS NOT NULL',
    );
    this.staleStmt = db.prepare<[number, Uint8Array, string, number], { image_id: string; sha256: string }>(
      'SELECT image_id, sha256 FROM images WHERE features IS NOT NULL AND substr(features, 1, ?) != ? AND image_id > ? ORDER BY image_id LIMIT +?',
    );
    this.staleCountStmt = db.prepare<[number, Uint8Array], { n: number }>(
      'SELECT count(*) AS n FROM images WHERE features IS NOT NULL AND substr(features, 1, ?) != ?',
    );
    this.replaceStmt = db.prepare<[Uint8Array, string, string, number, Uint8Array]>(
      'UPDATE images SET features = ? WHERE image_id = ? AND sha256 = ? AND features IS NOT NULL AND substr(features, 1, ?) != ?',
    );
    this.featuresStmt = db.prepare<[string], { features: Buffer }>('SELECT features FROM images WHERE image_id = ? AND features IS NOT NULL');
    // The change log (migration 7): one row per changed image, in commit order.
    this.versionStmt = db.prepare<[], { v: number | null }>('SELECT max(seq) AS v FROM image_feature_changes');
    this.oldestStmt = db.prepare<[], { v: number | null }>('SELECT min(seq) AS v FROM image_feature_changes');
    this.changesStmt = db.prepare<[number, number], { seq: number; image_id: string }>(
      'SELECT seq, image_id FROM image_feature_changes WHERE seq > ? ORDER BY seq LIMIT +?',
    );
    this.changedStmt = db.prepare<[string], FeatureRow>(
      'SELECT i.image_id, p.part_id, i.features FROM images i JOIN parts p ON p.rowid_ = i.part_rowid WHERE i.image_id = ? AND i.features IS NOT NULL',
    );
    this.loadStmt = db.prepare<[], FeatureRow>(
      'SELECT i.image_id, p.part_id, i.features FROM images i JOIN parts p ON p.rowid_ = i.part_rowid WHERE i.features IS NOT NULL',
    );
  }

  /** Count, sum of row ids and latest modification of the rows with features. */
  async fingerprint(): Promise<string> {
    const f = this.fingerprintStmt.get();
    return `${f?.n ?? 0}:${f?.s ?? 0}:${f?.m ?? 0}:${f?.l ?? 0}`;
  }

  async staleFeatures(prefix: Uint8Array, after: string, limit: number): Promise<{ images: { image_id: string; sha256: string }[]; remaining: number }> {
    return {
      images: this.staleStmt.all(prefix.length, blob(prefix), after, limit),
      remaining: this.staleCountStmt.get(prefix.length, blob(prefix))?.n ?? 0,
    };
  }

  async replaceStaleFeatures(imageId: string, sha256: string, prefix: Uint8Array, features: Uint8Array): Promise<boolean> {
    return this.replaceStmt.run(blob(features), imageId, sha256, prefix.length, blob(prefix)).changes === 1;
  }

  async featuresOf(imageIds: readonly string[]): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    for (const id of new Set(imageIds)) {
      const row = this.featuresStmt.get(id);
      if (row) out.set(id, new Uint8Array(row.features));
    }
    return out;
  }

  async changeVersion(): Promise<number> {
    return this.versionStmt.get()?.v ?? 0;
  }

  async changesSince(since: number, limit: number): Promise<ReferenceChanges> {
    // Synchronous reads on the one connection: no write can interleave between them.
    const version = this.versionStmt.get()?.v ?? 0;
    if (version <= since) return { version: Math.max(version, since), complete: true, more: false, upserted: [], removed: [] };
    const oldest = this.oldestStmt.get()?.v ?? 0;
    if (oldest > since + 1) return { version, complete: false, more: false, upserted: [], removed: [] };
    const rows = this.changesStmt.all(since, Math.max(1, limit));
    const last = rows.at(-1)?.seq ?? version;
    const upserted: ReferenceFeatures[] = [];
    const removed: string[] = [];
    for (const id of new Set(rows.map((r) => r.image_id))) {
      const row = this.changedStmt.get(id);
      if (row) upserted.push(row);
      else removed.push(id);
    }
    return { version: last, complete: true, more: last < version, upserted, removed };
  }

  async *all(): AsyncIterable<ReferenceFeatures> {
    // Read in one go: iterating a better-sqlite3 statement across awaits would hold the connection.
    for (const row of this.loadStmt.all()) yield row;
  }
}

/** A Buffer view of bytes (better-sqlite3 binds Buffers as BLOBs). */
function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
