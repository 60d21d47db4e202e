/**
 * The PostgreSQL store set of one catalog (CatalogStores, docs/deploy.md): one pool,
 * the schema migrated on open (under an advisory lock, so servers starting together migrate
 * once), every port over it. The catalog lives in the first schema of the connection's
 * search_path (`public` unless the URL says `?options=-c search_path=...`).
 */
import type { CatalogStores, Clock } from '../../core/ports.js';
import { withStorageFullErrors } from '../storage-full.js';
import { openPool, PgDatabase, type PoolOptions } from './database.js';
import { PgGroupCommit } from './group-commit.js';
import { PgCatalogStore } from './catalog-store.js';
import { PgChangeLog, PgWebhookStore } from './change-log.js';
import { PgImageStore, PgReferenceFeatureStore } from './image-store.js';
import { migratePostgres } from './migrations.js';
import { PgRelationStore } from './relation-store.js';
import { PgSearchIndex } from './search/search-index.js';
import { PgSessionStore } from './session-store.js';

/** Options of {@link openPostgresStores}. */
export interface PostgresStoresOptions extends PoolOptions {
  /** The clock search cards are superseded by. */
  clock: Clock;
}

/** The PostgreSQL stores, with the database handle (tests and benchmarks). */
export interface PostgresStores extends CatalogStores {
  db: PgDatabase;
}

/**
 * Connects to `url` (postgres://user:password@host:port/database), migrates the schema and opens
 * every store. Throws the driver's error when the server cannot be reached or the migration fails
 * (e.g. a schema newer than this program).
 */
export async function openPostgresStores(url: string, options: PostgresStoresOptions): Promise<PostgresStores> {
  const pool = openPool(url, options);
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const db = new PgDatabase(pool);
  const searchIndex = new PgSearchIndex(db, options.clock);
  try {
    // A catalog migrated from the tsvector index (migration 4) is indexed by the engine once.
    await searchIndex.rebuildIfPending();
  } catch (error) {
    await db.close();
    throw error;
  }
  // PostgreSQL's disk_full (SQLSTATE 53100) is the catalog's storage_full error (507, exit 5).
  // A PostgreSQL that cannot be reached (restart, failover, network) is unavailable (503, Retry-After).
  const database = 'the catalog database (PostgreSQL)';
  const reached = { unavailable: true };
  return {
    db,
    catalog: withStorageFullErrors(new PgCatalogStore(db, searchIndex, options.clock), database, reached),
    changes: new PgChangeLog(db),
    webhooks: withStorageFullErrors(new PgWebhookStore(db), database, reached),
    relations: withStorageFullErrors(new PgRelationStore(db), database, reached),
    images: withStorageFullErrors(new PgImageStore(db), database, reached),
    searchIndex: withStorageFullErrors(searchIndex, database, reached),
    sessions: withStorageFullErrors(new PgSessionStore(db), database, reached),
    references: withStorageFullErrors(new PgReferenceFeatureStore(db), database, reached),
    groupCommit: withStorageFullErrors(new PgGroupCommit(db), database, reached),
    async close() {
      await db.close();
    },
  };
}
