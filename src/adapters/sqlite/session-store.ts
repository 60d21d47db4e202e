/**
 * Search sessions (decisions §8) in their own SQLite file, `sessions.db` in the data directory
 * (in memory for an in-memory catalog). Sessions are a 24-hour cache, not catalog data: keeping
 * them out of catalog.db spares every search an fsync (synchronous=NORMAL here, FULL there), keeps
 * search writes from waiting on a catalog import's write lock, and keeps the catalog file free of
 * churn. Losing the file loses only open sessions (their reads answer 404).
 *
 * A session's hits are result-card ids (see search-index.ts) in blocks of {@link BLOCK_SIZE},
 * keyed (session_id, block): reading page k is one indexed range read of at most
 * ceil(limit / BLOCK_SIZE) + 1 rows, whatever k is.
 */
import Database from 'better-sqlite3';
import type { SessionStore } from '../../core/ports.js';
import { BUSY_TIMEOUT_MS, type SqliteDatabase } from './database.js';
import type { StoredSession } from '../../core/model.js';

/** File name of the session database inside a data directory. */
export const SESSIONS_FILE = 'sessions.db';
/** Hits per stored block (8 KiB: few rows to write, little to decode for a page). */
export const BLOCK_SIZE = 1024;
const SCHEMA_VERSION = 1;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,          -- token name of the creator; nobody else may read it
    created_at INTEGER NOT NULL,      -- microseconds since the epoch
    expires_at INTEGER NOT NULL,
    image_id TEXT,                    -- the stored query image; NULL for a text search
    language TEXT,                    -- the request's language, for the name of each result
    total INTEGER NOT NULL,           -- resultsTotalCount: every hit, stored or not
    stored INTEGER NOT NULL           -- hits stored (at most the configured maximum)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions(expires_at);
  CREATE TABLE IF NOT EXISTS session_hits (
    session_id TEXT NOT NULL,
    block INTEGER NOT NULL,           -- hits [block * 1024, block * 1024 + 1024)
    card_ids BLOB NOT NULL,           -- float64 little-endian card ids, in rank order
    PRIMARY KEY (session_id, block)
  ) WITHOUT ROWID;
`;

interface SessionRow {
  session_id: string;
  principal: string;
  created_at: number;
  expires_at: number;
  image_id: string | null;
  language: string | null;
  total: number;
  stored: number;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function encode(ids: readonly number[]): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(Float64Array.from(ids).buffer);
  const buf = Buffer.allocUnsafe(ids.length * 8);
  ids.forEach((id, i) => buf.writeDoubleLE(id, i * 8));
  return buf;
}

/** Card ids [from, to) of a block. */
function decode(buf: Buffer, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to && i * 8 < buf.length; i++) out.push(buf.readDoubleLE(i * 8));
  return out;
}

/** Opens (creating) the session database at `path` (":memory:" for none on disk). */
export function openSessionDatabase(path: string): SqliteDatabase {
  const db = new Database(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  // A crash may lose the last sessions, never corrupt the file (WAL + NORMAL); no fsync per search.
  db.pragma('synchronous = NORMAL');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new Error(`the session database ${path} has schema version ${version}, newer than this program's ${SCHEMA_VERSION}: upgrade catalog`);
  if (version < SCHEMA_VERSION) {
    db.transaction(() => {
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  }
  return db;
}

/** The SQLite implementation of the SessionStore port. */
export class SqliteSessionStore implements SessionStore {
  readonly db: SqliteDatabase;
  private readonly stmt;

  constructor(db: SqliteDatabase) {
    this.db = db;
    this.stmt = {
      insert: db.prepare<[string, string, number, number, string | null, string | null, number, number]>(
        'INSERT INTO sessions (session_id, principal, created_at, expires_at, image_id, language, total, stored) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      insertBlock: db.prepare<[string, number, Buffer]>('INSERT INTO session_hits (session_id, block, card_ids) VALUES (?, ?, ?)'),
      get: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE session_id = ?'),
      blocks: db.prepare<[string, number, number], { block: number; card_ids: Buffer }>(
        'SELECT block, card_ids FROM session_hits WHERE session_id = ? AND block BETWEEN ? AND ? ORDER BY block',
      ),
      expired: db.prepare<[number, number], string>('SELECT session_id FROM sessions WHERE expires_at <= ? LIMIT ?').pluck(),
      deleteHits: db.prepare<[string]>('DELETE FROM session_hits WHERE session_id = ?'),
      deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE session_id = ?'),
    };
  }

  async create(session: StoredSession, cardIds: readonly number[]): Promise<void> {
    this.db.transaction(() => {
      this.stmt.insert.run(session.sessionId, session.principal, session.createdAt, session.expiresAt, session.imageId, session.language ?? null, session.total, cardIds.length);
      for (let block = 0; block * BLOCK_SIZE < cardIds.length; block++) {
        this.stmt.insertBlock.run(session.sessionId, block, encode(cardIds.slice(block * BLOCK_SIZE, (block + 1) * BLOCK_SIZE)));
      }
    }).immediate();
  }

  async get(sessionId: string): Promise<StoredSession | undefined> {
    const row = this.stmt.get.get(sessionId);
    if (!row) return undefined;
    return {
      sessionId: row.session_id,
      principal: row.principal,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      imageId: row.image_id,
      language: row.language ?? undefined,
      total: row.total,
      stored: row.stored,
    };
  }

  async readHits(sessionId: string, skip: number, limit: number): Promise<number[]> {
    if (limit <= 0) return [];
    const first = Math.floor(skip / BLOCK_SIZE);
    const last = Math.floor((skip + limit - 1) / BLOCK_SIZE);
    const ids: number[] = [];
    for (const row of this.stmt.blocks.all(sessionId, first, last)) {
      const start = row.block * BLOCK_SIZE;
      ids.push(...decode(row.card_ids, Math.max(0, skip - start), Math.min(BLOCK_SIZE, skip + limit - start)));
    }
    return ids;
  }

  async purgeExpired(nowMicros: number, max: number): Promise<number> {
    return this.db.transaction(() => {
      const ids = this.stmt.expired.all(nowMicros, max);
      for (const id of ids) {
        this.stmt.deleteHits.run(id);
        this.stmt.deleteSession.run(id);
      }
      return ids.length;
    }).immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
