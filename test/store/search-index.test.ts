/**
 * The SQLite search index below the API: the bounded ranking window (tiers, every hit once, exact
 * totals), the full rebuild, and that sessions keep showing superseded cards.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteCatalogStore } from '../../src/adapters/sqlite/catalog-store.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteSearchIndex } from '../../src/adapters/sqlite/search/search-index.js';
import { binaryLess, TERM_LOG_VERSIONS } from '../../src/adapters/sqlite/search/engine-store.js';
import { decodeTermBlocks } from '../../src/core/search/engine/postings.js';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openSessionDatabase, SqliteSessionStore } from '../../src/adapters/sqlite/session-store.js';
import { systemClock, systemIds } from '../../src/adapters/system.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { SearchService } from '../../src/core/search/service.js';
import { CatalogService } from '../../src/core/catalog/service.js';
import { createServiceContext, type ServiceContext } from '../../src/core/context.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';
import type { ResultCard } from '../../src/core/model.js';
import { inMemorySqliteCatalog } from '../helpers/sqlite-catalog.js';

describe('SqliteSearchIndex', () => {
  let store: SqliteCatalogStore;
  let index: SqliteSearchIndex;
  let search: SearchService;
  let service: CatalogService;
  let context: ServiceContext;

  beforeEach(async () => {
    const clock = systemClock();
    const ids = systemIds();
    store = new SqliteCatalogStore(openDatabase(':memory:'));
    // Tiny limits so that a handful of parts takes the bounded-ranking path.
    index = new SqliteSearchIndex(store.db, { clock });
    store.listeners.push(index);
    context = createServiceContext({ store, clock, ids });
    service = new CatalogService({ context, store });
    search = new SearchService({ context, index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
    await service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'note', type: 'text', name: { en: 'Note' }, searchable: true }]);
  });
  afterEach(async () => {
    await search.close();
    await service.close();
  });

  async function allIds(sessionId: string): Promise<string[]> {
    const page = await search.searchState(LOCAL_OWNER, sessionId, { limit: 1000 });
    return page.results.map((r) => r.id ?? '');
  }

  it('bounded ranking: exact total, every hit once, name hits before value hits', async () => {
    const parts = [];
    for (let i = 0; i < 20; i++) {
      const id = `p${String(i).padStart(2, '0')}`;
      parts.push(i % 2 === 0 ? { part_id: id, name: { en: `Rotor ${i}` } } : { part_id: id, name: { en: `Stator ${i}` }, attributes: [{ attribute_id: 'note', values: [{ organization: '', value: { en: 'fits a rotor' } }] }] });
    }
    await service.upsertParts(LOCAL_OWNER, parts);
    const first = await search.search(LOCAL_OWNER, { matches: { text: 'rotor' }, resultOptions: { limit: 3 } });
    expect(first.resultsTotalCount).toBe(20);
    const hits = await allIds(first.sessionId);
    expect(new Set(hits).size).toBe(20);
    const even = (id: string) => Number(id.slice(1)) % 2 === 0;
    expect(hits.slice(0, 10).every(even)).toBe(true);
    expect(hits.slice(10).some(even)).toBe(false);
    // A small maximum keeps the session small but the total exact.
    const capped = new SearchService({ context, index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')), limits: { maxSessionHits: 5 } });
    const few = await capped.search(LOCAL_OWNER, { matches: { text: 'rotor' }, resultOptions: { limit: 10 } });
    expect(few.resultsTotalCount).toBe(20);
    expect(few.results).toHaveLength(5);
    expect(few.resultsPageableCount).toBe(5);
    await expect(capped.searchState(LOCAL_OWNER, few.sessionId, { skip: 5 })).rejects.toThrow(/past the pageable hits/);
    await capped.close();
  });

  it('warm() reads the per-part arrays in before the first search, and a later write is still seen', async () => {
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'a', name: { en: 'Axle' } }, { part_id: 'b', name: { en: 'Axle bearing' } }]);
    const engine = (index as unknown as { engine: { docCapacity: number; key: Float64Array } }).engine;
    expect(engine.docCapacity).toBe(0);
    const reads = vi.spyOn((index as unknown as { engine: { stmt: { allBlocks: { all: (...a: unknown[]) => unknown[] } } } }).engine.stmt.allBlocks, 'all');
    await search.warm();
    expect(engine.docCapacity).toBeGreaterThanOrEqual(2);
    // The widely held word's list was decoded: a search for it does not read it again.
    const decodedByWarm = reads.mock.calls.length;
    expect(decodedByWarm).toBeGreaterThan(0);
    const axle = (index as unknown as { engine: { dictionary: { get: (term: string) => number | undefined } } }).engine.dictionary.get('axle');
    expect(axle).toBeDefined();
    const readsOfAxle = () => reads.mock.calls.filter((args) => (args[0] as { id: number }).id === axle).length;
    expect(readsOfAxle()).toBe(1);
    await search.search(LOCAL_OWNER, { matches: { text: 'axle ' } });
    expect(readsOfAxle()).toBe(1);
    reads.mockRestore();
    expect([...engine.key.subarray(0, 4)].filter((k) => k !== 0).length).toBeGreaterThanOrEqual(1);
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'c', name: { en: 'Axle cap' } }]);
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'axle' } })).resultsTotalCount).toBe(3);
  });

  it('warm() reads the largest lists ahead: their terms are decoded, answers unchanged', async () => {
    await service.upsertParts(LOCAL_OWNER, [
      { part_id: 'a', name: { en: 'Axle' } },
      { part_id: 'b', name: { en: 'Axle bearing' } },
      { part_id: 'c', name: { en: 'Bearing cap' } },
    ]);
    const before = await search.search(LOCAL_OWNER, { matches: { text: 'axle bearing' } });
    const sessionsDb = openSessionDatabase(':memory:');
    const fresh = new SearchService({ context, index: new SqliteSearchIndex(store.db, { clock: systemClock() }), sessions: new SqliteSessionStore(sessionsDb) });
    const terms = (fresh as unknown as { index: { engine: { terms: Map<number, unknown> } } }).index.engine.terms;
    expect(terms.size).toBe(0);
    await fresh.warm();
    expect(terms.size).toBeGreaterThanOrEqual(2);
    const after = await fresh.search(LOCAL_OWNER, { matches: { text: 'axle bearing' } });
    expect(after.results.map((r) => r.id)).toEqual(before.results.map((r) => r.id));
    await fresh.close();
  });
  it('warm() decodes the lists of the words many parts hold, chosen from a sample of the parts, and leaves the part numbers alone', async () => {
    // 5,000 parts: a common word in every part, one in a tenth, and a part number of its own each.
    const parts = Array.from({ length: 5000 }, (_, i) => ({ part_id: `q${i}`, name: { en: `Bearing ${i % 10 === 0 ? 'sealed ' : ''}MX${100000 + i}` } }));
    for (let i = 0; i < parts.length; i += 1000) await service.upsertParts(LOCAL_OWNER, parts.slice(i, i + 1000));
    const fresh = new SqliteSearchIndex(store.db, { clock: systemClock() });
    const sampled = vi.spyOn((fresh as unknown as { stmt: { partsOfRowids: { all: (...a: unknown[]) => unknown[] } } }).stmt.partsOfRowids, 'all');
    const engine = fresh as unknown as { engine: { terms: Map<number, unknown>; dictionary: { get: (term: string) => number | undefined } } };
    await fresh.warm();
    // The sample is read in one statement of at most WARM_SAMPLE_PARTS rows.
    expect(sampled).toHaveBeenCalledTimes(1);
    expect((sampled.mock.results[0]?.value as unknown[]).length).toBeLessThanOrEqual(2000);
    const decoded = (term: string) => {
      const id = engine.engine.dictionary.get(term);
      return id !== undefined && engine.engine.terms.has(id);
    };
    expect(decoded('bearing')).toBe(true);
    expect(decoded('sealed')).toBe(true);
    // A part number's one-posting list is left for the search that asks for it.
    expect(engine.engine.dictionary.get('mx100007')).toBeDefined();
    expect(decoded('mx100007')).toBe(false);
    expect(engine.engine.terms.size).toBeLessThan(40);
    const session = new SearchService({ context, index: fresh, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
    expect((await session.search(LOCAL_OWNER, { matches: { text: 'sealed bearing' } })).resultsTotalCount).toBe(500);
    await session.close();
  });

  it('result cards are read once per connection until the index is written, and pages stay exact', async () => {
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'a', name: { en: 'Axle' } }, { part_id: 'b', name: { en: 'Axle bearing' } }]);
    const stmt = (index as unknown as { stmt: { partCards: { get: (...args: unknown[]) => unknown } } }).stmt;
    const reads = vi.spyOn(stmt.partCards, 'get');
    const first = await search.search(LOCAL_OWNER, { matches: { text: 'axle' } });
    const readsAfterFirst = reads.mock.calls.length;
    expect(readsAfterFirst).toBeGreaterThan(0);
    await search.searchState(LOCAL_OWNER, first.sessionId, {});
    expect(reads.mock.calls.length).toBe(readsAfterFirst); // the same cards: from memory
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'a', name: { en: 'Axle shaft' } }]);
    const page = await search.searchState(LOCAL_OWNER, first.sessionId, {});
    expect(reads.mock.calls.length).toBeGreaterThan(readsAfterFirst); // a write moved the version: read again
    expect(page.results.map((r) => r.name).sort()).toEqual(['Axle', 'Axle bearing']); // the snapshot
    const now = await search.search(LOCAL_OWNER, { matches: { text: 'axle' } });
    expect(now.results.map((r) => r.name).sort()).toEqual(['Axle bearing', 'Axle shaft']);
    reads.mockRestore();
  });

  it('rebuild re-indexes every part; sessions keep the cards they reference', async () => {
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'a', name: { en: 'Axle' } }, { part_id: 'b', name: { en: 'Axle bearing' } }]);
    const before = await search.search(LOCAL_OWNER, { matches: { text: 'axle' } });
    index.rebuild();
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'a', name: { en: 'Axle shaft' } }]);
    expect((await search.searchState(LOCAL_OWNER, before.sessionId, {})).results.map((r) => r.name).sort()).toEqual(['Axle', 'Axle bearing']);
    const after = await search.search(LOCAL_OWNER, { matches: { text: 'axle' } });
    expect(after.results.map((r) => r.name).sort()).toEqual(['Axle bearing', 'Axle shaft']);
    expect(after.resultsTotalCount).toBe(2);
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'shaft' } })).results.map((r) => r.id)).toEqual(['a']);
  });

  it('a rolled-back write leaves the index untouched', async () => {
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'keep', name: { en: 'Phantom keeper' } }]);
    const failing = store.upsertParts([{ part_id: 'x1' }, { part_id: 'x2' }], (item) => {
      if (item.part_id === 'x2') throw new Error('second item fails');
      return { kind: 'write', created: true, value: { part_id: item.part_id, serviceId: 's', name: { en: 'Phantom' }, attributes: [], createdAt: 1, modifiedAt: 1 } };
    });
    await expect(failing).rejects.toThrow('second item fails');
    const found = await search.search(LOCAL_OWNER, { matches: { text: 'phantom' } });
    expect(found.results.map((r) => r.id)).toEqual(['keep']);
    expect(found.resultsTotalCount).toBe(1);
  });

  it("a rolled-back write's new words are in no dictionary afterwards, and a later write of them stores them whole (exact, prefix, typo)", async () => {
    const failing = store.upsertParts([{ part_id: 'x1' }, { part_id: 'x2' }], (item) => {
      if (item.part_id === 'x2') throw new Error('second item fails');
      return { kind: 'write', created: true, value: { part_id: item.part_id, serviceId: 's', name: { en: 'Zephyrine QX4471' }, attributes: [], createdAt: 1, modifiedAt: 1 } };
    });
    await expect(failing).rejects.toThrow('second item fails');
    const stored = (table: string) => store.db.prepare(`SELECT term FROM ${table} WHERE term IN ('zephyrine', 'qx4471')`).pluck().all();
    expect(stored('search_term_levels')).toEqual([]);
    expect(stored('engine_term_levels')).toEqual([]);
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'z1', name: { en: 'Zephyrine QX4471' } }]);
    // The typo vocabulary holds letter words only: the part number is in the engine's dictionary alone.
    expect(stored('search_term_levels')).toEqual(['zephyrine']);
    // Each entry has an id of its own (ids come from a counter that rolled back with the write).
    const ids = store.db.prepare('SELECT id FROM engine_term_levels').pluck().all() as number[];
    expect(new Set(ids).size).toBe(ids.length);
    for (const text of ['zephyrine ', 'qx4471 ', 'zephyr', 'zephyrne ']) {
      expect((await search.search(LOCAL_OWNER, { matches: { text } })).results.map((r) => r.id), text).toEqual(['z1']);
    }
  });

  it('a write that fails after the index wrote its blocks (a failed commit) leaves no trace in later writes', async () => {
    // The engine writer caches each frequent word's last block; the cache must not outlive a
    // transaction that rolled back after the index flushed (here: a later listener fails, and the
    // index is not told, as when COMMIT itself fails).
    const cogs = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ part_id: `cog${String(from + i).padStart(3, '0')}`, name: { en: 'Cog' } }));
    await service.upsertParts(LOCAL_OWNER, cogs(0, 20));
    const rolledBack = index.rolledBack.bind(index);
    index.rolledBack = () => undefined;
    store.listeners.push({ partWritten: () => undefined, partDeleted: () => undefined, attributeWritten: () => undefined, beforeCommit: () => { throw new Error('commit fails'); } });
    await expect(service.upsertParts(LOCAL_OWNER, cogs(20, 20))).rejects.toThrow();
    store.listeners.pop();
    index.rolledBack = rolledBack;
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'gear', name: { en: 'Gear' } }, ...cogs(100, 5)]);
    const found = await search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
    expect(found.resultsTotalCount).toBe(25);
    expect((await allIds(found.sessionId)).sort()).toEqual([...cogs(0, 20), ...cogs(100, 5)].map((p) => p.part_id));
  });

  it('a part with restricted values is one hit for every caller through update, attribute change and delete (one row per view)', async () => {
    await service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'cost', type: 'text', name: { en: 'Cost' }, searchable: true, visibility: 'admin' }]);
    const worker = { name: 'w', roles: ['factoryWorker' as const], organization: null };
    const count = async (principal: typeof worker | typeof LOCAL_OWNER, text: string) => (await search.search(principal, { matches: { text } })).resultsTotalCount;
    const withCost = (cost: string) => ({ part_id: 'g', name: { en: 'Gear' }, attributes: [{ attribute_id: 'cost', values: [{ organization: '', value: { en: cost } }] }] });
    await service.upsertParts(LOCAL_OWNER, [withCost('cheap')]);
    expect([await count(worker, 'gear'), await count(LOCAL_OWNER, 'gear'), await count(worker, 'cheap'), await count(LOCAL_OWNER, 'cheap')]).toEqual([1, 1, 0, 1]);
    await service.upsertParts(LOCAL_OWNER, [withCost('dear')]);
    expect([await count(worker, 'gear'), await count(LOCAL_OWNER, 'gear'), await count(LOCAL_OWNER, 'cheap'), await count(LOCAL_OWNER, 'dear')]).toEqual([1, 1, 0, 1]);
    await service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'cost', visibility: 'factoryWorker' }]);
    expect([await count(worker, 'dear'), await count(worker, 'gear')]).toEqual([1, 1]);
    await service.deleteParts(LOCAL_OWNER, ['g']);
    expect([await count(worker, 'gear'), await count(LOCAL_OWNER, 'gear')]).toEqual([0, 0]);
  });

  it('cards are copied on write: new parts write no card row; a session keeps showing replaced and deleted parts as they were', async () => {
    const cardRows = () => store.db.prepare('SELECT count(*) FROM search_cards').pluck().get();
    const parts = Array.from({ length: 30 }, (_, i) => ({ part_id: `v${String(i).padStart(2, '0')}`, name: { en: `Valve ${i}` } }));
    await service.upsertParts(LOCAL_OWNER, parts);
    expect(cardRows()).toBe(0);
    const before = await search.search(LOCAL_OWNER, { matches: { text: 'valve' }, resultOptions: { limit: 5 } });
    const shown = await search.searchState(LOCAL_OWNER, before.sessionId, { limit: 1000 });
    const asShown = shown.results.map((r) => [r.id, r.name, r.modifiedAt]);
    expect(asShown).toHaveLength(30);
    // Searching writes no card either; replacing one part copies its old card once, deleting one its own.
    expect(cardRows()).toBe(0);
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'v03', name: { en: 'Valve renamed' } }]);
    expect(cardRows()).toBe(1);
    await service.deleteParts(LOCAL_OWNER, ['v07']);
    expect(cardRows()).toBe(2);
    // The highest rowid deleted, then a new part: SQLite gives it the same rowid; its card must not be the deleted one's.
    await service.deleteParts(LOCAL_OWNER, ['v29']);
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'w00', name: { en: 'Valve newcomer' } }]);
    expect(store.db.prepare("SELECT rowid_ FROM parts WHERE part_id = 'w00'").pluck().get()).toBe(30);
    // A second update of a part already replaced: the session still shows the first version.
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'v03', name: { en: 'Valve renamed again' } }]);
    const later = await search.searchState(LOCAL_OWNER, before.sessionId, { limit: 1000 });
    expect(later.results.map((r) => [r.id, r.name, r.modifiedAt])).toEqual(asShown);
    const after = await search.search(LOCAL_OWNER, { matches: { text: 'valve' }, resultOptions: { limit: 100 } });
    const names = new Map(after.results.map((r) => [r.id, r.name]));
    expect(after.resultsTotalCount).toBe(29);
    expect([names.get('v03'), names.get('v07'), names.get('v29'), names.get('w00')]).toEqual(['Valve renamed again', undefined, undefined, 'Valve newcomer']);
    // The rebuild keeps every part's card id: sessions from before it read the same.
    index.rebuild();
    expect((await search.searchState(LOCAL_OWNER, after.sessionId, { limit: 100 })).results.map((r) => [r.id, r.name])).toEqual(after.results.map((r) => [r.id, r.name]));
    expect((await search.searchState(LOCAL_OWNER, before.sessionId, { limit: 1000 })).results.map((r) => [r.id, r.name, r.modifiedAt])).toEqual(asShown);
  });

  it('an index written in an older layout is rebuilt on open', async () => {
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'old', name: { en: 'Flange' } }]);
    // An older layout (e.g. 2: FTS5 rows per view) left no engine postings behind.
    store.db.prepare('DELETE FROM engine_postings').run();
    store.db.prepare("UPDATE search_state SET value = '2' WHERE key = 'layout'").run();
    const reopened = new SqliteSearchIndex(store.db, { clock: systemClock() });
    const fresh = new SearchService({ context, index: reopened, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
    const found = await fresh.search(LOCAL_OWNER, { matches: { text: 'flange' } });
    expect(found.results.map((r) => r.id)).toEqual(['old']);
    await fresh.close();
  });
});

describe('result cards of current parts: read from their parts rows alone', () => {
  type Statement = { all: (...args: unknown[]) => unknown };
  const statementsOf = (index: SqliteSearchIndex) => (index as unknown as { stmt: { copiedCards: Statement; currentCardRows: Statement } }).stmt;
  let store: SqliteCatalogStore;
  let index: SqliteSearchIndex;
  let sessions: SqliteSessionStore;
  let search: SearchService;
  let service: CatalogService;

  beforeEach(() => {
    const clock = systemClock();
    store = new SqliteCatalogStore(openDatabase(':memory:'));
    index = new SqliteSearchIndex(store.db, { clock });
    store.listeners.push(index);
    const context = createServiceContext({ store, clock, ids: systemIds() });
    service = new CatalogService({ context, store });
    sessions = new SqliteSessionStore(openSessionDatabase(':memory:'));
    search = new SearchService({ context, index, sessions });
  });
  afterEach(async () => {
    await search.close();
    await service.close();
  });

  /** Another index object on the same connection: its engine docs unread and its card cache empty. */
  const freshIndex = () => new SqliteSearchIndex(store.db, { clock: systemClock() });

  it("a fresh search's page reads no search_current or copy row, and its cards equal the copy-on-write path's", async () => {
    await service.upsertParts(LOCAL_OWNER, [
      { part_id: 'b1', name: { en: 'Bolt "hex" M8', de: 'Sechskantschraube (Bolt) ü' } },
      { part_id: 'b2', name: { en: 'Bolt 😀 long' } },
    ]);
    // A serviceId that is not a UUID is stored as text, a UUID as its bytes (part-rows.ts): both kinds.
    await store.upsertParts([{ part_id: 'b3' }], (item) => ({
      kind: 'write', created: true, value: { part_id: item.part_id, serviceId: 'legacy-7', name: { en: 'Bolt legacy' }, attributes: [], createdAt: 1_700_000_000_000_001, modifiedAt: 1_700_000_000_000_002 },
    }));
    const stmt = statementsOf(index);
    const copies = vi.spyOn(stmt.copiedCards, 'all');
    const current = vi.spyOn(stmt.currentCardRows, 'all');
    // The word typed whole (no name bonus: every name begins with `bolt`): BM25 orders them.
    const found = await search.search(LOCAL_OWNER, { matches: { text: 'bolt ' } });
    expect(found.results.map((r) => r.id)).toEqual(['b1', 'b2', 'b3']);
    expect(copies).not.toHaveBeenCalled();
    expect(current).not.toHaveBeenCalled();
    const { cardIds } = await sessions.readHits(found.sessionId, 0, 100);
    const direct = await index.readCards(cardIds);
    // An index whose engine docs are unread cannot vouch for any id: every card through search_current.
    const other = freshIndex();
    const otherCurrent = vi.spyOn(statementsOf(other).currentCardRows, 'all');
    const viaCurrent = await other.readCards(cardIds);
    expect(otherCurrent).toHaveBeenCalled();
    expect(direct).toEqual(viaCurrent);
    expect(direct.map((c) => [c.partId, c.names, /^[0-9a-f-]{36}$/.test(c.serviceId)])).toEqual([
      ['b1', { en: 'Bolt "hex" M8', de: 'Sechskantschraube (Bolt) ü' }, true], ['b2', { en: 'Bolt 😀 long' }, true], ['b3', { en: 'Bolt legacy' }, false],
    ]);
    expect(direct[2]).toMatchObject({ serviceId: 'legacy-7', createdAt: 1_700_000_000_000_001, modifiedAt: 1_700_000_000_000_002 });
  });

  it('a search ranks and reads its first page in one read of the index (searchTextWithCards), as later pages read it', async () => {
    await service.upsertParts(LOCAL_OWNER, Array.from({ length: 8 }, (_, i) => ({ part_id: `n${i}`, name: { en: `Nut ${i}` } })));
    const readCards = vi.spyOn(index, 'readCards');
    const searchText = vi.spyOn(index, 'searchText');
    const found = await search.search(LOCAL_OWNER, { matches: { text: 'nut' }, resultOptions: { limit: 3 } });
    expect([readCards.mock.calls.length, searchText.mock.calls.length]).toEqual([0, 0]);
    const paged = await search.searchState(LOCAL_OWNER, found.sessionId, { limit: 3 });
    expect(readCards).toHaveBeenCalledTimes(1);
    expect(found.results).toEqual(paged.results);
    expect(found.results.map((r) => r.id)).toEqual(['n0', 'n1', 'n2']);
  });

  it('inside a write transaction, before the index has written it, a replaced card reads as it was (the engine cannot vouch yet)', async () => {
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'g1', name: { en: 'Gear 1' } }, { part_id: 'g2', name: { en: 'Gear 2' } }]);
    // A page of 1: the engine docs are read, g2's card is not (so the path taken decides what is read).
    const found = await search.search(LOCAL_OWNER, { matches: { text: 'gear' }, resultOptions: { limit: 1 } });
    const { cardIds } = await sessions.readHits(found.sessionId, 0, 10);
    expect(found.results.map((r) => r.id)).toEqual(['g1']);
    let inside: Promise<ResultCard[]> | undefined;
    // After the index's own listener: g2's row and search_current are written, the engine's docs not yet.
    store.listeners.push({ partWritten: () => { inside = index.readCards(cardIds); }, partDeleted: () => undefined, attributeWritten: () => undefined });
    try {
      await service.upsertParts(LOCAL_OWNER, [{ part_id: 'g2', name: { en: 'Gear renamed' } }]);
    } finally {
      store.listeners.pop();
    }
    expect((await inside!).map((c) => c.names.en)).toEqual(['Gear 1', 'Gear 2']);
    expect((await index.readCards(cardIds)).map((c) => c.names.en)).toEqual(['Gear 1', 'Gear 2']);
    expect((await search.search(LOCAL_OWNER, { matches: { text: 'gear' } })).results.map((r) => r.name)).toEqual(['Gear 1', 'Gear renamed']);
  });

  it("a session's later pages show its parts as found after updates, deletes and a reused rowid, read by a connection whose engine docs are behind", async () => {
    const dir = tempDir();
    const writer = openCatalog({ dataDir: dir });
    const reader = openCatalog({ dataDir: dir });
    try {
      const valves = Array.from({ length: 12 }, (_, i) => ({ part_id: `v${String(i).padStart(2, '0')}`, name: { en: `Valve ${i}` } }));
      await writer.service.upsertParts(LOCAL_OWNER, valves);
      // The reader reads its engine docs and the first page's 2 cards now, the other 10 after the writes.
      const found = await reader.search.search(LOCAL_OWNER, { matches: { text: 'valve' }, resultOptions: { limit: 2 } });
      expect(found.resultsTotalCount).toBe(12);
      await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'v05', name: { en: 'Valve renamed' } }]);
      await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'v05', name: { en: 'Valve renamed twice' } }]);
      await writer.service.deleteParts(LOCAL_OWNER, ['v07']);
      // The highest rowid deleted, then a new part: SQLite gives the new part that rowid.
      await writer.service.deleteParts(LOCAL_OWNER, ['v11']);
      await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'w00', name: { en: 'Valve newcomer' } }]);
      const page = await reader.search.searchState(LOCAL_OWNER, found.sessionId, { limit: 100 });
      expect(page.results.map((r) => [r.id, r.name]).sort()).toEqual(valves.map((v) => [v.part_id, v.name.en]));
      const now = await reader.search.search(LOCAL_OWNER, { matches: { text: 'valve' }, resultOptions: { limit: 100 } });
      const names = new Map(now.results.map((r) => [r.id, r.name]));
      expect([now.resultsTotalCount, names.get('v05'), names.get('v07'), names.get('v11'), names.get('w00'), names.get('v00')]).toEqual([11, 'Valve renamed twice', undefined, undefined, 'Valve newcomer', 'Valve 0']);
    } finally {
      await reader.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('engine writer caches', () => {
  it('two connections appending to the same word in turn keep every posting (another process writes between)', async () => {
    const dir = tempDir();
    const a = openCatalog({ dataDir: dir });
    const b = openCatalog({ dataDir: dir });
    const cogs = (from: number) => Array.from({ length: 20 }, (_, i) => ({ part_id: `cog${String(from + i).padStart(3, '0')}`, name: { en: 'Cog wheel' } }));
    try {
      await a.service.upsertParts(LOCAL_OWNER, cogs(0));
      await b.service.upsertParts(LOCAL_OWNER, cogs(20));
      await a.service.upsertParts(LOCAL_OWNER, cogs(40));
      await b.service.upsertParts(LOCAL_OWNER, cogs(60));
      await a.service.deleteParts(LOCAL_OWNER, ['cog065']);
      const fresh = openCatalog({ dataDir: dir });
      try {
        const found = await fresh.search.search(LOCAL_OWNER, { matches: { text: 'wheel' } });
        expect(found.resultsTotalCount).toBe(79);
        const page = await fresh.search.searchState(LOCAL_OWNER, found.sessionId, { limit: 1000 });
        expect(page.results.map((r) => r.id)).toEqual([...cogs(0), ...cogs(20), ...cogs(40), ...cogs(60)].map((p) => p.part_id).filter((id) => id !== 'cog065'));
      } finally {
        await fresh.close();
      }
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('engine writer caches and other connections', () => {
  type Stmt = { get: (...args: unknown[]) => unknown };
  type WriterEngine = { stmt: { lastBlock: Stmt; lastRunBlock: Stmt } };
  const writerEngine = (catalog: ReturnType<typeof openCatalog>) => (catalog.search as unknown as { index: { engine: WriterEngine } }).index.engine;
  /** Counts the writer's reads of where a list ends (what its tail cache saves). */
  function countListEndReads(engine: WriterEngine): () => number {
    let reads = 0;
    for (const stmt of [engine.stmt.lastBlock, engine.stmt.lastRunBlock]) {
      const get = stmt.get.bind(stmt);
      stmt.get = (...args: unknown[]) => {
        reads++;
        return get(...args);
      };
    }
    return () => reads;
  }
  const cogs = (from: number, count = 20) => Array.from({ length: count }, (_, i) => ({ part_id: `cog${String(from + i).padStart(3, '0')}`, name: { en: 'Cog wheel' } }));

  it("keeps the writer's cache of list ends across another connection's commit that leaves the index alone", async () => {
    const dir = tempDir();
    const writer = openCatalog({ dataDir: dir });
    const other = openCatalog({ dataDir: dir });
    try {
      await writer.service.upsertParts(LOCAL_OWNER, cogs(0));
      const reads = countListEndReads(writerEngine(writer));
      await writer.service.upsertParts(LOCAL_OWNER, cogs(20));
      expect(reads()).toBe(0);
      // A commit of another connection to catalog.db outside the index (a token).
      await other.service.createToken(LOCAL_OWNER, { name: 'contributor', roles: ['dataContributor'] });
      await writer.service.upsertParts(LOCAL_OWNER, cogs(40));
      expect(reads()).toBe(0);
      // Another connection writes the index: the writer reads its list ends again, and loses nothing.
      await other.service.upsertParts(LOCAL_OWNER, cogs(60));
      await writer.service.upsertParts(LOCAL_OWNER, cogs(80));
      expect(reads()).toBeGreaterThan(0);
      const found = await other.search.search(LOCAL_OWNER, { matches: { text: 'wheel' } });
      expect(found.resultsTotalCount).toBe(100);
    } finally {
      await writer.close();
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("trusts no list end of a flush whose commit failed, though another connection's write brings the index to that flush's version", async () => {
    const dir = tempDir();
    const clock = systemClock();
    const store = new SqliteCatalogStore(openDatabase(join(dir, 'catalog.db')));
    const index = new SqliteSearchIndex(store.db, { clock });
    store.listeners.push(index);
    const service = new CatalogService({ context: createServiceContext({ store, clock, ids: systemIds() }), store });
    const other = openCatalog({ dataDir: dir });
    try {
      await service.upsertParts(LOCAL_OWNER, cogs(0));
      // The commit fails after the index flushed (a later listener throws before COMMIT, and the
      // index is not told, as when COMMIT itself fails).
      const rolledBack = index.rolledBack.bind(index);
      index.rolledBack = () => undefined;
      store.listeners.push({ partWritten: () => undefined, partDeleted: () => undefined, attributeWritten: () => undefined, beforeCommit: () => { throw new Error('commit fails'); } });
      // It appended one part: the writer's cache says the list of "wheel" ends at that part's doc.
      await expect(service.upsertParts(LOCAL_OWNER, cogs(20, 1))).rejects.toThrow();
      store.listeners.pop();
      index.rolledBack = rolledBack;
      // Another connection's write takes the version the failed flush had written, and the docs:
      // the list of "wheel" now ends two docs further.
      await other.service.upsertParts(LOCAL_OWNER, cogs(40, 3));
      // A change to "wheel" in the middle of those three docs: were the cache trusted, it would be
      // appended after a list end that is not the list's end (a doc twice, out of order).
      await service.upsertParts(LOCAL_OWNER, [{ part_id: 'cog041', name: { en: 'Cog wheel wheel' } }, ...cogs(100, 5)]);
      const fresh = openCatalog({ dataDir: dir });
      try {
        const found = await fresh.search.search(LOCAL_OWNER, { matches: { text: 'wheel' } });
        expect(found.resultsTotalCount).toBe(28);
        const page = await fresh.search.searchState(LOCAL_OWNER, found.sessionId, { limit: 1000 });
        expect(page.results.map((r) => r.id).sort()).toEqual([...cogs(0), ...cogs(40, 3), ...cogs(100, 5)].map((p) => p.part_id));
      } finally {
        await fresh.close();
      }
    } finally {
      await service.close();
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('changed-terms log (migration 10)', () => {
  type Engine = { terms: Map<number, unknown>; termId: (t: string) => number | undefined };
  const engineOf = (catalog: ReturnType<typeof openCatalog>) => (catalog.search as unknown as { index: { engine: Engine } }).index.engine;

  it("a reader evicts exactly the lists another connection's writes changed, and everything when it is further behind than the log", async () => {
    const dir = tempDir();
    const reader = openCatalog({ dataDir: dir });
    const writer = openCatalog({ dataDir: dir });
    try {
      await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'a', name: { en: 'Cog wheel' } }, { part_id: 'b', name: { en: 'Axle' } }]);
      for (const text of ['cog', 'wheel', 'axle']) await reader.search.search(LOCAL_OWNER, { matches: { text: `${text} ` } });
      const engine = engineOf(reader);
      const id = (term: string) => engine.termId(term)!;
      expect(engine.terms.has(id('cog')) && engine.terms.has(id('axle'))).toBe(true);
      // Another connection adds a cog: "cog" and "wheel" change, "axle" does not.
      await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'c', name: { en: 'Cog wheel' } }]);
      expect((await reader.search.search(LOCAL_OWNER, { matches: { text: 'cog ' } })).resultsTotalCount).toBe(2);
      expect(engine.terms.has(id('axle'))).toBe(true);
      expect((await reader.search.search(LOCAL_OWNER, { matches: { text: 'wheel ' } })).resultsTotalCount).toBe(2);
      // More writes than the log keeps: the reader cannot know what changed and starts over.
      for (let i = 0; i < TERM_LOG_VERSIONS + 2; i++) await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: `n${i}`, name: { en: `Nut ${i}` } }]);
      expect(engine.terms.has(id('axle'))).toBe(true);
      expect((await reader.search.search(LOCAL_OWNER, { matches: { text: 'nut ' } })).resultsTotalCount).toBe(TERM_LOG_VERSIONS + 2);
      expect(engine.terms.has(id('axle'))).toBe(false);
      const db = new Database(join(dir, 'catalog.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT count(*) FROM engine_term_changes').pluck().get()).toBe(TERM_LOG_VERSIONS);
      } finally {
        db.close();
      }
    } finally {
      await reader.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('search result cache', () => {
  it('is invalidated by a write from another connection (another process) to the same catalog', async () => {
    const dir = tempDir();
    const a = openCatalog({ dataDir: dir });
    const b = openCatalog({ dataDir: dir });
    try {
      await a.service.upsertParts(LOCAL_OWNER, [{ part_id: 'one', name: { en: 'Cog one' } }]);
      const search = () => a.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
      expect((await search()).resultsTotalCount).toBe(1);
      expect((await search()).resultsTotalCount).toBe(1);
      await b.service.upsertParts(LOCAL_OWNER, [{ part_id: 'two', name: { en: 'Cog two' } }]);
      expect((await search()).results.map((r) => r.id).sort()).toEqual(['one', 'two']);
      await a.service.deleteParts(LOCAL_OWNER, ['one']);
      expect((await search()).results.map((r) => r.id)).toEqual(['two']);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bulk-written index (one transaction per batch)', () => {
  /** Deterministic pseudo-random numbers. */
  function random(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
  }
  const WORDS = ['rotor', 'stator', 'gear', 'gearbox', 'shaft', 'bearing', 'seal', 'valve', 'pump', 'axle', 'cog', 'flange'];
  const KINDS = ['steel', 'brass', 'nylon'];

  async function catalog() {
    const opened = inMemorySqliteCatalog();
    await opened.service.upsertAttributes(LOCAL_OWNER, [
      { attribute_id: 'note', type: 'text', name: { en: 'Note' }, searchable: true },
      { attribute_id: 'kind', type: 'text', name: { en: 'Kind' }, searchable: true, filterable: true },
    ]);
    return opened;
  }
  type Catalog = Awaited<ReturnType<typeof catalog>>;

  /** Writes `parts` (ids may repeat: a later one updates the earlier) in one store transaction. */
  async function write(c: Catalog, parts: { part_id: string; name: { en: string }; note: string; kind: string }[]): Promise<void> {
    await c.store.upsertParts(parts, (item, existing) => ({
      kind: 'write',
      created: existing === undefined,
      value: {
        part_id: item.part_id, serviceId: existing?.serviceId ?? `s-${item.part_id}`, name: item.name, createdAt: 1, modifiedAt: 2,
        attributes: [
          { attribute_id: 'kind', values: [{ organization: '', value: { en: item.kind } }] },
          { attribute_id: 'note', values: [{ organization: '', value: { en: item.note } }] },
        ],
      },
    }));
  }

  /** Ids in rank order and the total of each query, through the search service. */
  async function answers(c: Catalog, queries: { text: string; kind?: string }[]): Promise<{ total: number; ids: string[] }[]> {
    const out = [];
    for (const q of queries) {
      const found = await c.search.search(LOCAL_OWNER, { matches: { text: q.text, ...(q.kind ? { filters: [{ label: 'kind', values: [q.kind] }] } : {}) }, resultOptions: { limit: 1 } });
      const page = await c.search.searchState(LOCAL_OWNER, found.sessionId, { limit: 1000 });
      out.push({ total: found.resultsTotalCount, ids: page.results.map((r) => r.id ?? '') });
    }
    return out;
  }

  it('answers exactly as the same writes made one part per transaction: hits, totals, ranking (generated parts, updates within a batch, deletes)', async () => {
    for (const seed of [1, 2, 3]) {
      const rnd = random(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
      const text = (n: number) => Array.from({ length: 1 + Math.floor(rnd() * n) }, () => pick(WORDS)).join(' ');
      // Some parts alike in every indexed respect but their id: ties, ranked by part id alone.
      const part = (i: number) => rnd() < 0.3
        ? { part_id: `p${String(i).padStart(3, '0')}`, name: { en: 'Cog wheel' }, note: 'spare', kind: 'steel' }
        : { part_id: `p${String(i).padStart(3, '0')}`, name: { en: `${text(3)} ${i}` }, note: text(4), kind: pick(KINDS) };
      // Three batches: new parts in id order (appends), then new parts out of order with updates of
      // earlier parts, some repeated within the batch (a part updated twice in one transaction).
      const batches = [
        Array.from({ length: 150 }, (_, i) => part(i)),
        Array.from({ length: 120 }, () => part(Math.floor(rnd() * 300))),
        Array.from({ length: 200 }, () => part(Math.floor(rnd() * 400))),
      ];
      const deleted = Array.from({ length: 20 }, () => `p${String(Math.floor(rnd() * 400)).padStart(3, '0')}`);
      const bulk = await catalog();
      const single = await catalog();
      try {
        const queries = [
          ...WORDS.map((w) => ({ text: w })),
          { text: 'wheel' },
          { text: 'spare', kind: 'steel' },
          ...WORDS.map((w) => ({ text: `${w} ${pick(WORDS)}` })),
          ...WORDS.slice(0, 6).map((w) => ({ text: w.slice(0, 3) })),
          ...KINDS.map((k) => ({ text: pick(WORDS), kind: k })),
          { text: String(Math.floor(rnd() * 150)) },
        ];
        // Compared after every batch and after the deletes (a later batch may renumber every key).
        const compare = async () => expect(await answers(bulk, queries)).toEqual(await answers(single, queries));
        for (const batch of batches) {
          await write(bulk, batch);
          for (const p of batch) await write(single, [p]);
          await compare();
        }
        for (const c of [bulk, single]) await c.store.deleteParts([...new Set(deleted)], (_, existing) => (existing ? { kind: 'write', value: null, created: false } : { kind: 'skip' }) as never);
        await compare();
        expect((await answers(single, queries)).some((a) => a.total > 50)).toBe(true);
      } finally {
        for (const c of [bulk, single]) {
          await c.close();
        }
      }
    }
  });

  it('batches of appended parts store the very postings a one-pass rebuild writes (appends in runs, merged by size)', async () => {
    const c = await catalog();
    try {
      const rnd = random(7);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
      const parts = Array.from({ length: 1500 }, (_, i) => ({ part_id: `p${String(i).padStart(5, '0')}`, name: { en: `${pick(WORDS)} ${pick(WORDS)} ${i % 7}` }, note: rnd() < 0.5 ? pick(WORDS) : '', kind: pick(KINDS) }));
      // Uneven batches: tails filled to BLOCK_SIZE across transactions, and batches larger than a block.
      for (let at = 0, size = 1; at < parts.length; at += size, size = (size * 7) % 300 + 1) await write(c, parts.slice(at, at + size));
      // Every term's list, decoded from its engine_postings blocks and its run blocks.
      const lists = () => {
        const rows = c.store.db.prepare('SELECT t.term AS term, p.first_doc AS firstDoc, p.data AS data FROM (SELECT term_id, first_doc, data FROM engine_postings UNION ALL SELECT term_id, first_doc, data FROM engine_runs) AS p JOIN engine_term_levels AS t ON t.id = p.term_id ORDER BY t.term, p.first_doc').all() as { term: string; firstDoc: number; data: Buffer }[];
        const byTerm = new Map<string, { firstDoc: number; data: Buffer }[]>();
        for (const row of rows) byTerm.set(row.term, [...(byTerm.get(row.term) ?? []), row]);
        return [...byTerm].map(([term, blocks]) => {
          const { docs, tf } = decodeTermBlocks(blocks);
          return { term, docs: [...docs], tf: [...tf] };
        });
      };
      expect(c.store.db.prepare('SELECT count(*) FROM engine_runs').pluck().get()).toBeGreaterThan(0);
      const appended = lists();
      expect(appended.length).toBeGreaterThan(100);
      c.index.rebuild();
      expect(lists()).toEqual(appended);
    } finally {
      await c.close();
    }
  });

  it('places appended parts in SQLite\'s binary part id order, also where UTF-16 order differs (surrogate pairs)', async () => {
    expect([binaryLess('a', 'b'), binaryLess('b', 'a'), binaryLess('\uFF21', '\u{1F600}'), binaryLess('\u{1F600}', '\uFF21')]).toEqual([true, false, true, false]);
    const c = await catalog();
    try {
      // Ascending in binary order (U+FF21 < U+1F600), descending in UTF-16 units: one batch, every part alike.
      const ids = ['k\uFF21', 'k\u{1F600}', 'k\u{1F601}'];
      await write(c, ids.map((id) => ({ part_id: id, name: { en: 'Cog' }, note: '', kind: 'steel' })));
      const stored = c.store.db.prepare('SELECT part_id FROM parts ORDER BY part_id').pluck().all();
      expect(stored).toEqual(ids);
      expect((await answers(c, [{ text: 'cog' }]))[0]?.ids).toEqual(ids);
    } finally {
      await c.close();
    }
  });

  it('a batch that rolls back after gathering its postings leaves nothing of it searchable, and the next batch indexes fully', async () => {
    const c = await catalog();
    try {
      const cogs = (from: number, count: number, word: string) => Array.from({ length: count }, (_, i) => ({ part_id: `c${String(from + i).padStart(4, '0')}`, name: { en: `Cog ${word}` }, note: 'spare', kind: 'steel' }));
      await write(c, cogs(0, 300, 'wheel'));
      // 300 appends and 50 updates of stored parts gathered, then the batch fails before its commit.
      const failing = c.store.upsertParts([...cogs(300, 300, 'phantom'), ...cogs(0, 50, 'phantom'), { part_id: 'zz', name: { en: 'x' }, note: '', kind: '' }], (item, existing) => {
        if (item.part_id === 'zz') throw new Error('last item fails');
        return { kind: 'write', created: existing === undefined, value: { part_id: item.part_id, serviceId: 's', name: item.name, attributes: [], createdAt: 1, modifiedAt: 2 } };
      });
      await expect(failing).rejects.toThrow('last item fails');
      expect(await answers(c, [{ text: 'phantom' }, { text: 'cog' }, { text: 'wheel' }, { text: 'spare' }])).toEqual([
        { total: 0, ids: [] },
        { total: 300, ids: cogs(0, 300, '').map((p) => p.part_id) },
        { total: 300, ids: cogs(0, 300, '').map((p) => p.part_id) },
        { total: 300, ids: cogs(0, 300, '').map((p) => p.part_id) },
      ]);
      await write(c, cogs(300, 300, 'wheel'));
      expect((await answers(c, [{ text: 'wheel' }]))[0]).toEqual({ total: 600, ids: cogs(0, 600, '').map((p) => p.part_id) });
    } finally {
      await c.close();
    }
  });
});

describe('search result cache size (load test)', () => {
  let store: SqliteCatalogStore;
  let service: CatalogService;
  const clock = systemClock();

  beforeEach(async () => {
    store = new SqliteCatalogStore(openDatabase(':memory:'));
    service = new CatalogService({ context: createServiceContext({ store, clock, ids: systemIds() }), store });
  });
  afterEach(async () => {
    await service.close();
  });

  /** The index over `store` and how often it ranked anew (not from its cache). */
  function countingIndex(options: { cacheMaxHits?: number } = {}) {
    const index = new SqliteSearchIndex(store.db, { clock, ...options });
    store.listeners.push(index);
    const search = new SearchService({ context: createServiceContext({ store, clock, ids: systemIds() }), index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
    const ranked = vi.spyOn(index as unknown as { searchTextNow: () => unknown }, 'searchTextNow');
    return { search, ranked };
  }

  it('keeps a rotation of 100 queries: the second round ranks nothing anew', async () => {
    await service.upsertParts(LOCAL_OWNER, Array.from({ length: 100 }, (_, i) => ({ part_id: `p${i}`, name: { en: `Cog q${i}z` } })));
    const { search, ranked } = countingIndex();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 100; i++) expect((await search.search(LOCAL_OWNER, { matches: { text: `q${i}z` } })).resultsTotalCount).toBe(1);
    }
    expect(ranked).toHaveBeenCalledTimes(100);
    await search.close();
  });

  it('holds at most cacheMaxHits hits in all, dropping the least recently used', async () => {
    await service.upsertParts(LOCAL_OWNER, Array.from({ length: 30 }, (_, i) => ({ part_id: `p${i}`, name: { en: `Cog ${i % 2 === 0 ? 'even' : 'odd'}` } })));
    const { search, ranked } = countingIndex({ cacheMaxHits: 40 });
    const run = async (text: string) => (await search.search(LOCAL_OWNER, { matches: { text } })).resultsTotalCount;
    expect(await run('cog')).toBe(30); // 30 hits cached
    expect(await run('even')).toBe(15); // 45 > 40: 'cog' dropped
    expect(await run('even')).toBe(15); // cached
    expect(ranked).toHaveBeenCalledTimes(2);
    expect(await run('cog')).toBe(30); // ranked anew
    expect(ranked).toHaveBeenCalledTimes(3);
    await search.close();
  });
});

describe('SqliteSearchIndex term dictionaries in levels', () => {
  /** A catalog in memory whose dictionaries have tiny levels (4 terms, then × 2): a few dozen parts of unique model numbers move terms levels deep. */
  const leveledCatalog = () => {
    const clock = systemClock();
    const store = new SqliteCatalogStore(openDatabase(':memory:'));
    const index = new SqliteSearchIndex(store.db, { clock, termLevels: { firstLevel: 4, fanout: 2 } });
    store.listeners.push(index);
    const context = createServiceContext({ store, clock, ids: systemIds() });
    const service = new CatalogService({ context, store });
    const search = new SearchService({ context, index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
    return { store, service, search };
  };
  const model = (i: number) => `gw${String((i * 7919) % 100_000).padStart(5, '0')}`;
  /** A letter word of its own per part (a made-up brand), so that the typo vocabulary grows levels deep too. */
  const brand = (i: number) => `zephyr${[...String(1000 + i)].map((d) => 'abcdefghij'[Number(d)]).join('')}`;

  it('finds words, prefixes and one-typo neighbours whichever level their term has moved to (older terms deeper)', async () => {
    const { store, service, search } = leveledCatalog();
    // One transaction per part, as many small imports.
    for (let i = 0; i < 40; i++) await service.upsertParts(LOCAL_OWNER, [{ part_id: `p${i}`, name: { en: `Ethernet Controller ${model(i)} ${brand(i)}` } }]);
    const levels = (table: string) => store.db.prepare(`SELECT level, count(*) AS n FROM ${table} GROUP BY level`).all() as { level: number; n: number }[];
    for (const table of ['engine_term_levels', 'search_term_levels']) {
      expect(Math.max(...levels(table).map((l) => l.level))).toBeGreaterThanOrEqual(3);
      for (const { level, n } of levels(table)) expect(n).toBeLessThanOrEqual(4 * 2 ** level);
    }
    const ids = async (text: string) => (await search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 50 } })).results.map((r) => r.id);
    // The first part's number has moved deepest, the last one's is in level 0.
    expect(await ids(`${model(0)} `)).toEqual(['p0']);
    expect(await ids(`${model(39)} `)).toEqual(['p39']);
    expect(await ids(model(0).slice(0, 6))).toEqual(expect.arrayContaining(['p0']));
    expect((await ids('ethernet ')).length).toBe(40);
    expect((await ids('controler ')).length).toBe(40); // a one-letter deletion: the typo vocabulary
    // The first brand (zephyrbaaa) has moved deepest in the typo vocabulary; two edits away, it is
    // still found (among the other brands as near).
    expect((await ids(`${brand(0)} `))[0]).toBe('p0');
    expect(await ids('zepyhrbaa ')).toContain('p0');
    const level = (term: string) => store.db.prepare('SELECT level FROM engine_term_levels WHERE term = ?').pluck().get(term) as number;
    expect(level(model(39))).toBeLessThan(level(model(0)));
    await search.close();
    await service.close();
  });

  it('a reader that searched before each write finds the words the write added, the ones its levels moved, and their typos', async () => {
    const { store, service, search } = leveledCatalog();
    const ids = async (text: string) => (await search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 50 } })).results.map((r) => r.id);
    // A letters-only word per part: its typo (a letter doubled) is looked up under the word's own typo key.
    const word = (i: number) => `kestr${String.fromCharCode(97 + i)}`;
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'p0', name: { en: `Switch ${model(0)} ${word(0)}` } }]);
    for (let i = 1; i < 24; i++) {
      // Not there yet: the reader notes the term absent (and the level count of this version), and the typo keys empty.
      expect(await ids(`${model(i)} `)).toEqual([]);
      expect(await ids(`${model(i)}x `)).toEqual([]);
      expect(await ids(`k${word(i)} `)).toEqual([]);
      await service.upsertParts(LOCAL_OWNER, [{ part_id: `p${i}`, name: { en: `Switch ${model(i)} ${word(i)}` } }]);
      expect(await ids(`${model(i)} `)).toEqual([`p${i}`]);
      expect(await ids(`${model(0)} `)).toEqual(['p0']);
      expect(await ids(`k${word(i)} `)).toEqual([`p${i}`]);
    }
    const deepest = store.db.prepare('SELECT max(level) FROM engine_term_levels').pluck().get() as number;
    expect(deepest).toBeGreaterThanOrEqual(3);
    await search.close();
    await service.close();
  });
});

describe('SqliteSearchIndex without words or filters', () => {
  it('keeps the first parts by part id when the session holds fewer than all, whatever the order they were written in', async () => {
    const catalog = openCatalog({ dataDir: undefined, searchLimits: { maxSessionHits: 5 } });
    try {
      // Written out of order: doc ids follow the writing, order keys the part ids.
      const ids = ['m', 'c', 'x', 'a', 'q', 'b', 'z', 'd', 'k', 'e', 'aa', 'ab'];
      for (const id of ids) await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: id, name: { en: `Part ${id}` } }]);
      const found = await catalog.search.search(LOCAL_OWNER, { resultOptions: { limit: 10 } });
      expect(found.resultsTotalCount).toBe(12);
      expect(found.results.map((r) => r.id)).toEqual([...ids].sort().slice(0, 5));
    } finally {
      await catalog.close();
    }
  });
});

describe('SqliteSearchIndex and per-organization values', () => {
  it('probes the per-organization values for a search word only once some part holds such values', async () => {
    const { store, service, search, close } = inMemorySqliteCatalog();
    const statement = Object.getPrototypeOf(store.db.prepare('SELECT 1')) as { get: (...args: unknown[]) => unknown };
    const get = statement.get;
    let probes = 0;
    const spy = vi.spyOn(statement, 'get').mockImplementation(function (this: { source: string }, ...args: unknown[]) {
      if (this.source.includes('search_org_docs MATCH')) probes++;
      return get.apply(this, args);
    });
    try {
      await service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'stock', type: 'text', name: { en: 'Stock' }, searchable: true, per_org_values: true }]);
      await service.upsertOrganizations(LOCAL_OWNER, [{ org_id: 'acme' }]);
      await service.upsertParts(LOCAL_OWNER, [{ part_id: 'v1', name: { en: 'Valve' } }]);
      const ids = async (text: string) => (await search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 10 } })).results.map((r) => r.id);
      expect(await ids('valve ')).toEqual(['v1']);
      expect(probes).toBe(0);
      await service.upsertParts(LOCAL_OWNER, [{ part_id: 'v2', name: { en: 'Gasket' }, attributes: [{ attribute_id: 'stock', values: [{ organization: 'acme', value: { en: 'valve shelf' } }] }] }]);
      expect(await ids('valve ')).toEqual(['v1', 'v2']);
      expect(probes).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
      await close();
    }
  });
});

