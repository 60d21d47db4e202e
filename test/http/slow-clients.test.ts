/**
 * Slow clients and large bodies ("Large valid writes"), over real loopback
 * sockets: an unauthenticated request is answered and closed without its body being read; slow
 * headers and slow bodies are cut off by the timeouts; connections are capped; JSON bodies are
 * bounded per endpoint with a 413 naming the limit.
 */
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/api/routes.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { DEFAULT_SERVER_LIMITS, jsonBodyLimitFor } from '../../src/http/limits.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

interface Conn {
  socket: Socket;
  /** Everything the server sent until now. */
  received(): string;
  /** Resolves with everything received once the server has closed (or reset) the connection. */
  closed: Promise<string>;
}

let app: FastifyInstance | undefined;
let catalog: Catalog | undefined;
let port = 0;
let token = '';
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await app?.close();
  await catalog?.close();
  app = undefined;
  catalog = undefined;
});

async function serve(limits?: AppOptions['limits']): Promise<void> {
  catalog = openCatalog({ dataDir: tempDir() });
  ({ secret: token } = await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] }));
  app = buildApp({ catalog, accessLog: null, ...(limits ? { limits } : {}) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
}

async function open(): Promise<Conn> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  let data = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (data += chunk));
  const closed = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(data));
    // A reset after the answer is a close too (the server destroyed the socket with our bytes unread).
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => data, closed };
}

function head(method: string, path: string, headers: Record<string, string | number>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

describe('slow clients', () => {
  it('answers an unauthenticated request 401 and closes the connection without reading its body', async () => {
    await serve();
    const c = await open();
    // 1 byte of a declared 1,000: the server answers without waiting for the rest, which never comes.
    c.socket.write(head('POST', ROUTES.parts, { 'content-type': 'application/json', 'content-length': 1000 }) + '[');
    const answer = await c.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('application/problem+json');
  });

  it('keeps the connection of an unauthenticated request without a body (nothing left to read)', async () => {
    await serve();
    const c = await open();
    c.socket.write(head('GET', ROUTES.part('p1'), {}));
    await new Promise<void>((resolve) => c.socket.on('data', () => c.received().includes('\r\n\r\n') && resolve()));
    expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(c.received().toLowerCase()).toContain('connection: keep-alive');
  });

  it('closes a connection whose authenticated body trickles in slower than the request timeout', async () => {
    await serve({ requestTimeoutMs: 300, timeoutCheckIntervalMs: 50 });
    const c = await open();
    c.socket.write(head('POST', ROUTES.parts, { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': 1000 }) + '[');
    const answer = await c.closed;
    expect(answer).not.toMatch(/^HTTP\/1\.1 2/);
  });

  it('closes a connection whose headers never finish', async () => {
    await serve({ headersTimeoutMs: 300, requestTimeoutMs: 300, timeoutCheckIntervalMs: 50 });
    const c = await open();
    c.socket.write(`POST ${ROUTES.parts} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n`);
    await c.closed;
    expect(c.socket.destroyed || c.socket.readableEnded).toBe(true);
  });

  it('caps open connections: beyond maxConnections a new connection is closed unanswered', async () => {
    await serve({ maxConnections: 2 });
    const held: Conn[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await open();
      c.socket.write(head('GET', ROUTES.maintenance, { authorization: `Bearer ${token}` }));
      await new Promise<void>((resolve) => c.socket.on('data', () => /\r\n\r\n[\s\S]*\}/.test(c.received()) && resolve()));
      expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
      held.push(c);
    }
    const third = await open();
    third.socket.write(head('GET', ROUTES.maintenance, { authorization: `Bearer ${token}` }));
    expect(await third.closed).toBe('');
    // The held connections still work.
    held[0]?.socket.write(head('GET', ROUTES.maintenance, { authorization: `Bearer ${token}` }));
    await new Promise<void>((resolve) => held[0]?.socket.on('data', () => (held[0]?.received().match(/HTTP\/1\.1 200 /g) ?? []).length === 2 && resolve()));
  });
});

describe('JSON body limits per endpoint', () => {
  it('defaults: parts 16 MiB, attributes 8 MiB, relations 4 MiB, anything else 2 MiB', () => {
    const mib = 1024 * 1024;
    const limits = DEFAULT_SERVER_LIMITS.jsonBody;
    expect(jsonBodyLimitFor('POST', ROUTES.parts, limits)).toBe(16 * mib);
    expect(jsonBodyLimitFor('POST', ROUTES.attributes, limits)).toBe(8 * mib);
    expect(jsonBodyLimitFor('POST', ROUTES.relations, limits)).toBe(4 * mib);
    expect(jsonBodyLimitFor('POST', ROUTES.partsSelect, limits)).toBe(2 * mib);
    expect(jsonBodyLimitFor('DELETE', ROUTES.parts, limits)).toBe(2 * mib);
  });

  it('refuses a parts body declared over 16 MiB with 413 problem+json naming the limit, before reading it, and closes', async () => {
    await serve();
    const c = await open();
    const size = 16 * 1024 * 1024 + 1;
    c.socket.write(head('POST', ROUTES.parts, { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': size }) + '[{"part_id":');
    const answer = await c.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('application/problem+json');
    expect(answer).toContain(`"detail":"the request body is ${size} bytes, over the limit of 16777216 bytes for POST ${ROUTES.parts}"`);
  });

  it('applies the configured limit per endpoint; under it the write goes through', async () => {
    await serve({ jsonBody: { parts: 4096, other: 256 } });
    const post = async (path: string, body: string) => {
      const c = await open();
      c.socket.write(head('POST', path, { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' }) + body);
      return c.closed;
    };
    const parts = JSON.stringify([{ part_id: 'p1', name: { en: 'Washer '.repeat(100) } }]);
    expect(parts.length).toBeGreaterThan(256);
    expect(await post(ROUTES.parts, parts)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await post(ROUTES.partsSelect, JSON.stringify({ part_ids: Array.from({ length: 40 }, (_, i) => `part-${i}`) }))).toMatch(/^HTTP\/1\.1 413 [\s\S]*over the limit of 256 bytes/);
    expect(await post(ROUTES.parts, JSON.stringify([{ part_id: 'p2', name: { en: 'x'.repeat(5000) } }]))).toMatch(/^HTTP\/1\.1 413 [\s\S]*over the limit of 4096 bytes/);
  });
});
