/**
 * HTTP hardening over a real loopback socket: every answer is problem+json (the HTTP parser's own 400s,
 * 408, 431, 405 with Allow, 415 naming the expected type or refusing a Content-Encoding), and
 * credentials never reach the access log (a token in the query string is refused; query values
 * are redacted; Authorization headers are never printed).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { buildApp } from '../../src/http/app.js';
import { problemClientErrorHandler, redactUrl } from '../../src/http/wire-guards.js';
import { createHarness, type Harness } from '../helpers/harness.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses one HTTP/1.1 response read to the end of the connection. */
function parseRaw(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) };
}

/** Sends raw bytes and reads until the server closes the connection. */
function sendRaw(port: number, payload: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseRaw(Buffer.concat(chunks).toString('utf8'))));
    socket.write(payload);
  });
}

function expectProblem(res: RawResponse, status: number): Record<string, unknown> {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.headers.connection).toBe('close');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  const problem = JSON.parse(res.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ type: 'about:blank', status });
  expect(typeof problem.detail).toBe('string');
  return problem;
}

describe('HTTP hardening', () => {
  let h: Harness;
  let app: FastifyInstance;
  let port: number;
  let url: string;
  let token: string;
  const log: string[] = [];

  beforeAll(async () => {
    h = await createHarness('local');
    ({ secret: token } = await h.service.createToken(LOCAL_OWNER, { name: 'hardening', roles: ['catalogAdmin'] }));
    await h.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p', name: { en: 'Kept part' } }]);
    const accessLog = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log.push(chunk.toString('utf8'));
        done();
      },
    });
    app = buildApp({ catalog: h.catalog, accessLog });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await app.close();
    await h.close();
  });

  async function send(method: string, path: string, options: { body?: string; headers?: Record<string, string> } = {}) {
    const res = await request(`${url}${path}`, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${token}`, ...(options.headers ?? {}) },
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  }

  describe('the HTTP parser\'s errors are problem+json', () => {
    it('Content-Length with Transfer-Encoding: 400', async () => {
      const res = await sendRaw(port, 'POST /1/catalog/parts/list HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n');
      expect(expectProblem(res, 400)).toMatchObject({ title: 'Bad Request', code: 'bad_request' });
    });

    it('bad chunking: 400', async () => {
      const res = await sendRaw(port, `POST /1/catalog/parts/list HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`);
      expectProblem(res, 400);
    });

    it('a NUL in a header: 400', async () => {
      const res = await sendRaw(port, Buffer.from('GET /1/catalog/parts/p HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n', 'latin1'));
      expectProblem(res, 400);
    });

    it('headers over the limit: 431', async () => {
      const res = await sendRaw(port, `GET /1/catalog/parts/p HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(expectProblem(res, 431)).toMatchObject({ title: 'Request Header Fields Too Large', code: 'headers_too_large' });
    });

    it('a request timeout: 408 (the handler the node server calls for it)', async () => {
      let server: Server | undefined;
      const response = await new Promise<RawResponse>((resolve, reject) => {
        server = createServer((socket: Socket) => {
          problemClientErrorHandler(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
        });
        server.listen(0, '127.0.0.1', () => {
          const address = server?.address();
          sendRaw(typeof address === 'object' && address ? address.port : 0, 'POST / HTTP/1.1\r\nHost: x\r\n').then(resolve, reject);
        });
      });
      server?.close();
      expect(expectProblem(response, 408)).toMatchObject({ title: 'Request Timeout', code: 'request_timeout' });
    });
  });

  it('a wrong method on a known path is 405 with Allow', async () => {
    const list = await send('GET', '/1/catalog/attributes/list');
    expect(list.status).toBe(405);
    expect(list.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(list.headers.allow).toBe('POST');
    expect(list.json).toMatchObject({ status: 405, code: 'method_not_allowed' });
    const part = await send('PATCH', '/1/catalog/parts/p');
    expect(part.status).toBe(405);
    expect(String(part.headers.allow).split(', ')).toContain('GET');
    // An unknown path stays a 404.
    expect((await send('GET', '/1/catalog/nothing')).status).toBe(404);
  });

  it('a JSON endpoint given another content type is 415 naming the expected type; a Content-Encoding is 415', async () => {
    const form = await send('POST', '/1/catalog/parts/list', { body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(form.json).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect(String(form.json?.detail)).toContain('application/json');
    const search = await send('POST', '/1/find/search', { body: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(search.status).toBe(415);
    expect(String(search.json?.detail)).toContain('application/json or multipart/form-data');
    const gzip = await send('POST', '/1/catalog/parts/list', { body: '{}', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(gzip.status).toBe(415);
    expect(gzip.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(String(gzip.json?.detail)).toContain("Content-Encoding 'gzip' is not supported");
    expect((await send('POST', '/1/catalog/parts/list', { body: '{}', headers: { 'content-type': 'application/json', 'content-encoding': 'identity' } })).status).toBe(200);
  });

  it('a token in the query string is refused and never logged; query values are redacted; Authorization never logged', async () => {
    log.length = 0;
    for (const query of [`access_token=${token}`, 'token=abc', 'Authorization=Bearer%20abc', 'api_key=k', `x=${token}`]) {
      const res = await send('GET', `/1/catalog/parts/p?${query}`, { headers: {} });
      expect(res.status, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(String(res.json?.detail)).toContain('Authorization header');
    }
    // Refused even without a valid Authorization header (no 401 that hides the reason).
    const anonymous = await request(`${url}/1/catalog/parts/p?access_token=${token}`);
    expect(anonymous.statusCode).toBe(400);
    await anonymous.body.text();
    expect((await send('GET', '/1/catalog/parts/p?organization=')).status).toBe(200);
    const written = log.join('');
    expect(written).toContain('/1/catalog/parts/p?access_token=***');
    expect(written).toContain('/1/catalog/parts/p?organization=');
    expect(written).not.toContain(token);
    expect(written).not.toContain('abc');
    expect(written).not.toMatch(/bearer/i);
    expect(redactUrl('/a?skip=5&limit=10&secret=s3&organization=acme')).toBe('/a?skip=5&limit=10&secret=***&organization=acme');
  });

  it('none of it lost what was stored before', async () => {
    const res = await send('GET', '/1/catalog/parts/p');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ part_id: 'p', name: { en: 'Kept part' } });
  });
});
