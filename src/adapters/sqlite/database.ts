/**
 * Opening the SQLite database: WAL, foreign keys, a busy timeout (so concurrent writers from other
 * processes wait instead of failing with SQLITE_BUSY), synchronous=FULL, a larger WAL between
 * checkpoints, and the migrations.
 *
 * One rule for every statement of this store: a bound row limit is written `LIMIT +?` (or
 * `LIMIT +@name`), never `LIMIT ?`. SQLite's planner reads a LIMIT that is a bare parameter as
 * an input to the plan, so it marks the statement to be compiled again whenever that parameter is
 * bound, and better-sqlite3 binds every parameter on every run: each run of such a statement
 * re-parsed and re-planned its SQL (SQLite 3.53: 6-9 µs a run instead of 2 µs for the posting
 * count every first search of a word makes). `+?` is an expression, not a parameter, to
 * the planner; the result is the same. test/store/sqlite-statements.test.ts holds every
 * statement to it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations.js';
import { SchemaTooNewError } from '../../core/schema-too-new.js';

/** The driver's native addon, loaded once (see {@link nativeAddon}). */
let addon: object | undefined;

/**
 * better-sqlite3's native addon, loaded here and handed to every connection (its `nativeBinding`
 * option) rather than found by the driver: the CLI bundle carries the driver's JavaScript
 * (its ~15 files would cost every local command ~5 ms of module resolution), and from inside the
 * bundle the driver's own search (the `bindings` package, which starts from its caller's file)
 * would look beside the bundle. The addon is where npm's install puts it
 * (build/Release/better_sqlite3.node); a build kept elsewhere is found by `bindings` from the
 * driver's own directory, as the driver would.
 *
 * @throws the loader's error when the addon is missing or built for another Node.
 */
function nativeAddon(): object {
  if (addon) return addon;
  const require = createRequire(import.meta.url);
  const root = nearestPackage('better-sqlite3', dirname(fileURLToPath(import.meta.url))) ?? dirname(require.resolve('better-sqlite3/package.json'));
  const release = join(root, 'build', 'Release', 'better_sqlite3.node');
  addon = (existsSync(release)
    ? require(release)
    : (require('bindings') as (options: { bindings: string; module_root: string }) => unknown)({ bindings: 'better_sqlite3.node', module_root: root })) as object;
  return addon;
}

/**
 * The directory of the package `name` that Node's resolution from a module in `from` finds in a
 * node_modules directory: the first `<ancestor>/node_modules/<name>` with a package.json, nearest
 * first (ancestors named node_modules skipped, as Node does); undefined when there is none (Node
 * would then look in NODE_PATH and the global folders: the caller asks require.resolve). A few
 * stat calls where require.resolve took ~1 ms of every local command's start-up (its first package
 * resolution).
 */
export function nearestPackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules' && existsSync(join(dir, 'node_modules', name, 'package.json'))) return join(dir, 'node_modules', name);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Opens a better-sqlite3 connection to `path` (":memory:" for an in-memory database), nothing else. */
export function openConnection(path: string): SqliteDatabase {
  // The driver takes the addon object too (its docs; the types say only a path).
  return new BetterSqlite3(path, { nativeBinding: nativeAddon() as unknown as string });
}

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
  const db = openConnection(path);
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
      throw new SchemaTooNewError('the catalog database', current, latest, true);
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      for (const [name, fn] of Object.entries(migration.functions ?? {})) db.function(name, { varargs: true }, fn);
      for (const { table, column, definition } of migration.addColumns ?? []) {
        const present = (db.pragma(`table_info(${table})`) as { name: string }[]).some((c) => c.name === column);
        if (!present) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
      }
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }
  });
  if ((db.pragma('user_version', { simple: true }) as number) < latest) apply.immediate();
  else if ((db.pragma('user_version', { simple: true }) as number) > latest) apply();
}
