/**
 * The HTTP wire over a real loopback socket (decisions §1): problem+json bodies, status codes and
 * headers for bad input of every kind, and that nothing stored before is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ROUTES } from '../../src/api/routes.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';

describe('HTTP wire conventions', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await createHarness('http');
    ({ secret: token } = await h.service.createToken(LOCAL_OWNER, { name: 'wire', roles: ['catalogAdmin'] }));
    await h.admin.upsertAttributes([{ attribute_id: 'keep', type: 'text', name: { en: 'Keep me' } }]);
  });
  afterAll(async () => {
    await h.close();
  });

  async function send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: string, headers: Record<string, string> = {}) {
    const res = await request(`${h.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  }

  it('malformed JSON is a 400 problem+json', async () => {
    const res = await send('POST', ROUTES.attributes, '[{"attribute_id": "x",');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'bad_request' });
    expect(String(res.json?.detail)).toMatch(/JSON/i);
  });

  it('a wrong content type is a 415', async () => {
    const res = await send('POST', ROUTES.attributes, 'attribute_id=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ status: 415, title: 'Unsupported Media Type' });
  });

  it('a schema violation lists every problem with its path', async () => {
    const res = await send('POST', ROUTES.attributesList, JSON.stringify({ paging: { limit: 'ten' }, projection: ['nope'], extra: 1 }));
    expect(res.status).toBe(400);
    const paths = (res.json?.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['(body)', 'paging.limit', 'projection[0]']);
  });

  it('401 carries WWW-Authenticate: Bearer; 503 carries Retry-After: 60', async () => {
    const unauth = await send('POST', ROUTES.attributesList, '{}', { authorization: 'Basic abc' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers['www-authenticate']).toBe('Bearer');
    await send('PUT', ROUTES.maintenance, JSON.stringify({ enabled: true }));
    const blocked = await send('POST', ROUTES.attributes, JSON.stringify([{ attribute_id: 'y', type: 'text', name: { en: 'y' } }]));
    expect(blocked.status).toBe(503);
    expect(blocked.headers['retry-after']).toBe('60');
    expect(blocked.json?.detail).toBe('Catalog manager is in maintenance mode - all processing is suspended and changes are currently not possible');
    await send('PUT', ROUTES.maintenance, JSON.stringify({ enabled: false }));
  });

  it('more than 1,000 items is a 413; unknown routes are 404; repeated query parameters 400', async () => {
    const many = JSON.stringify(Array.from({ length: 1001 }, (_, i) => ({ attribute_id: `a${i}` })));
    expect((await send('POST', ROUTES.attributes, many)).status).toBe(413);
    expect((await send('GET', '/1/catalog/nothing')).status).toBe(404);
    expect((await send('GET', `${ROUTES.part('p')}?organization=a&organization=b`)).status).toBe(400);
  });

  it('none of it lost what was stored before', async () => {
    const res = await send('POST', ROUTES.attributesSelect, JSON.stringify({ attribute_ids: ['keep'] }));
    expect(res.status).toBe(200);
    expect(res.json).toEqual([expect.objectContaining({ attribute_id: 'keep', name: { en: 'Keep me' } })]);
  });
});
