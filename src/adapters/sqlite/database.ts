/**
 * Opening the SQLite database: WAL, foreign keys, a busy timeout (so concurrent writers from other
 * processes wait instead of failing with SQLITE_BUSY), synchronous=FULL, a larger WAL between
 * checkpoints, and the migrations.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations.js';

/**
 * The driver, loaded with require rather than import: better-sqlite3 is CommonJS, and an ESM import
 * of CommonJS makes Node load and run its export lexer over the module first (~5 ms of every
 * command's start-up; issue 12).
 */
export const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

/** Milliseconds a writer waits for another process's lock before giving up. */
export const BUSY_TIMEOUT_MS = 30_000;

/**
 * Pages the WAL may hold before a commit copies them into the database file (SQLite's default is
 * 1,000, ~4 MB). An import batch of 1,000 parts writes ~1,000-2,000 pages, so with the default
 * nearly every commit also ran a checkpoint, copying again the pages every batch rewrites (the
 * tails of the frequent words' posting lists, B-tree interior pages): 16,384 pages (64 MiB)
 * checkpoints every ~10 batches. A 200,000-part import: 472,376 → 372,281 page writes, 140,203 →
 * 40,190 page reads, 578 → 236 fsyncs (strace). Durability is unchanged (WAL, synchronous=FULL:
 * a commit is on disk when it returns); the last connection to close still checkpoints and
 * removes the WAL.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 16_384;

/** A better-sqlite3 connection, re-exported so other adapters need not import the driver themselves. */
export type SqliteDatabase = BetterSqlite3.Database;

/**
 * Opens (creating if needed) the database at `path` (":memory:" for an in-memory one) and applies
 * pending migrations. Throws if the file is newer than this program's schema.
 */
export function openDatabase(path: string, migrations: readonly Migration[] = MIGRATIONS): SqliteDatabase {
  const db = new Database(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

/** Applies every migration above the database's `user_version`, each in its own immediate transaction. */
export function migrate(db: SqliteDatabase, migrations: readonly Migration[]): void {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const apply = db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > latest) {
      throw new Error(`the catalog database has schema version ${current}, newer than this program's ${latest}: upgrade catalog`);
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }
  });
  if ((db.pragma('user_version', { simple: true }) as number) < latest) apply.immediate();
  else if ((db.pragma('user_version', { simple: true }) as number) > latest) apply();
}
