/**
 * Search sessions (decisions §8) in their own SQLite file, `sessions.db` in the data directory
 * (in memory for an in-memory catalog). Sessions are a 24-hour cache, not catalog data: keeping
 * them out of catalog.db spares every search an fsync (synchronous=NORMAL here, FULL there), keeps
 * search writes from waiting on a catalog import's write lock, and keeps the catalog file free of
 * churn. Losing the file loses only open sessions (their reads answer 404).
 *
 * A session's hits are result-card ids (see search-index.ts) in blocks of 1,024, keyed by session
 * and block, packed by ../session-blocks.ts (≈2 bytes a hit instead of 8, plus 2 for an image
 * search's scores: docs/search.md, Sessions): reading page k is one indexed range read of at most
 * ceil(limit / 1024) + 1 rows, whatever k is.
 *
 * Growth is bounded: `create` evicts the owner's oldest sessions beyond
 * {@link SessionBudget.maxSessionsPerOwner} and everyone's oldest beyond
 * {@link SessionBudget.maxTotalBytes}, in the same transaction as the insert; `purgeExpired`
 * deletes expired sessions and gives their pages back to the file system (auto_vacuum =
 * INCREMENTAL, and a WAL truncated after checkpoints).
 */
import { rmSync } from 'node:fs';
import type { NewSession, SessionBudget, SessionStore } from '../../core/ports.js';
import { BUSY_TIMEOUT_MS, openConnection, type SqliteDatabase } from './database.js';
import type { ThreadLock } from './thread-lock.js';
import type { SessionHits, StoredSession } from '../../core/model.js';
import { blockRange, blocksOf, hitCount, packedBytes, readBlock, SESSION_ROW_BYTES } from '../session-blocks.js';
import type { SearchFacets } from '../../api/schemas.js';
import { SchemaTooNewError } from '../../core/schema-too-new.js';

/** File name of the session database inside a data directory. */
export const SESSIONS_FILE = 'sessions.db';
/** Block numbers per session in the hit key (65,536 blocks = 67 M hits, far above any session maximum). */
const BLOCKS_PER_SESSION = 65_536;
/** Bytes a hit block row costs besides its packed ids. */
const BLOCK_ROW_BYTES = 16;
/** The WAL is truncated to this size after a checkpoint (it would otherwise keep its peak size). */
const JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024;
const SCHEMA_VERSION = 5;

// Sessions per owner, kept by every insert and delete (version 5): the per-owner cap is checked on
// every search, and count(*) over the owner's index entries took ~28 of a session write's ~95 µs
// at the default cap of 1,000.
const OWNER_COUNTS = `
  DROP TABLE IF EXISTS session_owners;
  CREATE TABLE session_owners (owner TEXT PRIMARY KEY, sessions INTEGER NOT NULL) WITHOUT ROWID;
  INSERT INTO session_owners (owner, sessions) SELECT owner, count(*) FROM sessions GROUP BY owner;
`;

// Version 1 stored float64 ids and the token's NAME as owner: its sessions are dropped (a cache),
// not converted, because a name is not the token (a revoked name re-created must not read them).
const SCHEMA = `
  DROP TABLE IF EXISTS session_hits;
  DROP TABLE IF EXISTS sessions;
  CREATE TABLE sessions (
    seq INTEGER PRIMARY KEY,          -- insertion order: eviction takes the lowest first
    session_id TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,              -- the creator's stable token identity (Principal.sessionOwner); nobody else may read it
    created_at INTEGER NOT NULL,      -- microseconds since the epoch
    expires_at INTEGER NOT NULL,
    image_id TEXT,                    -- the stored query image; NULL for a text search
    language TEXT,                    -- the request's language, for the name of each result
    total INTEGER NOT NULL,           -- resultsTotalCount: every hit, stored or not
    stored INTEGER NOT NULL,          -- hits stored (at most the configured maximum)
    bytes INTEGER NOT NULL,           -- what the session costs against the size budget
    state TEXT                        -- JSON {organization?, text?, facets?}; NULL when empty
  );
  CREATE INDEX sessions_by_owner ON sessions(owner, seq);
  CREATE INDEX sessions_by_expiry ON sessions(expires_at);
  ${OWNER_COUNTS}
  -- A rowid table, not WITHOUT ROWID: there a row over ~1 KB spills into a whole 4 KB overflow
  -- page, here up to ~4 KB stays in the leaf (measured: 8.8 bytes a hit with float64 blocks).
  CREATE TABLE session_hits (
    id INTEGER PRIMARY KEY,           -- sessions.seq * 65536 + block; block b holds hits [b * 1024, b * 1024 + 1024)
    card_ids BLOB NOT NULL,           -- zigzag-delta LEB128 varints of the card ids, in rank order
    scores BLOB                       -- image searches: uint16 LE scores (× 65,535), parallel; else NULL
  );
  CREATE TABLE session_totals (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    bytes INTEGER NOT NULL            -- sum of sessions.bytes, kept by every insert and delete
  );
  INSERT INTO session_totals (id, bytes) VALUES (1, 0);
`;

