/**
 * Contract (facets): `matches.facets` → `facets: {attribute_id: [{value, count}]}` over
 * EVERY hit (not only the stored or the first page), in the answer and in every page of the
 * session; counts follow the filters, the caller's role (visibility) and the organization's view
 * of per-organization values; top N by count; both clients.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';

const attributes = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
  { attribute_id: 'class', type: 'text', name: { en: 'Class' }, filterable: true },
  { attribute_id: 'grade', type: 'text', name: { en: 'Grade' }, filterable: true, visibility: 'admin' },
  { attribute_id: 'stock', type: 'text', name: { en: 'Stock' }, filterable: true, per_org_values: true, org_visibility: 'sub', default_value: { en: 'none' } },
  { attribute_id: 'note', type: 'text', name: { en: 'Note' }, searchable: true },
];

const v = (attribute_id: string, text: string, organization = '') => ({ attribute_id, values: [{ organization, value: { en: text } }] });

describe.each(MODES)('search facets (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    // A session keeps 3 hits: facets must still count all of them.
    h = await createHarness(mode, { searchLimits: { maxSessionHits: 3 } });
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
    expect((await h.admin.upsertOrganizations([{ org_id: 'acme' }])).errors).toEqual({});
    const parts = [
      ['c1', 'Intel Corporation', 'Ethernet', 'A', 'few'],
      ['c2', 'intel corporation', 'Ethernet', 'B', undefined],
      ['c3', 'Intel Corporation', 'Wireless', 'A', undefined],
      ['c4', 'AMD', 'Ethernet', 'A', 'many'],
      ['c5', 'Broadcom', 'Wireless', 'C', undefined],
    ] as const;
    await h.admin.upsertParts(parts.map(([id, vendor, cls, grade, stock]) => ({
      part_id: id,
      name: { en: `Controller ${id}` },
      attributes: [v('vendor', vendor), v('class', cls), v('grade', grade), ...(stock ? [v('stock', stock, 'acme')] : [])],
    })));
    await h.admin.upsertParts([{ part_id: 'x1', name: { en: 'Cable' }, attributes: [v('vendor', 'Intel Corporation')] }]);
  });
  afterEach(async () => {
    await h.close();
  });

  it('counts values over every hit, most frequent first, case-insensitively; the session pages answer them too', async () => {
    const first = await h.admin.search({ matches: { text: 'controller', facets: ['vendor', 'class'] }, resultOptions: { limit: 1 } });
    expect(first).toMatchObject({ resultsTotalCount: 5, resultsPageableCount: 3 });
    expect(first.facets).toEqual({
      vendor: [{ value: 'Intel Corporation', count: 3 }, { value: 'AMD', count: 1 }, { value: 'Broadcom', count: 1 }],
      class: [{ value: 'Ethernet', count: 3 }, { value: 'Wireless', count: 2 }],
    });
    const page = await h.admin.searchState(first.sessionId, { skip: 1, limit: 1 });
    expect(page.facets).toEqual(first.facets);
    // Without matches.facets: no facets field.
    expect((await h.admin.search({ matches: { text: 'controller' } })).facets).toBeUndefined();
    // Top N.
    const top = await h.admin.search({ matches: { text: 'controller', facets: ['vendor'] }, resultOptions: { maxValuesPerFacet: 1 } });
    expect(top.facets).toEqual({ vendor: [{ value: 'Intel Corporation', count: 3 }] });
  });

  it('counts change with the filters and with the caller role; organization values as the organization sees them', async () => {
    const filtered = await h.admin.search({ matches: { text: 'controller', filters: [{ label: 'class', values: ['ethernet'] }], facets: ['vendor', 'grade'] } });
    expect(filtered.facets).toEqual({
      vendor: [{ value: 'Intel Corporation', count: 2 }, { value: 'AMD', count: 1 }],
      grade: [{ value: 'A', count: 2 }, { value: 'B', count: 1 }],
    });
    // A factory worker may not see grade: it counts nothing, and its values reveal nothing.
    const worker = await h.as(['factoryWorker']);
    const seen = await worker.search({ matches: { text: 'controller', filters: [{ label: 'class', values: ['ethernet'] }], facets: ['vendor', 'grade'] } });
    expect(seen.facets).toEqual({ vendor: [{ value: 'Intel Corporation', count: 2 }, { value: 'AMD', count: 1 }], grade: [] });
    // Per-organization values: acme sees its own, else the default.
    const acme = await h.admin.search({ matches: { text: 'controller', organization: 'acme', facets: ['stock'] } });
    expect(acme.facets).toEqual({ stock: [{ value: 'none', count: 3 }, { value: 'few', count: 1 }, { value: 'many', count: 1 }] });
    // Filters only (no text) count every matching part, the cable too.
    const byVendor = await h.admin.search({ matches: { filters: [{ label: 'vendor', values: ['INTEL CORPORATION'] }], facets: ['class'] } });
    expect(byVendor.resultsTotalCount).toBe(4);
    expect(byVendor.facets).toEqual({ class: [{ value: 'Ethernet', count: 2 }, { value: 'Wireless', count: 1 }] });
  });

  it('a filter value matches case-insensitively and as the first whole words of a value, so a facet value can be narrowed or sent back', async () => {
    const count = async (values: string[], organization?: string) =>
      (await h.admin.search({ matches: { text: 'controller', filters: [{ label: organization ? 'stock' : 'vendor', values }], ...(organization ? { organization } : {}) } })).resultsTotalCount;
    expect(await count(['intel'])).toBe(3);
    expect(await count(['INTEL CORPORATION'])).toBe(3);
    expect(await count(['Intel Corp'])).toBe(0);
    expect(await count(['corporation'])).toBe(0);
    expect(await count(['intel', 'amd'])).toBe(4);
    // Per-organization values follow the same rule (evaluated per part).
    expect(await count(['FEW'], 'acme')).toBe(1);
    expect(await count(['none'], 'acme')).toBe(3);
  });

  it('facet-values: the values of one attribute beginning with a prefix, counted over a search or over every part', async () => {
    expect(await h.admin.facetValues({ attribute_id: 'vendor', prefix: 'IN' })).toEqual({ attribute_id: 'vendor', values: [{ value: 'Intel Corporation', count: 4 }] });
    expect(await h.admin.facetValues({ attribute_id: 'vendor', prefix: 'in', matches: { text: 'controller' } })).toEqual({ attribute_id: 'vendor', values: [{ value: 'Intel Corporation', count: 3 }] });
    expect((await h.admin.facetValues({ attribute_id: 'vendor' })).values.map((x) => x.value)).toEqual(['Intel Corporation', 'AMD', 'Broadcom']);
    expect((await h.admin.facetValues({ attribute_id: 'class', matches: { filters: [{ label: 'vendor', values: ['intel'] }] }, maxValues: 1 })).values).toEqual([{ value: 'Ethernet', count: 2 }]);
    expect(await h.admin.facetValues({ attribute_id: 'stock', prefix: 'f', matches: { organization: 'acme' } })).toEqual({ attribute_id: 'stock', values: [{ value: 'few', count: 1 }] });
    const worker = await h.as(['factoryWorker']);
    expect(await worker.facetValues({ attribute_id: 'grade' })).toEqual({ attribute_id: 'grade', values: [] });
    await expectCatalogError(h.admin.facetValues({ attribute_id: 'note' }), 'bad_request', /attribute_id: attribute 'note' is not filterable/);
    await expectCatalogError(h.admin.facetValues({ prefix: 'x' }), 'bad_request', /attribute_id/);
  });

  it('400 for a facet on an unknown or non-filterable attribute, or with an image', async () => {
    await expectCatalogError(h.admin.search({ matches: { facets: ['note'] } }), 'bad_request', /matches\.facets\[0\]: attribute 'note' is not filterable, so it has no facet \(filterable: class, grade, stock, vendor\)/);
    await expectCatalogError(h.admin.search({ matches: { facets: ['nope'] } }), 'bad_request', /matches\.facets\[0\]: attribute 'nope' does not exist/);
    await expectCatalogError(h.admin.search({ matches: { facets: ['vendor'] }, resultOptions: { maxValuesPerFacet: 0 } }), 'bad_request', /maxValuesPerFacet/);
  });
});
