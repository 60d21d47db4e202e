/**
 * In-memory state of a server that must follow writes of other servers on the same PostgreSQL
 * catalog (issue 15; docs/deploy.md "How several servers stay one catalog"): the image similarity
 * index. Two catalogs opened in this process on one schema stand for two servers; their clocks
 * differ by an hour, as the clocks of two machines may. (The two-server test with real processes
 * is test/e2e/two-servers.test.ts.)
 */
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
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

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
