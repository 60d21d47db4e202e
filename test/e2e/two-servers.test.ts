/**
 * Several servers on one catalog (docs/deploy.md "How several servers stay one
 * catalog"): two real `catalog serve` processes of the built CLI on ONE PostgreSQL database and ONE
 * S3 bucket (s3rver), driven alternately through the HTTP client: every write through one is read
 * through the other at once, a search session started on A is paged on B, maintenance switched on
 * A refuses writes on B, and the image similarity index of each server follows the other's uploads,
 * replacements and deletions. Skipped, loudly (test/services), without PostgreSQL or the S3 server.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { expectCatalogError } from '../helpers/expect-error.js';
import { catalogSpawn, catalogSync, exited } from '../helpers/bin.js';
import { createTestDatabase, postgresAvailable, s3Available, s3Server } from '../services/services.js';

const IMAGES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'images');

/** A query photo: the original cropped 5 % on each side, half size, recompressed. */
async function queryCopy(file: string): Promise<Buffer> {
  const image = sharp(readFileSync(join(IMAGES, file)));
  const { width = 100, height = 100 } = await image.metadata();
  const dx = Math.round(width * 0.05);
  const dy = Math.round(height * 0.05);
  return image.extract({ left: dx, top: dy, width: width - 2 * dx, height: height - 2 * dy }).resize({ width: Math.round(width / 2) }).jpeg({ quality: 70 }).toBuffer();
}

async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

const available = postgresAvailable() && s3Available();

