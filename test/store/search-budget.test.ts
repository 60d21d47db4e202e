/**
 * Cheap searches: a text search run with a budget answers when its postings stay within
 * it and gives up, before storing anything, when they would not (core/search/budget.ts); and the
 * result cards a connection keeps survive writes to other parts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteCatalogStore } from '../../src/adapters/sqlite/catalog-store.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteSearchIndex } from '../../src/adapters/sqlite/search/search-index.js';
import { openSessionDatabase, SqliteSessionStore } from '../../src/adapters/sqlite/session-store.js';
import { systemClock, systemIds } from '../../src/adapters/system.js';
import { CatalogService } from '../../src/core/catalog/service.js';
import { createServiceContext } from '../../src/core/context.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { SearchBudgetExceeded } from '../../src/core/search/budget.js';
import { SearchService } from '../../src/core/search/service.js';

describe('a budgeted text search', () => {
  let store: SqliteCatalogStore;
  let index: SqliteSearchIndex;
  let sessions: SqliteSessionStore;
  let search: SearchService;
  let service: CatalogService;
  const budget = { maxPostings: 200 };

  beforeEach(async () => {
    const clock = systemClock();
    store = new SqliteCatalogStore(openDatabase(':memory:'));
    // No result cache: every search below ranks.
    index = new SqliteSearchIndex(store.db, { clock, cacheSize: 0 });
    store.listeners.push(index);
    const context = createServiceContext({ store, clock, ids: systemIds() });
    service = new CatalogService({ context, store });
    sessions = new SqliteSessionStore(openSessionDatabase(':memory:'));
    search = new SearchService({ context, index, sessions });
    await service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true }]);
    // 300 parts share "cog" (3 blocks of postings: more than the budget of 200); two are zebras.
    await service.upsertParts(LOCAL_OWNER, Array.from({ length: 300 }, (_, i) => ({
      part_id: `p${String(i).padStart(3, '0')}`,
      name: { en: i < 2 ? `Cog zebra ${i}` : `Cog ${i}` },
      attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme' } }] }],
    })));
  });
  afterEach(async () => {
    await search.close();
    await service.close();
  });

  const sessionCount = () => sessions.db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number };

  it('answers a rare word within its budget, exactly as without one', async () => {
    const budgeted = await search.search(LOCAL_OWNER, { matches: { text: 'zebra' } }, undefined, budget);
    const plain = await search.search(LOCAL_OWNER, { matches: { text: 'zebra' } });
    expect(budgeted.resultsTotalCount).toBe(2);
    expect(budgeted.results.map((r) => r.id)).toEqual(['p000', 'p001']);
    expect(budgeted.results).toEqual(plain.results);
    // A typo neighbour is found within the budget too.
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'zebrs' } }, undefined, budget)).resultsTotalCount).toBe(2);
    expect(sessionCount().n).toBe(3);
  });

  it('gives up on a frequent word, every part, a prefix and facets, storing no session', async () => {
    const attempts = [
      { matches: { text: 'cog' } },
      { matches: { text: 'zebra cog' } },
      {},
      { matches: { text: 'co' } },
      { matches: { text: 'zebra', facets: ['vendor'] } },
    ];
    for (const body of attempts) {
      await expect(search.search(LOCAL_OWNER, body, undefined, budget), JSON.stringify(body)).rejects.toBeInstanceOf(SearchBudgetExceeded);
    }
    expect(sessionCount().n).toBe(0);
    // Without a budget each of them answers.
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'cog' } })).resultsTotalCount).toBe(300);
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'zebra cog' } })).resultsTotalCount).toBe(2);
    expect((await search.search(LOCAL_OWNER, {})).resultsTotalCount).toBe(300);
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'zebra', facets: ['vendor'] } })).facets).toEqual({ vendor: [{ value: 'Acme', count: 2 }] });
  });

  it('still reports a bad request as such, not as over budget', async () => {
    await expect(search.search(LOCAL_OWNER, { matches: { text: 'cog', nope: 1 } }, undefined, budget)).rejects.toMatchObject({ status: 400 });
  });
});

describe('result cards kept per connection', () => {
  it('survive a write to a part in another doc chunk and are re-read for a part written since', async () => {
    const clock = systemClock();
    const store = new SqliteCatalogStore(openDatabase(':memory:'));
    const index = new SqliteSearchIndex(store.db, { clock, cacheSize: 0 });
    store.listeners.push(index);
    const context = createServiceContext({ store, clock, ids: systemIds() });
    const service = new CatalogService({ context, store });
    const search = new SearchService({ context, index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
    try {
      // Rowids 1..300: the zebras (rowids 299, 300) lie in doc chunk 1, part p000 in chunk 0.
      await service.upsertParts(LOCAL_OWNER, Array.from({ length: 300 }, (_, i) => ({ part_id: `p${String(i).padStart(3, '0')}`, name: { en: i >= 298 ? `Zebra ${i}` : `Cog ${i}` } })));
      // Current cards are read from their parts rows (readCards' partCards statement).
      const reads = vi.spyOn((index as unknown as { stmt: { partCards: { get: () => unknown } } }).stmt.partCards, 'get');
      const zebras = async () => (await search.search(LOCAL_OWNER, { matches: { text: 'zebra' } })).results.map((r) => `${r.id} ${r.name ?? ''}`);
      expect(await zebras()).toEqual(['p298 Zebra 298', 'p299 Zebra 299']);
      expect(reads).toHaveBeenCalledTimes(1);
      await service.upsertParts(LOCAL_OWNER, [{ part_id: 'p000', name: { en: 'Cog renamed' } }]);
      expect(await zebras()).toEqual(['p298 Zebra 298', 'p299 Zebra 299']);
      expect(reads).toHaveBeenCalledTimes(1);
      await service.upsertParts(LOCAL_OWNER, [{ part_id: 'p299', name: { en: 'Zebra renamed' } }]);
      expect(await zebras()).toEqual(['p298 Zebra 298', 'p299 Zebra renamed']);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      await search.close();
      await service.close();
    }
  });
});
