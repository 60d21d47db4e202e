/**
 * Search sessions in PostgreSQL (decisions §8), so that a session started through one server is
 * paged through any other. Hits are stored as blocks packed like the SQLite store's
 * (../session-blocks.ts: zigzag-delta varints, uint16 scores for image searches): reading page k is
 * one indexed read of at most ceil(limit / 1024) + 1 rows. Session writes take their own
 * advisory lock (not the catalog write lock), so a search never waits on an import; the byte
 * budget is kept in session_totals, updated with every insert and delete.
 */
import { Batches } from '../../core/batches.js';
import type { NewSession, SessionBudget, SessionStore } from '../../core/ports.js';
import type { SessionHits, StoredSession } from '../../core/model.js';
import { blockRange, blocksOf, hitCount, packedBytes, readBlock, SESSION_ROW_BYTES } from '../session-blocks.js';
import { SESSION_LOCK, type PgClient, type PgDatabase } from './database.js';

/** Bytes a hit block row costs besides its packed ids (tuple header, keys). */
const BLOCK_ROW_BYTES = 40;

/** Most sessions one group writes (one transaction). */
const MAX_GROUP = 64;

/** A session waiting for its group (PgSessionStore.create). */
interface WaitingSession {
  entry: NewSession;
  budget: SessionBudget | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

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
  organization: string | null;
  text: string | null;
  facets: string | null;
}

/** The PostgreSQL implementation of the SessionStore port. */
export class PgSessionStore implements SessionStore {
  private readonly db: PgDatabase;
  /** Sessions waiting for the next group (create). */
  private readonly groups = new Batches<WaitingSession>(MAX_GROUP, (group) => this.writeGroup(group));

  constructor(db: PgDatabase) {
    this.db = db;
  }

  /** Deletes sessions (hits cascade) and takes their bytes off the total; inside the caller's transaction. */
  private async remove(c: PgClient, rows: readonly { seq: number; bytes: number }[]): Promise<void> {
    if (rows.length === 0) return;
    await c.query('DELETE FROM sessions WHERE seq = ANY($1::bigint[])', [rows.map((r) => r.seq)]);
    await c.query('UPDATE session_totals SET bytes = bytes - $1 WHERE id = 1', [rows.reduce((sum, r) => sum + r.bytes, 0)]);
  }

