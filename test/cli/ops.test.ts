/**
 * `catalog api`, `catalog organizations` and `catalog tokens` as a user runs them, in local mode and
 * against a server (--remote): the same outputs and exit codes in both.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInMode } from '../helpers/cli-mode.js';

describe.each(['local', 'remote'] as const)('catalog api, organizations, tokens (%s)', (mode) => {
  const c = cliInMode(mode, 'catalog-cli-ops-');
  const run = c.run;

  it('catalog api: a write from --input, a read back, a query string, and an error with its exit code', async () => {
    writeFileSync(join(c.dir, 'parts.json'), JSON.stringify([{ part_id: 'p1', name: { en: 'red pump' } }]));
    const wrote = await run(['api', 'POST', '/1/catalog/parts', '--input', join(c.dir, 'parts.json')]);
    expect(wrote.code, wrote.stderr).toBe(0);
    expect(JSON.parse(wrote.stdout)).toEqual({ created: ['p1'], updated: [], errors: {} });
    const read = await run(['api', 'get', '/1/catalog/parts/p1']);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ part_id: 'p1', name: { en: 'red pump' } });
    const searched = await run(['api', 'POST', '/1/find/search', '--input', '-'], '{"matches": {"text": "pump"}}');
    expect(searched.code, searched.stderr).toBe(0);
    expect(JSON.parse(searched.stdout)).toMatchObject({ resultsTotalCount: 1 });
    const page = await run(['api', 'GET', `/1/find/search/state/${(JSON.parse(searched.stdout) as { sessionId: string }).sessionId}?limit=1`]);
    expect(page.code, page.stderr).toBe(0);
    expect((JSON.parse(page.stdout) as { results: unknown[] }).results).toHaveLength(1);

    const missing = await run(['api', 'GET', '/1/catalog/parts/nope']);
    expect(missing.code).toBe(6);
    expect(missing.stderr).toContain("part 'nope' does not exist");
    const bad = await run(['api', 'POST', '/1/catalog/parts', '--input', '-'], '{"not": "an array"}');
    expect(bad.code).toBe(2);
    const usage = await run(['api', 'FETCH', '/1/catalog/info']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("unknown method 'FETCH'");
    const notJson = await run(['api', 'POST', '/1/catalog/parts', '--input', '-'], '[{');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--input (stdin) is not JSON');
  });

  it('catalog organizations: import a tree from CSV and list it', async () => {
    writeFileSync(join(c.dir, 'orgs.csv'), 'org_id,parent_id\nacme,\nacme-eu,acme\nbad/id,\n');
    const imported = await run(['organizations', 'import', join(c.dir, 'orgs.csv')]);
    expect(imported.code, imported.stderr).toBe(3);
    const listed = await run(['organizations', 'list', '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([{ org_id: 'acme', parent_id: null }, { org_id: 'acme-eu', parent_id: 'acme' }]);
    const csv = await run(['organizations', 'list', '-o', 'csv']);
    expect(csv.stdout).toBe('org_id,parent_id\nacme,\nacme-eu,acme\n');
  });

  it('catalog tokens: create with scopes and expiry, list, rotate, revoke', async () => {
    const created = await run(['tokens', 'create', '--name', 'shop', '--role', 'factoryWorker', '--scope', 'search', '--scope', 'parts:read', '--expires-in', '30d']);
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^cat_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/limited to search, parts:read, expiring at \d{4}-/);
    const listed = await run(['tokens', 'list', '-o', 'json']);
    const shop = (JSON.parse(listed.stdout) as { name: string; scopes: string[]; expiresAt: string }[]).find((t) => t.name === 'shop');
    expect(shop).toMatchObject({ scopes: ['search', 'parts:read'], expiresAt: expect.stringMatching(/Z$/) as unknown as string });
    expect(listed.stdout).not.toContain(secret);
    const rotated = await run(['tokens', 'rotate', 'shop']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout.trim()).not.toBe(secret);
    expect((await run(['tokens', 'revoke', 'shop'])).code).toBe(0);
    expect((await run(['tokens', 'revoke', 'shop'])).code).toBe(6);
    const badDuration = await run(['tokens', 'create', '--name', 'x', '--role', 'csa', '--expires-in', '30 days']);
    expect(badDuration.code).toBe(2);
    expect(badDuration.stderr).toContain('--expires-in');
  });
});
