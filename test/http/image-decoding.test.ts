/**
 * Image decoding within bounds: query images over the pixel limit are
 * a 415 naming the limit, decided from the header; decodes run in a bounded pool, and a full queue
 * is a 503 with Retry-After instead of a stall of every other request. Uploaded originals decode
 * before their metadata commits (whatever their tokens), within the pixel limit; thumbnails decode
 * in the same pool, within the same limit.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/api/routes.js';
import { DecodePool, DecodeQueueFullError } from '../../src/adapters/images/decode-pool.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { buildApp } from '../../src/http/app.js';
import { openCatalog } from '../../src/open-catalog.js';
import { CatalogError } from '../../src/api/errors.js';
import { createSharpImageDecoder } from '../../src/adapters/images/image-decoder.js';
import { createHarness, tempDir, type Harness } from '../helpers/harness.js';

/** A 1-bit black PNG: a few KB on the wire, width × height pixels to decode (a decompression bomb). */
function onebitPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth 1, colour type 0 (grey), deflate, adaptive filter, no interlace
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

function multipartSearch(image: Buffer): { body: Buffer; contentType: string } {
  const b = 'decode-test';
  const body = Buffer.concat([
    Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="input"\r\nContent-Type: application/json\r\n\r\n{}\r\n`),
    Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="image"; filename="q.png"\r\nContent-Type: image/png\r\n\r\n`),
    image,
    Buffer.from(`\r\n--${b}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${b}` };
}

describe('DecodePool', () => {
  it('runs at most `concurrency` tasks, queues at most `maxQueue`, refuses beyond, in arrival order', async () => {
    const pool = new DecodePool({ concurrency: 2, maxQueue: 1 });
    const releases: (() => void)[] = [];
    const started: number[] = [];
    const task = (n: number) => () => new Promise<number>((resolve) => {
      started.push(n);
      releases.push(() => resolve(n));
    });
    const a = pool.run(task(1));
    const b = pool.run(task(2));
    const c = pool.run(task(3));
    await Promise.resolve();
    expect([pool.active, pool.queued]).toEqual([2, 1]);
    await expect(pool.run(task(4))).rejects.toBeInstanceOf(DecodeQueueFullError);
    // Unbounded callers (uploads) wait however long the queue is.
    const d = pool.run(task(5), { bounded: false });
    expect(started).toEqual([1, 2]);
    releases[0]?.();
    expect(await a).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1, 2, 3]);
    for (const release of releases.slice(1)) release();
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of releases.slice(3)) release();
    expect(await Promise.all([b, c, d])).toEqual([2, 3, 5]);
    expect([pool.active, pool.queued]).toEqual([0, 0]);
  });
});

