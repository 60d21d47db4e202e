/**
 * Contract: part images (api-spec.md §2.2, §4.2, §7; api-decisions.md §4, §9), both clients, with
 * real images from ../shared/data/images.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FormData, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAINTENANCE_DETAIL } from '../../src/api/errors.js';
import { POSITION_ROLE_ERROR } from '../../src/core/images/info-tokens.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';
import { SHARED_IMAGES } from '../helpers/data.js';

const IMAGES = SHARED_IMAGES;
const bytesOf = (name: string) => readFileSync(join(IMAGES, name));
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Every blob file under the data directory's image store. */
function blobFiles(dataDir: string): string[] {
  const root = join(dataDir, 'images', 'blobs');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else out.push(entry.name);
    }
  };
  try {
    walk(root);
  } catch {
    return [];
  }
  return out.sort();
}

describe.each(MODES)('images (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    await h.admin.upsertParts([
      { part_id: 'p1', name: { en: 'Part one' } },
      { part_id: 'p2', name: { en: 'Part two' } },
    ]);
  });
  afterEach(async () => {
    await h.close();
  });

  it('uploads, reads back the exact bytes with type, size and ETag; identical bytes are stored once', async () => {
    const penny = bytesOf('001penny.jpg');
    const mars = bytesOf('4_mars.jpg');
    const result = await h.admin.uploadImages(
      [
        { image_id: 'penny', part_id: 'p1', info: 'display searchable' },
        { image_id: 'mars.v2', part_id: 'p1', info: 'searchable' },
        { image_id: 'penny-copy', part_id: 'p2', info: 'display weight=2' },
      ],
      [
        { filename: 'penny.jpg', data: penny },
        { filename: 'mars.v2', data: mars },
        { filename: 'penny-copy.JPG', data: penny },
      ],
    );
    expect(result).toEqual({ created: ['penny', 'mars.v2', 'penny-copy'], updated: [], errors: {} });
    expect(await h.admin.getImage('penny')).toEqual({ image_id: 'penny', part_id: 'p1', info: 'display searchable' });
    const download = await h.admin.downloadImage('mars.v2');
    const bytes = await readAll(download.stream);
    expect(bytes.equals(mars)).toBe(true);
    expect(download).toMatchObject({ contentType: 'image/jpeg', size: mars.length, etag: `"${sha256(mars)}"` });
    expect(blobFiles(h.dataDir)).toEqual([sha256(penny), sha256(mars)].sort());
    await expectCatalogError(h.admin.getImage('nope'), 'not_found', "image 'nope' does not exist");
    await expectCatalogError(h.admin.downloadImage('nope'), 'not_found');
  });

  it('reports every item-level problem and stores the rest (spec §7)', async () => {
    const admin = await h.as(['catalogAdmin']);
    const contributor = await h.as(['dataContributor']);
    const jpeg = bytesOf('1.jpg');
    const fromAdmin = await admin.uploadImages(
      [
        { image_id: 'pos-admin', part_id: 'p1', info: 'display', position: 1 },
        { image_id: 'plain-admin', part_id: 'p1', info: 'display weight=1' },
        { image_id: 'no-display', part_id: 'p1', info: 'searchable', position: 2 },
        { image_id: 'bad-token', part_id: 'p1', info: 'display shiny' },
        { image_id: 'text', part_id: 'p1', info: 'display' },
        { image_id: 'nofile', part_id: 'p1', info: 'display' },
        { image_id: 'ghost-part', part_id: 'ghost', info: 'display' },
        { image_id: 'dup', part_id: 'p1', info: 'display' },
        { image_id: 'dup', part_id: 'p1', info: 'display' },
        { part_id: 'p1', info: 'display' },
      ],
      [
        { filename: 'pos-admin.jpg', data: jpeg },
        { filename: 'plain-admin.jpg', data: jpeg },
        { filename: 'no-display.jpg', data: jpeg },
        { filename: 'bad-token.jpg', data: jpeg },
        { filename: 'text.jpg', data: Buffer.from('this is not an image at all, just some text\n'.repeat(4)) },
        { filename: 'ghost-part.jpg', data: jpeg },
        { filename: 'stray.jpg', data: jpeg },
      ],
    );
    expect(fromAdmin.created).toEqual(['plain-admin']);
    expect(fromAdmin.updated).toEqual([]);
    expect(fromAdmin.errors).toEqual({
      'pos-admin': [POSITION_ROLE_ERROR('pos-admin')],
      'no-display': [POSITION_ROLE_ERROR('no-display'), 'position is only allowed when info contains the token display'],
      'bad-token': ["unknown info token 'shiny'; allowed tokens: searchable, display, weight=<number>, position=<integer >= 0>"],
      text: ["file 'text.jpg' is not a supported image: its bytes are not JPEG, PNG, WebP, GIF, TIFF or AVIF"],
      nofile: ["no file for image 'nofile'"],
      'ghost-part': ["part_id: part 'ghost' does not exist"],
      dup: ["image 'dup' is defined more than once in this request"],
      'items[9]': ['image_id: required'],
      'stray.jpg': ["file 'stray.jpg' matches no image definition (a file belongs to the definition whose image_id is its filename, or its filename without the extension)"],
    });
    expect(POSITION_ROLE_ERROR('pos-admin')).toBe("image 'pos-admin' only authorized roles can set position");

    // dataContributor may set position; position without display is still an error.
    const fromContributor = await contributor.uploadImages(
      [
        { image_id: 'pos-admin', part_id: 'p1', info: 'display', position: 1 },
        { image_id: 'no-display', part_id: 'p1', info: 'searchable', position: 2 },
      ],
      [{ filename: 'pos-admin.jpg', data: jpeg }, { filename: 'no-display.jpg', data: jpeg }],
    );
    expect(fromContributor).toEqual({ created: ['pos-admin'], updated: [], errors: { 'no-display': ['position is only allowed when info contains the token display'] } });
    expect(await h.admin.getImage('pos-admin')).toEqual({ image_id: 'pos-admin', part_id: 'p1', info: 'display', position: 1 });

    // A definition without a file updates the metadata of an existing image; catalogAdmin may
    // change info but not position (nor clear it).
    expect(await admin.uploadImages([{ image_id: 'pos-admin', part_id: 'p1', info: 'display weight=3' }], [])).toEqual({ created: [], updated: ['pos-admin'], errors: {} });
    expect(await h.admin.getImage('pos-admin')).toEqual({ image_id: 'pos-admin', part_id: 'p1', info: 'display weight=3', position: 1 });
    // Moving it to another part carries the position: a change of position too.
    expect((await admin.uploadImages([{ image_id: 'pos-admin', part_id: 'p2', info: 'display weight=3' }], [])).errors).toEqual({ 'pos-admin': [POSITION_ROLE_ERROR('pos-admin')] });
    expect(await contributor.uploadImages([{ image_id: 'pos-admin', part_id: 'p2', info: 'display weight=3' }], [])).toEqual({ created: [], updated: ['pos-admin'], errors: {} });
    expect(await h.admin.getImage('pos-admin')).toEqual({ image_id: 'pos-admin', part_id: 'p2', info: 'display weight=3', position: 1 });
    expect((await admin.uploadImages([{ image_id: 'pos-admin', part_id: 'p2', info: 'display', position: null }], [])).errors).toEqual({ 'pos-admin': [POSITION_ROLE_ERROR('pos-admin')] });
    expect(await contributor.uploadImages([{ image_id: 'pos-admin', part_id: 'p2', info: 'display', position: null }], [])).toEqual({ created: [], updated: ['pos-admin'], errors: {} });
    expect(await h.admin.getImage('pos-admin')).toEqual({ image_id: 'pos-admin', part_id: 'p2', info: 'display' });
    // Only the images that were stored have blobs: the rejected files left nothing behind.
    expect(blobFiles(h.dataDir)).toEqual([sha256(jpeg)]);
  });

  it('a file over the size limit or a large non-image is an item error; the other items still count', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024 + 1, 0x20);
    bytesOf('2.jpg').copy(big);
    const text = Buffer.alloc(3 * 1024 * 1024, 0x41);
    const result = await h.admin.uploadImages(
      [{ image_id: 'big', part_id: 'p1', info: 'display' }, { image_id: 'text', part_id: 'p1', info: 'display' }, { image_id: 'small', part_id: 'p1', info: 'display' }],
      [{ filename: 'big.jpg', data: big }, { filename: 'text.jpg', data: text }, { filename: 'small.jpg', data: bytesOf('3.jpg') }],
    );
    expect(result).toEqual({
      created: ['small'],
      updated: [],
      errors: {
        big: ["file 'big.jpg' is larger than the limit of 20 MiB (20971520 bytes)"],
        text: ["file 'text.jpg' is not a supported image: its bytes are not JPEG, PNG, WebP, GIF, TIFF or AVIF"],
      },
    });
    expect(blobFiles(h.dataDir)).toEqual([sha256(bytesOf('3.jpg'))]);
  });

  it('deletes images; a blob goes with its last image', async () => {
    const penny = bytesOf('001penny.jpg');
    await h.admin.uploadImages(
      [{ image_id: 'a', part_id: 'p1', info: 'display' }, { image_id: 'b', part_id: 'p2', info: 'display' }],
      [{ filename: 'a', data: penny }, { filename: 'b', data: penny }],
    );
    expect(await h.admin.deleteImages(['a', 'zz', 7])).toEqual({ deleted: ['a'], errors: { zz: ["image 'zz' does not exist"], 'items[2]': [expect.stringMatching(/string/)] } });
    expect(blobFiles(h.dataDir)).toEqual([sha256(penny)]);
    expect((await h.admin.downloadImage('b')).size).toBe(penny.length);
    expect(await h.admin.deleteImages(['b'])).toEqual({ deleted: ['b'], errors: {} });
    expect(blobFiles(h.dataDir)).toEqual([]);
    // Replacing an image's file releases the old blob.
    await h.admin.uploadImages([{ image_id: 'c', part_id: 'p1', info: 'display' }], [{ filename: 'c', data: penny }]);
    const mars = bytesOf('4_mars.jpg');
    expect(await h.admin.uploadImages([{ image_id: 'c', part_id: 'p1', info: 'display' }], [{ filename: 'c.jpg', data: mars }])).toEqual({ created: [], updated: ['c'], errors: {} });
    expect(blobFiles(h.dataDir)).toEqual([sha256(mars)]);
  });

  it('lists by part_ids with paging and projection; selects by id', async () => {
    const data = bytesOf('5.jpg');
    const defs = ['i1', 'i2', 'i3', 'i4'].map((id, i) => ({ image_id: id, part_id: i % 2 === 0 ? 'p1' : 'p2', info: 'searchable' }));
    await h.admin.uploadImages(defs, defs.map((d) => ({ filename: d.image_id, data })));
    const first = await h.admin.listImages({ query: { part_ids: ['p1'] }, paging: { limit: 1 }, projection: ['part_id'] });
    expect(first).toEqual({ result: [{ image_id: 'i1', part_id: 'p1' }], last_object_id: 'i1', more_data: true });
    const second = await h.admin.listImages({ query: { part_ids: ['p1'] }, paging: { limit: 1, last_object_id: 'i1' }, projection: ['part_id'] });
    expect(second).toEqual({ result: [{ image_id: 'i3', part_id: 'p1' }], last_object_id: 'i3', more_data: false });
    const all = await h.admin.listImages({});
    expect(all.result.map((i) => i.image_id)).toEqual(['i1', 'i2', 'i3', 'i4']);
    expect(all.result[1]).toEqual({ image_id: 'i2', part_id: 'p2', info: 'searchable' });
    expect(await h.admin.selectImages({ image_ids: ['i4', 'zz', 'i1'], projection: ['info'] })).toEqual([
      { image_id: 'i4', info: 'searchable' },
      { image_id: 'i1', info: 'searchable' },
    ]);
    await expectCatalogError(h.admin.listImages({ projection: ['sha256'] }), 'bad_request', /part_id, info, position, etag/);
  });

  it('list and select give the original\'s ETag when the projection asks for it, never by default', async () => {
    const data = bytesOf('5.jpg');
    await h.admin.uploadImages([{ image_id: 'i1', part_id: 'p1', info: 'display' }], [{ filename: 'i1', data }]);
    const etag = `"${sha256(data)}"`;
    expect((await h.admin.listImages({ projection: ['etag'] })).result).toEqual([{ image_id: 'i1', etag }]);
    expect(await h.admin.selectImages({ image_ids: ['i1'], projection: ['part_id', 'etag'] })).toEqual([{ image_id: 'i1', part_id: 'p1', etag }]);
    expect(await h.admin.selectImages({ image_ids: ['i1'] })).toEqual([{ image_id: 'i1', part_id: 'p1', info: 'display' }]);
    const download = await h.admin.downloadImage('i1');
    expect(download.etag).toBe(etag);
    await readAll(download.stream);
  });

  it('display-images orders and selects a part with more than 5 images (spec 2.2 rules 1–4)', async () => {
    const data = bytesOf('0.jpg');
    const defs = [
      { image_id: 'w3', part_id: 'p1', info: 'display weight=3' },
      { image_id: 'plain1', part_id: 'p1', info: 'display' },
      { image_id: 'pos2', part_id: 'p1', info: 'display', position: 2 },
      { image_id: 'w1', part_id: 'p1', info: 'display weight=1' },
      { image_id: 'search-only', part_id: 'p1', info: 'searchable' },
      { image_id: 'pos1', part_id: 'p1', info: 'searchable display', position: 1 },
      { image_id: 'old-pos', part_id: 'p1', info: 'display position=0' },
      { image_id: 'plain2', part_id: 'p1', info: 'display' },
    ];
    expect((await h.admin.uploadImages(defs, defs.map((d) => ({ filename: `${d.image_id}.jpg`, data })))).created).toHaveLength(8);
    const order = await h.admin.displayImages('p1');
    expect(order).toEqual({
      part_id: 'p1',
      max_display_images: 5,
      ordered: ['pos1', 'pos2', 'old-pos', 'w1', 'w3', 'plain1', 'plain2'],
      shown: ['pos1', 'pos2', 'old-pos', 'w1', 'w3'],
    });
    expect(await h.admin.displayImages('p2')).toEqual({ part_id: 'p2', max_display_images: 5, ordered: [], shown: [] });
    await expectCatalogError(h.admin.displayImages('ghost'), 'not_found', "part 'ghost' does not exist");
  });

  it('deleting a part that still has images is an item error', async () => {
    await h.admin.uploadImages([{ image_id: 'x', part_id: 'p1', info: 'display' }], [{ filename: 'x.jpg', data: bytesOf('1.jpg') }]);
    expect(await h.admin.deleteParts(['p1', 'p2'])).toEqual({
      deleted: ['p2'],
      errors: { p1: ["part 'p1' still has 1 image(s); delete them first (CLI: catalog parts delete --with-images)"] },
    });
    await h.admin.deleteImages(['x']);
    expect((await h.admin.deleteParts(['p1'])).deleted).toEqual(['p1']);
  });

  it('writes: 403 for app roles, 503 in maintenance; reads keep working', async () => {
    await h.admin.uploadImages([{ image_id: 'x', part_id: 'p1', info: 'display' }], [{ filename: 'x.jpg', data: bytesOf('1.jpg') }]);
    const worker = await h.as(['factoryWorker']);
    await expectCatalogError(worker.uploadImages([{ image_id: 'y', part_id: 'p1', info: 'display' }], [{ filename: 'y.jpg', data: bytesOf('2.jpg') }]), 'forbidden');
    await expectCatalogError(worker.deleteImages(['x']), 'forbidden');
    expect(await worker.getImage('x')).toEqual({ image_id: 'x', part_id: 'p1', info: 'display' });
    await h.admin.setMaintenance(true);
    await expectCatalogError(h.admin.uploadImages([{ image_id: 'y', part_id: 'p1', info: 'display' }], [{ filename: 'y.jpg', data: bytesOf('2.jpg') }]), 'maintenance', MAINTENANCE_DETAIL);
    await expectCatalogError(h.admin.deleteImages(['x']), 'maintenance', MAINTENANCE_DETAIL);
    expect((await h.admin.listImages({})).result).toHaveLength(1);
    expect((await readAll((await h.admin.downloadImage('x')).stream)).equals(bytesOf('1.jpg'))).toBe(true);
    await h.admin.setMaintenance(false);
    expect(blobFiles(h.dataDir)).toEqual([sha256(bytesOf('1.jpg'))]);
    await expectCatalogError(h.withToken(undefined).uploadImages([], []), 'unauthorized');
  });

  it.runIf(mode === 'http')('HTTP: 304 on If-None-Match, 415 for a non-multipart body, definitions as a file part or after the files', async () => {
    const jpeg = bytesOf('1.jpg');
    await h.admin.uploadImages([{ image_id: 'x', part_id: 'p1', info: 'display' }], [{ filename: 'x.jpg', data: jpeg }]);
    const { secret } = await h.service.createToken((await import('../../src/core/permissions.js')).LOCAL_OWNER, { name: 'raw', roles: ['catalogAdmin'] });
    const auth = { authorization: `Bearer ${secret}` };
    const etag = `"${sha256(jpeg)}"`;
    const url = (path: string) => `${h.url ?? ''}${path}`;
    const full = await request(url('/1/catalog/images/x/original'), { headers: auth });
    expect(full.statusCode).toBe(200);
    expect(full.headers.etag).toBe(etag);
    expect(full.headers['content-length']).toBe(String(jpeg.length));
    expect(Buffer.from(await full.body.arrayBuffer()).equals(jpeg)).toBe(true);
    const cached = await request(url('/1/catalog/images/x/original'), { headers: { ...auth, 'if-none-match': `W/"other", ${etag}` } });
    expect(cached.statusCode).toBe(304);
    expect(cached.headers.etag).toBe(etag);
    await cached.body.dump();
    const json = await request(url('/1/catalog/images'), { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '[]' });
    expect(json.statusCode).toBe(415);
    expect(((await json.body.json()) as { detail: string }).detail).toMatch(/multipart\/form-data/);
    // curl -F images=@defs.json;type=application/json -F files=@y.jpg sends the definitions as a file part.
    const form = new FormData();
    form.append('images', new Blob([JSON.stringify([{ image_id: 'y', part_id: 'p2', info: 'display' }])], { type: 'application/json' }), 'defs.json');
    form.append('files', new Blob([jpeg], { type: 'image/jpeg' }), 'y.jpg');
    const curlLike = await request(url('/1/catalog/images'), { method: 'POST', headers: auth, body: form });
    expect(await curlLike.body.json()).toEqual({ created: ['y'], updated: [], errors: {} });
    // Files may come before the definitions: stored, then matched.
    const late = new FormData();
    late.append('files', new Blob([jpeg]), 'late.jpg');
    late.append('images', JSON.stringify([{ image_id: 'late', part_id: 'p1', info: 'display' }]));
    expect(await (await request(url('/1/catalog/images'), { method: 'POST', headers: auth, body: late })).body.json()).toEqual({ created: ['late'], updated: [], errors: {} });
    const noImages = new FormData();
    noImages.append('files', new Blob([jpeg]), 'z.jpg');
    const missing = await request(url('/1/catalog/images'), { method: 'POST', headers: auth, body: noImages });
    expect(missing.statusCode).toBe(400);
    expect(((await missing.body.json()) as { detail: string }).detail).toMatch(/part named 'images'/);
  });
});
