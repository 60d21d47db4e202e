/**
 * The SQLite engine's cache of decoded postings (engine-store.ts `decoded`; issue 12): bounded by
 * postings, least recently used out, whatever the order of uses and evictions before.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EngineStore } from '../../src/adapters/sqlite/search/engine-store.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Principal } from '../../src/api/schemas.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

/** Local mode's caller, every search ranked (no result cache) and no session stored. */
const RANKS_EVERY_TIME: Principal = { ...LOCAL_OWNER, storesSessions: false, cachesResults: false };
const WORDS = Array.from({ length: 12 }, (_, i) => `quokka${String.fromCharCode(97 + i)}`);

describe('the posting cache', () => {
  let catalog: Catalog;
  beforeAll(async () => {
    // Each word in exactly one part's name: one posting each; the cache holds three.
    catalog = openCatalog({ dataDir: tempDir('catalog-posting-cache-'), searchTuning: { postingCache: 3 } });
    expect(await catalog.service.upsertParts(LOCAL_OWNER, WORDS.map((word, i) => ({ part_id: `p${i}`, name: { en: word } })))).toMatchObject({ errors: {} });
  });
  afterAll(async () => {
    await catalog?.close();
  });

  it('reads a word again only once it is among the least recently used beyond the bound', async () => {
    const decoded = vi.spyOn(EngineStore.prototype as unknown as { decoded(id: number, term: string): unknown }, 'decoded');
    const evicted = vi.spyOn(EngineStore.prototype as unknown as { evict(id: number): void }, 'evict');
    try {
      const termOf = new Map<number, string>();
      const search = async (word: string) => {
        expect((await catalog.search.search(RANKS_EVERY_TIME, { matches: { text: `${word} ` } })).resultsTotalCount).toBe(1);
        for (const [id, term] of decoded.mock.calls) termOf.set(id, term);
      };
      const evictedWords = () => evicted.mock.calls.map(([id]) => termOf.get(id)).filter((term) => term?.startsWith('quokka'));
      const [a, b, c, d, e, f] = WORDS as [string, string, string, string, string, string];
      for (const word of [a, b, c]) await search(word);
      expect(evictedWords()).toEqual([]);
      // a used again: b is now the least recently used.
      await search(a);
      await search(d);
      expect(evictedWords()).toEqual([b]);
      await search(e);
      await search(c);
      await search(f);
      // c was evicted by e (LRU: c, a, d), read again (evicting a), then f evicts d.
      expect(evictedWords()).toEqual([b, c, a, d]);
      // Many rounds of uses and evictions later, the order still holds: the three last words are kept.
      for (let round = 0; round < 40; round++) await search(WORDS[(round * 5) % WORDS.length] as string);
      const lastThree = [37, 38, 39].map((round) => WORDS[(round * 5) % WORDS.length] as string);
      evicted.mockClear();
      for (const word of lastThree) await search(word);
      expect(evictedWords()).toEqual([]);
      // And the next new word evicts the least recently used of them.
      const next = WORDS.find((word) => !lastThree.includes(word)) as string;
      await search(next);
      expect(evictedWords()).toEqual([lastThree[0]]);
    } finally {
      decoded.mockRestore();
      evicted.mockRestore();
    }
  });
});
