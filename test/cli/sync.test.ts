/**
 * Contributor sync as a user runs it (in-process), in local mode and against a server:
 * `images sync` (the naming convention, a custom --part-from, unchanged photos not sent, --prune
 * refused above --max-delete, --dry-run changing nothing) and `parts import --sync` (unchanged rows
 * not sent, --prune, --scope). "Not sent" is asserted on the client's upload calls in both modes and,
 * against the server, on the requests it received.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { buildApp } from '../../src/http/app.js';
import { PartsSync } from '../../src/cli/sync/parts-sync.js';
import { openCatalog } from '../../src/open-catalog.js';
import { cli } from '../helpers/cli.js';
import { SHARED_IMAGES } from '../helpers/data.js';
import { tempDir } from '../helpers/harness.js';

interface Setup {
  dir: string;
  env: Record<string, string>;
  /** Requests the server received (`POST /1/catalog/images` ...); empty in local mode. */
  requests: string[];
  close(): Promise<void>;
}

/** A working directory and the environment reaching a fresh catalog: a data directory, or a server over one. */
async function setUp(mode: 'local' | 'remote'): Promise<Setup> {
  const dir = tempDir('catalog-cli-sync-');
  if (mode === 'local') return { dir, env: { CATALOG_DATA_DIR: join(dir, 'catalog') }, requests: [], close: async () => rmSync(dir, { recursive: true, force: true }) };
  const catalog: Catalog = openCatalog({ dataDir: join(dir, 'server') });
  const requests: string[] = [];
  const app: FastifyInstance = buildApp({ catalog, accessLog: { write: (line: string) => requests.push(line) } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const { secret } = await catalog.service.createToken(LOCAL_OWNER, { name: 'sync', roles: ['catalogAdmin', 'dataContributor'] });
  return {
    dir,
    env: { CATALOG_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, CATALOG_TOKEN: secret },
    requests,
    async close() {
      await app.close();
      await catalog.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Upload calls of either client, with the file names each carried and the image_ids it defined. */
function spyUploads(): { calls: { files: string[]; definitions: string[] }[] } {
  const calls: { files: string[]; definitions: string[] }[] = [];
  for (const proto of [LocalCatalogClient.prototype, HttpCatalogClient.prototype]) {
    const original = proto.uploadImages;
    vi.spyOn(proto, 'uploadImages').mockImplementation(function (this: LocalCatalogClient & HttpCatalogClient, definitions, files) {
      calls.push({ files: files.map((f) => f.filename), definitions: definitions.map((d) => (d as { image_id: string }).image_id) });
      return original.call(this, definitions, files);
    });
  }
  return { calls };
}

const photo = (name: string) => join(SHARED_IMAGES, name);

describe.each(['local', 'remote'] as const)('catalog images sync (%s)', (mode) => {
  let s: Setup;
  const run = (args: string[]) => cli(args, { cwd: s.dir, env: s.env });
  const images = async () => JSON.parse((await run(['images', 'list', '--all', '-o', 'json'])).stdout) as { image_id: string; part_id: string; info: string }[];
  const uploadRequests = () => s.requests.filter((line) => line.includes('"POST /1/catalog/images"')).length;

  beforeEach(async () => {
    s = await setUp(mode);
    const parts = ['P1', 'P2', 'P3', 'A1'].map((id) => JSON.stringify({ part_id: id, name: { en: `Part ${id}` } })).join('\n');
    expect((await cli(['parts', 'import', '-', '--format', 'ndjson'], { cwd: s.dir, env: s.env, stdin: parts })).code).toBe(0);
    mkdirSync(join(s.dir, 'photos', 'sub'), { recursive: true });
    copyFileSync(photo('0.jpg'), join(s.dir, 'photos', 'P1.jpg'));
    copyFileSync(photo('1.jpg'), join(s.dir, 'photos', 'P1_2.jpg'));
    copyFileSync(photo('2.jpg'), join(s.dir, 'photos', 'sub', 'P2.jpg'));
    copyFileSync(photo('3.jpg'), join(s.dir, 'photos', 'GHOST_1.jpg'));
    writeFileSync(join(s.dir, 'photos', 'notes.txt'), 'not a photo\n');
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await s.close();
  });

  it('binds photos by the naming convention, lists unmatched ones, and sends only what changed', async () => {
    const first = await run(['images', 'sync', 'photos', '-o', 'json']);
    expect(first.stderr).toContain('GHOST_1.jpg: part \'GHOST\' does not exist');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ created: 3, updated: 0, unchanged: 0, unmatched: 1, rejected: 0 });
    expect(await images()).toEqual([
      { image_id: 'P1.jpg', part_id: 'P1', info: 'display' },
      { image_id: 'P1_2.jpg', part_id: 'P1', info: 'display' },
      { image_id: 'sub~P2.jpg', part_id: 'P2', info: 'display' },
    ]);
    expect(readFileSync(join(s.dir, 'photos.unmatched.txt'), 'utf8')).toBe("GHOST_1.jpg: part 'GHOST' does not exist\n");

    const uploads = spyUploads();
    const before = uploadRequests();
    const partSelects = vi.spyOn(mode === 'local' ? LocalCatalogClient.prototype : HttpCatalogClient.prototype, 'selectParts');
    const second = await run(['images', 'sync', 'photos', '-o', 'json']);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 3, unmatched: 1 });
    expect(uploads.calls).toEqual([]);
    // Only the part of the photo stored on no part is looked up: a part with images exists.
    expect(partSelects.mock.calls.map(([request]) => (request as { part_ids: string[] }).part_ids)).toEqual([['GHOST']]);
    expect(uploadRequests()).toBe(before);

    // One changed photo: exactly one upload, carrying that file alone.
    copyFileSync(photo('4.jpg'), join(s.dir, 'photos', 'P1_2.jpg'));
    const third = await run(['images', 'sync', 'photos', '-o', 'json']);
    expect(JSON.parse(third.stdout)).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
    expect(uploads.calls).toEqual([{ files: ['P1_2.jpg'], definitions: ['P1_2.jpg'] }]);
    if (mode === 'remote') expect(uploadRequests()).toBe(before + 1);
    const download = await run(['images', 'download', 'P1_2.jpg', '-O', 'out.jpg']);
    expect(download.code).toBe(0);
    expect(readFileSync(join(s.dir, 'out.jpg')).equals(readFileSync(photo('4.jpg')))).toBe(true);

    // A side-car's info alone: the definition goes, the bytes do not.
    writeFileSync(join(s.dir, 'photos', 'P1.jpg.info'), 'display weight=2\n');
    const fourth = await run(['images', 'sync', 'photos', '-o', 'json']);
    expect(JSON.parse(fourth.stdout)).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
    expect(uploads.calls[1]).toEqual({ files: [], definitions: ['P1.jpg'] });
    expect((await images())[0]).toEqual({ image_id: 'P1.jpg', part_id: 'P1', info: 'display weight=2' });
  });

  it('hashes only photos whose size or time changed since the last run; --no-sync-state hashes every one', async () => {
    // Photos written a while ago (a photo written within the last seconds is hashed at every run).
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const name of ['P1.jpg', 'P1_2.jpg', 'sub/P2.jpg']) utimesSync(join(s.dir, 'photos', name), anHourAgo, anHourAgo);
    expect(JSON.parse((await run(['images', 'sync', 'photos', '-o', 'json'])).stdout)).toMatchObject({ created: 3 });
    // Other bytes of the same size, the file's time put back: the documented blind spot of the state.
    const path = join(s.dir, 'photos', 'P1_2.jpg');
    const { mtime } = statSync(path);
    const bytes = readFileSync(path);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0x01;
    writeFileSync(path, bytes);
    utimesSync(path, mtime, mtime);
    // Same bytes, a new time: hashed again, and found equal to the stored ETag.
    const touched = join(s.dir, 'photos', 'P1.jpg');
    utimesSync(touched, new Date(), new Date(Date.now() + 60_000));
    const uploads = spyUploads();
    const second = await run(['images', 'sync', 'photos', '-o', 'json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
    expect(uploads.calls).toEqual([]);

    const full = await run(['images', 'sync', 'photos', '--no-sync-state', '-o', 'json']);
    expect(JSON.parse(full.stdout)).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
    expect(uploads.calls).toEqual([{ files: ['P1_2.jpg'], definitions: ['P1_2.jpg'] }]);
  });

  it('binds photos by a custom --part-from and refuses a pattern without part_id', async () => {
    mkdirSync(join(s.dir, 'shots'));
    copyFileSync(photo('0.jpg'), join(s.dir, 'shots', 'shot-A1-front.jpg'));
    copyFileSync(photo('1.jpg'), join(s.dir, 'shots', 'shot-P3-back.jpg'));
    copyFileSync(photo('2.jpg'), join(s.dir, 'shots', 'P2.jpg'));
    const synced = await run(['images', 'sync', 'shots', '--part-from', '^shot-(?<part_id>[^-]+)-(?<side>\\w+)\\.jpg$', '--info', 'display searchable', '-o', 'json']);
    expect(synced.code).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ created: 2, unmatched: 1 });
    expect(synced.stderr).toContain('P2.jpg: the name does not match ^shot-');
    expect(await images()).toEqual([
      { image_id: 'shot-A1-front.jpg', part_id: 'A1', info: 'display searchable' },
      { image_id: 'shot-P3-back.jpg', part_id: 'P3', info: 'display searchable' },
    ]);
    const bad = await run(['images', 'sync', 'shots', '--part-from', '^(?<id>.+)\\.jpg$']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('needs a named group part_id');
  });

  it('--prune deletes what left the folder, refused above --max-delete; --dry-run changes nothing', async () => {
    expect((await run(['images', 'sync', 'photos'])).code).toBe(0);
    unlinkSync(join(s.dir, 'photos', 'P1.jpg'));
    unlinkSync(join(s.dir, 'photos', 'sub', 'P2.jpg'));
    copyFileSync(photo('5.jpg'), join(s.dir, 'photos', 'P1_2.jpg'));
    const uploads = spyUploads();

    const before = uploadRequests();
    const dry = await run(['images', 'sync', 'photos', '--prune', '--max-delete', '100%', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe('P1.jpg\nsub~P2.jpg\n');
    expect(dry.stderr).toContain('images sync (dry run): would create 0, would update 1, 0 unchanged, would prune 2, 1 unmatched, 0 rejected');
    expect(uploads.calls).toEqual([]);
    expect(uploadRequests()).toBe(before);
    expect((await images()).map((i) => i.image_id)).toEqual(['P1.jpg', 'P1_2.jpg', 'sub~P2.jpg']);
    const unchangedBytes = await run(['images', 'download', 'P1_2.jpg', '-O', 'out.jpg']);
    expect(unchangedBytes.code).toBe(0);
    expect(readFileSync(join(s.dir, 'out.jpg')).equals(readFileSync(photo('1.jpg')))).toBe(true);

    // Refused: the changed photo is stored, nothing is deleted.
    const refused = await run(['images', 'sync', 'photos', '--prune']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('images sync: 0 created, 1 updated, 0 unchanged, pruned 0, 1 unmatched, 0 rejected');
    expect(refused.stderr).toContain('prune refused: 2 of 3 images in scope (every part) (66.7 %) are not in the source, above --max-delete 10 %; nothing was deleted');
    expect((await images()).map((i) => i.image_id)).toEqual(['P1.jpg', 'P1_2.jpg', 'sub~P2.jpg']);

    const scoped = await run(['images', 'sync', 'photos', '--prune', '--scope', 'part_id=P2*', '--max-delete', '1', '-o', 'json']);
    expect(scoped.code).toBe(0);
    expect(JSON.parse(scoped.stdout)).toMatchObject({ updated: 0, unchanged: 1, deleted: 1, deletedIds: ['sub~P2.jpg'] });
    expect((await images()).map((i) => i.image_id)).toEqual(['P1.jpg', 'P1_2.jpg']);
  });
});

describe.each(['local', 'remote'] as const)('catalog parts import --sync (%s)', (mode) => {
  let s: Setup;
  const run = (args: string[]) => cli(args, { cwd: s.dir, env: s.env });
  const partIds = async () => (JSON.parse((await run(['parts', 'list', '--all', '-o', 'json'])).stdout) as { part_id: string }[]).map((p) => p.part_id);
  const sheet = (ids: string[], renamed = '') => ['part_id,name.en', ...ids.map((id) => `${id},${id === renamed ? 'Renamed' : `Part ${id}`}`)].join('\n');
  const ids = Array.from({ length: 20 }, (_, i) => `${i < 10 ? 'A' : 'B'}${String(i).padStart(2, '0')}`);

  beforeEach(async () => {
    s = await setUp(mode);
    writeFileSync(join(s.dir, 'parts.csv'), sheet(ids));
    expect((await run(['parts', 'import', 'parts.csv', '--sync'])).code).toBe(0);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await s.close();
  });

  it('sends nothing for an unchanged sheet, one part for one changed row, and prunes one removed part', async () => {
    const writes: number[] = [];
    for (const proto of [LocalCatalogClient.prototype, HttpCatalogClient.prototype]) {
      for (const method of ['upsertParts', 'upsertValidatedParts', 'upsertPartBatches'] as const) {
        const original = proto[method] as (...args: unknown[]) => Promise<unknown>;
        vi.spyOn(proto, method).mockImplementation(function (this: unknown, ...args: unknown[]) {
          writes.push(1);
          return original.apply(this, args);
        } as never);
      }
    }
    const again = await run(['parts', 'import', 'parts.csv', '--sync', '-o', 'json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 20, rejected: 0 });
    expect(writes).toEqual([]);
    if (mode === 'remote') expect(s.requests.filter((l) => l.includes('"POST /1/catalog/parts"')).length).toBe(1);

    writeFileSync(join(s.dir, 'parts.csv'), sheet(ids.filter((id) => id !== 'B19'), 'A03'));
    const dry = await run(['parts', 'import', 'parts.csv', '--sync', '--prune', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe('B19\n');
    expect(dry.stderr).toContain('would create 0, would update 1, 18 unchanged, would prune 1, 0 rejected');
    expect(await partIds()).toHaveLength(20);
    expect(writes).toEqual([]);

    // On the reader thread (as a large sheet is read): the rows it finds remembered are not validated, the changed one is.
    const synced = await cli(['parts', 'import', 'parts.csv', '--sync', '--prune', '-o', 'json'], { cwd: s.dir, env: { ...s.env, CATALOG_IMPORT_THREAD: '1' } });
    expect(synced.code).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ created: 0, updated: 1, unchanged: 18, deleted: 1, deletedIds: ['B19'] });
    expect(await partIds()).toEqual(ids.filter((id) => id !== 'B19'));
    expect((JSON.parse((await run(['parts', 'get', 'A03', '-o', 'json'])).stdout) as { name: { en: string } }[])[0]?.name.en).toBe('Renamed');
  });

  it('reads no stored part when the catalog has not changed since the last run, and restores a part changed meanwhile', async () => {
    const selects = vi.spyOn(mode === 'local' ? LocalCatalogClient.prototype : HttpCatalogClient.prototype, 'selectParts');
    const filters = vi.spyOn(PartsSync.prototype, 'filter');
    const stateDir = join(s.dir, '.cache', 'catalog', 'sync');
    const stateFile = () => statSync(join(stateDir, readdirSync(stateDir).find((name) => name.startsWith('parts-')) ?? 'missing'));
    const saved = stateFile();
    const again = await run(['parts', 'import', 'parts.csv', '--sync', '-o', 'json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 20 });
    expect(selects).not.toHaveBeenCalled();
    // Nothing is written, not even the state file: it still says all there is.
    expect([stateFile().ino, stateFile().mtimeMs]).toEqual([saved.ino, saved.mtimeMs]);
    // The same bytes as the last run, on parts nobody wrote since: no row is even read.
    expect(filters).not.toHaveBeenCalled();
    const dry = await run(['parts', 'import', 'parts.csv', '--sync', '--prune', '--dry-run']);
    expect(dry.stderr).toContain('would create 0, would update 0, 20 unchanged, would prune 0, 0 rejected');

    // Someone else renames A03: the next sync compares that part alone, and puts the sheet's name back.
    expect((await cli(['parts', 'import', '-', '--format', 'ndjson'], { cwd: s.dir, env: s.env, stdin: JSON.stringify({ part_id: 'A03', name: { en: 'Edited' } }) })).code).toBe(0);
    const restored = await run(['parts', 'import', 'parts.csv', '--sync', '-o', 'json']);
    expect(JSON.parse(restored.stdout)).toMatchObject({ created: 0, updated: 1, unchanged: 19 });
    expect(filters).toHaveBeenCalled();
    expect(selects.mock.calls.flatMap(([request]) => (request as { part_ids: string[] }).part_ids)).toEqual(['A03']);
    expect((JSON.parse((await run(['parts', 'get', 'A03', '-o', 'json'])).stdout) as { name: { en: string } }[])[0]?.name.en).toBe('Part A03');

    // Without the state, every row is compared again (and nothing is sent).
    selects.mockClear();
    const full = await run(['parts', 'import', 'parts.csv', '--sync', '--no-sync-state', '-o', 'json']);
    expect(JSON.parse(full.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 20 });
    expect(selects.mock.calls.flatMap(([request]) => (request as { part_ids: string[] }).part_ids)).toHaveLength(20);
  });

  it('refuses a prune above --max-delete, and --scope limits what the sheet covers', async () => {
    writeFileSync(join(s.dir, 'parts.csv'), sheet(ids.slice(0, 5)));
    const refused = await run(['parts', 'import', 'parts.csv', '--sync', '--prune']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('prune refused: 15 of 20 parts in scope (every part) (75.0 %) are not in the source, above --max-delete 10 %; nothing was deleted');
    expect(await partIds()).toHaveLength(20);

    // Only the A parts are the sheet's: five of ten go.
    const scoped = await run(['parts', 'import', 'parts.csv', '--sync', '--prune', '--scope', 'part_id=A*', '--max-delete', '50%']);
    expect(scoped.code).toBe(0);
    expect(scoped.stdout).toBe('A05\nA06\nA07\nA08\nA09\n');
    expect(await partIds()).toEqual([...ids.slice(0, 5), ...ids.slice(10)]);

    const usage = await run(['parts', 'import', 'parts.csv', '--prune']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--prune applies to a sync: add --sync');
  });
});