describe('SqliteSearchIndex: parts with per-organization values and joined runs', () => {
  it('finds a part with per-organization values by its name or id typed without separators, as it finds the others', async () => {
    const { service, search, close } = inMemorySqliteCatalog();
    try {
      await service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'stock', type: 'text', name: { en: 'Stock' }, searchable: true, per_org_values: true }]);
      await service.upsertOrganizations(LOCAL_OWNER, [{ org_id: 'acme' }]);
      const stock = (text: string) => [{ attribute_id: 'stock', values: [{ organization: 'acme', value: { en: text } }] }];
      expect(await service.upsertParts(LOCAL_OWNER, [
        // Holders: evaluated one by one when a query's word is in some organization's values.
        { part_id: 'pci:8086:10d3', name: { en: 'Form-Data parser' }, attributes: stock('shelf 3') },
        { part_id: 'pci:8086:10d4', name: { en: 'Form-Data writer' } },
        { part_id: 'shelf', name: { en: 'Shelf label' }, attributes: stock('formdata pci808610d3 pci808610d4 aisle') },
      ])).toMatchObject({ errors: {} });
      const ids = async (text: string) => (await search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 10 } })).results.map((r) => r.id).sort();
      expect(await ids('formdata ')).toEqual(['pci:8086:10d3', 'pci:8086:10d4', 'shelf']);
      expect(await ids('formdat')).toEqual(['pci:8086:10d3', 'pci:8086:10d4', 'shelf']);
      expect(await ids('pci808610d3 ')).toEqual(['pci:8086:10d3', 'shelf']);
      expect(await ids('pci808610d')).toEqual(['pci:8086:10d3', 'pci:8086:10d4', 'shelf']);
    } finally {
      await close();
    }
  });
});

