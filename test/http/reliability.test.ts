/**
 * Hostile requests a server answers with the documented 4xx, never a 500 and never by locking
 * others out (docs/api.md, Wire and "Connections and timeouts"): deeply nested JSON on the pooled
 * server (worker threads), an over-long multipart boundary, nosniff on every answer, failed
 * authentications limited per address (429 + Retry-After), connections capped per address, a
 * stalled body answered 408; and `catalog serve` refusing a missing data directory without
 * creating it; the CLI's help examples name existing roles only.
 */
import { existsSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/api/schemas.js';
import { EXAMPLES as HELP_EXAMPLES } from '../../src/cli/help-examples.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { buildApp } from '../../src/http/app.js';
import { openCatalog } from '../../src/open-catalog.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';
import { pooledServer } from '../helpers/pooled-server.js';

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('the pooled server against hostile bodies', () => {
  const pooled = pooledServer('catalog-reliability-');

  const post = async (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const response = await request(`${pooled.server.url}${path}`, { method: 'POST', body, headers: { authorization: `Bearer ${pooled.token}`, ...headers } });
    return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as { code?: string; detail?: string } };
  };

  it('answers deeply nested JSON 400 on every kind of endpoint (reader, writer, main thread)', async () => {
    for (const [path, body] of [
      ['/1/find/search', `{"matches":{"filters":${deep(100_000)}}}`],
      ['/1/catalog/parts/list', `{"paging":${deep(100_000)}}`],
      ['/1/catalog/parts', `[{"part_id":"x","name":${deep(100_000)}}]`],
    ] as const) {
      const answer = await post(path, body);
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({ path, status: 400, code: 'bad_request' });
      expect(answer.body.detail).toMatch(/nested more than 64 levels/);
    }
  });

  it('answers a multipart boundary over 70 characters 400', async () => {
    const boundary = 'b'.repeat(300);
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="images"\r\n\r\n[]\r\n--${boundary}--\r\n`;
    const answer = await post('/1/catalog/images', body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 'bad_request' });
  });

  it('sends X-Content-Type-Options: nosniff on answers and errors', async () => {
    const ok = await request(`${pooled.server.url}/1/auth/token`, { headers: { authorization: `Bearer ${pooled.token}` } });
    await ok.body.dump();
    expect(ok.headers['x-content-type-options']).toBe('nosniff');
    const refused = await post('/1/find/search', '{', {});
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('limits per client address', () => {
  let dir: string;
  let app: ReturnType<typeof buildApp>;
  let url = '';
  let catalog: ReturnType<typeof openCatalog>;
  let token = '';
  beforeAll(async () => {
    dir = tempDir('catalog-abuse-');
    catalog = openCatalog({ dataDir: dir });
    token = (await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] })).secret;
    app = buildApp({ catalog, accessLog: null, webApp: false, abuse: { maxAuthFailures: 5, maxConnectionsPerAddress: 8 }, limits: { connectionTimeoutMs: 500 } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await app?.close();
    await catalog?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a stalled body 408 when the connection timeout strikes', async () => {
    const port = Number(new URL(url).port);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST /1/catalog/parts/list HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"pag`);
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
  it('answers 429 with Retry-After once an address has failed to authenticate too often, even with a good token', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await request(`${url}/1/auth/token`, { headers: { authorization: `Bearer cat_${'x'.repeat(43)}` } });
      await response.body.dump();
      statuses.push(response.statusCode);
      if (response.statusCode === 429) expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const good = await request(`${url}/1/auth/token`, { headers: { authorization: `Bearer ${token}` } });
    await good.body.dump();
    expect(good.statusCode).toBe(429);
  });

  it('closes connections of one address beyond its cap at once', async () => {
    const sockets = await Promise.all(Array.from({ length: 10 }, () => new Promise<import('node:net').Socket>((resolve) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1', () => resolve(socket));
      socket.on('error', () => undefined);
    })));
    const closed = await Promise.all(sockets.map((socket) => new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 300);
    })));
    // Sockets of the earlier requests of this address may still be open: at most 8 in all stay.
    expect(closed.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(closed.filter((c) => !c).length).toBeLessThanOrEqual(8);
    for (const socket of sockets) socket.destroy();
  });

});

describe('catalog serve and the CLI help', () => {
  it('refuses a missing data directory for want of a token without creating it', async () => {
    const root = tempDir('catalog-serve-missing-');
    const missing = join(root, 'nope');
    const run = await cli(['--data-dir', missing, 'serve', '--port', '0'], { cwd: root });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/no access token/);
    expect(existsSync(missing)).toBe(false);
    rmSync(root, { recursive: true, force: true });
  });

  it('names only roles that exist in its examples', () => {
    for (const examples of Object.values(HELP_EXAMPLES)) {
      for (const example of examples) {
        for (const m of example.matchAll(/--role ([A-Za-z]+)/g)) expect(ROLES as readonly string[], example).toContain(m[1]);
      }
    }
  });
});

describe('item errors', () => {
  it('never show the server\'s file paths', async () => {
    const { withoutServerPaths } = await import('../../src/core/images/service.js');
    expect(withoutServerPaths('Input file /srv/catalog/images/blobs/19/16/1916abc: bad seek')).toBe('Input file the stored original: bad seek');
    expect(withoutServerPaths('VipsJpeg: premature end of JPEG image')).toBe('VipsJpeg: premature end of JPEG image');
    expect(withoutServerPaths("not image/jpeg in 'C:\\data\\images\\x'")).toBe("not image/jpeg in 'the stored original'");
  });
});
