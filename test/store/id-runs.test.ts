/**
 * A part id's punctuated runs, joined (`pci:8086:10d3` → `pci808610d3`), find the part when its
 * number is typed without separators, whole or begun; and a word that only begins the run's first
 * token (`pci`, `npm`: every id of a catalog may begin so) finds the parts through that token, not
 * through a range of every id in the dictionary.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LeveledTerms } from '../../src/adapters/sqlite/search/leveled-terms.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

const PARTS = 600;
const hex = (i: number) => (0x1000 + i * 7).toString(16);

describe('the joined runs of part ids', () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = openCatalog({ dataDir: tempDir('catalog-id-runs-'), searchTuning: { cacheSize: 0 } });
    const parts = Array.from({ length: PARTS }, (_, i) => ({ part_id: `pci:8086:${hex(i)}`, name: { en: `Ethernet controller ${i}` } }));
    expect(await catalog.service.upsertParts(LOCAL_OWNER, [...parts, { part_id: 'usb:046d:c52b', name: { en: 'Unifying receiver' } }])).toMatchObject({ errors: {} });
  });
  afterAll(async () => {
    await catalog?.close();
  });

  const search = async (text: string) => {
    const answer = await catalog.search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 5 } });
    return { total: answer.resultsTotalCount, first: answer.results[0]?.id };
  };

  it('a word that begins every id reads no range of every id', async () => {
    const range = vi.spyOn(LeveledTerms.prototype, 'range');
    try {
      expect((await search('pci')).total).toBe(PARTS);
      const termsRead = range.mock.results.reduce((n, r) => n + (r.value as unknown[]).length, 0);
      // The id token `pci` and the few words and names beginning with it; not one term per id.
      expect(termsRead).toBeLessThan(50);
    } finally {
      range.mockRestore();
    }
  });

  it('finds a part by its id typed without separators, whole or begun past its first token', async () => {
    const id = `pci:8086:${hex(123)}`;
    expect(await search(`pci8086${hex(123)}`)).toEqual({ total: 1, first: id });
    expect(await search(`pci8086${hex(123)} `)).toEqual({ total: 1, first: id });
    expect((await search(`pci8086${hex(123).slice(0, 2)}`)).total).toBe(Array.from({ length: PARTS }, (_, i) => hex(i)).filter((h) => h.startsWith(hex(123).slice(0, 2))).length);
    expect(await search('usb046dc5')).toEqual({ total: 1, first: 'usb:046d:c52b' });
    expect((await search('pci80')).total).toBe(PARTS);
    expect((await search('pci80 ')).total).toBe(0);
  });
});
