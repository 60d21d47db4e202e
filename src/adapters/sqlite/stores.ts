/**
 * The SQLite store set of one catalog (CatalogStores): catalog.db (attributes, parts,
 * organizations, tokens, relations, images, the search index) and sessions.db (search sessions, a
 * cache kept apart so searches never wait on an import's write lock; docs/search.md).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogStores, Clock } from '../../core/ports.js';
import { SqliteCatalogStore } from './catalog-store.js';
import { openDatabase } from './database.js';
import { SqliteImageStore } from './image-store.js';
import { SqliteReferenceFeatureStore } from './reference-features.js';
import { SqliteRelationStore } from './relation-store.js';
import { SqliteSearchIndex, type SearchIndexOptions } from './search/search-index.js';
import { openSessionDatabase, SESSIONS_FILE, SqliteSessionStore } from './session-store.js';

/** File name of the SQLite database inside a data directory. */
export const DATABASE_FILE = 'catalog.db';

/** Options of {@link openSqliteStores}. */
export interface SqliteStoresOptions {
  /** Data directory (created if missing); `undefined` = in-memory databases (tests). */
  dataDir: string | undefined;
  /** The clock the search index stamps result cards with. */
  clock: Clock;
  /** Ranking work per search (docs/search.md). */
  searchTuning?: Omit<SearchIndexOptions, 'clock'> | undefined;
}

/** The SQLite stores with their concrete types (tests and benchmarks reach the database through `catalog.db`). */
export interface SqliteStores extends CatalogStores {
  catalog: SqliteCatalogStore;
  searchIndex: SqliteSearchIndex;
}

/**
 * Opens (creating and migrating as needed) the stores of a data directory. Throws the driver's
 * error when a database cannot be opened or migrated (the CLI names the path and the cause).
 */
export function openSqliteStores(options: SqliteStoresOptions): SqliteStores {
  let dbPath = ':memory:';
  if (options.dataDir !== undefined) {
    mkdirSync(options.dataDir, { recursive: true });
    dbPath = join(options.dataDir, DATABASE_FILE);
  }
  const catalog = new SqliteCatalogStore(openDatabase(dbPath));
  const searchIndex = new SqliteSearchIndex(catalog.db, { clock: options.clock, ...options.searchTuning });
  // The index is a write listener: it is written inside the catalog store's transactions.
  catalog.listeners.push(searchIndex);
  const sessions = new SqliteSessionStore(openSessionDatabase(options.dataDir !== undefined ? join(options.dataDir, SESSIONS_FILE) : ':memory:'));
  return {
    catalog,
    relations: new SqliteRelationStore(catalog.db),
    images: new SqliteImageStore(catalog.db),
    searchIndex,
    sessions,
    references: new SqliteReferenceFeatureStore(catalog.db),
    async close() {
      await sessions.close();
      await catalog.close();
    },
  };
}
