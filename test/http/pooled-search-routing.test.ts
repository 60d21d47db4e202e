/**
 * Where `catalog serve` answers a text search (src/http/pool/pooled-catalog.ts): a cheap
 * one on the main thread, within its budget of postings, and one that would read more on a reader
 * thread, with the same answer either way.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { poolCatalog, searchAffinity, threadCatalogOptions, type PooledCatalog } from '../../src/http/pool/pooled-catalog.js';
import { openCatalog } from '../../src/open-catalog.js';
import { openPooled, withSeededDataDir } from '../helpers/seeded-data-dir.js';

/** `count` parts p000… named by `name(i)`, upserted 1,000 at a time. */
async function seedParts(catalog: Catalog, count: number, name: (i: number) => string): Promise<void> {
  const width = String(count - 1).length;
  for (let at = 0; at < count; at += 1000) {
    const slice = Array.from({ length: Math.min(1000, count - at) }, (_, k) => ({ part_id: `p${String(at + k).padStart(Math.max(3, width), '0')}`, name: { en: name(at + k) } }));
    await catalog.service.upsertParts(LOCAL_OWNER, slice);
  }
}

describe('text searches on the main thread or a reader', () => {
  // "cog": 300 postings (3 blocks), over the budget of 200 below; "zebra": 2. Beside the pooled
  // catalog, the same directory opened plainly, for comparing answers.
  const fixture = withSeededDataDir(
    'catalog-route-',
    (setup) => seedParts(setup, 300, (i) => (i < 2 ? `Cog zebra ${i}` : `Cog ${i}`)),
    async (dir) => {
      const pooled = await openPooled(dir, { readers: 1, mainThreadSearchPostings: 200 });
      const plain = openCatalog({ dataDir: dir });
      return { pooled, plain, close: async () => { await pooled.close(); await plain.close(); } };
    },
  );
  let pooled: PooledCatalog;
  let plain: Catalog;
  beforeEach(() => {
    ({ pooled, plain } = fixture().opened);
  });

  const ids = (r: { results: { id?: string | undefined }[] }) => r.results.map((x) => x.id);

  it('answers a rare word on the main thread and a frequent one on a reader, alike', async () => {
    const rare = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'zebra' } });
    expect(pooled.searches).toEqual({ onMainThread: 1, onReaders: 0, answeredEarly: 0 });
    const frequent = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'cog' }, resultOptions: { limit: 50 } });
    // The reader was free: it answered once the page was ranked, then ranked the session.
    expect(pooled.searches).toEqual({ onMainThread: 1, onReaders: 1, answeredEarly: 1 });
    expect(rare.resultsTotalCount).toBe(2);
    expect(ids(rare)).toEqual(ids(await plain.search.search(LOCAL_OWNER, { matches: { text: 'zebra' } })));
    expect(frequent.resultsTotalCount).toBe(300);
    expect(ids(frequent)).toEqual(ids(await plain.search.search(LOCAL_OWNER, { matches: { text: 'cog' }, resultOptions: { limit: 50 } })));
    // Either session pages on any thread.
    expect(ids(await pooled.search.searchState(LOCAL_OWNER, rare.sessionId, { skip: 1 }))).toEqual(['p001']);
    expect((await pooled.search.searchState(LOCAL_OWNER, frequent.sessionId, { skip: 290 })).results).toHaveLength(10);
  });

  it('reports a bad request from the main thread as the reader would', async () => {
    await expect(pooled.search.search(LOCAL_OWNER, { matches: { text: 'zebra', nope: true } })).rejects.toMatchObject({ status: 400, code: 'bad_request' });
    expect(pooled.searches).toEqual({ onMainThread: 1, onReaders: 1, answeredEarly: 1 });
  });

  it('reads a small page of a session on the main thread, a large one or one with values on a reader, alike', async () => {
    const rare = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'zebra' } });
    const frequent = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
    const before = { ...pooled.pages };
    // The main thread's deferred session and a reader's session, each paged right after its search.
    const small = await pooled.search.searchState(LOCAL_OWNER, rare.sessionId, { skip: 1 });
    const hundred = await pooled.search.searchState(LOCAL_OWNER, frequent.sessionId, { skip: 100, limit: 100, projection: 'results.id,results.name' });
    expect(pooled.pages).toEqual({ onMainThread: before.onMainThread + 2, onReaders: before.onReaders });
    const large = await pooled.search.searchState(LOCAL_OWNER, frequent.sessionId, { skip: 50, limit: 101 });
    const valued = await pooled.search.searchState(LOCAL_OWNER, frequent.sessionId, { limit: 5, projection: ['results.id', 'results.attributes'] });
    expect(pooled.pages).toEqual({ onMainThread: before.onMainThread + 2, onReaders: before.onReaders + 2 });
    // The same pages as an unpooled catalog reads from the same sessions.db.
    expect(ids(small)).toEqual(['p001']);
    expect(small).toEqual(await plain.search.searchState(LOCAL_OWNER, rare.sessionId, { skip: 1 }));
    expect(hundred).toEqual(await plain.search.searchState(LOCAL_OWNER, frequent.sessionId, { skip: 100, limit: 100, projection: 'results.id,results.name' }));
    expect(large).toEqual(await plain.search.searchState(LOCAL_OWNER, frequent.sessionId, { skip: 50, limit: 101 }));
    expect(valued).toEqual(await plain.search.searchState(LOCAL_OWNER, frequent.sessionId, { limit: 5, projection: ['results.id', 'results.attributes'] }));
    // A bad page is the core's 400 on either thread.
    await expect(pooled.search.searchState(LOCAL_OWNER, rare.sessionId, { limit: 0 })).rejects.toMatchObject({ status: 400, code: 'bad_request' });
    await expect(pooled.search.searchState(LOCAL_OWNER, rare.sessionId, { limit: 5000 })).rejects.toMatchObject({ status: 400, code: 'bad_request' });
  });
});

