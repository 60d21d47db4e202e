/**
 * Probes and metrics over a real loopback socket (docs/deploy.md "Probes and metrics"): /healthz
 * and /readyz answer without a token, /readyz turns 503 when the server's PostgreSQL stops, and
 * /metrics (a token allowed the `metrics` scope) shows a search's latency once a search was made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ROUTES } from '../../src/api/routes.js';
import { buildApp } from '../../src/http/app.js';
import { StartupGate } from '../../src/http/startup-gate.js';
import { openCatalogAt } from '../../src/open-catalog.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startPostgresCluster, findPostgresBin } from '../services/postgres-cluster.js';

async function get(url: string, token?: string) {
  const res = await request(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe('probes and metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('http');
  });
  afterAll(async () => {
    await h.close();
  });

  it('GET /healthz and GET /readyz answer without a token', async () => {
    const health = await get(`${h.url}${ROUTES.healthz}`);
    expect(health.status).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await get(`${h.url}${ROUTES.readyz}`);
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: { ok: true }, blobStore: { ok: true } } });
  });

  it('GET /metrics needs a token allowed the metrics scope, and shows a search\'s latency after a search', async () => {
    expect((await get(`${h.url}${ROUTES.metrics}`)).status).toBe(401);
    const { secret: reader } = await h.service.createToken(LOCAL_OWNER, { name: 'reader', roles: ['factoryWorker'], scopes: ['search'] });
    const refused = await get(`${h.url}${ROUTES.metrics}`, reader);
    expect(refused.status).toBe(403);
    expect(refused.json().detail).toBe("token 'reader' lacks the scope 'metrics' this needs (its scopes: search)");
    const { secret: scraper } = await h.service.createToken(LOCAL_OWNER, { name: 'prometheus', roles: ['factoryWorker'], scopes: ['metrics'] });

    const before = await get(`${h.url}${ROUTES.metrics}`, scraper);
    expect(before.status).toBe(200);
    expect(before.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(before.text).not.toMatch(/catalog_search_duration_seconds_count\{kind="text"\}/);

    await h.admin.upsertAttributes([{ attribute_id: 'color', type: 'text', name: { en: 'Color' }, searchable: true }]);
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'red pump' } }]);
    expect((await h.admin.search({ matches: { text: 'pump' } })).resultsTotalCount).toBe(1);

    const after = (await get(`${h.url}${ROUTES.metrics}`, scraper)).text;
    expect(after).toMatch(/^catalog_search_duration_seconds_count\{kind="text"\} 1$/m);
    expect(after).toMatch(/^catalog_http_request_duration_seconds_count\{method="POST",route="\/1\/find\/search",status="200"\} 1$/m);
    expect(after).toMatch(/^catalog_http_request_duration_seconds_bucket\{le="10",method="POST",route="\/1\/find\/search",status="200"\} 1$/m);
    // The refused scrapes, by code; the index's size and the stored session.
    expect(after).toMatch(/^catalog_http_errors_total\{code="unauthorized"\} 1$/m);
    expect(after).toMatch(/^catalog_http_errors_total\{code="forbidden"\} 1$/m);
    expect(after).toMatch(/^catalog_search_index_parts 1$/m);
    expect(after).toMatch(/^catalog_search_sessions 1$/m);
    expect(after).toMatch(/^catalog_decode_queued 0$/m);
    // A route is its pattern, never the requested path.
    await expect(h.admin.getPart('p1')).resolves.toMatchObject({ part_id: 'p1' });
    expect((await get(`${h.url}${ROUTES.metrics}`, scraper)).text).toMatch(/route="\/1\/catalog\/parts\/:part_id"/);
  });

  it('serves /metrics without a token when the server makes them public', async () => {
    const app = buildApp({ catalog: h.catalog, accessLog: null, metrics: { public: true } });
    try {
      const res = await app.inject({ method: 'GET', url: ROUTES.metrics });
      expect(res.statusCode).toBe(200);
      expect(res.body).toMatch(/^# TYPE catalog_http_request_duration_seconds histogram$/m);
    } finally {
      await app.close();
    }
  });

  let token = '';
  it('while the server starts: /healthz 200, /readyz 503 starting, API requests wait for it and then get their answer', async () => {
    await h.admin.upsertParts([{ part_id: 'starting-1', name: { en: 'gear pump' } }]);
    ({ secret: token } = await h.service.createToken(LOCAL_OWNER, { name: 'starting', roles: ['factoryWorker'] }));
    const startup = new StartupGate();
    startup.enter('loading the search index on 2 reader threads and a writer thread');
    const app = buildApp({ catalog: h.catalog, accessLog: null, startup });
    try {
      expect((await app.inject({ method: 'GET', url: ROUTES.healthz })).json()).toEqual({ status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: ROUTES.readyz });
      expect([ready.statusCode, ready.headers['retry-after'], ready.json()]).toEqual([503, '2', { status: 'starting', stage: 'loading the search index on 2 reader threads and a writer thread' }]);
      let answered = false;
      const part = app.inject({ method: 'GET', url: '/1/catalog/parts/starting-1', headers: { authorization: `Bearer ${token}` } }).then((res) => {
        answered = true;
        return res;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(answered).toBe(false);
      startup.open();
      const res = await part;
      expect([res.statusCode, res.json<{ part_id: string }>().part_id]).toEqual([200, 'starting-1']);
      expect((await app.inject({ method: 'GET', url: ROUTES.readyz })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('an API request that waits longer than the hold gets a 503 with Retry-After naming the stage', async () => {
    const startup = new StartupGate(100);
    startup.enter('checking the image files a crash may have left');
    const app = buildApp({ catalog: h.catalog, accessLog: null, startup });
    try {
      const res = await app.inject({ method: 'GET', url: '/1/catalog/parts/starting-1', headers: { authorization: `Bearer ${token}` } });
      expect([res.statusCode, res.headers['retry-after'], res.json<{ code: string }>().code]).toEqual([503, '2', 'unavailable']);
      expect(res.json<{ detail: string }>().detail).toMatch(/^the server is starting \(checking the image files a crash may have left, \d+ s so far\)/);
      startup.fail('port 8080 is in use');
      const failed = await app.inject({ method: 'GET', url: '/1/catalog/parts/starting-1', headers: { authorization: `Bearer ${token}` } });
      expect(failed.json<{ detail: string }>().detail).toBe('the server failed to start: port 8080 is in use');
    } finally {
      await app.close();
    }
  });
});

describe.skipIf(!findPostgresBin())('readiness on PostgreSQL', () => {
  it('GET /readyz turns 503 naming the database when PostgreSQL stops; /healthz stays 200', async () => {
    const cluster = await startPostgresCluster();
    const dataDir = mkdtempSync(join(tmpdir(), 'readyz-'));
    const catalog = await openCatalogAt({ dataDir, databaseUrl: cluster.url });
    const app = buildApp({ catalog, accessLog: null });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      expect((await get(`${url}${ROUTES.readyz}`)).status).toBe(200);
      cluster.stop();
      const down = await get(`${url}${ROUTES.readyz}`);
      expect(down.status).toBe(503);
      expect(down.headers['retry-after']).toBe('5');
      const body = down.json() as { status: string; checks: { database: { ok: boolean; error?: string }; blobStore: { ok: boolean } } };
      expect(body.status).toBe('unavailable');
      expect(body.checks.database.ok).toBe(false);
      expect(body.checks.database.error).toEqual(expect.any(String));
      expect(body.checks.blobStore).toEqual({ ok: true });
      expect((await get(`${url}${ROUTES.healthz}`)).status).toBe(200);
    } finally {
      cluster.stop();
      await app.close();
      await catalog.close().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