interface SessionRow {
  seq: number;
  session_id: string;
  owner: string;
  created_at: number;
  expires_at: number;
  image_id: string | null;
  language: string | null;
  total: number;
  stored: number;
  state: string | null;
}

/** A session chosen for deletion: what removing it takes off the totals. */
interface Victim {
  seq: number;
  bytes: number;
  owner: string;
}

/** What a session keeps besides its hits (the `state` column, JSON; version 3). */
interface SessionState {
  organization?: string;
  text?: string;
  facets?: SearchFacets;
}

/**
 * Opens (creating or migrating) the session database at `path` (":memory:" for none on disk).
 * A new file gets auto_vacuum = INCREMENTAL before its first table; a version-1 file has its
 * tables replaced and is converted once with VACUUM (its sessions are dropped, see SCHEMA).
 * Throws when the file's schema is newer than this program's.
 */
export function openSessionDatabase(path: string): SqliteDatabase {
  try {
    return openSessionFile(path);
  } catch (error) {
    // synchronous = OFF (below) means an OS crash or a power cut can leave the file damaged. It is
    // a cache: start a new one rather than refuse every search.
    if (path === ':memory:' || !DAMAGED.test(String((error as { code?: unknown }).code ?? ''))) throw error;
    for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
    return openSessionFile(path);
  }
}

/** SQLite's codes for a file that is not a database or whose pages do not parse. */
const DAMAGED = /^SQLITE_(NOTADB|CORRUPT)/;

