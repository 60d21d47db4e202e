import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogError, MAINTENANCE_DETAIL } from '../../api/errors.js';
import { HttpCatalogClient } from '../http-client.js';
import { encodeMultipart } from './multipart.js';
import { HttpTransport, retryAfterMs, type TransportOptions } from './transport.js';

/** One canned answer: a status, optional headers and problem detail; `drop` destroys the socket instead. */
interface Answer {
  status?: number;
  headers?: Record<string, string>;
  detail?: string;
  code?: string;
  drop?: boolean;
}

interface Received {
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A real loopback server answering each request with the next answer (then 200 `{"ok":true}`), recording what it got. */
async function fakeServer(answers: Answer[]): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      const answer = answers.shift() ?? { status: 200 };
      if (answer.drop) {
        req.socket.destroy();
        return;
      }
      const status = answer.status ?? 200;
      res.statusCode = status;
      for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
      if (status < 400) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true }));
      } else {
        res.setHeader('content-type', 'application/problem+json');
        res.end(JSON.stringify({ type: 'about:blank', title: 'x', status, detail: answer.detail ?? `failed with ${status}`, ...(answer.code ? { code: answer.code } : {}) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, received };
}

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('HttpTransport', () => {
  let server: Server | undefined;
  let transport: HttpTransport | undefined;
  let delays: number[];
  /** A transport whose waits are recorded, not slept; jitter fixed at one half. */
  const make = (url: string, options: Partial<TransportOptions> = {}) => {
    transport = new HttpTransport({ url, token: 't', backoffMs: 100, sleep: async (ms) => void delays.push(ms), random: () => 0.5, now: () => NOW, ...options });
    return transport;
  };
  const serve = async (answers: Answer[]) => {
    const fake = await fakeServer(answers);
    server = fake.server;
    return fake;
  };
  beforeEach(() => {
    delays = [];
  });
  afterEach(async () => {
    await transport?.close();
    transport = undefined;
    server?.close();
    server = undefined;
  });

  it('retries 503, 429, 502 and 504 with jittered exponential backoff, sending the same JSON each time', async () => {
    const fake = await serve([{ status: 503 }, { status: 429 }, { status: 502 }, { status: 504 }]);
    expect(await make(fake.url).json({ method: 'POST', path: '/x', json: { a: 1 } })).toEqual({ ok: true });
    expect(fake.received).toHaveLength(5);
    expect(fake.received.map((r) => r.body.toString())).toEqual(Array(5).fill('{"a":1}'));
    expect(fake.received[0]?.headers.authorization).toBe('Bearer t');
    // random() = 0.5 of 100·2^attempt.
    expect(delays).toEqual([50, 100, 200, 400]);
  });

  it('honours Retry-After in seconds and as an HTTP date, capped at maxDelayMs', async () => {
    const fake = await serve([
      { status: 503, headers: { 'retry-after': '3' } },
      { status: 429, headers: { 'retry-after': new Date(NOW + 7000).toUTCString() } },
      { status: 429, headers: { 'retry-after': new Date(NOW - 7000).toUTCString() } },
      { status: 503, headers: { 'retry-after': '120' } },
    ]);
    await make(fake.url, { maxDelayMs: 10_000 }).send({ method: 'GET', path: '/x' });
    expect(delays).toEqual([3000, 7000, 0, 10_000]);
    expect(retryAfterMs('soon', NOW)).toBeUndefined();
    expect(retryAfterMs(undefined, NOW)).toBeUndefined();
  });

  it('never retries maintenance or another 4xx; the problem+json becomes the CatalogError', async () => {
    const fake = await serve([
      { status: 503, detail: MAINTENANCE_DETAIL, code: 'maintenance', headers: { 'retry-after': '60' } },
      { status: 503, detail: MAINTENANCE_DETAIL },
      { status: 400, detail: 'bad', code: 'bad_request' },
      { status: 401, detail: 'who', code: 'unauthorized' },
      { status: 404, detail: 'gone', code: 'not_found' },
      { status: 413, detail: 'big', code: 'payload_too_large' },
      { status: 409, detail: 'conflict' },
    ]);
    const t = make(fake.url);
    const outcomes: unknown[] = [];
    for (let i = 0; i < 7; i++) {
      const error = (await t.send({ method: 'POST', path: '/x', json: [] }).catch((e: unknown) => e)) as CatalogError;
      expect(error).toBeInstanceOf(CatalogError);
      outcomes.push([error.status, error.code, error.detail]);
    }
    expect(outcomes).toEqual([
      [503, 'maintenance', MAINTENANCE_DETAIL], [503, 'maintenance', MAINTENANCE_DETAIL], [400, 'bad_request', 'bad'],
      [401, 'unauthorized', 'who'], [404, 'not_found', 'gone'], [413, 'payload_too_large', 'big'], [400, 'bad_request', 'conflict'],
    ]);
    expect(fake.received).toHaveLength(7);
    expect(delays).toEqual([]);
  });

  it('bounds attempts: after `retries` the last answer is thrown', async () => {
    const fake = await serve([{ status: 503, detail: 'overloaded' }, { status: 503, detail: 'overloaded' }, { status: 503, detail: 'still overloaded' }]);
    const error = (await make(fake.url, { retries: 2 }).send({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as CatalogError;
    expect([error.code, error.status, error.detail]).toEqual(['unavailable', 503, 'still overloaded']);
    expect(fake.received).toHaveLength(3);
    expect(delays).toEqual([50, 100]);
  });

  it('bounds total waiting: a Retry-After past maxTotalMs is not waited for', async () => {
    const fake = await serve([{ status: 503, headers: { 'retry-after': '2' } }, { status: 503, headers: { 'retry-after': '2' } }]);
    const error = (await make(fake.url, { maxTotalMs: 3000 }).send({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as CatalogError;
    expect(error.code).toBe('unavailable');
    expect(fake.received).toHaveLength(2);
    expect(delays).toEqual([2000]);
  });

  it('retry: false sends once', async () => {
    const fake = await serve([{ status: 503 }]);
    await expect(make(fake.url).send({ method: 'GET', path: '/x', retry: false })).rejects.toMatchObject({ code: 'unavailable' });
    expect(fake.received).toHaveLength(1);
  });

  it('retries a dropped connection, and reports a server that stays unreachable as unavailable', async () => {
    const fake = await serve([{ drop: true }]);
    expect(await make(fake.url).json({ method: 'POST', path: '/x', json: {} })).toEqual({ ok: true });
    expect(fake.received).toHaveLength(2);
    expect(delays).toEqual([50]);
    await transport?.close();

    // Nothing listens on the port any more: ECONNREFUSED, retried, then `unavailable`.
    const closed = fake.url;
    server?.close();
    server = undefined;
    delays = [];
    const error = (await make(closed, { retries: 3 }).send({ method: 'GET', path: '/x' }).catch((e: unknown) => e)) as CatalogError;
    expect(error).toBeInstanceOf(CatalogError);
    expect(error.code).toBe('unavailable');
    expect(error.detail).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+: /);
    expect(delays).toEqual([50, 100, 200]);
  });
});

describe('multipart bodies', () => {
  let dir: string;
  let server: Server | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'catalog-transport-'));
  });
  afterEach(() => {
    server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a retried upload re-opens the file and re-sends all of it, with a fresh boundary and an exact length', async () => {
    const file = join(dir, 'a.jpg');
    const bytes = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(700 * 1024, 7), Buffer.from('end-of-file')]);
    writeFileSync(file, bytes);
    const fake = await fakeServer([{ status: 503 }, { status: 502 }]);
    server = fake.server;
    const delays: number[] = [];
    const client = new HttpCatalogClient({ url: fake.url, token: 't', sleep: async (ms) => void delays.push(ms), random: () => 0 });
    try {
      await client.uploadImages([{ image_id: 'a', part_id: 'p', info: 'display' }], [{ filename: 'a "q"\\.jpg', path: file }, { filename: 'b', data: new Uint8Array([1, 2]) }]);
    } finally {
      await client.close();
    }
    expect(fake.received).toHaveLength(3);
    expect(delays).toEqual([0, 0]);
    const boundaries = new Set<string>();
    for (const { headers, body } of fake.received) {
      expect(Number(headers['content-length'])).toBe(body.length);
      const boundary = /boundary=(.+)$/.exec(String(headers['content-type']))?.[1] ?? '';
      boundaries.add(boundary);
      const text = body.toString('latin1');
      expect(text).toContain('Content-Disposition: form-data; name="images"\r\nContent-Type: application/json\r\n\r\n[{"image_id":"a","part_id":"p","info":"display"}]\r\n');
      expect(text).toContain('name="files"; filename="a \\"q\\"\\\\.jpg"');
      expect(body.includes(Buffer.concat([Buffer.from('Content-Type: application/octet-stream\r\n\r\n'), bytes, Buffer.from('\r\n')]))).toBe(true);
      expect(text.endsWith(`--${boundary}--\r\n`)).toBe(true);
    }
    expect(boundaries.size).toBe(3);
  });

  it('an image search body goes through the same encoder and the same retries', async () => {
    const fake = await fakeServer([{ status: 429, headers: { 'retry-after': '1' } }]);
    server = fake.server;
    const delays: number[] = [];
    const client = new HttpCatalogClient({ url: fake.url, token: 't', sleep: async (ms) => void delays.push(ms) });
    try {
      await client.search({ matches: { text: 'x' } }, { image: new Uint8Array([9, 8, 7]), filename: '/tmp/q.png' });
    } finally {
      await client.close();
    }
    expect(delays).toEqual([1000]);
    expect(fake.received).toHaveLength(2);
    const text = fake.received[1]?.body.toString('latin1') ?? '';
    expect(text).toContain('name="input"\r\nContent-Type: application/json\r\n\r\n{"matches":{"text":"x"}}\r\n');
    expect(text).toContain('name="image"; filename="q.png"\r\nContent-Type: application/octet-stream\r\n\r\n\u0009\u0008\u0007\r\n');
  });

  it('streams a large file in chunks of at most 1 MiB, read only as the body is consumed', async () => {
    const file = join(dir, 'big.bin');
    writeFileSync(file, Buffer.alloc(5 * 1024 * 1024, 1));
    const encoded = await encodeMultipart([{ name: 'files', contentType: 'application/octet-stream', filename: 'big', path: file }]);
    const sizes: number[] = [];
    for await (const chunk of encoded.body as AsyncIterable<Uint8Array>) sizes.push(chunk.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(encoded.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1024 * 1024);
    expect(sizes.length).toBeGreaterThanOrEqual(5);
  });

  it('a file that cannot be opened is thrown as is, before anything is sent', async () => {
    const fake = await fakeServer([]);
    server = fake.server;
    const client = new HttpCatalogClient({ url: fake.url, token: 't' });
    try {
      await expect(client.uploadImages([], [{ filename: 'x', path: join(dir, 'missing.jpg') }])).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await client.close();
    }
    expect(fake.received).toHaveLength(0);
  });
});
