/**
 * Cheap searches on the main thread (http/pool/main-thread-search.ts): a text search tried within
 * a number of postings answers when they stay within it and gives up, before storing anything,
 * when they would not (SearchIndex.searchTextWithin counts them before reading them).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteCatalogStore } from '../../../src/adapters/sqlite/catalog-store.js';
import { openDatabase } from '../../../src/adapters/sqlite/database.js';
import { GIVEN_UP_MEMORY_MS, SqliteSearchIndex } from '../../../src/adapters/sqlite/search/search-index.js';
import { openSessionDatabase, SqliteSessionStore } from '../../../src/adapters/sqlite/session-store.js';
import { systemClock, systemIds } from '../../../src/adapters/system.js';
import { CatalogService } from '../../../src/core/catalog/service.js';
import { createServiceContext } from '../../../src/core/context.js';
import { LOCAL_OWNER } from '../../../src/core/permissions.js';
import { SearchService } from '../../../src/core/search/service.js';
import { searchWithinPostings } from '../../../src/http/pool/main-thread-search.js';

describe('a text search tried within a number of postings', () => {
  let store: SqliteCatalogStore;
  let index: SqliteSearchIndex;
  let sessions: SqliteSessionStore;
  let search: SearchService;
  let service: CatalogService;
  const maxPostings = 200;

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
    // 300 parts share "cog" (3 blocks of postings: more than 200); two are zebras.
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

  it('answers a rare word within its postings, exactly as search() does', async () => {
    const limited = await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'zebra' } }, maxPostings);
    const plain = await search.search(LOCAL_OWNER, { matches: { text: 'zebra' } });
    expect(limited?.resultsTotalCount).toBe(2);
    expect(limited?.results.map((r) => r.id)).toEqual(['p000', 'p001']);
    expect({ ...limited, sessionId: '' }).toEqual({ ...plain, sessionId: '' });
    // Its session is stored and pages as search()'s does.
    expect(await search.searchState(LOCAL_OWNER, limited?.sessionId ?? '', { skip: 1 })).toMatchObject({ resultsTotalCount: 2, results: [{ id: 'p001' }] });
    // A typo neighbour is found within the postings too.
    expect((await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'zebrs' } }, maxPostings))?.resultsTotalCount).toBe(2);
    expect(sessionCount().n).toBe(3);
  });

  it('answers a word whose completions are many one-posting terms (a part number joined to it in every name) within its postings', async () => {
    // Each name's punctuated run joined (`ratchetr1000`) is a completion of `ratchet` held by one part.
    await service.upsertParts(LOCAL_OWNER, Array.from({ length: 40 }, (_, i) => ({ part_id: `r${String(i).padStart(2, '0')}`, name: { en: `Ratchet-R${1000 + i * 7}` } })));
    const limited = await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'ratchet' } }, maxPostings);
    expect(limited?.resultsTotalCount).toBe(40);
    expect({ ...limited, sessionId: '' }).toEqual({ ...(await search.search(LOCAL_OWNER, { matches: { text: 'ratchet' } })), sessionId: '' });
  });

  it('charges a list once however many rules read it (a word\'s own list: its frequency, then its postings)', async () => {
    // 120 parts share "gear": one block, whose bound fits the limit once but not twice.
    await service.upsertParts(LOCAL_OWNER, Array.from({ length: 120 }, (_, i) => ({ part_id: `g${String(i).padStart(3, '0')}`, name: { en: `Gear ${i}` } })));
    const limited = await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'gear ' } }, maxPostings);
    expect(limited?.resultsTotalCount).toBe(120);
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
      await expect(searchWithinPostings(search, LOCAL_OWNER, body, maxPostings), JSON.stringify(body)).resolves.toBeUndefined();
    }
    expect(sessionCount().n).toBe(0);
    // search() answers each of them.
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'cog' } })).resultsTotalCount).toBe(300);
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'zebra cog' } })).resultsTotalCount).toBe(2);
    expect((await search.search(LOCAL_OWNER, {})).resultsTotalCount).toBe(300);
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'zebra', facets: ['vendor'] } })).facets).toEqual({ vendor: [{ value: 'Acme', count: 2 }] });
  });

  it('gives up at once on a query holding a word whose own list passed the limit before, reading nothing', async () => {
    expect(await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'cog ' } }, maxPostings)).toBeUndefined();
    const bounds = vi.spyOn(index.engine, 'postingsBound');
    const typos = vi.spyOn(index.engine, 'typoCandidates');
    for (const text of ['zebra cog ', 'cog zebra', 'COG']) {
      expect(await searchWithinPostings(search, LOCAL_OWNER, { matches: { text } }, maxPostings), text).toBeUndefined();
    }
    expect(bounds).not.toHaveBeenCalled();
    expect(typos).not.toHaveBeenCalled();
    // Other words are still tried, and answered, on the main thread.
    expect((await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'zebra ' } }, maxPostings))?.resultsTotalCount).toBe(2);
    expect(bounds).toHaveBeenCalled();
    // The readers' search (no limit) answers the query as before.
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'zebra cog ' } })).resultsTotalCount).toBe(2);
    expect(sessionCount().n).toBe(2);
  });

  it('gives up at once on a query it gave up on before, whatever list passed the limit (here a typo neighbour)', async () => {
    // "wheels" is held by 250 parts (more than the limit), "wheel" by one: its typo neighbour passes the limit.
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'w-one', name: { en: 'Wheel' } }, ...Array.from({ length: 250 }, (_, i) => ({ part_id: `w${i}`, name: { en: `Wheels ${i}` } }))]);
    expect(await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'wheel ' } }, maxPostings)).toBeUndefined();
    const bounds = vi.spyOn(index.engine, 'postingsBound');
    expect(await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'wheel ' } }, maxPostings)).toBeUndefined();
    expect(bounds).not.toHaveBeenCalled();
    // Within a larger limit it is tried again (and answered).
    expect((await searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'wheel ' } }, 1000))?.resultsTotalCount).toBe(251);
    expect(bounds).toHaveBeenCalled();
  });

  it('tries a word again once its list may have shrunk below the limit (the memory of heavy words expires)', async () => {
    let micros = systemClock().nowMicros();
    const clockedIndex = new SqliteSearchIndex(store.db, { clock: { nowMicros: () => micros }, cacheSize: 0 });
    const plan = async (text: string) => (await search.planTextSearch(LOCAL_OWNER, { matches: { text } }))!.query;
    expect(await clockedIndex.searchTextWithin(await plan('cog '), 25, 0, maxPostings)).toBeUndefined();
    const bounds = vi.spyOn(clockedIndex.engine, 'postingsBound');
    expect(await clockedIndex.searchTextWithin(await plan('cog '), 25, 0, maxPostings)).toBeUndefined();
    expect(bounds).not.toHaveBeenCalled();
    micros += GIVEN_UP_MEMORY_MS * 1000 + 1;
    expect(await clockedIndex.searchTextWithin(await plan('cog '), 25, 0, maxPostings)).toBeUndefined();
    expect(bounds).toHaveBeenCalled();
  });

  it('still reports a bad request as such', async () => {
    await expect(searchWithinPostings(search, LOCAL_OWNER, { matches: { text: 'cog', nope: 1 } }, maxPostings)).rejects.toMatchObject({ status: 400 });
  });
});
