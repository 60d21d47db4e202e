/**
 * A sweep of malformed requests (bodies, headers, ids, numbers, unicode, content types) against every
 * route over a real loopback socket: none may produce a 5xx, and the catalog stays intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { createHarness, type Harness } from '../helpers/harness.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const ROUTES: { method: Method; path: string }[] = [
  { method: 'POST', path: '/1/catalog/attributes' },
  { method: 'DELETE', path: '/1/catalog/attributes' },
  { method: 'POST', path: '/1/catalog/attributes/list' },
  { method: 'POST', path: '/1/catalog/attributes/select' },
  { method: 'POST', path: '/1/catalog/parts' },
  { method: 'DELETE', path: '/1/catalog/parts' },
  { method: 'POST', path: '/1/catalog/parts/list' },
  { method: 'POST', path: '/1/catalog/parts/select' },
  { method: 'POST', path: '/1/catalog/organizations' },
  { method: 'PUT', path: '/1/catalog/maintenance' },
  { method: 'POST', path: '/v1/parts/relations' },
  { method: 'POST', path: '/1/catalog/images' },
  { method: 'DELETE', path: '/1/catalog/images' },
  { method: 'POST', path: '/1/catalog/images/list' },
  { method: 'POST', path: '/1/catalog/images/select' },
  { method: 'POST', path: '/1/catalog/images/audit' },
  { method: 'POST', path: '/1/find/search' },
];

const GET_PATHS = [
  '/1/catalog/parts/', '/1/catalog/parts/%00', '/1/catalog/parts/%2F..%2F..%2Fetc%2Fpasswd', '/1/catalog/parts/%E0%A4%A',
  `/1/catalog/parts/${'x'.repeat(5000)}`, '/1/catalog/parts/p?organization=', '/1/catalog/parts/p?organization=%00',
  '/1/catalog/images/%FF', '/1/catalog/images/nope/original', '/1/catalog/parts/%F0%9F%92%A9/display-images',
  '/v1/parts/p/relations/cousin', '/v1/parts/%00/relations', `/v1/parts/${'é'.repeat(300)}/relations/duplicate`,
  '/1/find/search/state/not-a-uuid', '/1/find/search/state/00000000-0000-0000-0000-000000000000?skip=-1',
  '/1/find/search/state/x?limit=1e309', '/1/find/search/state/x?limit=abc&skip=1.5', '/1/find/search/state/x?projection=%00,,',
  '/1/catalog/maintenance?x=%', '/..%2f..%2f', '/1/catalog/attributes/list',
];

const BODIES: (string | Buffer)[] = [
  '', ' ', 'null', 'true', '0', '-1', '1e309', '"x"', '{}', '[]', '[null]', '[1,2,3]', '[[]]', '[{}]', '{"a":', '[{"attribute_id":',
  '\u0000', Buffer.from([0xff, 0xfe, 0x00, 0x01]), '[{"attribute_id":"\\ud800","type":"text","name":{"en":"x"}}]',
  '[{"attribute_id":"a","type":"text","name":{"en":"x"},"display_order":1e309}]',
  '[{"attribute_id":"a","type":"text","name":{"en":"x"},"display_order":-0.5}]',
  '[{"attribute_id":"a","type":"text","name":{"\\u0000":"x"}}]',
  '[{"part_id":"p","name":{"en":"x"},"attributes":[{"attribute_id":"a","values":[{"organization":{},"value":[]}]}]}]',
  '{"paging":{"limit":1e400,"last_object_id":{}},"projection":"name"}',
  '{"paging":{"limit":"100"}}', '{"attribute_ids":"a"}', '{"part_ids":[1,2]}', '{"image_ids":[null]}',
  '{"enabled":"yes"}', '{"__proto__":{"polluted":true}}', '[{"__proto__":{"x":1},"attribute_id":"p"}]',
  '{"constructor":{"prototype":{"x":1}}}', JSON.stringify({ matches: { text: 'a'.repeat(100_000) } }),
  JSON.stringify({ matches: { text: '"unbalanced AND OR NOT ( * ^' } }), JSON.stringify({ matches: { text: 'x', filters: [{ label: 'nope', values: [1] }] } }),
  JSON.stringify({ resultOptions: { limit: 0 } }), JSON.stringify({ resultOptions: { limit: 99999 } }), JSON.stringify({ language: 12 }),
  '['.repeat(5000) + ']'.repeat(5000), JSON.stringify([{ anchor_part_id: 'a', related_part_id: 'a', type: 'duplicate' }]),
  JSON.stringify(Array.from({ length: 3 }, () => ({ anchor_part_id: 'x'.repeat(300), related_part_id: '', type: 7 }))),
  '\ufeff[]', '[{"attribute_id":"\u202e\u200b","type":"text","name":{"en":"\ud83d\udca9"}}]',
];

const CONTENT_TYPES = ['application/json', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=x', 'application/octet-stream', 'image/jpeg', ''];

const AUTH = ['Bearer', 'Bearer ', 'bearer cat_x', 'Basic Zm9vOmJhcg==', 'Bearer a b', `Bearer ${'t'.repeat(10_000)}`, 'Bearer \u00e9'];

describe('malformed request sweep', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await createHarness('http');
    ({ secret: token } = await h.service.createToken(LOCAL_OWNER, { name: 'sweep', roles: ['catalogAdmin', 'dataContributor'] }));
    await h.admin.upsertAttributes([{ attribute_id: 'keep', type: 'text', name: { en: 'Keep' } }]);
    await h.admin.upsertParts([{ part_id: 'p', name: { en: 'P' } }]);
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers at least 500 malformed requests without a single 5xx', async () => {
    const cases: { method: Method; path: string; body?: string | Buffer; headers: Record<string, string> }[] = [];
    for (const route of ROUTES) {
      for (const body of BODIES) cases.push({ ...route, body, headers: { 'content-type': 'application/json' } });
      for (const contentType of CONTENT_TYPES) cases.push({ ...route, body: '[]', headers: contentType ? { 'content-type': contentType } : {} });
    }
    for (const path of GET_PATHS) cases.push({ method: 'GET', path, headers: {} });
    for (const auth of AUTH) cases.push({ method: 'POST', path: '/1/catalog/attributes/list', body: '{}', headers: { authorization: auth, 'content-type': 'application/json' } });
    expect(cases.length).toBeGreaterThanOrEqual(500);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (const c of cases) {
      const res = await request(`${h.url}${c.path}`, {
        method: c.method,
        headers: { authorization: `Bearer ${token}`, ...c.headers },
        ...(c.body !== undefined ? { body: c.body } : {}),
      });
      const text = await res.body.text();
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode >= 500) failures.push(`${c.method} ${c.path.slice(0, 80)} ${String(c.body).slice(0, 60)} -> ${res.statusCode} ${text.slice(0, 200)}`);
      if (res.statusCode >= 400) expect(res.headers['content-type'], `${c.method} ${c.path}`).toMatch(/^application\/problem\+json/);
    }
    expect(failures).toEqual([]);
    // Mostly client errors, and the requests were actually served (not all 404s).
    expect(statuses.get(400) ?? 0).toBeGreaterThan(200);
    const kept = await h.admin.selectAttributes({ attribute_ids: ['keep'] });
    expect(kept).toHaveLength(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
