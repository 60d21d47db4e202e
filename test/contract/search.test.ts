/**
 * Contract: text search and search sessions (spec 2.5, 4.4; decisions §8), through the local and
 * the HTTP client alike.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SearchResponse } from '../../src/api/schemas.js';
import type { CatalogClient } from '../../src/client/types.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';
import { ids } from '../helpers/search-fixtures.js';

const attributes = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
  { attribute_id: 'note', type: 'text', name: { en: 'Note' }, searchable: true },
  { attribute_id: 'cost', type: 'text', name: { en: 'Cost' }, searchable: true, visibility: 'admin' },
  { attribute_id: 'price', type: 'text', name: { en: 'Price' }, searchable: true, filterable: true, per_org_values: true, org_visibility: 'sub', default_value: { en: 'list price' } },
  { attribute_id: 'bin', type: 'text', name: { en: 'Bin' }, searchable: true, per_org_values: true, org_visibility: 'parent' },
];

const value = (attribute_id: string, text: string, organization = '') => ({ attribute_id, values: [{ organization, value: { en: text } }] });


/** Every id of a session, page by page, through search state. */
async function walk(client: CatalogClient, first: SearchResponse, limit: number): Promise<string[]> {
  const out: string[] = [];
  for (let skip = 0; ; skip += limit) {
    const page = await client.searchState(first.sessionId, { skip, limit });
    expect(page.resultsTotalCount).toBe(first.resultsTotalCount);
    if (page.results.length === 0) return out;
    out.push(...page.results.map((r) => r.id ?? ''));
  }
}

