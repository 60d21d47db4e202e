/**
 * Contract: attributes (spec 2.1, 4.1; decisions §1, §3), run against the local and the HTTP client.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';

const color = { attribute_id: 'color', type: 'text', name: { en: 'Color', de: 'Farbe' } };

describe.each(MODES)('attributes (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
  });
  afterEach(async () => {
    await h.close();
  });

  it('creates with defaults and reads back every field', async () => {
    const result = await h.admin.upsertAttributes([color]);
    expect(result).toEqual({ created: ['color'], updated: [], errors: {} });
    const [stored] = await h.admin.selectAttributes({ attribute_ids: ['color'] });
    expect(stored).toEqual({
      attribute_id: 'color', type: 'text', name: { en: 'Color', de: 'Farbe' }, searchable: false, filterable: false,
      visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: false,
    });
  });

  it('creation_order (our projection) ranks attributes by creation, unchanged by updates, dense after a delete', async () => {
    for (const id of ['zeta', 'alpha', 'mid', 'gone']) await h.admin.upsertAttributes([{ attribute_id: id, type: 'text', name: { en: id } }]);
    await h.admin.upsertAttributes([{ attribute_id: 'zeta', name: { en: 'Zeta renamed' } }]);
    await h.admin.deleteAttributes(['gone']);
    const page = await h.admin.listAttributes({ paging: { limit: 10 }, projection: ['creation_order'] });
    expect(page.result).toEqual([
      { attribute_id: 'alpha', creation_order: 2 }, { attribute_id: 'mid', creation_order: 3 }, { attribute_id: 'zeta', creation_order: 1 },
    ]);
    expect(await h.admin.selectAttributes({ attribute_ids: ['mid', 'zeta'], projection: ['name', 'creation_order'] })).toEqual([
      { attribute_id: 'mid', name: { en: 'mid' }, creation_order: 3 }, { attribute_id: 'zeta', name: { en: 'Zeta renamed' }, creation_order: 1 },
    ]);
    // Not projected, not there: the default shape is the spec's.
    expect((await h.admin.listAttributes({ paging: { limit: 1 } })).result[0]).not.toHaveProperty('creation_order');
  });

  it('merges updates: given fields replace, absent fields stay, null clears', async () => {
    await h.admin.upsertAttributes([{ ...color, searchable: true, display_order: 3, labels: ['description'] }]);
    const result = await h.admin.upsertAttributes([{ attribute_id: 'color', filterable: true, display_order: null }]);
    expect(result).toEqual({ created: [], updated: ['color'], errors: {} });
    const [stored] = await h.admin.selectAttributes({ attribute_ids: ['color'] });
    expect(stored).toMatchObject({ searchable: true, filterable: true, labels: ['description'], name: color.name });
    expect(stored).not.toHaveProperty('display_order');
  });

  it('reports per-item errors and processes the other items', async () => {
    const result = await h.admin.upsertAttributes([
      color,
      { attribute_id: 'no-type', name: { en: 'x' } },
      { attribute_id: 'bad-label', type: 'enum', name: { en: 'x' }, labels: ['colour'] },
      { attribute_id: 'dv', type: 'text', name: { en: 'x' }, default_value: { en: 'y' } },
      { attribute_id: 'unknown-field', type: 'text', name: { en: 'x' }, colour: 1 },
      { attribute_id: 'x'.repeat(10_000), type: 'text', name: { en: 'x' } },
      { attribute_id: 'multi', name: {} },
    ]);
    expect(result.created).toEqual(['color']);
    expect(Object.keys(result.errors).sort()).toEqual(['bad-label', 'dv', 'items[5]', 'multi', 'no-type', 'unknown-field']);
    expect(result.errors['no-type']).toEqual(['type: required when creating an attribute (one of text, enum)']);
    expect(result.errors['bad-label']?.[0]).toMatch(/^labels\[0\]: .*manufacturer_name/);
    expect(result.errors.dv).toEqual(['default_value: only applicable when per_org_values is true']);
    expect(result.errors['unknown-field']).toEqual(['unknown field(s): colour']);
    expect(result.errors['items[5]']?.[0]).toMatch(/attribute_id: must be at most 256 characters/);
    expect(result.errors.multi).toHaveLength(2);
    const page = await h.admin.listAttributes({});
    expect(page.result.map((a) => a.attribute_id)).toEqual(['color']);
  });

  it('accepts default_value only with per_org_values', async () => {
    const result = await h.admin.upsertAttributes([{ attribute_id: 'price', type: 'text', name: { en: 'Price' }, per_org_values: true, default_value: { en: 'ask' } }]);
    expect(result.created).toEqual(['price']);
    const off = await h.admin.upsertAttributes([{ attribute_id: 'price', per_org_values: false }]);
    expect(off.errors.price).toEqual(['default_value: only applicable when per_org_values is true']);
  });

  it('shows a default_value only to roles that may see the attribute\'s values (decisions §3)', async () => {
    await h.admin.upsertAttributes([
      { attribute_id: 'cost', type: 'text', name: { en: 'Cost' }, visibility: 'admin', per_org_values: true, default_value: { en: 'secret 42' } },
      { attribute_id: 'price', type: 'text', name: { en: 'Price' }, per_org_values: true, default_value: { en: 'ask' } },
    ]);
    const worker = await h.as(['factoryWorker']);
    const listed = (await worker.listAttributes({})).result;
    expect(listed.map((a) => [a.attribute_id, a.default_value])).toEqual([['cost', undefined], ['price', { en: 'ask' }]]);
    const selected = await worker.selectAttributes({ attribute_ids: ['cost', 'price'], projection: ['default_value'] });
    expect(selected).toEqual([{ attribute_id: 'cost' }, { attribute_id: 'price', default_value: { en: 'ask' } }]);
    const admin = await h.as(['admin']);
    expect((await admin.selectAttributes({ attribute_ids: ['cost'] }))[0]?.default_value).toEqual({ en: 'secret 42' });
  });

  it('pages with limit 2 over 5 items in id order, more_data exact', async () => {
    await h.admin.upsertAttributes(['e', 'c', 'a', 'd', 'b'].map((id) => ({ attribute_id: id, type: 'text', name: { en: id } })));
    const seen: string[] = [];
    const envelopes: { more: boolean; last: string }[] = [];
    let last: string | undefined;
    for (;;) {
      const page = await h.admin.listAttributes({ paging: { limit: 2, ...(last ? { last_object_id: last } : {}) }, projection: ['name'] });
      seen.push(...page.result.map((a) => a.attribute_id));
      for (const a of page.result) expect(Object.keys(a).sort()).toEqual(['attribute_id', 'name']);
      envelopes.push({ more: page.more_data, last: page.last_object_id });
      last = page.last_object_id;
      if (!page.more_data) break;
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(envelopes).toEqual([{ more: true, last: 'b' }, { more: true, last: 'd' }, { more: false, last: 'e' }]);
  });

  it('rejects bad list requests with 400 naming the problem', async () => {
    await expectCatalogError(h.admin.listAttributes({ paging: { limit: 0 } }), 'bad_request', /paging.limit/);
    await expectCatalogError(h.admin.listAttributes({ paging: { limit: 1001 } }), 'bad_request', /paging.limit/);
    await expectCatalogError(h.admin.listAttributes({ projection: ['colour'] }), 'bad_request', /must be one of: name, type/);
    await expectCatalogError(h.admin.listAttributes({ pagin: {} }), 'bad_request', /unknown field\(s\): pagin/);
    await expectCatalogError(h.admin.upsertAttributes({ attribute_id: 'x' } as unknown as unknown[]), 'bad_request', /JSON array/);
  });

  it('selects known ids in request order with projection', async () => {
    await h.admin.upsertAttributes([color, { attribute_id: 'size', type: 'enum', name: { en: 'Size' } }]);
    const selected = await h.admin.selectAttributes({ attribute_ids: ['size', 'missing', 'color'], projection: ['type'] });
    expect(selected).toEqual([{ attribute_id: 'size', type: 'enum' }, { attribute_id: 'color', type: 'text' }]);
  });

  it('refuses to delete a referenced attribute and to change its type, deletes it once free', async () => {
    await h.admin.upsertAttributes([color]);
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'Part' }, attributes: [{ attribute_id: 'color', values: [{ value: { en: 'red' } }] }] }]);
    const del = await h.admin.deleteAttributes(['color', 'ghost']);
    expect(del.deleted).toEqual([]);
    expect(del.errors.color).toEqual(["attribute 'color' is still referenced by 1 part(s); remove their values for it first"]);
    expect(del.errors.ghost).toEqual(["attribute 'ghost' does not exist"]);
    const retype = await h.admin.upsertAttributes([{ attribute_id: 'color', type: 'enum' }]);
    expect(retype.errors.color?.[0]).toMatch(/cannot change from text to enum while 1 part/);
    await h.admin.upsertParts([{ part_id: 'p1', attributes: [{ attribute_id: 'color', values: [] }] }]);
    expect(await h.admin.deleteAttributes(['color'])).toEqual({ deleted: ['color'], errors: {} });
    expect(await h.admin.selectAttributes({ attribute_ids: ['color'] })).toEqual([]);
  });
});