describe('text searches stay off the main thread while searches wait for a reader', () => {
  // "cog": 20,000 postings, far over the budget of 200 below (each such search takes a reader a few ms); "zebra": 2.
  const fixture = withSeededDataDir(
    'catalog-route-queue-',
    (setup) => seedParts(setup, 20_000, (i) => (i < 2 ? `Cog zebra ${i}` : `Cog gear ${i}`)),
    (dir) => openPooled(dir, { readers: 1, mainThreadSearchPostings: 200 }),
    60_000,
  );

  it('sends a cheap search to the readers behind a queue (first come, first served), and answers it on the main thread once the queue is empty; answers early only while the reader keeps up', async () => {
    const pooled = fixture().opened;
    const frequent = Array.from({ length: 6 }, () => pooled.search.search(LOCAL_OWNER, { matches: { text: 'cog gear' }, resultOptions: { limit: 25 } }));
    // Wait until all six have given up on the main thread and gone to the one reader: one runs, five wait.
    while (pooled.searches.onReaders < 6) await new Promise((resolve) => setImmediate(resolve));
    const rareBehindQueue = pooled.search.search(LOCAL_OWNER, { matches: { text: 'zebra' } });
    // The first two found the reader keeping up (at most one waiting); the others queued, and were answered once ranked whole.
    expect(pooled.searches).toEqual({ onMainThread: 0, onReaders: 7, answeredEarly: 2 });
    await Promise.all(frequent);
    expect((await rareBehindQueue).resultsTotalCount).toBe(2);
    const rareIdle = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'zebra' } });
    expect(rareIdle.resultsTotalCount).toBe(2);
    expect(pooled.searches).toEqual({ onMainThread: 1, onReaders: 7, answeredEarly: 2 });
  });
});

describe('the main thread reads its per-part arrays after the readers are ready', () => {
  const fixture = withSeededDataDir(
    'catalog-route-start-',
    (setup) => seedParts(setup, 300, (i) => (i < 2 ? `Cog zebra ${i}` : `Cog ${i}`)),
    async (dir) => ({ dir, close: async () => undefined }),
  );

  it('starts without waiting for them: a cheap search meanwhile goes to a reader, and once they are read, to the main thread', async () => {
    const pooled = poolCatalog(openCatalog({ dataDir: fixture().dir }), { catalog: { dataDir: fixture().dir }, readers: 1, mainThreadSearchPostings: 200 });
    try {
      await pooled.start();
      const early = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'zebra' } });
      expect(early.resultsTotalCount).toBe(2);
      expect(pooled.searches.onMainThread).toBe(0);
      expect(pooled.searches.onReaders).toBe(1);
      await pooled.mainThreadReady();
      const later = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'zebra' } });
      expect(later.results.map((r) => r.id)).toEqual(early.results.map((r) => r.id));
      expect(pooled.searches.onMainThread).toBe(1);
    } finally {
      await pooled.close();
    }
  });
});

