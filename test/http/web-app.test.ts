/**
 * The web app's files and the thumbnail endpoint on the wire, without a browser: which
 * paths are public, cache headers and content coding, CSP, and thumbnails (size, ETag, 304, 400,
 * 404, role-free like the original). `npm test` builds dist/web before the tests run.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/api/routes.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { buildApp } from '../../src/http/app.js';
import { createHarness, type Harness } from '../helpers/harness.js';

describe('web app files (src/http/web.ts)', () => {
  let root: string;
  let h: Harness;
  let app: ReturnType<typeof buildApp>;
  const js = `console.log(${JSON.stringify('x'.repeat(4000))});`;

  beforeAll(async () => {
    // A stand-in build, so this test does not depend on what Vite emitted.
    root = mkdtempSync(join(tmpdir(), 'catalog-webroot-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title><script type="module" src="/assets/index-abc.js"></script>');
    writeFileSync(join(root, 'assets', 'index-abc.js'), js);
    h = await createHarness('local');
    app = buildApp({ catalog: h.catalog, accessLog: null, webRoot: root });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers index.html without a token on the app paths, revalidated by ETag', async () => {
    for (const url of ['/', '/search?session=abc&page=2', '/parts/pci%3A8086%3A1539']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
      expect(res.body).toContain('/assets/index-abc.js');
    }
    const first = await app.inject({ method: 'GET', url: '/' });
    const again = await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('serves hashed assets immutable, gzip or brotli as accepted', async () => {
    const gz = await app.inject({ method: 'GET', url: '/assets/index-abc.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.statusCode).toBe(200);
    expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(js);
    expect((await app.inject({ method: 'GET', url: '/assets/index-abc.js', headers: { 'accept-encoding': 'gzip, br' } })).headers['content-encoding']).toBe('br');
    const plain = await app.inject({ method: 'GET', url: '/assets/index-abc.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(js);
    expect((await app.inject({ method: 'GET', url: '/assets/missing.js' })).statusCode).toBe(404);
  });

  it('keeps the API authenticated, and other paths and methods too', async () => {
    expect((await app.inject({ method: 'GET', url: ROUTES.catalogInfo })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/not-the-app' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/', payload: {} })).statusCode).toBe(401);
    // A token in the URL is refused on the app's paths as well.
    expect((await app.inject({ method: 'GET', url: '/search?access_token=abc' })).statusCode).toBe(400);
  });

  it("answers a browser's unknown page with the app (404), so it can say so; API paths and non-browsers keep the API's answers", async () => {
    const page = await app.inject({ method: 'GET', url: '/no/such/page', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<title>t</title>');
    expect((await app.inject({ method: 'GET', url: '/1/catalog/nothing', headers: { accept: 'text/html' } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/no/such/page', headers: { accept: 'application/json' } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/no/such/page', headers: { accept: 'text/html' }, payload: {} })).statusCode).toBe(401);
  });

  it('says to build when the app is not built', async () => {
    const bare = buildApp({ catalog: h.catalog, accessLog: null, webRoot: join(root, 'nowhere') });
    const res = await bare.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found', detail: expect.stringMatching(/npm run build/) });
    await bare.close();
  });
});

describe('GET /1/catalog/images/{image_id}/thumbnail', () => {
  let h: Harness;
  let app: ReturnType<typeof buildApp>;
  let auth: { authorization: string };
  const url = (id: string, size?: string) => `${ROUTES.image(id)}/thumbnail${size !== undefined ? `?size=${size}` : ''}`;

  beforeAll(async () => {
    h = await createHarness('local');
    await h.admin.upsertParts([{ part_id: 'p', name: { en: 'P' } }]);
    const big = await sharp({ create: { width: 1200, height: 600, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
    await h.admin.uploadImages([{ image_id: 'wide', part_id: 'p', info: 'display' }], [{ filename: 'wide.png', data: big }]);
    const { secret } = await h.service.createToken(LOCAL_OWNER, { name: 'reader', roles: ['factoryWorker'] });
    auth = { authorization: `Bearer ${secret}` };
    app = buildApp({ catalog: h.catalog, accessLog: null });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await h.close();
  });

  it('scales the image to fit the size as WebP, with an ETag of the content and the size', async () => {
    const res = await app.inject({ method: 'GET', url: url('wide', '128'), headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{64}-128"$/);
    const meta = await sharp(res.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 128, 64]);
    const original = await app.inject({ method: 'GET', url: ROUTES.imageOriginal('wide'), headers: auth });
    expect(String(res.headers.etag)).toBe(`"${String(original.headers.etag).replaceAll('"', '')}-128"`);
    // Default size 256; a revalidation is a 304.
    const standard = await app.inject({ method: 'GET', url: url('wide'), headers: auth });
    expect((await sharp(standard.rawPayload).metadata()).width).toBe(256);
    const revalidated = await app.inject({ method: 'GET', url: url('wide', '128'), headers: { ...auth, 'if-none-match': `W/${String(res.headers.etag)}` } });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.rawPayload.length).toBe(0);
  });

  it('refuses an unknown size, an unknown image and a missing token', async () => {
    const bad = await app.inject({ method: 'GET', url: url('wide', '100'), headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/'size' must be one of 64, 128, 256, 512, 1024/);
    expect((await app.inject({ method: 'GET', url: url('nope', '128'), headers: auth })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: url('wide', '128') })).statusCode).toBe(401);
  });
});
