/**
 * The stored features of searchable reference images (images.features, migration 3), read for the
 * image similarity index (decisions §8). Implements ReferenceFeatureStore.
 */
import type { ReferenceFeatures, ReferenceFeatureStore } from '../../core/ports.js';
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

  constructor(db: SqliteDatabase) {
    this.fingerprintStmt = db.prepare<[], { n: number; s: number; m: number }>(
      'SELECT count(*) AS n, total(seq) AS s, coalesce(max(modified_at), 0) AS m FROM images WHERE features IS NOT NULL',
    );
    this.loadStmt = db.prepare<[], FeatureRow>(
      'SELECT i.image_id, p.part_id, i.features FROM images i JOIN parts p ON p.rowid_ = i.part_rowid WHERE i.features IS NOT NULL',
    );
  }

  /** Count, sum of row ids and latest modification of the rows with features. */
  async fingerprint(): Promise<string> {
    const f = this.fingerprintStmt.get();
    return `${f?.n ?? 0}:${f?.s ?? 0}:${f?.m ?? 0}`;
  }

  async *all(): AsyncIterable<ReferenceFeatures> {
    // Read in one go: iterating a better-sqlite3 statement across awaits would hold the connection.
    for (const row of this.loadStmt.all()) yield row;
  }
}
