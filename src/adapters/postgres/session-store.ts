/**
 * Search sessions in PostgreSQL (decisions §8), so that a session started through one server is
 * paged through any other. Hits are stored as blocks packed like the SQLite store's
 * (../session-blocks.ts: zigzag-delta varints, uint16 scores for image searches): reading page k is
 * one indexed read of at most ceil(limit / 1024) + 1 rows. Session writes take their own
 * advisory lock (not the catalog write lock), so a search never waits on an import; the byte
 * budget is kept in session_totals, updated with every insert and delete, and each owner's count
 * in session_owners, kept by triggers on sessions (migration 15).
 */
import { Batches } from '../../core/batches.js';
import type { NewSession, SessionBudget, SessionStore } from '../../core/ports.js';
import type { SessionHits, StoredSession } from '../../core/model.js';
import { blockRange, blocksOf, hitCount, packedBytes, readBlock, SESSION_ROW_BYTES, type PackedBlock } from '../session-blocks.js';
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

/** A session of a group to store (PgSessionStore.write): its packed blocks and the bytes it counts. */
interface SessionToStore {
  entry: NewSession;
  budget: SessionBudget | undefined;
  blocks: PackedBlock[];
  bytes: number;
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

  /**
   * Stores `sessions` in order, in one transaction under the session lock, with the evictions their
   * budgets call for: per owner, its oldest sessions beyond `maxSessionsPerOwner` (counting those
   * of the group; when a group alone holds more, its first ones go unstored); then, overall, the
   * oldest sessions until the bytes fit `maxTotalBytes`. A fixed number of statements whatever the
   * group's size: each statement holds the session lock while it waits for its answer, and a search
   * answers only once its session has committed, so statements per session would be most of a
   * search's time under load (docs/decisions/0046).
   */
  private async write(sessions: readonly { entry: NewSession; budget: SessionBudget | undefined }[]): Promise<void> {
    const rows: SessionToStore[] = sessions.map(({ entry, budget }) => {
      const blocks = blocksOf(entry.hits);
      return { entry, budget, blocks, bytes: SESSION_ROW_BYTES + blocks.reduce((sum, b) => sum + packedBytes(b) + BLOCK_ROW_BYTES, 0) };
    });
    // A session is a cache (as SQLite's sessions.db, written without fsync): its commit does not
    // wait for the WAL flush; a crash may lose the last sessions, never the catalog (measured:
    // bench/results.md, "Search engine on PostgreSQL").
    await this.db.write(async (c) => {
      const { kept, freed } = await this.makeRoom(c, rows);
      const change = kept.reduce((sum, r) => sum + r.bytes, 0) - freed;
      if (kept.length > 0) await this.insert(c, kept, change);
      else if (change !== 0) await c.query('UPDATE session_totals SET bytes = bytes + $1 WHERE id = 1', [change]);
    }, SESSION_LOCK, { synchronousCommit: false });
  }

