/**
 * A write the server has given up on never commits afterwards (docs/api.md, "Connections and
 * timeouts"): on the pooled server, a write whose connection closes while it waits for the writer
 * thread is dropped, so it cannot overwrite, unseen, a later write that was answered.
 */
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

describe('a write given up while it waits for the writer thread', () => {
  let dir: string;
  let server: RunningServer;
  let token = '';
  beforeAll(async () => {
    dir = tempDir('catalog-given-up-');
    const catalog = openCatalog({ dataDir: dir });
    token = (await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] })).secret;
    await catalog.close();
    server = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 1 });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = async (items: unknown[]) => {
    const response = await request(`${server.url}/1/catalog/parts`, { method: 'POST', body: JSON.stringify(items), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    return { status: response.statusCode, body: await response.body.json() };
  };

  it('is not stored once the writer gets to it', async () => {
    // Two large writes keep the writer thread busy for a while.
    const big = (n: number) => Array.from({ length: 1000 }, (_, i) => ({ part_id: `big${n}-${i}`, name: { en: `a rather long part name number ${i} `.repeat(8) } }));
    const busy = [write(big(1)), write(big(2))];
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The given-up write: sent whole, then its connection closes before any answer.
    const port = Number(new URL(server.url).port);
    const body = JSON.stringify([{ part_id: 'ghost', name: { en: 'given up' } }]);
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST /1/catalog/parts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 30);
      });
      socket.on('error', () => undefined);
    });
    for (const answer of await Promise.all(busy)) expect(answer.status).toBe(200);
    // Writes are run in arrival order: once a later write is answered, the given-up one had its turn.
    expect((await write([{ part_id: 'after', name: { en: 'answered' } }])).status).toBe(200);
    const ghost = await request(`${server.url}/1/catalog/parts/ghost`, { headers: { authorization: `Bearer ${token}` } });
    await ghost.body.dump();
    expect(ghost.statusCode).toBe(404);
  });
});
