/**
 * Contract: part relations (api-spec.md §2.3, §4.3, §7; decisions §6), for both clients.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAINTENANCE_DETAIL } from '../../src/api/errors.js';
import type { Relation } from '../../src/api/schemas.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import type { CatalogClient } from '../../src/client/types.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';

const ISO_MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const PARTS = ['a', 'b', 'c', 'd', 'pci:8086:1539', 'usb 1d6b:0002 ü%?#'];

/** The relations of a part without the `created` time (asserted separately). */
async function related(client: CatalogClient, partId: string, type?: string): Promise<Omit<Relation, 'created'>[]> {
  return (await client.getRelations(partId, type)).map(({ created: _created, ...rest }) => rest);
}

describe.each(MODES)('relations (%s client)', (mode) => {
  let h: Harness;
  /** A dataContributor named "alice". */
  let alice: CatalogClient;
  beforeEach(async () => {
    h = await createHarness(mode);
    await h.admin.upsertParts(PARTS.map((id) => ({ part_id: id, name: { en: id } })));
    const { secret } = await h.service.createToken(LOCAL_OWNER, { name: 'alice', roles: ['dataContributor'] });
    alice = h.withToken(secret);
  });
  afterEach(async () => {
    await h.close();
  });

  it('creates relations (200 {created}) and reads them from both parts', async () => {
    expect(await alice.createRelations([
      { anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' },
      { anchor_part_id: 'c', related_part_id: 'a', type: 'equivalent', source: 'confirmed_by_user' },
    ])).toEqual({ created: 2 });
    const fromA = await alice.getRelations('a');
    expect(fromA).toEqual([
      { part_id: 'b', part_role: 'related_part', type: 'duplicate', source: 'ingested', user_id: 'alice', created: expect.stringMatching(ISO_MICROS) },
      { part_id: 'c', part_role: 'anchor_part', type: 'equivalent', source: 'confirmed_by_user', user_id: 'alice', created: expect.stringMatching(ISO_MICROS) },
    ]);
    expect(await related(alice, 'a', 'equivalent')).toEqual([{ part_id: 'c', part_role: 'anchor_part', type: 'equivalent', source: 'confirmed_by_user', user_id: 'alice' }]);
    expect(await related(alice, 'b', 'duplicate')).toEqual([{ part_id: 'a', part_role: 'anchor_part', type: 'duplicate', source: 'ingested', user_id: 'alice' }]);
    expect(await alice.getRelations('b', 'substitute')).toEqual([]);
    expect(await alice.getRelations('d')).toEqual([]);
    expect(await alice.createRelations([])).toEqual({ created: 0 });
  });

  it('works with part ids that need encoding in a URL path', async () => {
    await h.admin.createRelations([{ anchor_part_id: 'pci:8086:1539', related_part_id: 'usb 1d6b:0002 ü%?#', type: 'not_related' }]);
    expect((await h.admin.getRelations('usb 1d6b:0002 ü%?#', 'not_related')).map((r) => r.part_id)).toEqual(['pci:8086:1539']);
    expect((await h.admin.getRelations('pci:8086:1539')).map((r) => r.part_id)).toEqual(['usb 1d6b:0002 ü%?#']);
  });

  it('substitute: the anchor is the predecessor; the successor sees it as anchor_part; a later write B→A reverses it', async () => {
    await alice.createRelations([{ anchor_part_id: 'a', related_part_id: 'b', type: 'substitute' }]);
    expect(await related(alice, 'a', 'substitute')).toEqual([{ part_id: 'b', part_role: 'related_part', type: 'substitute', source: 'ingested', user_id: 'alice' }]);
    expect(await related(alice, 'b', 'substitute')).toEqual([{ part_id: 'a', part_role: 'anchor_part', type: 'substitute', source: 'ingested', user_id: 'alice' }]);
    await alice.createRelations([{ anchor_part_id: 'b', related_part_id: 'a', type: 'substitute' }]);
    expect(await related(alice, 'a', 'substitute')).toEqual([{ part_id: 'b', part_role: 'anchor_part', type: 'substitute', source: 'ingested', user_id: 'alice' }]);
    expect(await related(alice, 'b', 'substitute')).toEqual([{ part_id: 'a', part_role: 'related_part', type: 'substitute', source: 'ingested', user_id: 'alice' }]);
  });

  it('one relation per pair: the latest write wins (type, source, user, time)', async () => {
    await alice.createRelations([{ anchor_part_id: 'a', related_part_id: 'b', type: 'equivalent' }]);
    const [first] = await alice.getRelations('a');
    const bob = await h.as(['dataValidator']);
    expect(await bob.createRelations([{ anchor_part_id: 'b', related_part_id: 'a', type: 'not_related', source: 'confirmed_by_user' }])).toEqual({ created: 1 });
    const all = await alice.getRelations('a');
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ part_id: 'b', part_role: 'anchor_part', type: 'not_related', source: 'confirmed_by_user' });
    expect(all[0]?.user_id).not.toBe('alice');
    expect((all[0]?.created ?? '') > (first?.created ?? '')).toBe(true);
    expect(await alice.getRelations('a', 'equivalent')).toEqual([]);
  });

  it('a pair named twice in one request: the later item wins and is written once', async () => {
    expect(await alice.createRelations([
      { anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' },
      { anchor_part_id: 'c', related_part_id: 'd', type: 'duplicate' },
      { anchor_part_id: 'b', related_part_id: 'a', type: 'substitute' },
    ])).toEqual({ created: 2 });
    expect(await related(alice, 'a')).toEqual([{ part_id: 'b', part_role: 'anchor_part', type: 'substitute', source: 'ingested', user_id: 'alice' }]);
  });

  it('orders by created ascending, then part_id', async () => {
    await alice.createRelations([
      { anchor_part_id: 'd', related_part_id: 'c', type: 'duplicate' },
      { anchor_part_id: 'd', related_part_id: 'a', type: 'equivalent' },
    ]);
    await alice.createRelations([{ anchor_part_id: 'b', related_part_id: 'd', type: 'substitute' }]);
    const relations = await alice.getRelations('d');
    expect(relations.map((r) => r.part_id)).toEqual(['a', 'c', 'b']);
    expect(relations[0]?.created).toBe(relations[1]?.created);
    expect((relations[2]?.created ?? '') > (relations[1]?.created ?? '')).toBe(true);
  });

  it('all or nothing: one bad item is ONE 400 naming every bad item, and nothing is written', async () => {
    const error = await expectCatalogError(alice.createRelations([
      { anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' },
      { anchor_part_id: 'a', related_part_id: 'ghost', type: 'duplicate' },
      { anchor_part_id: 'c', related_part_id: 'c', type: 'equivalent' },
      { anchor_part_id: 'a', related_part_id: 'd', type: 'cousin' },
      { anchor_part_id: 'a', related_part_id: 'd', type: 'duplicate', source: 'rumour', note: 'x' },
      { anchor_part_id: 'phantom', type: 'duplicate' },
      42,
    ]), 'bad_request');
    expect(error.errors).toEqual([
      { path: 'items[1].related_part_id', message: "part 'ghost' does not exist" },
      { path: 'items[2].related_part_id', message: "must differ from anchor_part_id: part 'c' cannot relate to itself" },
      { path: 'items[3].type', message: 'must be one of: duplicate, substitute, equivalent, not_related' },
      { path: 'items[4].source', message: 'must be one of: confirmed_by_user, ingested' },
      { path: 'items[4]', message: 'unknown field(s): note' },
      { path: 'items[5].related_part_id', message: expect.stringMatching(/expected string/) },
      { path: 'items[5].anchor_part_id', message: "part 'phantom' does not exist" },
      { path: 'items[6]', message: expect.stringMatching(/expected object/) },
    ]);
    for (const path of ['items[1].related_part_id', 'items[2].related_part_id', 'items[3].type', 'items[4].source', 'items[5].anchor_part_id', 'items[6]']) {
      expect(error.detail).toContain(path);
    }
    expect(error.detail).toMatch(/nothing was written/);
    expect(await alice.getRelations('a')).toEqual([]);
  });

  it('an unknown part alone is a 400 too, and the valid items are not written', async () => {
    const error = await expectCatalogError(alice.createRelations([
      { anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' },
      { anchor_part_id: 'ghost', related_part_id: 'b', type: 'duplicate' },
    ]), 'bad_request', /items\[1\]\.anchor_part_id: part 'ghost' does not exist/);
    expect(error.errors).toEqual([{ path: 'items[1].anchor_part_id', message: "part 'ghost' does not exist" }]);
    expect(await alice.getRelations('b')).toEqual([]);
  });

  it('400 for a body that is not an array; 413 over 1,000 items', async () => {
    await expectCatalogError(alice.createRelations({ anchor_part_id: 'a' } as unknown as unknown[]), 'bad_request', /JSON array/);
    const many = Array.from({ length: 1001 }, () => ({ anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' }));
    await expectCatalogError(alice.createRelations(many), 'payload_too_large', 'at most 1000 relations per call; this one has 1001');
    expect(await alice.createRelations(many.slice(0, 1000))).toEqual({ created: 1 });
  });

  it('GET: 400 for an unknown relation type, 404 for an unknown part', async () => {
    await expectCatalogError(alice.getRelations('a', 'cousin'), 'bad_request', "unknown relation type 'cousin': must be one of: duplicate, substitute, equivalent, not_related");
    await expectCatalogError(alice.getRelations('ghost', 'duplicate'), 'not_found', "part 'ghost' does not exist");
    await expectCatalogError(alice.getRelations('ghost'), 'not_found', "part 'ghost' does not exist");
  });

  it('401 without a token, for writes and reads', async () => {
    const anonymous = h.withToken(undefined);
    await expectCatalogError(anonymous.createRelations([{ anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' }]), 'unauthorized');
    await expectCatalogError(anonymous.getRelations('a', 'duplicate'), 'unauthorized');
    await expectCatalogError(h.withToken('cat_nope').getRelations('a'), 'unauthorized');
  });

  it('403 for app roles on create; any valid token reads', async () => {
    await alice.createRelations([{ anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' }]);
    const worker = await h.as(['factoryWorker']);
    await expectCatalogError(worker.createRelations([{ anchor_part_id: 'a', related_part_id: 'c', type: 'duplicate' }]), 'forbidden', /catalogAdmin, dataContributor, dataValidator/);
    expect((await worker.getRelations('a', 'duplicate')).map((r) => r.part_id)).toEqual(['b']);
    expect((await worker.getRelations('c')).map((r) => r.part_id)).toEqual([]);
  });

  it('503 with the exact detail in maintenance mode; reads keep working', async () => {
    await alice.createRelations([{ anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' }]);
    await h.admin.setMaintenance(true);
    await expectCatalogError(alice.createRelations([{ anchor_part_id: 'a', related_part_id: 'c', type: 'duplicate' }]), 'maintenance', MAINTENANCE_DETAIL);
    expect((await alice.getRelations('a')).map((r) => r.part_id)).toEqual(['b']);
    await h.admin.setMaintenance(false);
    expect(await alice.createRelations([{ anchor_part_id: 'a', related_part_id: 'c', type: 'duplicate' }])).toEqual({ created: 1 });
  });

  it('deleting a part removes every relation where it is anchor or related part', async () => {
    await alice.createRelations([
      { anchor_part_id: 'a', related_part_id: 'b', type: 'substitute' },
      { anchor_part_id: 'c', related_part_id: 'a', type: 'duplicate' },
      { anchor_part_id: 'b', related_part_id: 'c', type: 'equivalent' },
    ]);
    expect((await h.admin.deleteParts(['a'])).deleted).toEqual(['a']);
    await expectCatalogError(alice.getRelations('a'), 'not_found');
    expect((await alice.getRelations('b')).map((r) => r.part_id)).toEqual(['c']);
    expect((await alice.getRelations('c')).map((r) => r.part_id)).toEqual(['b']);
    // A part created again under the same id starts without relations.
    await h.admin.upsertParts([{ part_id: 'a', name: { en: 'a again' } }]);
    expect(await alice.getRelations('a')).toEqual([]);
    expect((await alice.getRelations('b')).map((r) => r.part_id)).toEqual(['c']);
  });
});

describe('relations over HTTP: status codes and bodies', () => {
  let h: Harness;
  let token: string;
  beforeEach(async () => {
    h = await createHarness('http');
    await h.admin.upsertParts(['a', 'b'].map((id) => ({ part_id: id, name: { en: id } })));
    ({ secret: token } = await h.service.createToken(LOCAL_OWNER, { name: 'writer', roles: ['catalogAdmin'] }));
  });
  afterEach(async () => {
    await h.close();
  });

  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${h.url ?? ''}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('200 {"created"}, 200 array, 400/404 as problem+json', async () => {
    const created = await call('POST', '/v1/parts/relations', [{ anchor_part_id: 'a', related_part_id: 'b', type: 'substitute' }]);
    expect(created.status).toBe(200);
    expect(await created.json()).toEqual({ created: 1 });
    const got = await call('GET', '/v1/parts/b/relations/substitute');
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual([{ part_id: 'a', part_role: 'anchor_part', type: 'substitute', source: 'ingested', user_id: 'writer', created: expect.stringMatching(ISO_MICROS) }]);
    const bad = await call('POST', '/v1/parts/relations', [{ anchor_part_id: 'a', related_part_id: 'zz', type: 'substitute' }]);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await bad.json()).toMatchObject({ status: 400, errors: [{ path: 'items[0].related_part_id', message: "part 'zz' does not exist" }] });
    expect((await call('GET', '/v1/parts/b/relations/cousin')).status).toBe(400);
    expect((await call('GET', '/v1/parts/zz/relations/duplicate')).status).toBe(404);
    expect((await call('GET', '/v1/parts/zz/relations')).status).toBe(404);
  });
});

describe('relations in local mode as the directory owner', () => {
  it('records user_id "local"', async () => {
    const h = await createHarness('local');
    try {
      const owner = new LocalCatalogClient(h.catalog);
      await owner.upsertParts([{ part_id: 'a', name: { en: 'a' } }, { part_id: 'b', name: { en: 'b' } }]);
      await owner.createRelations([{ anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' }]);
      expect((await owner.getRelations('a'))[0]?.user_id).toBe('local');
    } finally {
      await h.close();
    }
  });
});