describe('image search decoding over HTTP', () => {
  let catalog: Catalog | undefined;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function serve(options: { decodePool?: DecodePool } = {}) {
    catalog = openCatalog({ dataDir: tempDir(), ...options });
    const { secret } = await catalog.service.createToken(LOCAL_OWNER, { name: 'worker', roles: ['factoryWorker'] });
    const app = buildApp({ catalog, accessLog: null });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const opened = catalog;
    close = async () => {
      await app.close();
      await opened.close();
    };
    return async (image: Buffer) => {
      const form = multipartSearch(image);
      const res = await request(`${url}${ROUTES.search}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': form.contentType }, body: form.body });
      return { status: res.statusCode, headers: res.headers, json: (await res.body.json()) as Record<string, unknown> };
    };
  }

  it('refuses a 10000 × 10000 1-bit PNG (12 KB) with 415 naming the 50,000,000-pixel limit', async () => {
    const search = await serve();
    const bomb = onebitPng(10_000, 10_000);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await search(bomb);
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json.detail).toBe(
      'the query image is too large for image search: 10000 × 10000 = 100,000,000 pixels, over the limit of 50,000,000 pixels (width × height); scale it down',
    );
    // Under the limit the same kind of image is searched.
    expect((await search(onebitPng(64, 64))).status).toBe(200);
  });

  it('answers 503 with Retry-After while the decode queue is full, and searches again once it drains', async () => {
    const pool = new DecodePool({ concurrency: 1, maxQueue: 0 });
    const search = await serve({ decodePool: pool });
    let release: () => void = () => undefined;
    const held = pool.run(() => new Promise<void>((resolve) => (release = resolve)));
    const busy = await search(onebitPng(64, 64));
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('2');
    expect(busy.json).toMatchObject({ status: 503, code: 'unavailable' });
    expect(String(busy.json.detail)).toMatch(/^image search is busy/);
    release();
    await held;
    expect((await search(onebitPng(64, 64))).status).toBe(200);
  });
});

/** Every blob file under a data directory's image store. */
function blobFiles(dataDir: string): string[] {
  const root = join(dataDir, 'images', 'blobs');
  return existsSync(root) ? readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : [];
}

describe('uploaded originals are decoded before their metadata commits', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses a file with PNG magic bytes that does not decode, searchable or not, and keeps none of it', async () => {
    h = await createHarness('local');
    await h.admin.upsertParts([{ part_id: 'p', name: { en: 'P' } }]);
    const good = onebitPng(40, 30);
    const garbage = Buffer.concat([good.subarray(0, 8), Buffer.alloc(300, 7)]);
    const truncated = good.subarray(0, good.length - 20);
    const result = await h.admin.uploadImages(
      [
        { image_id: 'shown', part_id: 'p', info: 'display' },
        { image_id: 'cut', part_id: 'p', info: 'display weight=2' },
        { image_id: 'found', part_id: 'p', info: 'searchable' },
        { image_id: 'fine', part_id: 'p', info: 'display' },
      ],
      [
        { filename: 'shown.png', data: garbage },
        { filename: 'cut.png', data: truncated },
        { filename: 'found.png', data: garbage },
        { filename: 'fine.png', data: good },
      ],
    );
    expect(result.created).toEqual(['fine']);
    // libvips reads a local blob from its file ("Input file …"), one from S3 from memory ("Input buffer …").
    expect(result.errors.shown?.[0]).toMatch(/^the file of image 'shown' \(image\/png by its first bytes\) cannot be decoded \(Input (file|buffer) has corrupt header\)$/);
    expect(result.errors.shown).toHaveLength(1);
    expect(result.errors.cut).toEqual(["the file of image 'cut' (image/png by its first bytes) cannot be decoded (vipspng: libpng read error)"]);
    expect(result.errors.found?.[0]).toMatch(/^search features: /);
    // Only the decodable file's blob stays.
    expect(blobFiles(h.dataDir)).toHaveLength(1);
  });

  it('refuses an image over the pixel limit from its header (16384 × 16384, 32 KB on the wire)', async () => {
    h = await createHarness('local');
    await h.admin.upsertParts([{ part_id: 'p', name: { en: 'P' } }]);
    const bomb = onebitPng(16_384, 16_384);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const result = await h.admin.uploadImages([{ image_id: 'bomb', part_id: 'p', info: 'display' }], [{ filename: 'bomb.png', data: bomb }]);
    expect(result.errors.bomb).toEqual([
      "the file of image 'bomb' (image/png by its first bytes) is 16384 × 16384 = 268,435,456 pixels, over the limit of 268,402,689 pixels (width × height)",
    ]);
    expect(blobFiles(h.dataDir)).toEqual([]);
  });
});

describe('thumbnails within bounds', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  const thumbnail = (id: string) => `${ROUTES.image(id)}/thumbnail?size=64`;

  async function serveWith(dataDir: string, options: { decodePool?: DecodePool; imageLimits?: { maxPixels: number } } = {}) {
    const opened = openCatalog({ dataDir, ...options });
    const { secret } = await opened.service.createToken(LOCAL_OWNER, { name: `reader${closers.length}`, roles: ['factoryWorker'] });
    const app = buildApp({ catalog: opened, accessLog: null });
    await app.ready();
    closers.push(async () => {
      await app.close();
      await opened.close();
    });
    return { catalog: opened, get: (id: string) => app.inject({ method: 'GET', url: thumbnail(id), headers: { authorization: `Bearer ${secret}` } }) };
  }

  async function withImages(dataDir: string, images: Record<string, Buffer>) {
    const opened = openCatalog({ dataDir, imageLimits: { maxPixels: 2 ** 40 } });
    await opened.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p', name: { en: 'P' } }]);
    const ids = Object.keys(images);
    const result = await opened.images.uploadImages(LOCAL_OWNER, ids.map((id) => ({ image_id: id, part_id: 'p', info: 'display' })), ids.map((id) => ({ filename: `${id}.png`, source: images[id] as Buffer })));
    expect(result.created.sort()).toEqual(ids.sort());
    await opened.close();
  }

  it('decode in the bounded pool: while it is busy they wait their turn, then all are answered', async () => {
    const dataDir = tempDir();
    await withImages(dataDir, { a: onebitPng(300, 200), b: onebitPng(200, 300), c: onebitPng(100, 100) });
    const pool = new DecodePool({ concurrency: 1, maxQueue: 0 });
    const server = await serveWith(dataDir, { decodePool: pool });
    let release: () => void = () => undefined;
    const held = pool.run(() => new Promise<void>((resolve) => (release = resolve)));
    const answered: string[] = [];
    const pending = ['a', 'b', 'c'].map((id) => server.get(id).then((res) => (answered.push(id), res)));
    while (pool.queued < 3 && answered.length < 3) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toEqual([]);
    release();
    await held;
    const results = await Promise.all(pending);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(answered.sort()).toEqual(['a', 'b', 'c']);
    expect([pool.active, pool.queued]).toEqual([0, 0]);
  });

  it('answers 413 naming the limit for a stored image over the pixel limit', async () => {
    const dataDir = tempDir();
    await withImages(dataDir, { wide: onebitPng(400, 100) });
    const server = await serveWith(dataDir, { imageLimits: { maxPixels: 10_000 } });
    const res = await server.get('wide');
    expect(res.statusCode).toBe(413);
    expect(res.json().detail).toBe("image 'wide': the image is too large for a thumbnail: 400 × 100 = 40,000 pixels, over the limit of 10,000 pixels (width × height)");
  });

  it('answers 503 with Retry-After once too many thumbnails wait', async () => {
    const pool = new DecodePool({ concurrency: 1, maxQueue: 0 });
    const decoder = createSharpImageDecoder(pool, { maxQueuedThumbnails: 1 });
    let release: () => void = () => undefined;
    const held = pool.run(() => new Promise<void>((resolve) => (release = resolve)));
    const image = onebitPng(50, 50);
    const first = decoder.thumbnail(async () => image, 64, 1e6);
    const refused = await decoder.thumbnail(async () => image, 64, 1e6).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CatalogError);
    expect(refused).toMatchObject({ code: 'unavailable', retryAfterSeconds: 2 });
    release();
    await held;
    expect((await sharp(Buffer.from(await first)).metadata()).width).toBe(50);
  });
});