describe('reader threads see commits made on other threads', () => {
  const fixture = withSeededDataDir(
    'catalog-route-commits-',
    async (setup) => {
      await setup.service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'color', type: 'text', name: { en: 'Color' }, searchable: true, filterable: false }]);
      await setup.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p1', name: { en: 'Cog' }, attributes: [{ attribute_id: 'color', values: [{ organization: '', value: { en: 'Red' } }] }] }]);
    },
    // Every search on the reader thread.
    (dir) => openPooled(dir, { readers: 1, mainThreadSearchPostings: 0 }),
  );

  it('a reader that cached the attributes sees them changed by the writer thread at its next search', async () => {
    const pooled = fixture().opened;
    const byColor = { matches: { text: 'cog', filters: [{ label: 'color', values: ['red'] }] } };
    await expect(pooled.search.search(LOCAL_OWNER, byColor)).rejects.toMatchObject({ status: 400 });
    await pooled.service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'color', type: 'text', name: { en: 'Color' }, searchable: true, filterable: true }]);
    expect((await pooled.search.search(LOCAL_OWNER, byColor)).resultsTotalCount).toBe(1);
    expect(pooled.searches.onMainThread).toBe(0);
  });
});

/**
 * For the describe block it is called in: a pooled catalog of 300 parts named "Cog gear N" whose
 * every search runs on one of two reader threads, both idle when the block's first test starts.
 */
function twoReadersOverCogs(prefix: string): () => PooledCatalog {
  const fixture = withSeededDataDir(
    prefix,
    (setup) => seedParts(setup, 300, (i) => `Cog gear ${i}`),
    (dir) => openPooled(dir, { readers: 2, mainThreadSearchPostings: 0 }),
  );
  return () => fixture().opened;
}

describe('a query goes to the same reader while that reader is no busier than the others', () => {
  const catalog = twoReadersOverCogs('catalog-route-affinity-');

  it('sends one query again and again to one reader (whose result cache has it), and to another when the first has two in flight', async () => {
    const pooled = catalog();
    const before = pooled.readerTasks();
    let last = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
    for (let i = 0; i < 3; i++) last = await pooled.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
    const delta = pooled.readerTasks().map((n, i) => n - (before[i] ?? 0));
    expect([...delta].sort()).toEqual([0, 4]);
    // Settle: a page waits until the last session is stored (then both readers are idle).
    await pooled.search.searchState(LOCAL_OWNER, last.sessionId, { skip: 0, limit: 1 });
    // Three at once: two on the preferred reader (one of slack), the third on the idle one.
    const start = pooled.readerTasks();
    await Promise.all(Array.from({ length: 3 }, () => pooled.search.search(LOCAL_OWNER, { matches: { text: 'cog' } })));
    expect(pooled.readerTasks().map((n, i) => n - (start[i] ?? 0)).sort()).toEqual([1, 2]);
  });
});

describe('another query does not wait behind a reader busy with a different one', () => {
  const catalog = twoReadersOverCogs('catalog-route-other-');

  it('does not send another query to a reader that is still busy with a different one while another reader is idle', async () => {
    const pooled = catalog();
    const first = { matches: { text: 'cog' } };
    // Another query that hashes to the same reader as the first.
    const text = ['gear', 'cog gear', 'gear cog', 'cog 1', 'gear 2', 'cog 3'].find((t) => (searchAffinity(LOCAL_OWNER, { matches: { text: t } }) ?? 0) % 2 === (searchAffinity(LOCAL_OWNER, first) ?? 0) % 2);
    expect(text).toBeDefined();
    const start = pooled.readerTasks();
    const [a] = await Promise.all([pooled.search.search(LOCAL_OWNER, first), pooled.search.search(LOCAL_OWNER, { matches: { text: text! } })]);
    // One each: the second did not queue behind the first on the reader both hash to.
    expect(pooled.readerTasks().map((n, i) => n - (start[i] ?? 0))).toEqual([1, 1]);
    await pooled.search.searchState(LOCAL_OWNER, a.sessionId, { skip: 0, limit: 1 });
  });
});

