/**
 * Contract: authentication and roles (spec §5, decisions §2) and maintenance mode (decisions §7).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAINTENANCE_DETAIL } from '../../src/api/errors.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';

describe.each(MODES)('auth and maintenance (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
  });
  afterEach(async () => {
    await h.close();
  });

  it('401 without a token or with an unknown one', async () => {
    await expectCatalogError(h.withToken(undefined).listAttributes({}), 'unauthorized', /missing Authorization header/);
    await expectCatalogError(h.withToken('cat_nope').listAttributes({}), 'unauthorized', 'unknown or revoked token');
  });

  it('403 for writes by app roles; reads allowed', async () => {
    const worker = await h.as(['factoryWorker']);
    await expectCatalogError(worker.upsertAttributes([{ attribute_id: 'a', type: 'text', name: { en: 'a' } }]), 'forbidden', /catalogAdmin, dataContributor, dataValidator/);
    await expectCatalogError(worker.deleteParts(['x']), 'forbidden');
    await expectCatalogError(worker.setMaintenance(true), 'forbidden', /catalogAdmin/);
    expect(await worker.listAttributes({})).toEqual({ result: [], last_object_id: '', more_data: false });
  });

  it('GET /1/auth/token tells a token its name, roles, organization and what they allow, never a secret, in maintenance mode too', async () => {
    const worker = await h.as(['factoryWorker'], 'acme');
    const seen = await worker.getTokenInfo();
    expect(seen).toEqual({
      name: expect.stringMatching(/^t\d+$/) as unknown as string, roles: ['factoryWorker'], organization: 'acme', scopes: null, expiresAt: null,
      permissions: { writeCatalog: false, setImagePosition: false, maintenance: false },
    });
    expect(JSON.stringify(seen)).not.toMatch(/cat_/);
    const contributor = await h.as(['dataContributor']);
    expect((await contributor.getTokenInfo()).permissions).toEqual({ writeCatalog: true, setImagePosition: true, maintenance: false });
    await h.admin.setMaintenance(true);
    expect((await h.admin.getTokenInfo()).permissions).toEqual({ writeCatalog: true, setImagePosition: true, maintenance: true });
    await h.admin.setMaintenance(false);
    await expectCatalogError(h.withToken('cat_nope').getTokenInfo(), 'unauthorized');
  });

  it('dataContributor writes but may not switch maintenance mode', async () => {
    const contributor = await h.as(['dataContributor']);
    expect((await contributor.upsertAttributes([{ attribute_id: 'a', type: 'text', name: { en: 'a' } }])).created).toEqual(['a']);
    await expectCatalogError(contributor.setMaintenance(true), 'forbidden');
  });

  it('503 with the exact detail on every write while in maintenance; reads keep working', async () => {
    await h.admin.upsertAttributes([{ attribute_id: 'a', type: 'text', name: { en: 'a' } }]);
    expect(await h.admin.setMaintenance(true)).toEqual({ enabled: true });
    expect(await h.admin.getMaintenance()).toEqual({ enabled: true });
    await expectCatalogError(h.admin.upsertAttributes([{ attribute_id: 'b', type: 'text', name: { en: 'b' } }]), 'maintenance', MAINTENANCE_DETAIL);
    await expectCatalogError(h.admin.deleteAttributes(['a']), 'maintenance', MAINTENANCE_DETAIL);
    await expectCatalogError(h.admin.upsertParts([{ part_id: 'p', name: { en: 'p' } }]), 'maintenance', MAINTENANCE_DETAIL);
    await expectCatalogError(h.admin.upsertOrganizations([{ org_id: 'o' }]), 'maintenance', MAINTENANCE_DETAIL);
    expect((await h.admin.listAttributes({})).result).toHaveLength(1);
    expect(await h.admin.setMaintenance(false)).toEqual({ enabled: false });
    expect((await h.admin.upsertAttributes([{ attribute_id: 'b', type: 'text', name: { en: 'b' } }])).created).toEqual(['b']);
  });
});