  /**
   * Deletes what the budgets of `rows` call for (write) and says which of `rows` to store and how
   * many bytes the deleted sessions held. One statement reads the owners' counts and the byte
   * total, one deletes the owners' oldest; only a group that passes the byte budget reads more.
   */
  private async makeRoom(c: PgClient, rows: readonly SessionToStore[]): Promise<{ kept: SessionToStore[]; freed: number }> {
    const budgets = rows.flatMap((r) => (r.budget ? [r.budget] : []));
    if (budgets.length === 0) return { kept: [...rows], freed: 0 };
    const owners = [...new Set(rows.filter((r) => r.budget).map((r) => r.entry.session.principal))];
    const state = (await c.query<{ owner: string | null; n: number }>(
      'SELECT owner, sessions AS n FROM session_owners WHERE owner = ANY($1::text[]) UNION ALL SELECT NULL, bytes FROM session_totals WHERE id = 1',
      [owners],
    )).rows;
    const stored = new Map(state.flatMap((r) => (r.owner === null ? [] : [[r.owner, r.n] as const])));
    let total = state.find((r) => r.owner === null)?.n ?? 0;
    // Per owner, in order: how many stored sessions go, and which of the group's own go unstored.
    const dropped = new Set<SessionToStore>();
    const evict = new Map<string, number>();
    const ownNew = new Map<string, SessionToStore[]>();
    for (const row of rows) {
      const owner = row.entry.session.principal;
      const mine = ownNew.get(owner) ?? [];
      ownNew.set(owner, mine);
      if (row.budget) {
        let excess = (stored.get(owner) ?? 0) - (evict.get(owner) ?? 0) + mine.length + 1 - row.budget.maxSessionsPerOwner;
        for (; excess > 0; excess--) {
          if ((stored.get(owner) ?? 0) > (evict.get(owner) ?? 0)) evict.set(owner, (evict.get(owner) ?? 0) + 1);
          else {
            const first = mine.shift();
            if (first) dropped.add(first);
          }
        }
      }
      mine.push(row);
    }
    let freed = 0;
    const victims = [...evict].filter(([, n]) => n > 0);
    if (victims.length > 0) {
      freed += (await c.query<{ bytes: number }>(
        // ANY(ARRAY(...)): the victims are found by the owner index and deleted by primary key;
        // as an IN (...) semi-join the planner scanned the whole table for them.
        `DELETE FROM sessions WHERE seq = ANY(ARRAY(
           SELECT v.seq FROM unnest($1::text[], $2::int[]) AS e(owner, n) CROSS JOIN LATERAL (SELECT seq FROM sessions WHERE owner = e.owner ORDER BY owner, seq LIMIT e.n) v))
         RETURNING bytes`,
        [victims.map(([owner]) => owner), victims.map(([, n]) => n)],
      )).rows.reduce((sum, r) => sum + r.bytes, 0);
    }
    const kept = rows.filter((r) => !dropped.has(r));
    total -= freed;
    const maxTotalBytes = Math.min(...budgets.map((b) => b.maxTotalBytes));
    let over = total + kept.reduce((sum, r) => sum + r.bytes, 0) - maxTotalBytes;
    // The oldest stored sessions go first, then the group's own, first ones first.
    while (over > 0) {
      const oldest = (await c.query<{ seq: number; bytes: number }>('SELECT seq, bytes FROM sessions ORDER BY seq LIMIT 64')).rows;
      const batch: number[] = [];
      for (const row of oldest) {
        if (over <= 0) break;
        batch.push(row.seq);
        over -= row.bytes;
        freed += row.bytes;
      }
      if (batch.length === 0) break;
      await c.query('DELETE FROM sessions WHERE seq = ANY($1::bigint[])', [batch]);
    }
    while (over > 0 && kept.length > 0) over -= (kept.shift() as SessionToStore).bytes;
    return { kept, freed };
  }

  /** Inserts `rows` and their hit blocks, and adds `totalChange` bytes to the budget's total, in one statement. */
  private async insert(c: PgClient, rows: readonly SessionToStore[], totalChange: number): Promise<void> {
    if (rows.length === 0) return;
    const column = <T>(pick: (s: StoredSession, r: SessionToStore) => T): T[] => rows.map((r) => pick(r.entry.session, r));
    const blocks = rows.flatMap((r) => r.blocks.map((b, i) => ({ sessionId: r.entry.session.sessionId, block: i, cardIds: b.cardIds, scores: b.scores })));
    await c.query(
      `WITH s AS (
         INSERT INTO sessions (session_id, owner, created_at, expires_at, image_id, language, total, stored, bytes, organization, text, facets)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::text[], $11::text[], $12::text[])
         RETURNING seq, session_id),
       totals AS (UPDATE session_totals SET bytes = bytes + $17 WHERE id = 1)
       INSERT INTO session_hits (session_seq, block, card_ids, scores)
       SELECT s.seq, h.block, h.card_ids, h.scores FROM s JOIN unnest($13::text[], $14::int[], $15::bytea[], $16::bytea[]) AS h(session_id, block, card_ids, scores) ON h.session_id = s.session_id`,
      [
        column((s) => s.sessionId), column((s) => s.principal), column((s) => s.createdAt), column((s) => s.expiresAt), column((s) => s.imageId),
        column((s) => s.language ?? null), column((s) => s.total), column((s, r) => hitCount(r.entry.hits)), column((_s, r) => r.bytes),
        column((s) => s.organization ?? null), column((s) => s.text ?? null), column((s) => (s.facets === undefined ? null : JSON.stringify(s.facets))),
        blocks.map((b) => b.sessionId), blocks.map((b) => b.block), blocks.map((b) => b.cardIds), blocks.map((b) => b.scores),
        totalChange,
      ],
    );
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