describe('the options each thread opens the catalog with', () => {
  it('gives no thread the photo index snapshot or write turns of its own, and keeps the rest', () => {
    const catalog = { dataDir: '/data', searchLimits: { maxSessionHits: 500 }, catalogWriteTurns: new SharedArrayBuffer(8) };
    expect(threadCatalogOptions(catalog)).toEqual({ dataDir: '/data', searchLimits: { maxSessionHits: 500 }, photoIndexSnapshot: false, catalogWriteTurns: undefined });
  });
});

describe('reads and saturated searches wait in one queue for the first reader with room', () => {
  const catalog = twoReadersOverCogs('catalog-route-queue-shared-');

  it('holds at most two tasks per reader and keeps the rest in its own first-come-first-served queue, then runs them all', async () => {
    const pooled = catalog();
    const start = pooled.readerTasks();
    const reads = Array.from({ length: 7 }, (_, i) => pooled.service.selectParts(LOCAL_OWNER, { part_ids: [`p00${i}`] }));
    // Two on each reader at once (one running, one queued there); three wait for room.
    expect(pooled.readerTasks().map((n, i) => n - (start[i] ?? 0))).toEqual([2, 2]);
    const pages = await Promise.all(reads);
    expect(pages.map((page) => page[0]?.part_id)).toEqual(['p000', 'p001', 'p002', 'p003', 'p004', 'p005', 'p006']);
    expect(pooled.readerTasks().reduce((sum, n, i) => sum + n - (start[i] ?? 0), 0)).toBe(7);
  });
});

describe('a full reader queue answers 503', () => {
  const fixture = withSeededDataDir(
    'catalog-route-full-',
    (setup) => setup.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p1', name: { en: 'Cog' } }]),
    (dir) => openPooled(dir, { readers: 1, maxQueue: 1, mainThreadSearchPostings: 0 }),
  );

  it('refuses a read beyond the queue with a retryable 503 and answers the others', async () => {
    const pooled = fixture().opened;
    const reads = Array.from({ length: 4 }, () => pooled.service.selectParts(LOCAL_OWNER, { part_ids: ['p1'] }).then((parts) => parts.length, (error: unknown) => error));
    const [first, second, third, fourth] = await Promise.all(reads);
    // Two held by the reader, one waiting in the queue of one, the fourth refused.
    expect([first, second, third]).toEqual([1, 1, 1]);
    expect(fourth).toMatchObject({ status: 503, code: 'unavailable', retryAfterSeconds: 1 });
  });
});

describe('while writes wait for the writer thread, one reader fewer runs', () => {
  const catalog = twoReadersOverCogs('catalog-route-writes-wait-');

  it('holds reads and searches for one reader while writes queue, answers every one of them, then uses both readers again', async () => {
    const pooled = catalog();
    const start = pooled.readerTasks();
    // One write runs on the writer thread, two wait behind it.
    const writes = [0, 1, 2].map((i) => pooled.service.upsertParts(LOCAL_OWNER, [{ part_id: `w${i}`, name: { en: `Wheel ${i}` } }]));
    const reads = Array.from({ length: 3 }, (_, i) => pooled.service.selectParts(LOCAL_OWNER, { part_ids: [`p00${i}`] }));
    const search = pooled.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
    // Two on one reader (one running, one queued there); the third read and the search wait.
    expect(pooled.readerTasks().map((n, i) => n - (start[i] ?? 0))).toEqual([2, 0]);
    await Promise.all(writes);
    const pages = await Promise.all(reads);
    expect(pages.map((page) => page[0]?.part_id)).toEqual(['p000', 'p001', 'p002']);
    const answer = await search;
    expect(answer.resultsTotalCount).toBe(300);
    // Settle: a page waits until the search's session is stored.
    await pooled.search.searchState(LOCAL_OWNER, answer.sessionId, { skip: 0, limit: 1 });
    // No write waits: both readers take reads again.
    const again = pooled.readerTasks();
    await Promise.all(Array.from({ length: 4 }, (_, i) => pooled.service.selectParts(LOCAL_OWNER, { part_ids: [`p00${i}`] })));
    expect(pooled.readerTasks().map((n, i) => n - (again[i] ?? 0))).toEqual([2, 2]);
  });
});
