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
