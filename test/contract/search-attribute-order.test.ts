/**
 * Contract: the attribute order (ranking settings `attributeOrder`; docs/api.md "Ranking
 * settings", docs/search.md "Ranking"): a word found in an earlier attribute ranks a part above
 * one holding it only in a later attribute; changing the setting re-ranks, removing it restores
 * the order of before; an attribute a caller may not read ranks nothing for that caller; bad
 * settings are refused with a 400 naming the field. Both clients (and PostgreSQL through the
 * contract-postgres project).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';
import { ids, values } from '../helpers/search-fixtures.js';

const attributes = [
  { attribute_id: 'title', type: 'text', name: { en: 'Title' }, searchable: true },
  { attribute_id: 'summary', type: 'text', name: { en: 'Summary' }, searchable: true },
  { attribute_id: 'secret', type: 'text', name: { en: 'Secret' }, searchable: true, visibility: 'admin' },
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, filterable: true },
  { attribute_id: 'stock', type: 'text', name: { en: 'Stock' }, searchable: true, per_org_values: true },
];


describe.each(MODES)('attribute order (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
    expect((await h.admin.upsertParts([
      // `valve` in the summary of one, in the title of the other: alike otherwise, so part id decides today.
      { part_id: 'a-summary', name: { en: 'Widget one' }, attributes: values({ summary: 'brass valve', title: 'fitting' }) },
      { part_id: 'b-title', name: { en: 'Widget two' }, attributes: values({ title: 'brass valve', summary: 'fitting' }) },
      // `gear` in both titles; the second also in a value only an admin reads, and a longer title.
      { part_id: 'x-plain', name: { en: 'Part three' }, attributes: values({ title: 'gear' }) },
      { part_id: 'y-hidden', name: { en: 'Part four' }, attributes: values({ title: 'gear wheel steel', secret: 'gear' }) },
    ])).errors).toEqual({});
  });
  afterEach(async () => {
    await h.close();
  });

  const search = async (text: string, client = h.admin) => {
    const response = await client.search({ matches: { text } });
    return { ids: ids(response), total: response.resultsTotalCount };
  };

  it('ranks a word in an earlier attribute first; changing the setting re-ranks, removing it restores the order of before', async () => {
    const before = await search('valve');
    expect(before.ids).toEqual(['a-summary', 'b-title']);
    expect(await h.admin.setRanking({ attributeOrder: ['title', 'summary'] })).toEqual({ customRanking: null, identifierAttributes: [], attributeOrder: ['title', 'summary'] });
    expect(await h.admin.getRanking()).toEqual({ customRanking: null, identifierAttributes: [], attributeOrder: ['title', 'summary'] });
    const titled = await search('valve');
    expect(titled.ids).toEqual(['b-title', 'a-summary']);
    // Only the order changes: the same hits and total.
    expect(titled.total).toBe(before.total);
    // An attribute listed beats one left out.
    await h.admin.setRanking({ attributeOrder: ['summary'] });
    expect((await search('valve')).ids).toEqual(['a-summary', 'b-title']);
    await h.admin.setRanking({ attributeOrder: [] });
    expect(await search('valve')).toEqual(before);
  });

  it('an attribute a caller may not read ranks nothing for that caller; bad settings are refused naming the field', async () => {
    const worker = await h.as(['factoryWorker']);
    const unset = await search('gear', worker);
    expect(unset.ids).toEqual(['x-plain', 'y-hidden']);
    await h.admin.setRanking({ attributeOrder: ['secret', 'title'] });
    // The admin reads `secret`: its word there ranks y-hidden first.
    expect((await search('gear')).ids).toEqual(['y-hidden', 'x-plain']);
    expect(await search('gear', worker)).toEqual(unset);
    // Bad settings: a 400 naming the field, the stored settings kept.
    await expectCatalogError(h.admin.setRanking({ attributeOrder: ['nope'] }), 'bad_request', /attributeOrder\[0\]: attribute 'nope' does not exist/);
    await expectCatalogError(h.admin.setRanking({ attributeOrder: ['title', 'vendor'] }), 'bad_request', /attributeOrder\[1\]: attribute 'vendor' is not searchable/);
    await expectCatalogError(h.admin.setRanking({ attributeOrder: ['stock'] }), 'bad_request', /attributeOrder\[0\]: .*per-organization values/);
    await expectCatalogError(h.admin.setRanking({ attributeOrder: ['title', 'title'] }), 'bad_request', /attributeOrder\[1\]: attribute 'title' is named twice/);
    await expectCatalogError(h.admin.setRanking({ attributeOrder: Array.from({ length: 9 }, (_, i) => `a${i}`) }), 'bad_request', /attributeOrder.*at most 8/);
    expect(await h.admin.getRanking()).toEqual({ customRanking: null, identifierAttributes: [], attributeOrder: ['secret', 'title'] });
  });
});