function openSessionFile(path: string): SqliteDatabase {
  const db = openConnection(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Before any table exists this takes effect at once; for an older file VACUUM applies it below.
  // Set only when the file lacks it: setting it, even to the value the file has, is a write
  // transaction (page 1 into a new WAL, with an fsync of the WAL and of the directory, as
  // synchronous is not yet OFF) that every `catalog search` paid at open (start-up).
  if ((db.pragma('auto_vacuum', { simple: true }) as number) !== 2) db.pragma('auto_vacuum = INCREMENTAL');
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  // Sessions are a cache (24 hours, rebuilt by searching again), so no fsync at all: with WAL a
  // process crash still never damages the file; only an OS crash or power cut can, and then the
  // next open starts a new file (openSessionDatabase). With NORMAL, each WAL checkpoint's fsync
  // ran inside a search's session write, under the write lock every reader thread queues for,
  // which more than doubled a session write under load.
  db.pragma('synchronous = OFF');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new SchemaTooNewError(`the session database ${path}`, version, SCHEMA_VERSION);
  if (version < SCHEMA_VERSION) {
    db.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      const current = db.pragma('user_version', { simple: true }) as number;
      if (current >= SCHEMA_VERSION) return;
      // 2 -> 3 adds the state column, 3 -> 4 the hit blocks' scores, 4 -> 5 the
      // per-owner counts, keeping the sessions; older files start over (see SCHEMA).
      if (current >= 2 && current <= 4) {
        if (current === 2) db.exec('ALTER TABLE sessions ADD COLUMN state TEXT');
        if (current <= 3) db.exec('ALTER TABLE session_hits ADD COLUMN scores BLOB');
        db.exec(OWNER_COUNTS);
      } else db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  }
  // 2 = INCREMENTAL. Only a file created by version 1 lacks it; its old tables are gone, so this is quick.
  if ((db.pragma('auto_vacuum', { simple: true }) as number) !== 2) db.exec('VACUUM');
  return db;
}

/** The SQLite implementation of the SessionStore port. */
export class SqliteSessionStore implements SessionStore {
  readonly db: SqliteDatabase;
  private readonly stmt;

  /**
   * `writeLock`: shared with the other threads of this process that write the same file (the
   * reader threads of `catalog serve`), so they queue for the write lock instead of sleeping in
   * SQLite's busy handler (thread-lock.ts).
   */
  constructor(db: SqliteDatabase, private readonly writeLock?: ThreadLock) {
    this.db = db;
    this.stmt = {
      insert: db.prepare<[string, string, number, number, string | null, string | null, number, number, number, string | null]>(
        'INSERT INTO sessions (session_id, owner, created_at, expires_at, image_id, language, total, stored, bytes, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      insertBlock: db.prepare<[number, Buffer, Buffer | null]>('INSERT INTO session_hits (id, card_ids, scores) VALUES (?, ?, ?)'),
      get: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE session_id = ?'),
      blocks: db.prepare<[number, number], { id: number; card_ids: Buffer; scores: Buffer | null }>('SELECT id, card_ids, scores FROM session_hits WHERE id BETWEEN ? AND ? ORDER BY id'),
      countOwned: db.prepare<[string], number>('SELECT sessions FROM session_owners WHERE owner = ?').pluck(),
      addOwned: db.prepare<[string, number, number]>('INSERT INTO session_owners (owner, sessions) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET sessions = sessions + ?'),
      dropOwner: db.prepare<[string]>('DELETE FROM session_owners WHERE owner = ? AND sessions <= 0'),
      oldestOwned: db.prepare<[string, number], Victim>('SELECT seq, bytes, owner FROM sessions WHERE owner = ? ORDER BY seq LIMIT +?'),
      oldest: db.prepare<[number], Victim>('SELECT seq, bytes, owner FROM sessions ORDER BY seq LIMIT +?'),
      expired: db.prepare<[number, number], Victim>('SELECT seq, bytes, owner FROM sessions WHERE expires_at <= ? LIMIT +?'),
      deleteHits: db.prepare<[number, number]>('DELETE FROM session_hits WHERE id BETWEEN ? AND ?'),
      deleteSession: db.prepare<[number]>('DELETE FROM sessions WHERE seq = ?'),
      totalBytes: db.prepare<[], number>('SELECT bytes FROM session_totals WHERE id = 1').pluck(),
      addBytes: db.prepare<[number]>('UPDATE session_totals SET bytes = bytes + ? WHERE id = 1'),
      count: db.prepare<[], number>('SELECT count(*) FROM sessions').pluck(),
    };
  }

  /** Deletes sessions (with their hits) and takes their bytes off the total and them off their owners' counts; inside a transaction. */
  private remove(rows: readonly Victim[]): void {
    let bytes = 0;
    const owners = new Map<string, number>();
    for (const row of rows) {
      this.stmt.deleteHits.run(row.seq * BLOCKS_PER_SESSION, row.seq * BLOCKS_PER_SESSION + BLOCKS_PER_SESSION - 1);
      this.stmt.deleteSession.run(row.seq);
      bytes += row.bytes;
      owners.set(row.owner, (owners.get(row.owner) ?? 0) + 1);
    }
    if (bytes !== 0) this.stmt.addBytes.run(-bytes);
    for (const [owner, n] of owners) {
      this.stmt.addOwned.run(owner, -n, -n);
      this.stmt.dropOwner.run(owner);
    }
  }

  /**
   * Stores a session. With a budget, first evicts (oldest first) the owner's sessions that would
   * exceed `maxSessionsPerOwner` and then anyone's that would take the total past
   * `maxTotalBytes`; the new session itself is always kept. One immediate transaction.
   */
  async create(session: StoredSession, hits: NewSession['hits'], budget?: SessionBudget): Promise<void> {
    this.write(() => this.db.transaction(() => this.insertSession(session, hits, budget)).immediate());
  }

  /** SessionStore.createMany: the sessions in order, as `create` would, in ONE immediate transaction (one commit, one lock). */
  async createMany(sessions: readonly NewSession[], budget?: SessionBudget): Promise<void> {
    if (sessions.length === 0) return;
    this.write(() => this.db.transaction(() => {
      for (const { session, hits } of sessions) this.insertSession(session, hits, budget);
    }).immediate());
  }

  /** One session of `create`: evictions, then the row and its hit blocks; inside the caller's transaction. */
  private insertSession(session: StoredSession, hits: NewSession['hits'], budget: SessionBudget | undefined): void {
    const blocks = blocksOf(hits);
    const state: SessionState = {
      ...(session.organization !== undefined ? { organization: session.organization } : {}),
      ...(session.text !== undefined ? { text: session.text } : {}),
      ...(session.facets !== undefined ? { facets: session.facets } : {}),
    };
    const stateJson = Object.keys(state).length > 0 ? JSON.stringify(state) : null;
    const bytes = SESSION_ROW_BYTES + (stateJson === null ? 0 : Buffer.byteLength(stateJson)) + blocks.reduce((sum, b) => sum + packedBytes(b) + BLOCK_ROW_BYTES, 0);
    if (budget) {
      const excess = (this.stmt.countOwned.get(session.principal) ?? 0) + 1 - budget.maxSessionsPerOwner;
      if (excess > 0) this.remove(this.stmt.oldestOwned.all(session.principal, excess));
      let over = this.stmt.totalBytes.get()! + bytes - budget.maxTotalBytes;
      while (over > 0) {
        const victims: Victim[] = [];
        for (const row of this.stmt.oldest.all(64)) {
          if (over <= 0) break;
          victims.push(row);
          over -= row.bytes;
        }
        if (victims.length === 0) break;
        this.remove(victims);
      }
    }
    const { lastInsertRowid } = this.stmt.insert.run(
      session.sessionId, session.principal, session.createdAt, session.expiresAt, session.imageId, session.language ?? null, session.total, hitCount(hits), bytes, stateJson,
    );
    const seq = Number(lastInsertRowid);
    blocks.forEach((packed, block) => this.stmt.insertBlock.run(seq * BLOCKS_PER_SESSION + block, packed.cardIds, packed.scores));
    this.stmt.addBytes.run(bytes);
    this.stmt.addOwned.run(session.principal, 1, 1);
  }

  /** Runs a write transaction under the process's write lock when there is one. */
  private write<T>(transaction: () => T): T {
    return this.writeLock ? this.writeLock.run(transaction) : transaction();
  }

  async get(sessionId: string): Promise<StoredSession | undefined> {
    const row = this.stmt.get.get(sessionId);
    if (!row) return undefined;
    const state = row.state === null ? {} : (JSON.parse(row.state) as SessionState);
    return {
      sessionId: row.session_id,
      principal: row.owner,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      imageId: row.image_id,
      language: row.language ?? undefined,
      total: row.total,
      stored: row.stored,
      ...(state.organization !== undefined ? { organization: state.organization } : {}),
      ...(state.text !== undefined ? { text: state.text } : {}),
      ...(state.facets !== undefined ? { facets: state.facets } : {}),
    };
  }

  async readHits(sessionId: string, skip: number, limit: number): Promise<SessionHits> {
    const hits: SessionHits = { cardIds: [] };
    if (limit <= 0) return hits;
    const row = this.stmt.get.get(sessionId);
    if (!row) return hits;
    const { first, last } = blockRange(skip, limit);
    const base = row.seq * BLOCKS_PER_SESSION;
    for (const block of this.stmt.blocks.all(base + first, base + Math.min(last, BLOCKS_PER_SESSION - 1))) {
      readBlock(hits, block.id - base, { cardIds: block.card_ids, scores: block.scores }, skip, limit);
    }
    return hits;
  }

  /**
   * Deletes at most `max` sessions that expired by `nowMicros`, then returns the free pages to the
   * file system (incremental vacuum, and a WAL checkpoint so the truncated file is what remains).
   */
  async purgeExpired(nowMicros: number, max: number): Promise<number> {
    const purged = this.write(() => this.db.transaction(() => {
      const rows = this.stmt.expired.all(nowMicros, max);
      this.remove(rows);
      return rows.length;
    }).immediate());
    if (purged > 0) this.compact();
    return purged;
  }

  /** Gives free pages back (auto_vacuum = INCREMENTAL) and checkpoints the WAL into the shrunk file. */
  compact(): void {
    this.db.pragma('incremental_vacuum');
    // PASSIVE never waits for readers; a busy checkpoint is simply retried next time.
    if (this.db.pragma('journal_mode', { simple: true }) === 'wal') this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  /** Live sessions and the bytes they count against the budget (tests, the soak benchmark). */
  usage(): { sessions: number; bytes: number } {
    return { sessions: this.stmt.count.get()!, bytes: this.stmt.totalBytes.get()! };
  }

  /** SessionStore.size: {@link usage} (metrics). */
  async size(): Promise<{ sessions: number; bytes: number }> {
    return this.usage();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
