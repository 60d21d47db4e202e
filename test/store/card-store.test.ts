/**
 * Every current part's card in memory (adapters/sqlite/search/card-store.ts; `catalog serve`'s
 * main thread, issue 12): a search's cards come from it, a write's changed card never does, and a
 * card id that comes back for another part (its rowid reused) is never answered with the old one.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CurrentCardStore } from '../../src/adapters/sqlite/search/card-store.js';
import { CHUNK } from '../../src/core/search/engine/doc-chunks.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

describe('the card store', () => {
  const rows = [
    [1, 11, '["p1",null,"s1",{"en":"Gear"},1,2]'],
    [2, 22, '["p2",null,"s2",{"en":"Zahnrad ä"},3,4]'],
    [CHUNK + 5, 33, '["p3",null,"s3",{"en":"Cog"},5,6]'],
  ] as const;

  it('answers a card by rowid and card id, only for the card id it was loaded with', () => {
    const store = CurrentCardStore.load(rows, 2 * CHUNK);
    expect(store.size).toBe(3);
    expect(store.get(2, 22)).toBe('["p2",null,"s2",{"en":"Zahnrad ä"},3,4]');
    expect(store.get(CHUNK + 5, 33)).toBe('["p3",null,"s3",{"en":"Cog"},5,6]');
    // Another version of the part, another part's id, a rowid never loaded or out of range.
    expect(store.get(2, 23)).toBeUndefined();
    expect(store.get(1, 22)).toBeUndefined();
    expect(store.get(3, 0)).toBeUndefined();
    expect(store.get(10 * CHUNK, 11)).toBeUndefined();
  });

  it('skips rows without a current card or past the rowids it was sized for', () => {
    const store = CurrentCardStore.load([[1, 0, '["x"]'], [5, -1, '["y"]'], [2 * CHUNK, 44, '["z"]'], ...rows.slice(0, 1)], 2 * CHUNK);
    expect(store.size).toBe(1);
    expect(store.get(1, 11)).toBe(rows[0][2]);
  });

  it('drops the entries of the doc chunks it is told of, and only those', () => {
    const store = CurrentCardStore.load(rows, 2 * CHUNK);
    store.dropChunks([0]);
    expect(store.get(1, 11)).toBeUndefined();
    expect(store.get(2, 22)).toBeUndefined();
    expect(store.get(CHUNK + 5, 33)).toBe(rows[2][2]);
    expect(store.size).toBe(1);
    store.dropChunks([0, 1, 7]);
    expect(store.size).toBe(0);
  });

  it('stops at its byte limit: the rows after are left to the table', () => {
    const many = Array.from({ length: 1000 }, (_, i) => [i + 1, i + 100, `["p${String(i).padStart(4, '0')}"]`] as const);
    const store = CurrentCardStore.load(many, 2000, 40 * 9 + 5);
    expect(store.size).toBe(40);
    expect(store.byteLength).toBe(360);
    expect(store.get(40, 139)).toBe('["p0039"]');
    expect(store.get(41, 140)).toBeUndefined();
  });

  it('grows its buffer past the first megabyte', () => {
    const big = Array.from({ length: 5000 }, (_, i) => [i + 1, i + 1, JSON.stringify([`p${i}`, 'x'.repeat(400)])] as const);
    const store = CurrentCardStore.load(big, 6000);
    expect(store.size).toBe(5000);
    expect(store.byteLength).toBeGreaterThan(1024 * 1024);
    expect(store.get(4321, 4321)).toBe(big[4320]?.[2]);
  });
});

describe("a catalog's cards from the card store", () => {
  let dir: string;
  let catalog: Catalog;

  beforeEach(async () => {
    dir = tempDir('catalog-card-store-');
    catalog = openCatalog({ dataDir: dir });
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 12 }, (_, i) => ({ part_id: `p${String(i).padStart(2, '0')}`, name: { en: `Cog model${i}` } })));
  });
  afterEach(async () => {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The cards of a search for `text`: id → name. */
  async function cards(text: string): Promise<Record<string, string | undefined>> {
    const answer = await catalog.search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 50 } });
    return Object.fromEntries(answer.results.map((r) => [r.id, r.name]));
  }

  /** Runs `work` on a connection of its own to catalog.db. */
  function sql<T>(work: (db: Database.Database) => T): T {
    const db = new Database(join(dir, 'catalog.db'));
    try {
      return work(db);
    } finally {
      db.close();
    }
  }

  /** Changes a part's stored name behind the search index's back (no engine write, so its card id stays). */
  function editBehindTheIndex(partId: string, name: string): void {
    sql((db) => db.prepare('UPDATE parts SET name = json(?) WHERE part_id = ?').run(JSON.stringify({ en: name }), partId));
  }

  it('takes a current card from the store, not from the table', async () => {
    catalog.search.loadCurrentCards();
    editBehindTheIndex('p03', 'Edited behind');
    // The store still holds the card of p03's current version as it was loaded.
    expect((await cards('model3'))['p03']).toBe('Cog model3');
  });

  it('reads the table without a store (the edit shows)', async () => {
    editBehindTheIndex('p03', 'Edited behind');
    expect((await cards('model3'))['p03']).toBe('Edited behind');
  });

  it("answers a part written after the load with its new card", async () => {
    catalog.search.loadCurrentCards();
    await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p04', name: { en: 'Cog model4 renamed' } }]);
    expect((await cards('model4'))['p04']).toBe('Cog model4 renamed');
  });

  it("never answers a reused card id with the card of the part that had it", async () => {
    const currentCardOf = (partId: string) => sql((db) => db.prepare('SELECT c.card_id FROM search_current AS c JOIN parts AS p ON p.rowid_ = c.part_rowid WHERE p.part_id = ?').pluck().get(partId) as number | undefined);
    const before = currentCardOf('p11');
    catalog.search.loadCurrentCards();
    // p11 has the highest rowid: deleted, its rowid comes back for the next new part. Once the
    // copy of its card is purged (after 25 h), that part's card is the rowid's first version again:
    // the very card id the store holds p11's card under.
    expect(await catalog.service.deleteParts(LOCAL_OWNER, ['p11'])).toMatchObject({ errors: {} });
    sql((db) => db.prepare('DELETE FROM search_cards').run());
    await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'q99', name: { en: 'Cog model11 successor' } }]);
    expect(currentCardOf('q99')).toBe(before);
    const found = await cards('successor');
    expect(Object.keys(found)).toEqual(['q99']);
    expect(found['q99']).toBe('Cog model11 successor');
  });
});
