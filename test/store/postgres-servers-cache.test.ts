/**
 * In-process state of a server that must hold across servers on the same PostgreSQL catalog and
 * bucket (docs/deploy.md "How several servers stay one catalog"): the image similarity
 * index (reloaded on a change counter), and the blob gate and start-up sweep, which protected an
 * upload's blob only from deletions in its own process. Two catalogs opened in this process on one
 * schema (and one S3 prefix) stand for two servers; their clocks differ by an hour, as the clocks
 * of two machines may. (The two-server test with real processes is test/e2e/two-servers.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/adapters/system.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Clock } from '../../src/core/ports.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalogAt } from '../../src/open-catalog.js';
import { startServer } from '../../src/http/server.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable, s3Available, s3Server } from '../services/services.js';

const IMAGES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'images');

async function queryCopy(file: string): Promise<Buffer> {
  const bytes = readFileSync(join(IMAGES, file));
  const { width = 100 } = await sharp(bytes).metadata();
  return sharp(bytes).resize({ width: Math.round(width / 2) }).jpeg({ quality: 70 }).toBuffer();
}

/** The system clock shifted by `offsetMicros`. */
function skewed(offsetMicros: number): Clock {
  const clock = systemClock();
  return { nowMicros: () => clock.nowMicros() + offsetMicros };
}

const HOUR = 3_600_000_000;