  /**
   * SessionStore.create: the session joins the group of sessions written together (one
   * transaction, one take of the session lock, one commit) and resolves when that group has
   * committed, so the session is stored before its search answers (a page of it may come through
   * another server). Sessions arriving while a group is written form the next group. Written one
   * transaction each, under 50 connections the session lock passed from search to search at the
   * pace of each transaction's round trips, and searches queued behind it.
   */
  create(session: StoredSession, hits: NewSession['hits'], budget?: SessionBudget): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.groups.add({ entry: { session, hits }, budget, resolve, reject });
    });
  }

  /** Writes one group of sessions (create) in one transaction, each resolved or rejected with it. */
  private async writeGroup(group: readonly WaitingSession[]): Promise<void> {
    try {
      await this.write(group.map((w) => ({ entry: w.entry, budget: w.budget })));
      for (const w of group) w.resolve();
    } catch (error) {
      for (const w of group) w.reject(error);
    }
  }

  /** SessionStore.createMany: the sessions in order, as `create` would each, in one transaction. */
  async createMany(sessions: readonly NewSession[], budget?: SessionBudget): Promise<void> {
    if (sessions.length === 0) return;
    await this.write(sessions.map((entry) => ({ entry, budget })));
  }

  /** Stores `sessions` in order, each with its budget's evictions, in one transaction under the session lock. */
  private async write(sessions: readonly { entry: NewSession; budget: SessionBudget | undefined }[]): Promise<void> {
    await this.db.write(async (c) => {
      // A session is a cache (as SQLite's sessions.db, written without fsync): its commit does not
      // wait for the WAL flush; a crash may lose the last sessions, never the catalog (measured:
      // bench/results.md, "Search engine on PostgreSQL").
      await c.query('SET LOCAL synchronous_commit = off');
      // What the budget checks read, read once per transaction and kept up to date here.
      const owned = new Map<string, number>();
      let total: number | undefined;
      let added = 0;
      for (const { entry: { session, hits }, budget } of sessions) {
        const blocks = blocksOf(hits);
        const bytes = SESSION_ROW_BYTES + blocks.reduce((sum, b) => sum + packedBytes(b) + BLOCK_ROW_BYTES, 0);
        if (budget) {
          let count = owned.get(session.principal);
          if (count === undefined) count = (await c.query<{ n: number }>('SELECT count(*) AS n FROM sessions WHERE owner = $1', [session.principal])).rows[0]?.n ?? 0;
          const excess = count + 1 - budget.maxSessionsPerOwner;
          if (excess > 0) {
            const victims = (await c.query<{ seq: number; bytes: number; owner: string }>('SELECT seq, bytes, owner FROM sessions WHERE owner = $1 ORDER BY seq LIMIT $2', [session.principal, excess])).rows;
            await this.remove(c, victims);
            count -= victims.length;
            total = undefined;
          }
          owned.set(session.principal, count);
          total ??= ((await c.query<{ bytes: number }>('SELECT bytes FROM session_totals WHERE id = 1')).rows[0]?.bytes ?? 0) + added;
          let over = total + bytes - budget.maxTotalBytes;
          while (over > 0) {
            const victims: { seq: number; bytes: number; owner: string }[] = [];
            for (const row of (await c.query<{ seq: number; bytes: number; owner: string }>('SELECT seq, bytes, owner FROM sessions ORDER BY seq LIMIT 64')).rows) {
              if (over <= 0) break;
              victims.push(row);
              over -= row.bytes;
            }
            if (victims.length === 0) break;
            await this.remove(c, victims);
            for (const v of victims) if (owned.has(v.owner)) owned.set(v.owner, (owned.get(v.owner) ?? 1) - 1);
            total -= victims.reduce((sum, v) => sum + v.bytes, 0);
          }
          total += bytes;
          owned.set(session.principal, (owned.get(session.principal) ?? 0) + 1);
        }
        // The row and its hit blocks in one statement.
        await c.query(
          `WITH s AS (
             INSERT INTO sessions (session_id, owner, created_at, expires_at, image_id, language, total, stored, bytes, organization, text, facets)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING seq)
           INSERT INTO session_hits (session_seq, block, card_ids, scores)
           SELECT s.seq, u.b - 1, u.d, u.s FROM s, unnest($13::bytea[], $14::bytea[]) WITH ORDINALITY AS u(d, s, b)`,
          [session.sessionId, session.principal, session.createdAt, session.expiresAt, session.imageId, session.language ?? null, session.total, hitCount(hits), bytes,
            session.organization ?? null, session.text ?? null, session.facets === undefined ? null : JSON.stringify(session.facets),
            blocks.map((b) => b.cardIds), blocks.map((b) => b.scores)],
        );
        added += bytes;
      }
      await c.query('UPDATE session_totals SET bytes = bytes + $1 WHERE id = 1', [added]);
    }, SESSION_LOCK);
  }

  async get(sessionId: string): Promise<StoredSession | undefined> {
    const row = (await this.db.query<SessionRow>('SELECT * FROM sessions WHERE session_id = $1', [sessionId]))[0];
    if (!row) return undefined;
    return {
      sessionId: row.session_id, principal: row.owner, createdAt: row.created_at, expiresAt: row.expires_at, imageId: row.image_id,
      language: row.language ?? undefined, total: row.total, stored: row.stored,
      ...(row.organization !== null ? { organization: row.organization } : {}),
      ...(row.text !== null ? { text: row.text } : {}),
      ...(row.facets !== null ? { facets: JSON.parse(row.facets) as StoredSession['facets'] } : {}),
    };
  }

  async readHits(sessionId: string, skip: number, limit: number): Promise<SessionHits> {
    const hits: SessionHits = { cardIds: [] };
    if (limit <= 0) return hits;
    const { first, last } = blockRange(skip, limit);
    const blocks = await this.db.query<{ block: number; card_ids: Buffer; scores: Buffer | null }>(
      'SELECT h.block, h.card_ids, h.scores FROM session_hits h JOIN sessions s ON s.seq = h.session_seq WHERE s.session_id = $1 AND h.block BETWEEN $2 AND $3 ORDER BY h.block',
      [sessionId, first, last],
    );
    for (const b of blocks) readBlock(hits, b.block, { cardIds: b.card_ids, scores: b.scores }, skip, limit);
    return hits;
  }

  async purgeExpired(nowMicros: number, max: number): Promise<number> {
    return this.db.write(async (c) => {
      const rows = (await c.query<{ seq: number; bytes: number }>('SELECT seq, bytes FROM sessions WHERE expires_at <= $1 LIMIT $2', [nowMicros, max])).rows;
      await this.remove(c, rows);
      return rows.length;
    }, SESSION_LOCK);
  }

  /** SessionStore.size: {@link usage} (metrics). */
  size(): Promise<{ sessions: number; bytes: number }> {
    return this.usage();
  }

  /** Live sessions and the bytes they count against the budget (tests). */
  async usage(): Promise<{ sessions: number; bytes: number }> {
    const n = (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM sessions'))[0]?.n ?? 0;
    const bytes = (await this.db.query<{ bytes: number }>('SELECT bytes FROM session_totals WHERE id = 1'))[0]?.bytes ?? 0;
    return { sessions: n, bytes };
  }

  async close(): Promise<void> {
    // The pool is shared: PgStores.close() ends it.
  }
}
