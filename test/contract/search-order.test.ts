/**
 * Contract: the catalog's ranking settings and a search's `sort` (docs/api.md "Ranking settings",
 * "Search"; docs/search.md "Ranking"): the custom ranking attribute breaks the ranking rules'
 * ties (desc and asc) and orders nothing for a caller who may not read it; `sort` orders by a
 * number or a text attribute (missing values last, ties by part id) or by part id, and sessions
 * page in that order; a hidden attribute cannot be sorted by (the same 400 as an unknown one);
 * bad settings are refused with a clear 400. Both clients (and PostgreSQL through the
 * contract-postgres project).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';
import { ids, values } from '../helpers/search-fixtures.js';

const attributes = [
  { attribute_id: 'popularity', type: 'text', name: { en: 'Popularity' }, filterable: true },
  { attribute_id: 'price', type: 'text', name: { en: 'Price' }, filterable: true },
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, filterable: true },
  { attribute_id: 'cost', type: 'text', name: { en: 'Cost' }, filterable: true, visibility: 'admin' },
  { attribute_id: 'note', type: 'text', name: { en: 'Note' }, searchable: true },
  { attribute_id: 'stock', type: 'text', name: { en: 'Stock' }, filterable: true, per_org_values: true },
];


describe.each(MODES)('ranking settings and sort (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
    // Four parts the rules and BM25 tie on `bearing` (same name, same length), one named exactly
    // `bearing`, and parts without the word.
    expect((await h.admin.upsertParts([
      { part_id: 'p-a', name: { en: 'ball bearing' }, attributes: values({ popularity: '5', price: '10', vendor: 'beta', cost: '3' }) },
      { part_id: 'p-b', name: { en: 'ball bearing' }, attributes: values({ popularity: '500', price: '9.5', vendor: 'Alpha', cost: '1' }) },
      { part_id: 'p-c', name: { en: 'ball bearing' }, attributes: values({ vendor: 'gamma' }) },
      { part_id: 'p-d', name: { en: 'ball bearing' }, attributes: values({ popularity: '50', price: '1e2', cost: '2' }) },
      { part_id: 'x-exact', name: { en: 'bearing' }, attributes: values({ popularity: '1', price: '20' }) },
      ...Array.from({ length: 6 }, (_, i) => ({ part_id: `z${i}`, name: { en: `sprocket ${i}` } })),
    ])).errors).toEqual({});
  });
  afterEach(async () => {
    await h.close();
  });

  const search = async (client = h.admin, body: Record<string, unknown> = {}) => ids(await client.search({ matches: { text: 'bearing ' }, ...body }));

  it('the custom ranking attribute breaks the rules\' ties, descending and ascending, after the exact rule; among names that begin with the letters typed, before exactness', async () => {
    expect((await h.admin.upsertParts([
      { part_id: 'n-mini-lr', name: { en: 'mini-lr' }, attributes: values({ popularity: '10' }) },
      { part_id: 'n-minimatch', name: { en: 'minimatch' }, attributes: values({ popularity: '9000' }) },
      { part_id: 'n-minimist', name: { en: 'minimist' }, attributes: values({ popularity: '800' }) },
      { part_id: 'n-a-mini', name: { en: 'a mini thing' }, attributes: values({ popularity: '99999' }) },
    ])).errors).toEqual({});
    const mini = async () => ids(await h.admin.search({ matches: { text: 'mini' } }));
    expect(await h.admin.getRanking()).toEqual({ customRanking: null, identifierAttributes: [], attributeOrder: [] });
    expect(await search()).toEqual(['x-exact', 'p-a', 'p-b', 'p-c', 'p-d']);
    // The first letters of a name, without a popularity signal: the name holding the word typed, then the shortest completion.
    expect(await mini()).toEqual(['n-mini-lr', 'n-minimist', 'n-minimatch', 'n-a-mini']);
    expect(await h.admin.setRanking({ customRanking: { attribute_id: 'popularity' } })).toEqual({ customRanking: { attribute_id: 'popularity', order: 'desc' }, identifierAttributes: [], attributeOrder: [] });
    expect(await h.admin.getRanking()).toEqual({ customRanking: { attribute_id: 'popularity', order: 'desc' }, identifierAttributes: [], attributeOrder: [] });
    // With one: among the names that begin with `mini`, the most popular first; a name that only holds the word after them.
    expect(await mini()).toEqual(['n-minimatch', 'n-minimist', 'n-mini-lr', 'n-a-mini']);
    // The exact name first whatever its popularity; the ties by popularity, the largest first; no value last.
    expect(await search()).toEqual(['x-exact', 'p-b', 'p-d', 'p-a', 'p-c']);
    // Filters only: every hit ties on the rules, so popularity orders them.
    expect(ids(await h.admin.search({ matches: { filters: [{ label: 'vendor', values: ['alpha', 'beta', 'gamma'] }] } }))).toEqual(['p-b', 'p-a', 'p-c']);
    await h.admin.setRanking({ customRanking: { attribute_id: 'popularity', order: 'asc' } });
    expect(await search()).toEqual(['x-exact', 'p-a', 'p-d', 'p-b', 'p-c']);
    await h.admin.setRanking({ customRanking: null });
    expect(await search()).toEqual(['x-exact', 'p-a', 'p-b', 'p-c', 'p-d']);
  });

  it('names that begin with the letters as typed come before those that begin with them only once separators are dropped, popularity within each', async () => {
    expect((await h.admin.upsertParts([
      { part_id: 'q-p-retry', name: { en: 'p-retry' }, attributes: values({ popularity: '99999' }) },
      { part_id: 'q-scoped', name: { en: '@pretty/cli' }, attributes: values({ popularity: '50000' }) },
      { part_id: 'q-pretty-format', name: { en: 'pretty-format' }, attributes: values({ popularity: '600' }) },
      { part_id: 'q-prettier', name: { en: 'prettier' }, attributes: values({ popularity: '300' }) },
      { part_id: 'q-word', name: { en: 'a pretty thing' }, attributes: values({ popularity: '100000' }) },
    ])).errors).toEqual({});
    const typed = async (text: string) => ids(await h.admin.search({ matches: { text } }));
    // Without a popularity signal: as typed, the shorter name first; then the joined ones; then a name holding a completion.
    expect(await typed('pret')).toEqual(['q-prettier', 'q-pretty-format', 'q-p-retry', 'q-scoped', 'q-word']);
    await h.admin.setRanking({ customRanking: { attribute_id: 'popularity' } });
    expect(await typed('pret')).toEqual(['q-pretty-format', 'q-prettier', 'q-p-retry', 'q-scoped', 'q-word']);
    // Typed with the separators: the names that have them where they were typed come first.
    expect(await typed('@pret')).toEqual(['q-scoped', 'q-p-retry', 'q-pretty-format', 'q-prettier', 'q-word']);
    expect(await typed('p-ret')).toEqual(['q-p-retry', 'q-scoped', 'q-pretty-format', 'q-prettier', 'q-word']);
  });

  it('a custom ranking attribute the caller may not read orders nothing for it', async () => {
    await h.admin.setRanking({ customRanking: { attribute_id: 'cost', order: 'asc' } });
    expect(await search()).toEqual(['x-exact', 'p-b', 'p-d', 'p-a', 'p-c']);
    const worker = await h.as(['factoryWorker']);
    expect(await search(worker)).toEqual(['x-exact', 'p-a', 'p-b', 'p-c', 'p-d']);
  });

  it('sort by a number attribute: missing values last, ties by part id; sessions page in that order', async () => {
    const asc = await h.admin.search({ matches: { text: 'bearing ' }, sort: [{ attribute_id: 'price', order: 'asc' }], resultOptions: { limit: 2 } });
    expect(ids(asc)).toEqual(['p-b', 'p-a']);
    expect(asc.resultsTotalCount).toBe(5);
    expect(ids(await h.admin.searchState(asc.sessionId, { skip: 2, limit: 3 }))).toEqual(['x-exact', 'p-d', 'p-c']);
    expect(await search(h.admin, { sort: [{ attribute_id: 'price', order: 'desc' }] })).toEqual(['p-d', 'x-exact', 'p-a', 'p-b', 'p-c']);
    // Without text: every part, those without a price last by part id.
    expect(ids(await h.admin.search({ sort: [{ attribute_id: 'price' }], resultOptions: { limit: 7 } }))).toEqual(['p-b', 'p-a', 'x-exact', 'p-d', 'p-c', 'z0', 'z1']);
  });

  it('sort by a text attribute (case aside) and by part id', async () => {
    expect(await search(h.admin, { sort: [{ attribute_id: 'vendor', order: 'asc' }] })).toEqual(['p-b', 'p-a', 'p-c', 'p-d', 'x-exact']);
    expect(await search(h.admin, { sort: [{ attribute_id: 'vendor', order: 'desc' }] })).toEqual(['p-c', 'p-a', 'p-b', 'p-d', 'x-exact']);
    expect(await search(h.admin, { sort: [{ field: 'part_id', order: 'desc' }] })).toEqual(['x-exact', 'p-d', 'p-c', 'p-b', 'p-a']);
  });

  it('sort by an attribute the caller may not read is refused as if it did not exist', async () => {
    expect(await search(h.admin, { sort: [{ attribute_id: 'cost' }] })).toEqual(['p-b', 'p-d', 'p-a', 'p-c', 'x-exact']);
    const worker = await h.as(['factoryWorker']);
    const hidden = await expectCatalogError(worker.search({ matches: { text: 'bearing ' }, sort: [{ attribute_id: 'cost' }] }), 'bad_request', /sort\[0\]\.attribute_id: attribute 'cost' does not exist \(or this token may not read it\)/);
    const unknown = await expectCatalogError(worker.search({ matches: { text: 'bearing ' }, sort: [{ attribute_id: 'nope' }] }), 'bad_request');
    expect(hidden.detail.replace('cost', 'nope')).toBe(unknown.detail);
    await expectCatalogError(h.admin.search({ sort: [{ attribute_id: 'note' }] }), 'bad_request', /attribute 'note' is not filterable/);
    await expectCatalogError(h.admin.search({ sort: [{ attribute_id: 'price', field: 'part_id' }] }), 'bad_request', /either attribute_id/);
  });

  it('refuses bad ranking settings with a clear 400, and non-admins with a 403', async () => {
    await expectCatalogError(h.admin.setRanking({ customRanking: { attribute_id: 'nope' } }), 'bad_request', /customRanking\.attribute_id: attribute 'nope' does not exist/);
    await expectCatalogError(h.admin.setRanking({ customRanking: { attribute_id: 'note' } }), 'bad_request', /attribute 'note' is not filterable/);
    await expectCatalogError(h.admin.setRanking({ customRanking: { attribute_id: 'stock' } }), 'bad_request', /per-organization values/);
    await expectCatalogError(h.admin.setRanking({ customRanking: { attribute_id: 'vendor' } }), 'bad_request', /attribute 'vendor' is not a number attribute: it holds values that are not numbers \(e\.g\. '/);
    await expectCatalogError(h.admin.setRanking({ customRanking: { attribute_id: 'price', order: 'up' } }), 'bad_request', /order/);
    const contributor = await h.as(['dataContributor']);
    await expectCatalogError(contributor.setRanking({ customRanking: { attribute_id: 'price' } }), 'forbidden');
    // Nothing was stored by the refused requests.
    expect(await h.admin.getRanking()).toEqual({ customRanking: null, identifierAttributes: [], attributeOrder: [] });
  });
});