describe.skipIf(!postgresAvailable())('servers on one PostgreSQL catalog: the image similarity index', () => {
  let database = '';
  let schema = '';
  let dataDir = '';
  const catalogs: Catalog[] = [];
  let ahead: LocalCatalogClient;
  let behind: LocalCatalogClient;

  beforeAll(async () => {
    database = await createTestDatabase('servers');
    const created = await createTestSchema(database);
    schema = created.schema;
    dataDir = mkdtempSync(join(tmpdir(), 'servers-cache-'));
    const open = (clock: Clock) => openCatalogAt({ dataDir, databaseUrl: created.url, clock });
    catalogs.push(await open(skewed(HOUR)), await open(skewed(0)));
    const { secret } = await catalogs[0]!.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] });
    ahead = new LocalCatalogClient(catalogs[0]!, { token: secret });
    behind = new LocalCatalogClient(catalogs[1]!, { token: secret });
  });

  afterAll(async () => {
    for (const catalog of catalogs) await catalog.close();
    if (schema) await dropTestSchema(database, schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('follows a replacement written by a server whose clock is behind', async () => {
    await ahead.upsertParts([{ part_id: 'p-horse', name: { en: 'horse' } }, { part_id: 'p-banana', name: { en: 'banana' } }]);
    // The server whose clock is ahead writes last-modified times an hour in the future.
    expect((await ahead.uploadImages([{ image_id: 'horse', part_id: 'p-horse', info: 'searchable' }], [{ filename: 'horse.jpg', path: join(IMAGES, 'horse.jpg') }])).errors).toEqual({});
    expect((await behind.uploadImages([{ image_id: 'banana', part_id: 'p-banana', info: 'searchable' }], [{ filename: 'banana.jpg', path: join(IMAGES, 'banana.jpg') }])).errors).toEqual({});
    for (const client of [ahead, behind]) {
      const found = await client.search({ resultOptions: { limit: 1 } }, { image: await queryCopy('banana.jpg'), filename: 'q.jpg' });
      expect(found.results[0]?.id).toBe('p-banana');
    }
    // The server behind replaces banana's photo by a lightbulb: same image id, same row, an older
    // modification time than the newest row, the same number of rows.
    expect((await behind.uploadImages([{ image_id: 'banana', part_id: 'p-banana', info: 'searchable' }], [{ filename: 'banana.jpg', path: join(IMAGES, 'lightbulb.jpg') }])).errors).toEqual({});
    for (const [name, client] of [['ahead', ahead], ['behind', behind]] as const) {
      const found = await client.search({ resultOptions: { limit: 1 } }, { image: await queryCopy('lightbulb.jpg'), filename: 'q.jpg' });
      expect(found.results[0]?.id, `server ${name}`).toBe('p-banana');
    }
  });

  it('follows an image moved to another part by another server', async () => {
    await behind.upsertParts([{ part_id: 'p-stable', name: { en: 'stable' } }]);
    // Force a reload on both, then move the horse photo to another part on the server behind.
    for (const client of [ahead, behind]) {
      expect((await client.search({ resultOptions: { limit: 1 } }, { image: await queryCopy('horse.jpg'), filename: 'q.jpg' })).results[0]?.id).toBe('p-horse');
    }
    expect((await behind.uploadImages([{ image_id: 'horse', part_id: 'p-stable', info: 'searchable' }], [{ filename: 'horse.jpg', path: join(IMAGES, 'horse.jpg') }])).errors).toEqual({});
    for (const [name, client] of [['ahead', ahead], ['behind', behind]] as const) {
      const found = await client.search({ resultOptions: { limit: 1 } }, { image: await queryCopy('horse.jpg'), filename: 'q.jpg' });
      expect(found.results[0]?.id, `server ${name}`).toBe('p-stable');
    }
  });
});

describe.skipIf(!postgresAvailable() || !s3Available())('servers on one PostgreSQL catalog and one bucket: image originals', () => {
  let database = '';
  let url = '';
  let schema = '';
  let blobUrl = '';
  let dataDir = '';
  let secret = '';
  const catalogs: Catalog[] = [];

  beforeAll(async () => {
    const s3 = s3Server();
    // The S3 BlobStore takes endpoint, region and credentials from the AWS SDK's environment.
    Object.assign(process.env, { AWS_ENDPOINT_URL_S3: s3.endpoint, AWS_REGION: s3.region, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey });
    database = await createTestDatabase('blobs');
    ({ url, schema } = await createTestSchema(database));
    blobUrl = `s3://${s3.bucket}/servers-${randomBytes(4).toString('hex')}`;
    dataDir = mkdtempSync(join(tmpdir(), 'servers-blobs-'));
    for (let i = 0; i < 2; i++) catalogs.push(await openCatalogAt({ dataDir, databaseUrl: url, blobUrl }));
    secret = (await catalogs[0]!.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] })).secret;
    await new LocalCatalogClient(catalogs[0]!, { token: secret }).upsertParts([{ part_id: 'p', name: { en: 'p' } }]);
  });

  afterAll(async () => {
    for (const catalog of catalogs) await catalog.close();
    if (schema) await dropTestSchema(database, schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts an upload of `file` as `imageId` on catalog `a` and stores its bytes, without committing. */
  async function storedNotCommitted(a: Catalog, imageId: string, file: string) {
    const session = await a.images.beginUpload(await a.service.authenticate(`Bearer ${secret}`));
    session.setDefinitions([{ image_id: imageId, part_id: 'p', info: 'display' }]);
    await session.addFile({ filename: imageId, source: readFileSync(join(IMAGES, file)) });
    return session;
  }

  async function originalBytes(catalog: Catalog, imageId: string): Promise<Buffer> {
    const opened = await catalog.images.openOriginal(await catalog.service.authenticate(`Bearer ${secret}`), imageId);
    if (opened.notModified) throw new Error('unexpected 304');
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }

  it("keep a blob that another server's upload has just deduplicated onto, when its last image is deleted", async () => {
    const [a, b] = [catalogs[0]!, catalogs[1]!];
    const client = new LocalCatalogClient(a, { token: secret });
    expect((await client.uploadImages([{ image_id: 'first', part_id: 'p', info: 'display' }], [{ filename: 'first.jpg', path: join(IMAGES, 'horse.jpg') }])).errors).toEqual({});
    // A stores the same bytes again for a second image (deduplicated onto the first one's blob)...
    const session = await storedNotCommitted(a, 'second', 'horse.jpg');
    // ... while B deletes the only image that references that blob so far ...
    expect((await new LocalCatalogClient(b, { token: secret }).deleteImages(['first'])).deleted).toEqual(['first']);
    // ... then A commits: its image must have its original.
    expect((await session.commit()).errors).toEqual({});
    expect((await originalBytes(b, 'second')).equals(readFileSync(join(IMAGES, 'horse.jpg')))).toBe(true);
  });

  it("keep the blob of another server's upload in flight when a server starts (its start-up sweep)", async () => {
    const a = catalogs[0]!;
    const session = await storedNotCommitted(a, 'during-start', 'banana.jpg');
    // A second server starts meanwhile and sweeps orphans before serving.
    const server = await startServer({ dataDir, databaseUrl: url, blobUrl, host: '127.0.0.1', port: 0, accessLog: null });
    await server.close();
    expect((await session.commit()).errors).toEqual({});
    expect((await originalBytes(a, 'during-start')).equals(readFileSync(join(IMAGES, 'banana.jpg')))).toBe(true);
  });
});
