/**
 * The SQLite store set of one catalog (CatalogStores): catalog.db (attributes, parts,
 * organizations, tokens, relations, images, the search index) and sessions.db (search sessions, a
 * cache kept apart so searches never wait on an import's write lock; docs/search.md).
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CatalogStores, Clock } from '../../core/ports.js';
import { SqliteCatalogStore } from './catalog-store.js';
import { SqliteChangeLog, SqliteWebhookStore } from './change-log.js';
import { openDatabase } from './database.js';
import { SqliteGroupCommit } from './group-commit.js';
import { SqliteImageStore } from './image-store.js';
import { SqliteReferenceFeatureStore } from './reference-features.js';
import { SqliteRelationStore } from './relation-store.js';
import { SqliteSearchIndex, type SearchIndexOptions } from './search/search-index.js';
import { openSessionDatabase, SESSIONS_FILE, SqliteSessionStore } from './session-store.js';
import { ThreadLock } from './thread-lock.js';
import { takingTurns, WriteTurns } from './write-turns.js';
import { withStorageFullErrors } from '../storage-full.js';

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
  /** sessions.db's write lock shared by the threads of this process (thread-lock.ts; `catalog serve`). */
  sessionWriteLock?: SharedArrayBuffer | undefined;
  /**
   * Turns at catalog.db's write lock shared with `catalog serve`'s writer thread (write-turns.ts):
   * given to the main thread's stores, whose writes (image metadata, the webhook outbox, tokens,
   * settings) then wait for their turn without blocking the thread. Never to the writer's own.
   */
  catalogWriteTurns?: SharedArrayBuffer | undefined;
}

/**
 * Creates `dir` and its missing parents one level at a time. Node 20's `mkdirSync(dir, {recursive:
 * true})` never returns for a path under /proc (libuv retries ENOENT forever, at 100 % CPU); this
 * fails at once with the first level's error (ENOENT, ENOTDIR, EACCES, EROFS).
 */
function createDirectory(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw error;
    createDirectory(dirname(dir));
    mkdirSync(dir);
  }
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
    createDirectory(resolve(options.dataDir));
    dbPath = join(options.dataDir, DATABASE_FILE);
  }
  const catalog = new SqliteCatalogStore(openDatabase(dbPath));
  const searchIndex = new SqliteSearchIndex(catalog.db, { clock: options.clock, ...options.searchTuning });
  // The index is a write listener: it is written inside the catalog store's transactions.
  catalog.listeners.push(searchIndex);
  const sessions = new SqliteSessionStore(
    openSessionDatabase(options.dataDir !== undefined ? join(options.dataDir, SESSIONS_FILE) : ':memory:'),
    options.sessionWriteLock ? new ThreadLock(options.sessionWriteLock) : undefined,
  );
  // A full disk (SQLITE_FULL) is the catalog's storage_full error (507, exit 5), not a bug.
  const database = 'the catalog database';
  const turns = options.catalogWriteTurns ? new WriteTurns(options.catalogWriteTurns) : undefined;
  // The writes `catalog serve`'s main thread makes itself (parts, attributes, relations go to the writer thread).
  const inTurn = <T extends object>(store: T, methods: readonly (keyof T & string)[]): T => (turns ? takingTurns(store, methods, turns) : store);
  return {
    catalog: withStorageFullErrors(inTurn(catalog, ['createToken', 'rotateToken', 'revokeToken', 'setSetting', 'initSetting']), database),
    changes: new SqliteChangeLog(catalog.db),
    webhooks: withStorageFullErrors(inTurn(new SqliteWebhookStore(catalog.db), ['addWebhook', 'removeWebhook', 'claimDeliveries', 'recordDelivery']), database),
    relations: withStorageFullErrors(new SqliteRelationStore(catalog.db), database),
    images: withStorageFullErrors(inTurn(new SqliteImageStore(catalog.db), ['upsertImages', 'deleteImages']), database),
    searchIndex,
    sessions: withStorageFullErrors(sessions, 'the search sessions database'),
    references: withStorageFullErrors(inTurn(new SqliteReferenceFeatureStore(catalog.db), ['replaceStaleFeatures']), database),
    groupCommit: new SqliteGroupCommit(catalog),
    async close() {
      await sessions.close();
      await catalog.close();
    },
  };
}