describe.each(MODES)('search (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
  });
  afterEach(async () => {
    await h.close();
  });

  it('starts a session: UUID, imageId null, first page, total; a paging walk returns every hit exactly once', async () => {
    const parts = Array.from({ length: 60 }, (_, i) => ({ part_id: `w${String(i).padStart(2, '0')}`, name: { en: `Widget number ${i}` } }));
    await h.admin.upsertParts([...parts, { part_id: 'other', name: { en: 'Gadget' } }]);
    const first = await h.admin.search({ matches: { text: 'widget' }, resultOptions: { limit: 7 } });
    expect(first.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.imageId).toBeNull();
    expect(first.resultsTotalCount).toBe(60);
    expect(first.results).toHaveLength(7);
    const all = await walk(h.admin, first, 7);
    expect(all).toHaveLength(60);
    expect(new Set(all).size).toBe(60);
    expect(all.slice(0, 7)).toEqual(ids(first));
    expect([...all].sort()).toEqual(parts.map((p) => p.part_id));
  });

  it('a session is a snapshot: later parts do not enter it, later changes do not show in it', async () => {
    await h.admin.upsertParts([{ part_id: 'a', name: { en: 'Sprocket A' } }, { part_id: 'b', name: { en: 'Sprocket B' } }]);
    const first = await h.admin.search({ matches: { text: 'sprocket' }, resultOptions: { limit: 1 } });
    await h.admin.upsertParts([{ part_id: 'c', name: { en: 'Sprocket C' } }, { part_id: 'a', name: { en: 'Sprocket A renamed' } }]);
    await h.admin.deleteParts(['b']);
    const page = await h.admin.searchState(first.sessionId, { skip: 0, limit: 10 });
    expect(page.resultsTotalCount).toBe(2);
    expect(page.results.map((r) => [r.id, r.name])).toEqual([['a', 'Sprocket A'], ['b', 'Sprocket B']]);
    // A new search sees the new state.
    const again = await h.admin.search({ matches: { text: 'sprocket' } });
    expect(again.results.map((r) => [r.id, r.name]).sort()).toEqual([['a', 'Sprocket A renamed'], ['c', 'Sprocket C']]);
  });

  it('another token reading a session gets 404, as for an unknown one; skip past the end is empty with the same total', async () => {
    await h.admin.upsertParts([{ part_id: 'p', name: { en: 'Flange' } }]);
    const first = await h.admin.search({ matches: { text: 'flange' } });
    const other = await h.as(['factoryWorker']);
    await expectCatalogError(other.searchState(first.sessionId, {}), 'not_found', /does not exist or has expired/);
    await expectCatalogError(h.admin.searchState('00000000-0000-4000-8000-000000000000', {}), 'not_found');
    expect(await h.admin.searchState(first.sessionId, { skip: 5, limit: 5 })).toEqual({ sessionId: first.sessionId, imageId: null, results: [], resultsTotalCount: 1, resultsPageableCount: 1 });
  });

  it('ranks name hits above attribute value hits, ties by part id', async () => {
    await h.admin.upsertParts([
      { part_id: 'a-value', name: { en: 'Bracket' }, attributes: [value('vendor', 'Gizmo Works')] },
      { part_id: 'b-value', name: { en: 'Hinge' }, attributes: [value('note', 'gizmo')] },
      { part_id: 'z-name', name: { en: 'Gizmo' } },
      { part_id: 'y-name', name: { en: 'Gizmo' } },
    ]);
    const result = await h.admin.search({ matches: { text: 'gizmo' } });
    // Equal name hits tie and go by part id; the value hits follow (in BM25 order).
    expect(ids(result).slice(0, 2)).toEqual(['y-name', 'z-name']);
    expect(ids(result).slice(2).sort()).toEqual(['a-value', 'b-value']);
    // Words split between a name and a value still match (every word somewhere in the part).
    expect(ids(await h.admin.search({ matches: { text: 'bracket works' } }))).toEqual(['a-value']);
  });

  it('matches a prefix of the last word, one typo in longer words, ids whole and in pieces, without diacritics', async () => {
    await h.admin.upsertParts([
      { part_id: 'pci:8086:1539', name: { en: 'I211 Gigabit Network Connection' } },
      { part_id: 'usb:1d6b:0002', name: { en: 'Root hub controller' } },
      { part_id: 'creme', name: { fr: 'Crème brûlée' } },
      { part_id: 'lamp', name: { en: 'Lamp' } },
    ]);
    const find = async (text: string) => ids(await h.admin.search({ matches: { text } }));
    expect(await find('contr')).toEqual(['usb:1d6b:0002']);
    expect(await find('contr ')).toEqual([]); // a finished word is not a prefix
    expect(await find('controler hub')).toEqual(['usb:1d6b:0002']); // deletion
    expect(await find('cnotroller')).toEqual(['usb:1d6b:0002']); // swap of neighbours
    expect(await find('gigabyt network')).toEqual(['pci:8086:1539']); // substitution
    expect(await find('lamo ')).toEqual([]); // under 5 letters: no typo tolerance
    // A word the catalog knows (misspelled there) also finds its typo neighbours, ranked below
    // the word as typed (the ranking rules' typo rule).
    await h.admin.upsertParts([{ part_id: 'ssd', name: { en: 'SSD Contoller' } }]);
    expect(await find('contoller ')).toEqual(['ssd', 'usb:1d6b:0002']);
    expect(await find('hub contoller ')).toEqual(['usb:1d6b:0002']);
    expect(await find('pci:8086:1539')).toEqual(['pci:8086:1539']);
    expect(await find('8086')).toEqual(['pci:8086:1539']);
    expect(await find('1d6b')).toEqual(['usb:1d6b:0002']);
    expect(await find('1d6')).toEqual(['usb:1d6b:0002']); // prefix of an id piece
    expect(await find('000')).toEqual(['usb:1d6b:0002']); // digits: prefix too
    expect(await find('i21')).toEqual(['pci:8086:1539']);
    expect(await find('pci:8086:15')).toEqual(['pci:8086:1539']);
    expect(await find('creme brulee')).toEqual(['creme']);
    expect(await find('CRÈME')).toEqual(['creme']);
  });

  it('never fails on FTS syntax in the text', async () => {
    await h.admin.upsertParts([{ part_id: 'q', name: { en: 'Quote "test" part' } }]);
    for (const text of ['"', 'a" OR "b', 'NEAR(a b)', '* ^ : { } ( )', 'quote AND NOT', '-x +y', 'name:quote', "'", '\\"', 'test"']) {
      const result = await h.admin.search({ matches: { text } });
      expect(result.resultsTotalCount).toBeGreaterThanOrEqual(0);
    }
    expect(ids(await h.admin.search({ matches: { text: '"test"' } }))).toEqual(['q']);
  });

  it('no text and no filters: every part by part id', async () => {
    await h.admin.upsertParts(['c', 'a', 'b'].map((id) => ({ part_id: id, name: { en: id } })));
    const result = await h.admin.search({});
    expect(ids(result)).toEqual(['a', 'b', 'c']);
    expect(result.resultsTotalCount).toBe(3);
    expect(ids(await h.admin.search({ matches: { text: '  ' } }))).toEqual(['a', 'b', 'c']);
  });

  it('resolves per-organization values as the organization sees them: own, inherited under sub, default', async () => {
    await h.admin.upsertOrganizations([{ org_id: 'acme' }, { org_id: 'acme-eu', parent_id: 'acme' }, { org_id: 'other' }]);
    await h.admin.upsertParts([
      { part_id: 'p1', name: { en: 'Valve' }, attributes: [value('price', 'Acme special', 'acme'), value('bin', 'Shelf nine', 'acme')] },
      { part_id: 'p2', name: { en: 'Pump' } },
    ]);
    const find = async (text: string, organization?: string) => ids(await h.admin.search({ matches: { text, ...(organization !== undefined ? { organization } : {}) } }));
    expect(await find('special', 'acme')).toEqual(['p1']);
    expect(await find('special', 'acme-eu')).toEqual(['p1']); // sub: inherited
    expect(await find('special', 'other')).toEqual([]);
    expect(await find('shelf', 'acme')).toEqual(['p1']);
    expect(await find('shelf', 'acme-eu')).toEqual([]); // parent: not inherited
    // The default applies where no value overrides it.
    expect(await find('list price', 'other')).toEqual(['p1', 'p2']);
    expect(await find('list price', 'acme')).toEqual(['p2']);
    expect(await find('list price', 'acme-eu')).toEqual(['p2']);
    expect(await find('valve list', 'other')).toEqual(['p1']); // a name word and a default word
    expect(await find('valve special', 'acme')).toEqual(['p1']); // a name word and an own value word
    // Without an organization: the raw values of every organization (as parts/get shows them).
    expect(await find('special')).toEqual(['p1']);
    // A token bound to an organization searches as it, and may not name another.
    const eu = await h.as(['factoryWorker'], 'acme-eu');
    expect(ids(await eu.search({ matches: { text: 'special' } }))).toEqual(['p1']);
    expect(ids(await eu.search({ matches: { text: 'shelf' } }))).toEqual([]);
    await expectCatalogError(eu.search({ matches: { text: 'special', organization: 'other' } }), 'forbidden');
  });

  it('matches attribute values only for roles that may see them, and follows attribute changes', async () => {
    await h.admin.upsertParts([
      { part_id: 'p3', name: { en: 'Gasket' }, attributes: [value('cost', 'Topsecret'), value('note', 'Sealing ring')] },
    ]);
    const worker = await h.as(['factoryWorker']);
    const admin = await h.as(['admin']);
    expect(ids(await worker.search({ matches: { text: 'topsecret' } }))).toEqual([]);
    expect(ids(await admin.search({ matches: { text: 'topsecret' } }))).toEqual(['p3']);
    expect(ids(await worker.search({ matches: { text: 'sealing' } }))).toEqual(['p3']);
    // Visibility and searchable changes re-index the parts that have values.
    await h.admin.upsertAttributes([{ attribute_id: 'cost', visibility: 'factoryWorker' }, { attribute_id: 'note', searchable: false }]);
    expect(ids(await worker.search({ matches: { text: 'topsecret' } }))).toEqual(['p3']);
    expect(ids(await worker.search({ matches: { text: 'sealing' } }))).toEqual([]);
  });

  it('filters on filterable attributes, case-insensitively, as the organization sees them; 400 otherwise', async () => {
    await h.admin.upsertOrganizations([{ org_id: 'acme' }, { org_id: 'other' }]);
    await h.admin.upsertParts([
      { part_id: 'i1', name: { en: 'Card one' }, attributes: [value('vendor', 'Intel'), value('price', '10 USD', 'acme')] },
      { part_id: 'i2', name: { en: 'Card two' }, attributes: [value('vendor', 'intel')] },
      { part_id: 'r1', name: { en: 'Card three' }, attributes: [value('vendor', 'Realtek')] },
    ]);
    const filtered = async (filters: unknown[], text = '', organization?: string) => {
      const result = await h.admin.search({ matches: { text, filters, ...(organization ? { organization } : {}) } });
      return { ...result, results: [...result.results].sort((a, b) => ((a.id ?? '') < (b.id ?? '') ? -1 : 1)) };
    };
    expect(ids(await filtered([{ label: 'vendor', values: ['INTEL'] }]))).toEqual(['i1', 'i2']);
    expect(ids(await filtered([{ label: 'vendor', values: ['intel', 'realtek'] }], 'card'))).toEqual(['i1', 'i2', 'r1']);
    expect(ids(await filtered([{ label: 'vendor', values: ['realtek'] }], 'two'))).toEqual([]);
    expect(ids(await filtered([{ label: 'price', values: ['10 usd'] }], '', 'acme'))).toEqual(['i1']);
    expect(ids(await filtered([{ label: 'price', values: ['LIST PRICE'] }], 'card', 'acme'))).toEqual(['i2', 'r1']);
    expect(ids(await filtered([{ label: 'price', values: ['list price'] }], 'card', 'other'))).toEqual(['i1', 'i2', 'r1']);
    const bad = await expectCatalogError(filtered([{ label: 'note', values: ['x'] }, { label: 'ghost', values: ['x'] }]), 'bad_request', /'note' is not filterable \(filterable: price, vendor\)/);
    expect(bad.detail).toMatch(/attribute 'ghost' does not exist/);
  });

  it('projection and name language; 400 naming the allowed values', async () => {
    await h.admin.upsertParts([{ part_id: 'n', name: { en: 'Nut', de: 'Mutter' } }]);
    const full = await h.admin.search({ matches: { text: 'nut' } });
    expect(Object.keys(full.results[0] ?? {})).toEqual(['id', 'serviceId', 'name', 'nameLanguage', 'createdAt', 'modifiedAt']);
    expect(full.results[0]?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const part = await h.admin.getPart('n');
    expect(full.results[0]).toMatchObject({ serviceId: part.serviceId, createdAt: part.createdAt, modifiedAt: part.modifiedAt, name: 'Mutter', nameLanguage: 'de' });
    const de = await h.admin.search({ language: 'en', projection: ['results.id', 'results.name', 'results.nameLanguage'], matches: { text: 'mutter' } });
    expect(de.results).toEqual([{ id: 'n', name: 'Nut', nameLanguage: 'en' }]);
    expect((await h.admin.search({ language: 'fr', projection: ['results.name', 'results.nameLanguage'], matches: { text: 'nut' } })).results).toEqual([{ name: 'Mutter', nameLanguage: 'de' }]);
    expect((await h.admin.searchState(de.sessionId, { projection: ['results.id'] })).results).toEqual([{ id: 'n' }]);
    expect((await h.admin.searchState(de.sessionId, {})).results[0]?.name).toBe('Nut');
    await expectCatalogError(h.admin.search({ projection: ['results.price'] }), 'bad_request', /results\.id, results\.serviceId, results\.name/);
    await expectCatalogError(h.admin.searchState(de.sessionId, { projection: ['id'] }), 'bad_request', /allowed: results\.id/);
  });

  it('rejects unknown fields and bad limits', async () => {
    await expectCatalogError(h.admin.search({ matches: { text: 'x' }, query: 'x' }), 'bad_request', /unknown field/);
    await expectCatalogError(h.admin.search({ resultOptions: { limit: 1001 } }), 'bad_request');
    await expectCatalogError(h.admin.searchState('00000000-0000-4000-8000-000000000000', { limit: 0 }), 'bad_request');
  });
});

