/**
 * Contract: expiring, scoped tokens, rotation, last use, and token management through the client
 * (docs/api.md "Tokens"): the same answers locally and over HTTP (POST /1/auth/tokens ...), on
 * SQLite and on PostgreSQL (the contract-postgres project).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';

/** A clock the test moves: microseconds since the epoch. */
function testClock(start = Date.UTC(2026, 10, 28, 12, 0, 0) * 1000) {
  const clock = { now: start, nowMicros: () => clock.now, advanceSeconds: (s: number) => (clock.now += s * 1_000_000) };
  return clock;
}

describe.each(MODES)('tokens (%s client)', (mode) => {
  let h: Harness;
  let clock: ReturnType<typeof testClock>;
  beforeEach(async () => {
    clock = testClock();
    h = await createHarness(mode, { clock });
  });
  afterEach(async () => {
    await h.close();
  });

  it('an expired token is refused with 401 saying it expired and when; rotating it gives a working secret', async () => {
    const { secret, token } = await h.admin.createToken({ name: 'shop', roles: ['factoryWorker'], expiresInSeconds: 3_600 });
    expect(token).toEqual({ name: 'shop', roles: ['factoryWorker'], organization: null, scopes: null, createdAt: '2026-11-28T12:00:00.000000Z', expiresAt: '2026-11-28T13:00:00.000000Z', lastUsedAt: null });
    const shop = h.withToken(secret);
    expect((await shop.listAttributes({})).result).toEqual([]);
    clock.advanceSeconds(3_600);
    await expectCatalogError(shop.listAttributes({}), 'unauthorized', "token 'shop' expired at 2026-11-28T13:00:00.000000Z: rotate it (catalog tokens rotate shop) or create a new one");
    const rotated = await h.admin.rotateToken('shop');
    expect(rotated.token.expiresAt).toBe('2026-11-28T14:00:00.000000Z'); // the same one-hour lifetime, from now
    await expectCatalogError(shop.listAttributes({}), 'unauthorized', 'unknown or revoked token');
    expect((await h.withToken(rotated.secret).listAttributes({})).result).toEqual([]);
    expect((await h.admin.rotateToken('shop', { expiresInSeconds: 60 })).token.expiresAt).toBe('2026-11-28T13:01:00.000000Z');
  });

  it('an out-of-scope call is 403 naming the missing scope; calls in scope work; roles still apply', async () => {
    await h.admin.upsertAttributes([{ attribute_id: 'color', type: 'text', name: { en: 'Color' }, searchable: true }]);
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'red pump' }, attributes: [{ attribute_id: 'color', values: [{ organization: '', value: { en: 'red' } }] }] }]);
    const { secret } = await h.admin.createToken({ name: 'finder', roles: ['factoryWorker'], scopes: ['search', 'parts:read'] });
    const finder = h.withToken(secret);
    expect((await finder.search({ matches: { text: 'pump' } })).resultsTotalCount).toBe(1);
    expect((await finder.getPart('p1')).part_id).toBe('p1');
    await expectCatalogError(finder.listAttributes({}), 'forbidden', "token 'finder' lacks the scope 'attributes:read' this needs (its scopes: search, parts:read)");
    await expectCatalogError(finder.getRelations('p1'), 'forbidden', /lacks the scope 'relations:read'/);
    await expectCatalogError(finder.listImages({}), 'forbidden', /lacks the scope 'images:read'/);
    // Its own description and the catalog's identity need no scope.
    expect(await finder.getTokenInfo()).toMatchObject({ name: 'finder', scopes: ['search', 'parts:read'], expiresAt: null, permissions: { writeCatalog: false, setImagePosition: false, maintenance: false } });
    expect((await finder.getCatalogInfo()).catalogId).toMatch(/^[0-9a-f-]{36}$/);

    const { secret: writerSecret } = await h.admin.createToken({ name: 'images-only', roles: ['dataContributor'], scopes: ['images:write'] });
    const writer = h.withToken(writerSecret);
    await expectCatalogError(writer.upsertParts([{ part_id: 'p2', name: { en: 'x' } }]), 'forbidden', /lacks the scope 'parts:write'/);
    await expectCatalogError(writer.createRelations([]), 'forbidden', /lacks the scope 'relations:write'/);
    expect((await writer.getTokenInfo()).permissions).toEqual({ writeCatalog: true, setImagePosition: true, maintenance: false });
  });

  it('refuses unknown scopes and scopes the roles could never use, naming them', async () => {
    await expectCatalogError(h.admin.createToken({ name: 'x', roles: ['factoryWorker'], scopes: ['parts:raed'] }), 'bad_request', /unknown scope\(s\) parts:raed; allowed: attributes:read/);
    await expectCatalogError(h.admin.createToken({ name: 'x', roles: ['factoryWorker'], scopes: ['parts:write', 'tokens'] }), 'bad_request', /'parts:write' would allow nothing without one of the roles catalogAdmin, dataContributor, dataValidator/);
    await expectCatalogError(h.admin.createToken({ name: 'x', roles: ['factoryWorker'], expiresInSeconds: 0 }), 'bad_request', /expiresInSeconds/);
    expect((await h.admin.listTokens()).map((t) => t.name)).toEqual(['t1']);
  });

  it('a catalogAdmin lists, creates, rotates and revokes tokens through the client; secrets are never listed', async () => {
    const created = await h.admin.createToken({ name: 'ci', roles: ['dataContributor'], organization: 'acme', scopes: ['parts:write', 'parts:read'] });
    expect(created.secret).toMatch(/^cat_[A-Za-z0-9_-]{43}$/);
    const listed = await h.admin.listTokens();
    expect(listed.map((t) => t.name)).toEqual(['ci', 't1']);
    expect(listed[0]).toEqual({ ...created.token, lastUsedAt: null });
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    const ci = h.withToken(created.secret);
    expect((await ci.upsertParts([{ part_id: 'p', name: { en: 'p' } }])).created).toEqual(['p']);
    // Its last use is recorded (at most once a minute), without the request waiting for the write.
    await expect.poll(async () => (await h.admin.listTokens())[0]?.lastUsedAt).toBe('2026-11-28T12:00:00.000000Z');

    const rotated = await h.admin.rotateToken('ci');
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.token).toMatchObject({ name: 'ci', roles: ['dataContributor'], organization: 'acme', scopes: ['parts:write', 'parts:read'], expiresAt: null });
    await expectCatalogError(ci.listParts({}), 'unauthorized', 'unknown or revoked token');
    await h.admin.revokeToken('ci');
    await expectCatalogError(h.withToken(rotated.secret).listParts({}), 'unauthorized', 'unknown or revoked token');
    await expectCatalogError(h.admin.revokeToken('ci'), 'not_found', "no token named 'ci'");
    await expectCatalogError(h.admin.rotateToken('ci'), 'not_found', "no token named 'ci'");
    await expectCatalogError(h.admin.createToken({ name: 't1', roles: ['csa'] }), 'bad_request', /a token named 't1' already exists/);
  });

  it('only a catalogAdmin allowed the tokens scope manages tokens', async () => {
    const contributor = await h.as(['dataContributor']);
    await expectCatalogError(contributor.listTokens(), 'forbidden', /needs the role catalogAdmin/);
    await expectCatalogError(contributor.createToken({ name: 'x', roles: ['csa'] }), 'forbidden', /needs the role catalogAdmin/);
    const { secret } = await h.admin.createToken({ name: 'ops', roles: ['catalogAdmin'], scopes: ['maintenance'] });
    const ops = h.withToken(secret);
    await expectCatalogError(ops.listTokens(), 'forbidden', /lacks the scope 'tokens'/);
    await expectCatalogError(ops.revokeToken('t1'), 'forbidden', /lacks the scope 'tokens'/);
    expect(await ops.setMaintenance(true)).toEqual({ enabled: true });
    expect(await ops.setMaintenance(false)).toEqual({ enabled: false });
  });
});