describe('SqliteSearchIndex: facet values over every part', () => {
  it('count each value over the parts there are now: a deleted part and a changed value are counted no more', async () => {
    const { service, search, close } = inMemorySqliteCatalog();
    try {
      await service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true }]);
      const part = (id: string, vendor: string) => ({ part_id: id, name: { en: `Controller ${id}` }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: vendor } }] }] });
      expect(await service.upsertParts(LOCAL_OWNER, [part('a1', 'Acme'), part('a2', 'Acme'), part('a3', 'Acme'), part('b1', 'Bolt')])).toMatchObject({ errors: {} });
      const counts = async () => (await search.facetValues(LOCAL_OWNER, { attribute_id: 'vendor' })).values;
      expect(await counts()).toEqual([{ value: 'Acme', count: 3 }, { value: 'Bolt', count: 1 }]);
      await service.deleteParts(LOCAL_OWNER, ['a1']);
      expect(await service.upsertParts(LOCAL_OWNER, [part('a2', 'Bolt')])).toMatchObject({ errors: {} });
      expect(await counts()).toEqual([{ value: 'Bolt', count: 2 }, { value: 'Acme', count: 1 }]);
      // Over a search, the same counts of its hits.
      expect((await search.facetValues(LOCAL_OWNER, { attribute_id: 'vendor', matches: { text: 'controller' } })).values).toEqual([{ value: 'Bolt', count: 2 }, { value: 'Acme', count: 1 }]);
    } finally {
      await close();
    }
  });
});
