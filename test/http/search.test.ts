/**
 * Search over the HTTP wire (spec 4.4; decisions §8, §9): the 5.5 MiB body limit, the multipart
 * form of POST /1/find/search, and query parameters of search state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ROUTES } from '../../src/api/routes.js';
import { MAX_SEARCH_BODY_BYTES } from '../../src/api/schemas.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { createHarness, type Harness } from '../helpers/harness.js';

describe('search over HTTP', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await createHarness('http');
    ({ secret: token } = await h.service.createToken(LOCAL_OWNER, { name: 'searcher', roles: ['factoryWorker'] }));
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'Washer' } }, { part_id: 'p2', name: { en: 'Washer plate' } }]);
  });
  afterAll(async () => {
    await h.close();
  });

  async function send(method: 'GET' | 'POST', path: string, body?: string | Buffer, contentType = 'application/json') {
    const res = await request(`${h.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  }

  function multipart(parts: { name: string; filename?: string; type: string; data: string | Buffer }[]): { body: Buffer; contentType: string } {
    const boundary = 'search-test-boundary';
    const chunks: Buffer[] = [];
    for (const p of parts) {
      const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${p.type}\r\n\r\n`), Buffer.from(p.data), Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
  }

  it('413 for a body over 5.5 MiB', async () => {
    const big = JSON.stringify({ matches: { text: 'washer' }, padding: 'x'.repeat(MAX_SEARCH_BODY_BYTES) });
    const res = await send('POST', ROUTES.search, big);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ status: 413, code: 'payload_too_large' });
    const form = multipart([{ name: 'input', type: 'application/json', data: '{}' }, { name: 'image', filename: 'q.jpg', type: 'image/jpeg', data: Buffer.alloc(MAX_SEARCH_BODY_BYTES + 10) }]);
    expect((await send('POST', ROUTES.search, form.body, form.contentType)).status).toBe(413);
  });

  it('takes the request as the multipart part input; a truncated image part is a 415', async () => {
    const form = multipart([{ name: 'input', type: 'application/json', data: JSON.stringify({ matches: { text: 'washer pl' }, projection: ['results.id'] }) }]);
    const res = await send('POST', ROUTES.search, form.body, form.contentType);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ imageId: null, results: [{ id: 'p2' }], resultsTotalCount: 1 });
    const withImage = multipart([{ name: 'input', type: 'application/json', data: '{}' }, { name: 'image', filename: 'q.jpg', type: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff]) }]);
    const image = await send('POST', ROUTES.search, withImage.body, withImage.contentType);
    expect(image.status).toBe(415);
    expect(String(image.json?.detail)).toMatch(/query image cannot be decoded/);
    const noInput = multipart([{ name: 'other', type: 'text/plain', data: 'x' }]);
    expect((await send('POST', ROUTES.search, noInput.body, noInput.contentType)).status).toBe(400);
    const badJson = multipart([{ name: 'input', type: 'application/json', data: '{' }]);
    const bad = await send('POST', ROUTES.search, badJson.body, badJson.contentType);
    expect(bad.status).toBe(400);
    expect(String(bad.json?.detail)).toMatch(/JSON/);
    const badFile = multipart([{ name: 'input', filename: 'input.json', type: 'application/octet-stream', data: '{' }]);
    expect((await send('POST', ROUTES.search, badFile.body, badFile.contentType)).json?.detail).toMatch(/not valid JSON/);
  });

  it('search state: comma-separated projection, strict skip and limit', async () => {
    const started = await send('POST', ROUTES.search, JSON.stringify({ matches: { text: 'washer' }, resultOptions: { limit: 1 } }));
    const id = String(started.json?.sessionId);
    const page = await send('GET', `${ROUTES.searchState(id)}?skip=1&limit=1&projection=results.id,results.nameLanguage`);
    expect(page.status).toBe(200);
    expect(page.json).toEqual({ sessionId: id, imageId: null, results: [{ id: expect.any(String), nameLanguage: 'en' }], resultsTotalCount: 2, resultsPageableCount: 2 });
    for (const query of ['skip=-1', 'limit=0', 'limit=1001', 'skip=x', 'projection=results.bogus', 'limit=1&limit=2']) {
      const res = await send('GET', `${ROUTES.searchState(id)}?${query}`);
      expect(res.status, query).toBe(400);
    }
    // The core validates skip and limit once for both modes; the route passes a non-number on as given.
    expect((await send('GET', `${ROUTES.searchState(id)}?limit=abc`)).json?.detail).toBe('limit must be an integer between 1 and 1000, got "abc"');
    expect((await send('GET', `${ROUTES.searchState(id)}?skip=1e3`)).json?.detail).toBe('skip must be an integer between 0 and 1000000000, got "1e3"');
    expect((await send('GET', `${ROUTES.searchState(id)}?limit=0`)).json?.detail).toBe('limit must be an integer between 1 and 1000, got 0');
    expect((await send('GET', `${ROUTES.searchState('nope')}`)).status).toBe(404);
  });
});
