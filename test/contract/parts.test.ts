/**
 * Contract: parts and organizations (decisions §5), including the value an organization sees and
 * attribute visibility by role (decisions §3).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';

const attributes = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, labels: ['manufacturer_name'] },
  { attribute_id: 'secret', type: 'text', name: { en: 'Cost' }, visibility: 'admin' },
  { attribute_id: 'price', type: 'text', name: { en: 'Price' }, per_org_values: true, org_visibility: 'sub', default_value: { en: 'list price' } },
  { attribute_id: 'bin', type: 'text', name: { en: 'Bin' }, per_org_values: true, org_visibility: 'parent' },
];

describe.each(MODES)('parts (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    await h.admin.upsertAttributes(attributes);
  });
  afterEach(async () => {
    await h.close();
  });

  it('creates parts with a serviceId and timestamps, updates by merge', async () => {
    const created = await h.admin.upsertParts([
      { part_id: 'pci:8086:1539', name: { en: 'I211 Gigabit Network Connection' }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel' } }] }] },
    ]);
    expect(created).toEqual({ created: ['pci:8086:1539'], updated: [], errors: {} });
    const first = await h.admin.getPart('pci:8086:1539');
    expect(first.serviceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const updated = await h.admin.upsertParts([{ part_id: 'pci:8086:1539', name: { en: 'I211', de: 'I211 Netzwerk' } }]);
    expect(updated).toEqual({ created: [], updated: ['pci:8086:1539'], errors: {} });
    const second = await h.admin.getPart('pci:8086:1539');
    expect(second.serviceId).toBe(first.serviceId);
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.modifiedAt > first.modifiedAt).toBe(true);
    expect(second.name).toEqual({ en: 'I211', de: 'I211 Netzwerk' });
    expect(second.attributes).toEqual([{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel' } }] }]);
  });

  it('upsertValidatedParts (items validated by the caller, an import reader thread): the rules and result of upsertParts', async () => {
    const items = [
      { part_id: 'v1', name: { en: 'One' }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel' } }] }] },
      { part_id: 'v2', attributes: [] },
      { part_id: 'v3', name: { en: 'Three' }, attributes: [{ attribute_id: 'nope', values: [{ organization: '', value: { en: 'x' } }] }] },
    ];
    const validated = await h.admin.upsertValidatedParts(items);
    expect(validated).toEqual({
      created: ['v1'], updated: [],
      errors: {
        v2: ['name: required when creating a part (at least one language, e.g. {"en": "Ethernet controller"})'],
        v3: ["attributes[0].attribute_id: attribute 'nope' does not exist"],
      },
    });
    expect(await h.admin.upsertValidatedParts([{ part_id: 'v1', name: { en: 'Uno' } }])).toEqual({ created: [], updated: ['v1'], errors: {} });
    expect((await h.admin.getPart('v1')).name).toEqual({ en: 'Uno' });
    const reader = await h.as(['factoryWorker']);
    await expectCatalogError(reader.upsertValidatedParts([{ part_id: 'v4', name: { en: 'Four' } }]), 'forbidden');
  });

  it('upsertPartBatches: each batch gets the result of its own call, in order; an id in two batches is created, then updated', async () => {
    const results = await h.admin.upsertPartBatches([
      { items: [{ part_id: 'g1', name: { en: 'Gear one' } }, { part_id: 'g2' }], validated: false },
      { items: [{ part_id: 'g1', name: { de: 'Zahnrad eins' } }, { part_id: 'g3', name: { en: 'Gear three' }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel' } }] }] }], validated: true },
      { items: [{ part_id: 'g4', name: { en: 'Gear four' }, colour: 'red' }] },
    ]);
    expect(results).toEqual([
      { created: ['g1'], updated: [], errors: { g2: ['name: required when creating a part (at least one language, e.g. {"en": "Ethernet controller"})'] } },
      { created: ['g3'], updated: ['g1'], errors: {} },
      { created: [], updated: [], errors: { g4: ['unknown field(s): colour'] } },
    ]);
    expect((await h.admin.getPart('g1')).name).toEqual({ de: 'Zahnrad eins' });
    expect((await h.admin.getPart('g3')).attributes).toEqual([{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel' } }] }]);
    const reader = await h.as(['factoryWorker']);
    await expectCatalogError(reader.upsertPartBatches([{ items: [{ part_id: 'g5', name: { en: 'Five' } }] }]), 'forbidden');
  });

  it('reports every problem of a bad part and keeps the good ones', async () => {
    const result = await h.admin.upsertParts([
      { part_id: 'ok', name: { en: 'ok' } },
      { part_id: 'no-name' },
      { part_id: 'bad', name: { en: 'x' }, attributes: [{ attribute_id: 'ghost', values: [{ value: { en: 'x' } }] }, { attribute_id: 'price', values: [{ value: { en: '1' } }] }, { attribute_id: 'vendor', values: [{ organization: 'acme', value: { en: 'x' } }] }] },
    ]);
    expect(result.created).toEqual(['ok']);
    expect(result.errors['no-name']).toEqual(['name: required when creating a part (at least one language, e.g. {"en": "Ethernet controller"})']);
    expect(result.errors.bad).toEqual([
      "attributes[0].attribute_id: attribute 'ghost' does not exist",
      "attributes[1].values[0].organization: attribute 'price' has per_org_values, so each value must name its organization",
      "attributes[2].values[0].organization: attribute 'vendor' is not per-organization; leave organization empty",
    ]);
    await expectCatalogError(h.admin.getPart('bad'), 'not_found', "part 'bad' does not exist");
  });

  it('resolves the value an organization sees: own, inherited under sub, default', async () => {
    await h.admin.upsertOrganizations([{ org_id: 'acme' }, { org_id: 'acme-eu', parent_id: 'acme' }, { org_id: 'other' }]);
    await h.admin.upsertParts([
      {
        part_id: 'p', name: { en: 'P' }, attributes: [
          { attribute_id: 'price', values: [{ organization: 'acme', value: { en: '10 USD' } }] },
          { attribute_id: 'bin', values: [{ organization: 'acme', value: { en: 'A-1' } }] },
        ],
      },
    ]);
    const asOrg = async (org: string) => Object.fromEntries((await h.admin.getPart('p', { organization: org })).attributes.map((a) => [a.attribute_id, a.values[0]]));
    expect(await asOrg('acme')).toEqual({
      price: { organization: 'acme', value: { en: '10 USD' }, source: 'own' },
      bin: { organization: 'acme', value: { en: 'A-1' }, source: 'own' },
    });
    // sub: inherited from the parent; parent: not inherited, and bin has no default.
    expect(await asOrg('acme-eu')).toEqual({ price: { organization: 'acme', value: { en: '10 USD' }, source: 'inherited' } });
    expect(await asOrg('other')).toEqual({ price: { organization: '', value: { en: 'list price' }, source: 'default' } });
    // A token bound to an organization reads as it, and may not read as another.
    const eu = await h.as(['factoryWorker'], 'acme-eu');
    expect((await eu.getPart('p')).attributes.map((a) => a.values[0]?.source)).toEqual(['inherited']);
    await expectCatalogError(eu.getPart('p', { organization: 'acme' }), 'forbidden');
  });

  it('hides attribute values the caller role may not see', async () => {
    await h.admin.upsertParts([{ part_id: 'p', name: { en: 'P' }, attributes: [{ attribute_id: 'vendor', values: [{ value: { en: 'Intel' } }] }, { attribute_id: 'secret', values: [{ value: { en: '3 USD' } }] }] }]);
    const worker = await h.as(['factoryWorker']);
    const admin = await h.as(['admin']);
    expect((await worker.getPart('p')).attributes.map((a) => a.attribute_id)).toEqual(['vendor']);
    expect((await admin.getPart('p')).attributes.map((a) => a.attribute_id)).toEqual(['secret', 'vendor']);
    const listed = await worker.listParts({ projection: ['attributes'] });
    expect(listed.result[0]?.attributes?.map((a) => a.attribute_id)).toEqual(['vendor']);
  });

  it('lists, selects and deletes parts', async () => {
    await h.admin.upsertParts(['b', 'a', 'c'].map((id) => ({ part_id: id, name: { en: id.toUpperCase() } })));
    const page = await h.admin.listParts({ paging: { limit: 2 }, projection: ['name'] });
    expect(page).toEqual({ result: [{ part_id: 'a', name: { en: 'A' } }, { part_id: 'b', name: { en: 'B' } }], last_object_id: 'b', more_data: true });
    // An empty projection lists the ids alone, paged alike.
    expect(await h.admin.listParts({ paging: { limit: 2, last_object_id: 'a' }, projection: [] })).toEqual({ result: [{ part_id: 'b' }, { part_id: 'c' }], last_object_id: 'c', more_data: false });
    expect((await h.admin.selectParts({ part_ids: ['c', 'zz', 'a'], projection: ['name'] })).map((p) => p.part_id)).toEqual(['c', 'a']);
    const del = await h.admin.deleteParts(['a', 'zz', 42]);
    expect(del.deleted).toEqual(['a']);
    expect(del.errors).toEqual({ zz: ["part 'zz' does not exist"], 'items[2]': [expect.stringMatching(/string/)] });
  });

  it('organizations: parents must exist and cycles are refused', async () => {
    const result = await h.admin.upsertOrganizations([{ org_id: 'root' }, { org_id: 'child', parent_id: 'root' }, { org_id: 'orphan', parent_id: 'nowhere' }]);
    expect(result.created).toEqual(['root', 'child']);
    expect(result.errors.orphan).toEqual(["parent_id: organization 'nowhere' does not exist"]);
    const cycle = await h.admin.upsertOrganizations([{ org_id: 'root', parent_id: 'child' }]);
    expect(cycle.errors.root?.[0]).toMatch(/cycle/);
    const page = await h.admin.listOrganizations({});
    expect(page.result).toEqual([{ org_id: 'child', parent_id: 'root' }, { org_id: 'root', parent_id: null }]);
  });
});
