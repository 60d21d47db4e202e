/**
 * `catalog serve` on worker threads (src/http/pool): writes on one writer thread, reads and text
 * searches on reader threads, the main thread free for everything else. The same answers as an
 * unpooled server, errors included; a write is read at once on any thread; a search session
 * started on one reader is paged on another; and a request to the main thread is answered while
 * a bulk write is in progress instead of waiting behind it.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogError } from '../../src/api/errors.js';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

async function caught(promise: Promise<unknown>): Promise<Pick<CatalogError, 'status' | 'code' | 'detail'>> {
  try {
    await promise;
  } catch (error) {
    const e = error as CatalogError;
    return { status: e.status, code: e.code, detail: e.detail };
  }
  throw new Error('expected an error');
}

describe('pooled server (writer and reader threads)', () => {
  let dir: string;
  let pooled: RunningServer;
  let plain: RunningServer;
  const secrets: Record<string, string> = {};
  const clients: HttpCatalogClient[] = [];
  const client = (server: RunningServer, secret: string) => {
    const c = new HttpCatalogClient({ url: server.url, token: secret, retries: 0 });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    dir = tempDir('catalog-pool-');
    const setup = openCatalog({ dataDir: dir });
    for (const [name, roles] of [['admin', ['catalogAdmin', 'superAdmin']], ['worker', ['factoryWorker']]] as const) {
      secrets[name] = (await setup.service.createToken(LOCAL_OWNER, { name, roles: [...roles] })).secret;
    }
    await setup.close();
    pooled = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 2 });
    // The same data directory served on the main thread alone (readers: 0), for comparing answers.
    plain = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 0 });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await pooled?.close();
    await plain?.close();
  });

  it('runs on worker threads', () => {
    expect((pooled.catalog as { threads?: unknown }).threads).toEqual({ readers: 2, writer: 1 });
  });

  it('reads a write at once, on every reader, and pages a session across readers', async () => {
    const admin = client(pooled, secrets.admin ?? '');
    await admin.upsertAttributes([{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true }]);
    const parts = Array.from({ length: 60 }, (_, i) => ({ part_id: `p${String(i).padStart(3, '0')}`, name: { en: `Gear pump ${i}` }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme' } }] }] }));
    const written = await admin.upsertParts(parts);
    expect(written).toMatchObject({ errors: {} });
    // Several reads in parallel land on both readers; each sees the committed write.
    const got = await Promise.all(parts.slice(0, 8).map((p) => admin.getPart(p.part_id)));
    expect(got.map((p) => p.part_id)).toEqual(parts.slice(0, 8).map((p) => p.part_id));
    const first = await admin.search({ matches: { text: 'gear pump' }, resultOptions: { limit: 10 } });
    expect(first.resultsTotalCount).toBe(60);
    const pages = await Promise.all([10, 20, 30, 40, 50].map((skip) => admin.searchState(first.sessionId, { skip, limit: 10 })));
    const ids = [...first.results, ...pages.flatMap((p) => p.results)].map((r) => r.id);
    expect(new Set(ids).size).toBe(60);
  });

  it('answers errors exactly as an unpooled server', async () => {
    const cases: [string, (c: HttpCatalogClient) => Promise<unknown>, string][] = [
      ['write refused to a factoryWorker (writer thread)', (c) => c.upsertParts([{ part_id: 'x', name: { en: 'x' } }]), 'worker'],
      ['unknown part (main thread)', (c) => c.getPart('no-such-part'), 'admin'],
      ['unknown relation part (reader thread)', (c) => c.getRelations('no-such-part'), 'admin'],
      ['unknown session (reader thread)', (c) => c.searchState('00000000-0000-4000-8000-000000000000', {}), 'admin'],
      ['invalid paging (reader thread)', (c) => c.listParts({ paging: { limit: 0 } }), 'admin'],
    ];
    for (const [what, call, who] of cases) {
      const a = await caught(call(client(pooled, secrets[who] ?? '')));
      const b = await caught(call(client(plain, secrets[who] ?? '')));
      expect(a, what).toEqual(b);
      expect(a.status, what).toBeGreaterThanOrEqual(400);
    }
  });

  it('sees maintenance mode switched on the main thread in the writer thread', async () => {
    const admin = client(pooled, secrets.admin ?? '');
    await admin.setMaintenance(true);
    try {
      expect(await caught(admin.upsertParts([{ part_id: 'm', name: { en: 'm' } }]))).toMatchObject({ status: 503, code: 'maintenance' });
    } finally {
      await admin.setMaintenance(false);
    }
  });

  it('answers the main thread while a bulk write runs on the writer', async () => {
    const body = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({
      part_id: `bulk-${i}`,
      name: { en: `Bulk part ${i} ${'with a long descriptive name '.repeat(8)}`, de: `Massenteil ${i}` },
      attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: `Vendor ${i % 50} ${'x'.repeat(200)}` } }] }],
    })));
    const order: string[] = [];
    const send = (method: string, path: string, payload?: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(path, pooled.url);
        const req = request(url, { method, headers: { authorization: `Bearer ${secrets.admin}`, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(payload);
      });
    const write = send('POST', '/1/catalog/parts', body).then((status) => order.push(`write ${status}`));
    // Once the write is being worked on, a cheap request to the main thread.
    await new Promise((r) => setTimeout(r, 30));
    const status = send('GET', '/1/catalog/maintenance').then((s) => order.push(`status ${s}`));
    await Promise.all([write, status]);
    expect(order).toEqual(['status 200', 'write 200']);
  });
});
