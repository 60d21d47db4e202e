/**
 * A prefix of 2 or 3 letters begins every word, part number and name that starts so: on a large
 * catalog, thousands of dictionary terms. Its completions and the names it begins are read as a
 * few lists (document.ts completionsTerm, namesBeginTerm), not as a range of every such term; the
 * answers are those of the range (the store contract checks them against the reference ranking).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LeveledTerms } from '../../src/adapters/sqlite/search/leveled-terms.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

const PARTS = 600;
/** A part number of its own for every part: `CO` and four digits (as real model numbers are). */
const model = (i: number) => `CO${String((i * 7919) % 10000).padStart(4, '0')}`;

describe('short prefixes', () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = openCatalog({ dataDir: tempDir('catalog-short-prefixes-'), searchTuning: { cacheSize: 0 } });
    const parts = Array.from({ length: PARTS }, (_, i) => ({ part_id: `p-${i}`, name: { en: `${i % 2 === 0 ? 'Connector' : 'Coupling'} ${model(i)}` } }));
    expect(await catalog.service.upsertParts(LOCAL_OWNER, [...parts, { part_id: 'q-1', name: { en: 'Cog' } }, { part_id: 'q-2', name: { en: 'Bracket' } }])).toMatchObject({ errors: {} });
  });
  afterAll(async () => {
    await catalog?.close();
  });

  const search = async (text: string) => {
    const answer = await catalog.search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 3 } });
    return { total: answer.resultsTotalCount, ids: answer.results.map((r) => r.id) };
  };

  /** The dictionary terms the searches of `text` read through ranges. */
  const termsRead = async (text: string) => {
    const range = vi.spyOn(LeveledTerms.prototype, 'range');
    try {
      const found = await search(text);
      return { ...found, read: range.mock.results.reduce((n, r) => n + (r.value as unknown[]).length, 0) };
    } finally {
      range.mockRestore();
    }
  };

  it('reads a few lists for a prefix of 2 or 3 letters, however many words and names it begins', async () => {
    // Every part's name and part number begin with `co`: 600 names, 600 part numbers, 3 words.
    for (const text of ['co', 'cou', 'CO0']) {
      const { total, read } = await termsRead(text);
      expect(total, text).toBe(text === 'co' ? PARTS + 1 : text === 'cou' ? PARTS / 2 : Array.from({ length: PARTS }, (_, i) => model(i)).filter((m) => m.startsWith('CO0')).length);
      expect(read, text).toBeLessThan(20);
    }
  });

  it('ranks the shortest name beginning with the prefix first, as the range does', async () => {
    expect((await search('co')).ids[0]).toBe('q-1');
    expect((await search('cog')).ids).toEqual(['q-1']);
    // Four letters: the range of the names and words it begins, as before.
    expect((await search('coup')).total).toBe(PARTS / 2);
  });
});