describe.each(MODES)('search paging past the session cap (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode, { searchLimits: { maxSessionHits: 25 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('keeps the true total, says how many hits can be paged, pages to that last hit, and refuses a page past it with a 400', async () => {
    await h.admin.upsertParts(Array.from({ length: 40 }, (_, i) => ({ part_id: `g${String(i).padStart(2, '0')}`, name: { en: `Gasket ${i}` } })));
    const first = await h.admin.search({ matches: { text: 'gasket' }, resultOptions: { limit: 10 } });
    expect(first.resultsTotalCount).toBe(40);
    expect(first.resultsPageableCount).toBe(25);
    const last = await h.admin.searchState(first.sessionId, { skip: 20, limit: 10 });
    expect(last).toMatchObject({ resultsTotalCount: 40, resultsPageableCount: 25 });
    expect(ids(last)).toEqual(['g20', 'g21', 'g22', 'g23', 'g24']);
    await expectCatalogError(h.admin.searchState(first.sessionId, { skip: 25, limit: 10 }), 'bad_request', /skip 25 is past the pageable hits of this search: it found 40 hits and keeps the first 25 \(resultsPageableCount\)/);
    await expectCatalogError(h.admin.searchState(first.sessionId, { skip: 39, limit: 1 }), 'bad_request', /resultsPageableCount/);
    // A search whose every hit fits is paged to its end; past the end is an empty page.
    const few = await h.admin.search({ matches: { text: 'gasket 3' } });
    expect(few).toMatchObject({ resultsTotalCount: 1, resultsPageableCount: 1 });
    expect((await h.admin.searchState(few.sessionId, { skip: 1 })).results).toEqual([]);
  });
});