describe.skipIf(!available)('two catalog serve processes on one PostgreSQL database and one bucket', () => {
  let env: Record<string, string> = {};
  let dataDir = '';
  const servers: { child: ReturnType<typeof catalogSpawn>; url: string }[] = [];
  let a: HttpCatalogClient;
  let b: HttpCatalogClient;

  async function serve(): Promise<{ child: ReturnType<typeof catalogSpawn>; url: string }> {
    const child = catalogSpawn(['serve', '--port', '0'], env);
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', () => {
        const m = /at (http:\/\/\S+)/.exec(child.output().stderr);
        if (m?.[1]) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${child.output().stderr}`)));
    });
    return { child, url };
  }

  beforeAll(async () => {
    const s3 = s3Server();
    dataDir = mkdtempSync(join(tmpdir(), 'two-servers-'));
    env = {
      CATALOG_DATABASE_URL: await createTestDatabase('two'),
      CATALOG_BLOB_URL: `s3://${s3.bucket}/two-${randomBytes(4).toString('hex')}`,
      CATALOG_DATA_DIR: dataDir,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_REGION: s3.region,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    };
    const created = catalogSync(['tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin'], env);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    servers.push(...(await Promise.all([serve(), serve()])));
    a = new HttpCatalogClient({ url: servers[0]!.url, token, retries: 0 });
    b = new HttpCatalogClient({ url: servers[1]!.url, token, retries: 0 });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const { child } of servers) {
      child.kill('SIGTERM');
      await exited(child);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serve the same catalog identity', async () => {
    expect((await a.getCatalogInfo()).catalogId).toBe((await b.getCatalogInfo()).catalogId);
  });

  it('read at once on one server what the other wrote: attributes, parts, organizations, relations', async () => {
    await a.upsertAttributes([{ attribute_id: 'color', type: 'enum', name: { en: 'Color' }, filterable: true, searchable: true }]);
    expect((await b.selectAttributes({ attribute_ids: ['color'] })).map((x) => x.attribute_id)).toEqual(['color']);
    // An attribute defined on B is usable at once in a part written on A (no cached definitions).
    await b.upsertAttributes([{ attribute_id: 'price', type: 'text', name: { en: 'Price' }, per_org_values: true }]);
    await b.upsertOrganizations([{ org_id: 'acme' }]);
    const parts = await a.upsertParts([
      { part_id: 'p1', name: { en: 'Red lamp' }, attributes: [{ attribute_id: 'color', values: [{ value: { en: 'red' } }] }, { attribute_id: 'price', values: [{ organization: 'acme', value: { en: '10 USD' } }] }] },
      { part_id: 'p2', name: { en: 'Blue lamp' }, attributes: [{ attribute_id: 'color', values: [{ value: { en: 'blue' } }] }] },
    ]);
    expect(parts.errors).toEqual({});
    expect((await b.getPart('p1')).name).toEqual({ en: 'Red lamp' });
    expect(JSON.stringify((await b.getPart('p1', { organization: 'acme' })).attributes)).toContain('10 USD');
    expect((await b.search({ matches: { text: 'red lamp' } })).results.map((r) => r.id)).toEqual(['p1']);
    // A merge on B is read on A at once.
    await b.upsertParts([{ part_id: 'p1', name: { en: 'Crimson lamp' } }]);
    expect((await a.getPart('p1')).name).toEqual({ en: 'Crimson lamp' });
    expect((await a.search({ matches: { text: 'crimson' } })).results.map((r) => r.id)).toEqual(['p1']);
    expect(await b.createRelations([{ anchor_part_id: 'p1', related_part_id: 'p2', type: 'duplicate' }])).toEqual({ created: 1 });
    expect((await a.getRelations('p2')).map((r) => [r.part_id, r.type])).toEqual([['p1', 'duplicate']]);
    // Deleted on A, gone on B.
    expect((await a.deleteAttributes(['color'])).errors).not.toEqual({}); // still referenced
    expect((await b.listAttributes({})).result.map((x) => x.attribute_id).sort()).toEqual(['color', 'price']);
  });

  it('serve on B the original of an image uploaded on A, and its deletion', async () => {
    await a.upsertParts([{ part_id: 'img-part', name: { en: 'Wrench' } }]);
    const file = join(IMAGES, 'wrench.jpg');
    const upload = await a.uploadImages([{ image_id: 'wrench', part_id: 'img-part', info: 'display' }], [{ filename: 'wrench.jpg', path: file }]);
    expect(upload.errors).toEqual({});
    const download = await b.downloadImage('wrench');
    const bytes = await readStream(download.stream);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
    expect(download.size).toBe(bytes.length);
    await b.deleteImages(['wrench']);
    await expectCatalogError(a.getImage('wrench'), 'not_found');
  });

  it('page on B a search session started on A', async () => {
    await a.upsertParts(Array.from({ length: 12 }, (_, i) => ({ part_id: `gear-${String(i).padStart(2, '0')}`, name: { en: `Gear wheel ${i}` } })));
    const first = await a.search({ matches: { text: 'gear' }, resultOptions: { limit: 5 } });
    expect(first.resultsTotalCount).toBe(12);
    const second = await b.searchState(first.sessionId, { skip: 5, limit: 5 });
    const third = await a.searchState(first.sessionId, { skip: 10, limit: 5 });
    const ids = [...first.results, ...second.results, ...third.results].map((r) => r.id);
    expect(new Set(ids).size).toBe(12);
    expect(ids.every((id) => id?.startsWith('gear-'))).toBe(true);
  });

  it('refuse writes on B while maintenance mode switched on A holds, and accept them once it is off', async () => {
    await a.setMaintenance(true);
    try {
      expect((await b.getMaintenance()).enabled).toBe(true);
      await expectCatalogError(b.upsertParts([{ part_id: 'during', name: { en: 'x' } }]), 'maintenance');
    } finally {
      await b.setMaintenance(false);
    }
    expect((await a.getMaintenance()).enabled).toBe(false);
    expect((await a.upsertParts([{ part_id: 'after', name: { en: 'x' } }])).errors).toEqual({});
  });

  it('keep the image similarity index the same on both: an upload on A is found on B, a replacement and a deletion on B are seen by A', async () => {
    const photos = ['banana', 'horse', 'guitar_classical', 'windmill'];
    await a.upsertParts(photos.map((p) => ({ part_id: `photo-${p}`, name: { en: p } })));
    // B builds its in-memory index before A's uploads exist.
    const empty = await b.search({ resultOptions: { limit: 5 } }, { image: await queryCopy('banana.jpg'), filename: 'q.jpg' });
    expect(empty.results.map((r) => r.id)).not.toContain('photo-banana');
    const upload = await a.uploadImages(
      photos.map((p) => ({ image_id: `img-${p}`, part_id: `photo-${p}`, info: 'searchable display' })),
      photos.map((p) => ({ filename: `img-${p}.jpg`, path: join(IMAGES, `${p}.jpg`) })),
    );
    expect(upload.errors).toEqual({});
    const onB = await b.search({ resultOptions: { limit: 3 } }, { image: await queryCopy('horse.jpg'), filename: 'q.jpg' });
    expect(onB.results[0]?.id).toBe('photo-horse');
    // A builds its index too, then B replaces the banana photo with a lightbulb under the same
    // image id and deletes the windmill: A must rank by the new features, not its loaded ones.
    const onA = await a.search({ resultOptions: { limit: 3 } }, { image: await queryCopy('windmill.jpg'), filename: 'q.jpg' });
    expect(onA.results[0]?.id).toBe('photo-windmill');
    const replaced = await b.uploadImages([{ image_id: 'img-banana', part_id: 'photo-banana', info: 'searchable display' }], [{ filename: 'img-banana.jpg', path: join(IMAGES, 'lightbulb.jpg') }]);
    expect(replaced.errors).toEqual({});
    await b.deleteImages(['img-windmill']);
    const bulb = await a.search({ resultOptions: { limit: 3 } }, { image: await queryCopy('lightbulb.jpg'), filename: 'q.jpg' });
    expect(bulb.results[0]?.id).toBe('photo-banana');
    const windmill = await a.search({ resultOptions: { limit: 10 } }, { image: await queryCopy('windmill.jpg'), filename: 'q.jpg' });
    expect(windmill.results.map((r) => r.id)).not.toContain('photo-windmill');
  });
});
