/**
 * Contract: a full disk is 507 `storage_full` with a detail saying storage is full, in
 * both modes, and nothing stored before is lost. Runs on a real 1.5 MiB tmpfs where this machine
 * lets the test mount one (root); the mapping itself is also unit-tested in
 * src/adapters/storage-full.test.ts with injected SQLITE_FULL / ENOSPC errors.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogError } from '../../src/api/errors.js';
import { ROLES } from '../../src/api/schemas.js';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import type { CatalogClient } from '../../src/client/types.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { buildApp } from '../../src/http/app.js';
import { openCatalog } from '../../src/open-catalog.js';
import { SHARED_IMAGES } from '../helpers/data.js';
import { MODES } from '../helpers/harness.js';

/** Mounts a tmpfs of `size` at a new directory; undefined where mounting is not allowed. */
function mountTinyFs(size: string): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'catalog-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

const canMount = (() => {
  const dir = mountTinyFs('64k');
  if (dir === undefined) return false;
  execFileSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
  return true;
})();

async function failure(promise: Promise<unknown>): Promise<CatalogError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    return error as CatalogError;
  }
  throw new Error('expected the write to fail');
}

describe.skipIf(!canMount).each(MODES)('a full disk (%s client, tmpfs)', (mode) => {
  let mount: string;
  let catalog: Catalog;
  let app: FastifyInstance | undefined;
  let client: CatalogClient;

  beforeEach(async () => {
    mount = mountTinyFs('1536k') ?? '';
    catalog = openCatalog({ dataDir: join(mount, 'data') });
    const { secret } = await catalog.service.createToken(LOCAL_OWNER, { name: 'full', roles: [...ROLES] });
    if (mode === 'http') {
      app = buildApp({ catalog, accessLog: null });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      client = new HttpCatalogClient({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, token: secret, retries: 0 });
    } else {
      client = new LocalCatalogClient(catalog, { token: secret });
    }
  });
  afterEach(async () => {
    if (client instanceof HttpCatalogClient) await client.close();
    await app?.close();
    await catalog.close();
    // Lazy: the mount goes as soon as nothing holds it, whatever this test left open.
    execFileSync('umount', ['-l', mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  it('parts and image writes fail with 507 storage_full; what was stored before stays readable', async () => {
    expect((await client.upsertParts([{ part_id: 'kept', name: { en: 'Stored before the disk filled up' } }])).created).toEqual(['kept']);
    const jpeg = readFileSync(join(SHARED_IMAGES, '001penny.jpg'));
    expect((await client.uploadImages([{ image_id: 'kept-image', part_id: 'kept', info: 'display' }], [{ filename: 'kept-image.jpg', data: jpeg }])).created).toEqual(['kept-image']);

    // Large parts until the database no longer fits (at most ~64 batches of 40 KB of text).
    let error: CatalogError | undefined;
    for (let batch = 0; batch < 64 && error === undefined; batch++) {
      const parts = Array.from({ length: 10 }, (_, i) => ({ part_id: `big-${batch}-${i}`, name: { en: `${'filler text '.repeat(340)}${batch}-${i}` } }));
      try {
        await client.upsertParts(parts);
      } catch (e) {
        error = e as CatalogError;
      }
    }
    expect(error).toBeInstanceOf(CatalogError);
    expect(error?.code).toBe('storage_full');
    expect(error?.status).toBe(507);
    expect(error?.detail).toMatch(/^storage is full/);

    // An image file that does not fit: 507 too, and no temp file stays behind.
    const big = Buffer.concat([jpeg, Buffer.alloc(2 * 1024 * 1024, 1)]);
    const imageError = await failure(client.uploadImages([{ image_id: 'too-big', part_id: 'kept', info: 'display' }], [{ filename: 'too-big.jpg', data: big }]));
    expect(imageError.code).toBe('storage_full');
    expect(imageError.detail).toMatch(/storage is full: an image file/);

    expect((await client.getPart('kept')).name).toEqual({ en: 'Stored before the disk filled up' });
    expect(await client.getImage('kept-image')).toEqual({ image_id: 'kept-image', part_id: 'kept', info: 'display' });
    const download = await client.downloadImage('kept-image');
    const chunks: Buffer[] = [];
    for await (const chunk of download.stream as AsyncIterable<Buffer>) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(jpeg)).toBe(true);
  });
});
