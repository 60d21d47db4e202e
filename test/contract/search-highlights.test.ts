/**
 * Contract (highlights): projection `results.highlights` says which query word matched
 * which field (id, name per language, attribute value) and where, exact, as a prefix or with a
 * typo, on the first page and on later pages; values the caller may not see are never shown;
 * both clients.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SearchResult } from '../../src/api/schemas.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';

const attributes = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
  { attribute_id: 'cost', type: 'text', name: { en: 'Cost' }, searchable: true, visibility: 'admin' },
];

const byId = (results: SearchResult[], id: string) => results.find((r) => r.id === id);

describe.each(MODES)('search highlights (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
    await h.admin.upsertParts([
      {
        part_id: 'pci:8086:15b8', name: { en: 'Ethernet Controller I219-V', de: 'Ethernet-Steuerung' },
        attributes: [
          { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel Corporation' } }] },
          { attribute_id: 'cost', values: [{ organization: '', value: { en: 'Intel internal price' } }] },
        ],
      },
      { part_id: 'pci:10ec:8168', name: { en: 'Gigabit Ethernet Controller' } },
    ]);
  });
  afterEach(async () => {
    await h.close();
  });

  it('marks exact words, the prefix of the last word and the field each matched in', async () => {
    const first = await h.admin.search({ matches: { text: 'intel ethernet contr' }, projection: ['results.id', 'results.highlights'] });
    expect(first.resultsTotalCount).toBe(1);
    expect(byId(first.results, 'pci:8086:15b8')?.highlights).toEqual([
      { field: 'name', language: 'de', text: 'Ethernet-Steuerung', matches: [{ word: 1, start: 0, end: 8, how: 'exact' }] },
      {
        field: 'name', language: 'en', text: 'Ethernet Controller I219-V',
        matches: [{ word: 1, start: 0, end: 8, how: 'exact' }, { word: 2, start: 9, end: 14, how: 'prefix' }],
      },
      { field: 'value', attribute_id: 'cost', text: 'Intel internal price', matches: [{ word: 0, start: 0, end: 5, how: 'exact' }] },
      { field: 'value', attribute_id: 'vendor', text: 'Intel Corporation', matches: [{ word: 0, start: 0, end: 5, how: 'exact' }] },
    ]);
    // Later pages of the session carry them too.
    const page = await h.admin.searchState(first.sessionId, { projection: ['results.highlights'] });
    expect(page.results[0]?.highlights).toEqual(byId(first.results, 'pci:8086:15b8')?.highlights);
    // A factory worker never sees the admin-only value, not even as a highlight.
    const worker = await h.as(['factoryWorker']);
    const seen = await worker.search({ matches: { text: 'intel ethernet contr' }, projection: ['results.highlights'] });
    expect(seen.results[0]?.highlights?.map((x) => x.attribute_id ?? x.field)).toEqual(['name', 'name', 'vendor']);
  });

  it('marks a typo match as such, and a punctuated word in the id', async () => {
    const typo = await h.admin.search({ matches: { text: 'gigabti ' }, projection: ['results.id', 'results.highlights'] });
    expect(typo.results.map((r) => r.id)).toEqual(['pci:10ec:8168']);
    expect(typo.results[0]?.highlights).toEqual([
      { field: 'name', language: 'en', text: 'Gigabit Ethernet Controller', matches: [{ word: 0, start: 0, end: 7, how: 'typo' }] },
    ]);
    const id = await h.admin.search({ matches: { text: '8086:15b8 ' }, projection: ['results.highlights'] });
    expect(id.results[0]?.highlights).toEqual([{ field: 'id', text: 'pci:8086:15b8', matches: [{ word: 0, start: 4, end: 13, how: 'exact' }] }]);
    // No text, no highlights (but the field is there when asked for).
    const none = await h.admin.search({ projection: ['results.id', 'results.highlights'] });
    expect(none.results.every((r) => Array.isArray(r.highlights) && r.highlights.length === 0)).toBe(true);
  });
});

describe.each(MODES)('search typo rules (%s client)', (mode) => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('one typo from 5 letters, two from 9; thresholds configurable; the highlight says typo', async () => {
    h = await createHarness(mode);
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'Thermostat housing' } }, { part_id: 'p2', name: { en: 'Gasket' } }]);
    const find = async (text: string) => (await h.admin.search({ matches: { text }, projection: ['results.id', 'results.highlights'] })).results;
    // 10 letters, two edits (a deletion and a swap) away from "thermostat".
    const two = await find('thermsotta ');
    expect(two.map((r) => r.id)).toEqual(['p1']);
    expect(two[0]?.highlights?.[0]?.matches).toEqual([{ word: 0, start: 0, end: 10, how: 'typo' }]);
    // 8 letters: one typo only.
    expect(await find('housnig ')).toHaveLength(1);
    expect(await find('huosnig ')).toHaveLength(0);
    // 4 letters: none.
    expect(await find('gaskt ')).toHaveLength(1);
    expect(await find('gskt ')).toHaveLength(0);
    await h.close();

    h = await createHarness(mode, { searchLimits: { typoRules: { oneTypoMinLength: 4, twoTyposMinLength: 7 } } });
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'Thermostat housing' } }, { part_id: 'p2', name: { en: 'Gasket' } }]);
    expect((await h.admin.search({ matches: { text: 'huosnig ' } })).resultsTotalCount).toBe(1);
    expect((await h.admin.search({ matches: { text: 'gskt ' } })).resultsTotalCount).toBe(0);
  });
});
