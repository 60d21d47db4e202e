/**
 * The SQLite engine's cache of decoded postings (engine-store.ts `decoded`): bounded by
 * postings, least recently used out, whatever the order of uses and evictions before.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EngineStore } from '../../src/adapters/sqlite/search/engine-store.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

// Two letters apart from each other (quokkaaa, quokkabb, ...): no word is a typo neighbour of another.
const WORDS = Array.from({ length: 12 }, (_, i) => `quokka${String.fromCharCode(97 + i).repeat(2)}`);

describe('the posting cache', () => {
  let catalog: Catalog;
  beforeAll(async () => {
    // Each word in exactly one part's name: one posting each; the cache holds three. (No name is
    // the word alone: the exact rule's list of a name equal to the query would be cached too.)
    catalog = openCatalog({ dataDir: tempDir('catalog-posting-cache-'), searchTuning: { postingCache: 3, cacheSize: 0 } });
    expect(await catalog.service.upsertParts(LOCAL_OWNER, WORDS.map((word, i) => ({ part_id: `p${i}`, name: { en: `${word} part` } })))).toMatchObject({ errors: {} });
  });
  afterAll(async () => {
    await catalog?.close();
  });

  it('reads a word again only once it is among the least recently used beyond the bound', async () => {
    const decoded = vi.spyOn(EngineStore.prototype as unknown as { decoded(id: number, term: string): unknown }, 'decoded');
    const engine = (catalog.search as unknown as { index: { engine: { terms: { keys(): Iterable<number> } } } }).index.engine;
    try {
      const termOf = new Map<number, string>();
      const search = async (word: string) => {
        expect((await catalog.search.search(LOCAL_OWNER, { matches: { text: `${word} ` } })).resultsTotalCount).toBe(1);
        for (const [id, term] of decoded.mock.calls) termOf.set(id, term);
      };
      const cached = () => [...engine.terms.keys()].map((id) => termOf.get(id)).filter((term) => term?.startsWith('quokka')).sort();
      const [a, b, c, d, e, f] = WORDS as [string, string, string, string, string, string];
      for (const word of [a, b, c]) await search(word);
      expect(cached()).toEqual([a, b, c].sort());
      // a used again: b is now the least recently used, and d evicts it.
      await search(a);
      await search(d);
      expect(cached()).toEqual([a, c, d].sort());
      // e evicts c (LRU: c, a, d); c read again evicts a; f evicts d.
      await search(e);
      await search(c);
      await search(f);
      expect(cached()).toEqual([e, c, f].sort());
      // Many rounds of uses and evictions later, the three last words are kept.
      for (let round = 0; round < 40; round++) await search(WORDS[(round * 5) % WORDS.length] as string);
      const lastThree = [37, 38, 39].map((round) => WORDS[(round * 5) % WORDS.length] as string);
      expect(cached()).toEqual([...lastThree].sort());
      // And the next new word evicts the least recently used of them.
      const next = WORDS.find((word) => !lastThree.includes(word)) as string;
      await search(next);
      expect(cached()).toEqual([lastThree[1], lastThree[2], next].sort());
    } finally {
      decoded.mockRestore();
    }
  });
});
