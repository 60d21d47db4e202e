/**
 * The PostgreSQL search engine's round trips (adapters/postgres/search/search-index.ts and
 * engine-reader.ts): searches that arrive together run as one batch in one snapshot, their fetches
 * shared (one statement per kind of data for the whole batch), rather than one after another each
 * with its own snapshot and fetch round trips (under 50 connections the queue of those round trips
 * was most of a search's time); and every part in part id order (a search or facet values
 * without words) comes from the engine's doc arrays, not from a scan of `parts`; sessions stored
 * together are one transaction, their budget kept as one by one; writes waiting for the catalog
 * write lock wait in this process, not each on a pooled connection. Statements are counted as the
 * driver sends them, in this process.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCK_CLASS, WRITE_LOCK } from '../../src/adapters/postgres/database.js';
import type { PgSessionStore } from '../../src/adapters/postgres/session-store.js';
import { openPostgresStores, type PostgresStores } from '../../src/adapters/postgres/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import type { StoredPart, StoredSession, TextSearchQuery } from '../../src/core/model.js';
import { createTestDatabase, createTestSchema, postgresAvailable } from '../services/services.js';

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const stored = (i: number, suffix = ''): StoredPart => ({
  part_id: `p${String(i).padStart(4, '0')}`, serviceId: `s${i}`, name: { en: `${WORDS[i % WORDS.length]} unit${i}${suffix}` }, attributes: [], createdAt: 1, modifiedAt: 1 + i,
});
const query = (words: readonly string[]): TextSearchQuery => ({
  words: words.map((w, i) => ({ tokens: [w], prefix: i === words.length - 1, typo: true })),
  visibleValues: ['factoryWorker'],
  filters: [],
  ctx: { principal: { name: 'x', roles: ['factoryWorker'], organization: null } as never, attributes: new Map(), organizations: new Map(), organization: undefined },
});

describe.skipIf(!postgresAvailable())('PostgreSQL search round trips', () => {
  let stores: PostgresStores;
  let url = '';
  const sent: string[] = [];
  /** While set, every COMMIT this process sends waits for it first. */
  let commitsWait: Promise<void> | undefined;
  const sessionUsage = () => (stores.sessions as PgSessionStore).usage();
  /** The kept per-owner counts, and the counts of the stored sessions. */
  const ownerCounts = async () => (await stores.db.pool.query<{ owner: string; n: number }>('SELECT owner, sessions AS n FROM session_owners ORDER BY owner')).rows.map((r): [string, number] => [r.owner, Number(r.n)]);
  const storedOwnerCounts = async () => (await stores.db.pool.query<{ owner: string; n: number }>('SELECT owner, count(*) AS n FROM sessions GROUP BY owner ORDER BY owner')).rows.map((r): [string, number] => [r.owner, Number(r.n)]);
  const write = async (items: StoredPart[]) => {
    await stores.catalog.upsertParts(items.map((p) => ({ part_id: p.part_id })), (_item, existing) => ({ kind: 'write', value: items.find((p) => p.part_id === _item.part_id) as StoredPart, created: existing === undefined }));
  };

  beforeAll(async () => {
    ({ url } = await createTestSchema(await createTestDatabase('batches')));
    stores = await openPostgresStores(url, { clock: systemClock(), max: 4 });
    await write(Array.from({ length: 200 }, (_, i) => stored(i)));
    const send = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (text !== undefined) sent.push(text);
      if (text === 'COMMIT' && commitsWait) return commitsWait.then(() => (send as (...a: unknown[]) => unknown).apply(this, args));
      return (send as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof send);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await stores?.close();
  });

  it('runs searches that arrive together in one snapshot, with one statement per kind of data for all of them', async () => {
    // One search alone after a write: the (warm) cache refreshes and fetches.
    await stores.searchIndex.searchText(query(['hotel']), 100);
    await write([stored(0, ' first')]);
    sent.length = 0;
    expect((await stores.searchIndex.searchText(query(['alpha', 'uni']), 100)).total).toBe(25);
    const alone = sent.length;

    // Seven searches at once after another write: their answers as alone, one snapshot, and no
    // more statements than one search alone (each kind of data fetched once for all seven).
    await write([stored(0, ' second')]);
    sent.length = 0;
    const totals = await Promise.all(WORDS.slice(1).map(async (w) => (await stores.searchIndex.searchText(query([w, 'uni']), 100)).total));
    expect(totals).toEqual(WORDS.slice(1).map(() => 25));
    expect(sent.filter((s) => s.includes('REPEATABLE READ'))).toHaveLength(1);
    expect(sent.length).toBeLessThanOrEqual(alone);
  });

  it('sends a batch\'s refresh with its BEGIN and answers it before the snapshot\'s COMMIT comes back', async () => {
    await write([stored(3, ' moved')]);
    let release = () => {};
    commitsWait = new Promise<void>((resolve) => { release = resolve; });
    sent.length = 0;
    try {
      const answered = stores.searchIndex.searchText(query(['moved']), 100).then((hits) => hits.total);
      const late = new Promise<string>((resolve) => setTimeout(() => resolve('waited for COMMIT'), 2000));
      expect(await Promise.race([answered, late])).toBe(1);
      expect(sent.filter((s) => s.startsWith('BEGIN') && s.includes('engine_stats'))).toHaveLength(1);
      expect(sent.filter((s) => /^BEGIN[^;]*$/.test(s))).toEqual([]);
    } finally {
      commitsWait = undefined;
      release();
    }
  });

  it('takes every part in part id order from the doc arrays, not from a scan of parts', async () => {
    await write([stored(0, ' third')]);
    sent.length = 0;
    const all = await stores.searchIndex.searchText(query([]), 3);
    expect(all.total).toBe(200);
    expect((await stores.searchIndex.readCards(all.cardIds)).map((c) => c.partId)).toEqual(['p0000', 'p0001', 'p0002']);
    expect(sent.filter((s) => /FROM parts|FROM search_current/.test(s))).toEqual([]);
  });

  it('stores the sessions that arrive together in one transaction, each within the per-owner budget as if stored alone', async () => {
    const session = (id: string, owner: string): StoredSession => ({ sessionId: id, principal: owner, createdAt: 0, expiresAt: Number.MAX_SAFE_INTEGER, imageId: null, language: undefined, total: 3, stored: 3 });
    const budget = { maxSessionsPerOwner: 2, maxTotalBytes: 1 << 30 };
    await stores.sessions.create(session('first', 'token:b'), { cardIds: [1, 2, 3] }, budget);
    sent.length = 0;
    await Promise.all(['a0', 'a1', 'a2', 'b1', 'b2'].map((id) => stores.sessions.create(session(id, `token:${id[0]}`), { cardIds: [3, 2, 1] }, budget)));
    expect(sent.filter((s) => s.startsWith('BEGIN'))).toHaveLength(1);
    // In order, the oldest of an owner evicted first: token:a keeps a1 and a2, token:b b1 and b2.
    const kept = await Promise.all(['first', 'a0', 'a1', 'a2', 'b1', 'b2'].map(async (id) => (await stores.sessions.get(id)) !== undefined));
    expect(kept).toEqual([false, false, true, true, true, true]);
    expect((await stores.sessions.readHits('a2', 0, 10)).cardIds).toEqual([3, 2, 1]);
  });

  it('stores a group of sessions in a fixed number of statements, whatever its size, its owners and their evictions', async () => {
    const session = (id: string, owner: string): StoredSession => ({ sessionId: id, principal: owner, createdAt: 0, expiresAt: Number.MAX_SAFE_INTEGER, imageId: null, language: undefined, total: 3, stored: 3 });
    const budget = { maxSessionsPerOwner: 4, maxTotalBytes: 1 << 30 };
    const owners = ['token:x', 'token:y', 'token:z'];
    for (const owner of owners) for (let i = 0; i < 4; i++) await stores.sessions.create(session(`old-${owner}-${i}`, owner), { cardIds: [i, 1, 2] }, budget);
    const before = await sessionUsage();
    sent.length = 0;
    // 30 sessions at once: each owner's 10 new ones leave room for 4, so every old one goes and 6 new ones of each with them.
    const ids = Array.from({ length: 30 }, (_, i) => `new-${i}`);
    await Promise.all(ids.map((id, i) => stores.sessions.create(session(id, owners[i % 3] as string), { cardIds: [i, 7, 8, 9] }, budget)));
    const begins = sent.filter((s) => s.startsWith('BEGIN')).length;
    // BEGIN with the lock, the owners' counts, one delete, one insert, COMMIT.
    expect(sent.length / begins).toBeLessThanOrEqual(5);
    const kept = await Promise.all([...owners.flatMap((o) => [0, 1, 2, 3].map((i) => `old-${o}-${i}`)), ...ids].map(async (id) => (await stores.sessions.get(id)) !== undefined));
    expect(kept.slice(0, 12).every((k) => !k)).toBe(true);
    // The last 4 of each owner stay: new-18 .. new-29.
    expect(kept.slice(12)).toEqual(ids.map((_, i) => i >= 18));
    expect((await stores.sessions.readHits('new-29', 0, 10)).cardIds).toEqual([29, 7, 8, 9]);
    // The byte total counts exactly the sessions kept.
    const after = await sessionUsage();
    expect(after.sessions).toBe(before.sessions);
    const rows = (await stores.db.pool.query<{ sum: number }>("SELECT coalesce(sum(bytes), 0)::bigint AS sum FROM sessions")).rows[0]?.sum;
    expect(after.bytes).toBe(Number(rows));
  });

  it('evicts the oldest sessions of any owner when a group would pass the byte budget, and counts what stays', async () => {
    const session = (id: string, owner: string): StoredSession => ({ sessionId: id, principal: owner, createdAt: 0, expiresAt: Number.MAX_SAFE_INTEGER, imageId: null, language: undefined, total: 3, stored: 3 });
    await stores.db.pool.query('DELETE FROM sessions');
    await stores.db.pool.query('UPDATE session_totals SET bytes = 0');
    await stores.sessions.create(session('probe', 'token:p'), { cardIds: [1, 2, 3] });
    const one = (await sessionUsage()).bytes;
    // Room for 5 sessions: 3 old ones and a group of 4 leave the newest 5.
    const budget = { maxSessionsPerOwner: 100, maxTotalBytes: one * 5 };
    for (const id of ['o1', 'o2']) await stores.sessions.create(session(id, 'token:q'), { cardIds: [1, 2, 3] }, budget);
    await Promise.all(['g1', 'g2', 'g3', 'g4'].map((id) => stores.sessions.create(session(id, 'token:r'), { cardIds: [3, 2, 1] }, budget)));
    const kept = await Promise.all(['probe', 'o1', 'o2', 'g1', 'g2', 'g3', 'g4'].map(async (id) => (await stores.sessions.get(id)) !== undefined));
    expect(kept).toEqual([false, false, true, true, true, true, true]);
    expect(await sessionUsage()).toEqual({ sessions: 5, bytes: one * 5 });
    expect((await ownerCounts()).filter(([, n]) => n !== 0)).toEqual(await storedOwnerCounts());
  });

  it('keeps each owner\'s session count through stores, evictions and expiry', async () => {
    const session = (id: string, owner: string, expiresAt = Number.MAX_SAFE_INTEGER): StoredSession => ({ sessionId: id, principal: owner, createdAt: 0, expiresAt, imageId: null, language: undefined, total: 3, stored: 3 });
    await stores.db.pool.query('DELETE FROM sessions');
    expect((await ownerCounts()).every(([, n]) => n === 0)).toBe(true);
    const budget = { maxSessionsPerOwner: 3, maxTotalBytes: 1 << 30 };
    await Promise.all(['s1', 's2', 's3', 's4', 's5'].map((id) => stores.sessions.create(session(id, 'token:s', 10), { cardIds: [1] }, budget)));
    await Promise.all(['t1', 't2'].map((id) => stores.sessions.create(session(id, 'token:t'), { cardIds: [2] }, budget)));
    expect(await storedOwnerCounts()).toEqual([['token:s', 3], ['token:t', 2]]);
    expect((await ownerCounts()).filter(([, n]) => n > 0)).toEqual(await storedOwnerCounts());
    expect(await stores.sessions.purgeExpired(11, 100)).toBe(3);
    expect((await ownerCounts()).filter(([, n]) => n > 0)).toEqual([['token:t', 2]]);
    // The budget then counts what is stored: token:s has room for 3 again.
    await Promise.all(['s6', 's7', 's8'].map((id) => stores.sessions.create(session(id, 'token:s'), { cardIds: [1] }, budget)));
    expect(await storedOwnerCounts()).toEqual([['token:s', 3], ['token:t', 2]]);
  });

  it('writes an update of 10 parts in few round trips: statements merged, each kind of row written once', async () => {
    // Every round trip of a write holds the catalog write lock while it waits for this process's
    // event loop (busy ranking under load): the statements, not PostgreSQL's work, set its hold time.
    await write([stored(7, ' warm')]);
    sent.length = 0;
    await write(Array.from({ length: 10 }, (_, i) => stored(10 + i * 17, ' renamed')));
    expect(sent.length).toBeLessThanOrEqual(10);
    expect((await stores.catalog.getParts(['p0027']))[0]?.name.en).toBe('delta unit27 renamed');
    expect((await stores.searchIndex.searchText(query(['renamed']), 100)).total).toBe(10);
  });

  it('queues writes for the write lock in this process: one pooled connection waits for it, reads still get one', async () => {
    // Another server holds the catalog write lock.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1, hashtext(current_schema()))', [LOCK_CLASS + WRITE_LOCK]);
      const writes = Promise.all([1, 2, 3].map((i) => write([stored(i, ' queued')])));
      const waiting = async () => Number((await other.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND NOT granted", [LOCK_CLASS + WRITE_LOCK])).rows[0].n);
      while ((await waiting()) === 0);
      await waiting();
      const pool = stores.db.pool;
      expect(pool.totalCount - pool.idleCount).toBe(1);
      expect(await waiting()).toBe(1);
      // A read is answered while the writes wait (the pool has 4 connections).
      expect((await stores.catalog.getParts(['p0001'])).map((p) => p.part_id)).toEqual(['p0001']);
      await other.query('SELECT pg_advisory_unlock($1, hashtext(current_schema()))', [LOCK_CLASS + WRITE_LOCK]);
      await writes;
      expect((await stores.catalog.getParts(['p0003']))[0]?.name.en).toBe('delta unit3 queued');
    } finally {
      await other.end();
    }
  });
});
