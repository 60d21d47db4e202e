/**
 * Contract: identifier attributes (ranking settings `identifierAttributes`; docs/api.md "Ranking
 * settings", docs/search.md "Ranking"): a part whose identifier value equals the query, typed with
 * its separators, other ones or none, comes first among parts that merely mention it; a caller who
 * may not read the identifier attribute gets no part first because of it (nor other counts); bad
 * settings are refused with a 400 naming the field. Both clients (and PostgreSQL through the
 * contract-postgres project).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';
import { ids, values } from '../helpers/search-fixtures.js';

const attributes = [
  { attribute_id: 'mpn', type: 'text', name: { en: 'Manufacturer part number' }, searchable: true },
  { attribute_id: 'supplier_mpn', type: 'text', name: { en: 'Supplier part number' }, searchable: true, visibility: 'admin' },
  { attribute_id: 'note', type: 'text', name: { en: 'Note' }, searchable: true },
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, filterable: true },
  { attribute_id: 'stock', type: 'text', name: { en: 'Stock' }, searchable: true, per_org_values: true },
];


describe.each(MODES)('identifier attributes (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
    // The bearing holds its part number in `mpn` only; the others mention it in their names (a
    // name outranks a value) or in a note.
    expect((await h.admin.upsertParts([
      { part_id: 'b-bearing', name: { en: 'Deep groove ball bearing sealed' }, attributes: values({ mpn: '6204-2RS', note: 'bore 20 mm' }) },
      { part_id: 'a-puller', name: { en: 'Puller for 6204-2RS' }, attributes: values({ note: 'fits 6204 and 6205' }) },
      { part_id: 'a-seal', name: { en: 'Seal 6204-2RS' } },
      { part_id: 'c-kit', name: { en: 'Kit' }, attributes: values({ note: 'for 6204-2RS bearings' }) },
      { part_id: 'c-zz', name: { en: 'Ball bearing 6204-ZZ' }, attributes: values({ mpn: '6204-ZZ' }) },
      { part_id: 'd-angular', name: { en: 'Angular contact ball bearing double row 7301-BEP' }, attributes: values({ supplier_mpn: '7301-BEP' }) },
      { part_id: 'd-cover', name: { en: 'Cover 7301-BEP' } },
      ...Array.from({ length: 4 }, (_, i) => ({ part_id: `z${i}`, name: { en: `sprocket ${i}` } })),
    ])).errors).toEqual({});
  });
  afterEach(async () => {
    await h.close();
  });

  const search = async (text: string, client = h.admin) => {
    const response = await client.search({ matches: { text } });
    return { ids: ids(response), total: response.resultsTotalCount };
  };
  const typings = ['6204-2RS', '6204 2RS', '62042rs', '6204-2rs '];

  it('a value of an identifier attribute equal to the query, with or without separators, ranks its part first', async () => {
    const before = await Promise.all(typings.map((t) => search(t)));
    for (const r of before) expect(r.ids[0]).not.toBe('b-bearing');
    expect(await h.admin.setRanking({ identifierAttributes: ['mpn'] })).toEqual({ customRanking: null, identifierAttributes: ['mpn'], attributeOrder: [] });
    expect(await h.admin.getRanking()).toEqual({ customRanking: null, identifierAttributes: ['mpn'], attributeOrder: [] });
    for (const [i, t] of typings.entries()) {
      const after = await search(t);
      expect(after.ids[0], t).toBe('b-bearing');
      // Only the order changes: the same hits.
      expect([...after.ids].sort(), t).toEqual([...(before[i]?.ids ?? [])].sort());
      expect(after.total, t).toBe(before[i]?.total);
    }
    // A part that merely holds 6204 is no hit of 6204-2RS; `6204` alone names no identifier.
    expect((await search('6204-2RS')).ids).not.toContain('c-zz');
    expect((await search('6204 ')).ids[0]).not.toBe('b-bearing');
    // Removed: the order of before.
    await h.admin.setRanking({ identifierAttributes: [] });
    expect((await search('62042rs')).ids).toEqual(before[2]?.ids);
  });

  it('a caller who may not read the identifier attribute gets no part first because of it', async () => {
    await h.admin.setRanking({ identifierAttributes: ['mpn', 'supplier_mpn'] });
    expect((await search('7301-BEP')).ids[0]).toBe('d-angular');
    expect((await search('7301bep')).ids[0]).toBe('d-angular');
    const worker = await h.as(['factoryWorker']);
    const seen = await search('7301-BEP', worker);
    expect(seen.ids).toEqual(['d-cover', 'd-angular']);
    await h.admin.setRanking({ identifierAttributes: ['mpn'] });
    expect(await search('7301-BEP', worker)).toEqual(seen);
    // The visible identifier ranks for the worker as for the admin.
    expect((await search('6204 2rs', worker)).ids[0]).toBe('b-bearing');
  });

  it('refuses identifier attributes that do not exist, are not searchable, have per-organization values or repeat, naming the field', async () => {
    await expectCatalogError(h.admin.setRanking({ identifierAttributes: ['nope'] }), 'bad_request', /identifierAttributes\[0\]: attribute 'nope' does not exist/);
    await expectCatalogError(h.admin.setRanking({ identifierAttributes: ['mpn', 'vendor'] }), 'bad_request', /identifierAttributes\[1\]: attribute 'vendor' is not searchable/);
    await expectCatalogError(h.admin.setRanking({ identifierAttributes: ['stock'] }), 'bad_request', /identifierAttributes\[0\]: .*per-organization values/);
    await expectCatalogError(h.admin.setRanking({ identifierAttributes: ['mpn', 'mpn'] }), 'bad_request', /identifierAttributes\[1\]: attribute 'mpn' is named twice/);
    await expectCatalogError(h.admin.setRanking({ identifierAttributes: 'mpn' }), 'bad_request', /identifierAttributes/);
    expect(await h.admin.getRanking()).toEqual({ customRanking: null, identifierAttributes: [], attributeOrder: [] });
  });
});
