/**
 * A write the server has given up on never commits afterwards (docs/api.md, "Connections and
 * timeouts"): on the pooled server, a write whose connection closes while it waits for the writer
 * thread is dropped, so it cannot overwrite, unseen, a later write that was answered.
 */
import { connect } from 'node:net';
import sharp from 'sharp';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { pooledServer } from '../helpers/pooled-server.js';

describe('a write given up while it waits for the writer thread', () => {
  const pooled = pooledServer('catalog-given-up-', {});

  const write = async (items: unknown[]) => {
    const response = await request(`${pooled.server.url}/1/catalog/parts`, { method: 'POST', body: JSON.stringify(items), headers: { authorization: `Bearer ${pooled.token}`, 'content-type': 'application/json' } });
    return { status: response.statusCode, body: await response.body.json() };
  };

  it('is not stored once the writer gets to it', async () => {
    // Two large writes keep the writer thread busy for a while.
    const big = (n: number) => Array.from({ length: 1000 }, (_, i) => ({ part_id: `big${n}-${i}`, name: { en: `a rather long part name number ${i} `.repeat(8) } }));
    const busy = [write(big(1)), write(big(2))];
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The given-up write: sent whole, then its connection closes before any answer.
    const port = Number(new URL(pooled.server.url).port);
    const body = JSON.stringify([{ part_id: 'ghost', name: { en: 'given up' } }]);
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST /1/catalog/parts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${pooled.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
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
    const ghost = await request(`${pooled.server.url}/1/catalog/parts/ghost`, { headers: { authorization: `Bearer ${pooled.token}` } });
    await ghost.body.dump();
    expect(ghost.statusCode).toBe(404);
  });
});

describe('an image upload on the pooled server', () => {
  const pooled = pooledServer('catalog-given-up-upload-', {}, (catalog) => catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'pump', name: { en: 'pump' } }]));
  const headers = () => ({ authorization: `Bearer ${pooled.token}`, 'content-type': 'application/json' });
  const big = (n: number) => Array.from({ length: 1000 }, (_, i) => ({ part_id: `big${n}-${i}`, name: { en: `a rather long part name number ${i} `.repeat(8) } }));

  it('waits for the writer thread in arrival order with the other writes, and is not stored once given up', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 20, g: 120, b: 200 } } }).png().toBuffer();
    const busy = [1, 2].map((n) => request(`${pooled.server.url}/1/catalog/parts`, { method: 'POST', headers: headers(), body: JSON.stringify(big(n)) }));
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The upload's files are stored at once; its metadata then waits behind the two writes, and its connection closes meanwhile.
    const boundary = 'given-up-upload';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="images"\r\nContent-Type: application/json\r\n\r\n[{"image_id":"ghost-image","part_id":"pump","info":"display"}]\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="ghost-image.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const port = Number(new URL(pooled.server.url).port);
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST /1/catalog/images HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${pooled.token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`);
        socket.write(body);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 60);
      });
      socket.on('error', () => undefined);
    });
    for (const answer of await Promise.all(busy)) {
      await answer.body.dump();
      expect(answer.statusCode).toBe(200);
    }
    const after = await request(`${pooled.server.url}/1/catalog/parts`, { method: 'POST', headers: headers(), body: JSON.stringify([{ part_id: 'after', name: { en: 'answered' } }]) });
    await after.body.dump();
    expect(after.statusCode).toBe(200);
    const ghost = await request(`${pooled.server.url}/1/catalog/images/ghost-image`, { headers: headers() });
    await ghost.body.dump();
    expect(ghost.statusCode).toBe(404);
  });
});

describe('concurrent writes to one part on the pooled server', () => {
  const pooled = pooledServer('catalog-write-order-', { readers: 2 }, (catalog) => catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 200 }, (_, i) => ({ part_id: `p${i}`, name: { en: `pump ${i}` } }))));

  it('are applied in the order they are answered: the last answered write is the stored one, among reads', async () => {
    const headers = { authorization: `Bearer ${pooled.token}`, 'content-type': 'application/json' };
    const answered: { client: number; status: number }[] = [];
    const CLIENTS = 16;
    const ROUNDS = 3;
    const writer = async (client: number) => {
      for (let round = 0; round < ROUNDS; round++) {
        const res = await request(`${pooled.server.url}/1/catalog/parts`, { method: 'POST', headers, body: JSON.stringify([{ part_id: 'p7', name: { en: `client ${client} round ${round}` } }]) });
        const body = (await res.body.json()) as { updated?: string[] };
        answered.push({ client, status: res.statusCode });
        expect(res.statusCode).toBe(200);
        expect(body.updated).toEqual(['p7']);
      }
    };
    // Searches and reads beside the writes, as under load.
    const reader = async () => {
      for (let i = 0; i < 10; i++) {
        const res = await request(`${pooled.server.url}/1/find/search`, { method: 'POST', headers, body: JSON.stringify({ matches: { text: 'pump' } }) });
        await res.body.dump();
      }
    };
    await Promise.all([...Array.from({ length: CLIENTS }, (_, c) => writer(c)), reader(), reader()]);
    expect(answered).toHaveLength(CLIENTS * ROUNDS);
    const last = answered[answered.length - 1] as { client: number };
    const stored = await request(`${pooled.server.url}/1/catalog/parts/p7`, { headers });
    expect(((await stored.body.json()) as { name: { en: string } }).name.en).toBe(`client ${last.client} round ${ROUNDS - 1}`);
  });
});

describe('the writer thread\'s queue', () => {
  const pooled = pooledServer('catalog-write-queue-', { maxQueuedWrites: 1 });

  it('is bounded: a write beyond it is a 503 with Retry-After at once, and nothing of it is stored', async () => {
    const headers = { authorization: `Bearer ${pooled.token}`, 'content-type': 'application/json' };
    const big = (n: number) => Array.from({ length: 1000 }, (_, i) => ({ part_id: `w${n}-${i}`, name: { en: `a rather long part name number ${i} `.repeat(8) } }));
    const answers = await Promise.all(Array.from({ length: 8 }, async (_, n) => {
      const res = await request(`${pooled.server.url}/1/catalog/parts`, { method: 'POST', headers, body: JSON.stringify(big(n)) });
      return { n, status: res.statusCode, retryAfter: res.headers['retry-after'], body: (await res.body.json()) as { detail?: string } };
    }));
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(2);
    for (const a of refused) {
      expect(a.retryAfter).toBe('1');
      expect(a.body.detail).toBe('the server is busy: 1 writes are already waiting for the writer; retry in a moment');
    }
    for (const a of answers) {
      const res = await request(`${pooled.server.url}/1/catalog/parts/w${a.n}-999`, { headers });
      await res.body.dump();
      expect(res.statusCode).toBe(a.status === 200 ? 200 : 404);
    }
  });
});
