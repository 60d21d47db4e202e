/**
 * The CLI as a user runs it (in-process): `images upload` with a manifest (errors file, exit 3,
 * --dry-run, --resume), in local mode and against a server; list, download, order, parts show,
 * parts delete --with-images.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { Checkpoint, defaultCheckpointPath, describeInput } from '../../src/cli/bulk/checkpoint.js';
import { formatBytes } from '../../src/cli/commands/images/upload.js';
import { openCatalog } from '../../src/open-catalog.js';
import { cli } from '../helpers/cli.js';
import { createHarness, tempDir, type Harness } from '../helpers/harness.js';
import { SHARED_IMAGES } from '../helpers/data.js';

const IMAGES = SHARED_IMAGES;
const SAMPLE = ['0.jpg', '1.jpg', '2.jpg', '3.jpg', '4.jpg', '5.jpg', '001penny.jpg', '4_mars.jpg'];

/** A directory with img/ (real images plus one text file) and a part p1 (local mode). */
function setUp(dir: string): void {
  mkdirSync(join(dir, 'data', 'img'), { recursive: true });
  for (const name of SAMPLE) copyFileSync(join(IMAGES, name), join(dir, 'data', 'img', name));
  writeFileSync(join(dir, 'data', 'img', 'notes.jpg'), 'just text, not an image\n');
}

const MANIFEST = [
  'image_id,part_id,info,position,file',
  ',p1,display weight=1,,img/0.jpg',
  'front,p1,display,1,img/1.jpg',
  ',p1,searchable display,,img/2.jpg',
  ',p1,display shiny,,img/3.jpg',
  ',p1,display,,img/missing.jpg',
  ',p1,display,,img/notes.jpg',
  ',ghost,display,,img/4.jpg',
  ',p1,display,,img/5.jpg',
].join('\n');

describe('catalog images (local mode)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = tempDir('catalog-cli-images-');
    setUp(dir);
    expect((await cli(['parts', 'import', '-', '--format', 'ndjson'], { cwd: dir, stdin: '{"part_id":"p1","name":{"en":"Part one"}}\n' })).code).toBe(0);
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a small upload\'s rate in whole bytes per second', () => {
    // A 702-byte upload that took 0.97 s was reported as "720.7887439674781 B/s".
    expect(formatBytes(702 / 0.974)).toBe('721 B');
    expect(formatBytes(702)).toBe('702 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
  });

  it('uploads a manifest: good rows stored, failing rows in the errors file, exit 3', async () => {
    writeFileSync(join(dir, 'data', 'manifest.csv'), MANIFEST);
    const run = await cli(['images', 'upload', 'data/manifest.csv', '-o', 'json'], { cwd: dir });
    expect(run.code).toBe(3);
    const summary = JSON.parse(run.stdout) as { created: number; rejected: number; errors: Record<string, string[]>; errorsFile: string };
    expect(summary.created).toBe(4);
    expect(summary.rejected).toBe(4);
    expect(summary.errorsFile).toBe(join(dir, 'data', 'manifest.errors.csv'));
    const errorsCsv = readFileSync(summary.errorsFile, 'utf8').trim().split('\n');
    expect(errorsCsv[0]).toBe('image_id,part_id,info,position,file,_line,_error,_raw');
    expect(errorsCsv.slice(1).sort()).toEqual([
      ',ghost,display,,img/4.jpg,8,part_id: part \'ghost\' does not exist,',
      `,p1,display shiny,,img/3.jpg,5,"unknown info token 'shiny'; allowed tokens: searchable, display, weight=<number>, position=<integer >= 0>",`,
      `,p1,display,,img/missing.jpg,6,file: img/missing.jpg does not exist (looked in ${join(dir, 'data')}),`,
      `,p1,display,,img/notes.jpg,7,"file 'notes' is not a supported image: its bytes are not JPEG, PNG, WebP, GIF, TIFF or AVIF",`,
    ]);
    expect(run.stderr).toContain(`rejected rows with their errors: ${summary.errorsFile}`);

    const listed = JSON.parse((await cli(['images', 'list', '--part', 'p1', '-o', 'json'], { cwd: dir })).stdout) as { image_id: string; position?: number }[];
    expect(listed.map((i) => i.image_id)).toEqual(['0', '2', '5', 'front']);
    expect(listed.find((i) => i.image_id === 'front')?.position).toBe(1);

    // Download: exact bytes, default name <image_id>.<ext>.
    const download = await cli(['images', 'download', 'front'], { cwd: dir });
    expect(download.code).toBe(0);
    expect(readFileSync(join(dir, 'front.jpg')).equals(readFileSync(join(IMAGES, '1.jpg')))).toBe(true);
    expect((await cli(['images', 'download', 'nope'], { cwd: dir })).code).toBe(6);

    const order = await cli(['images', 'order', 'p1', '-o', 'tsv'], { cwd: dir });
    expect(order.stdout).toBe('rank\timage_id\tshown\n1\tfront\t*\n2\t0\t*\n3\t2\t*\n4\t5\t*\n');

    const show = await cli(['parts', 'show', 'p1'], { cwd: dir });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('  *   1  front  (display, position 1)');
    expect(show.stdout).toMatch(/relations\n {2}\(none\)/);

    // Fixing the errors file's good rows and uploading again is safe: upserts by image_id.
    const again = await cli(['images', 'upload', 'data/manifest.csv'], { cwd: dir });
    expect(again.stderr).toContain('images upload: 0 created, 4 updated, 4 rejected');

    expect((await cli(['parts', 'delete', 'p1'], { cwd: dir })).code).toBe(3);
    const withImages = await cli(['parts', 'delete', 'p1', '--with-images'], { cwd: dir });
    expect(withImages.code).toBe(0);
    expect(withImages.stderr).toContain('images delete: 4 deleted');
  });

  it('--dry-run checks files are images and rows follow the rules, and uploads nothing', async () => {
    writeFileSync(join(dir, 'data', 'manifest.csv'), MANIFEST);
    const run = await cli(['images', 'upload', 'data/manifest.csv', '--dry-run'], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('images upload (dry run): would create 4, would update 0, 4 rejected');
    const errorsCsv = readFileSync(join(dir, 'data', 'manifest.errors.csv'), 'utf8');
    expect(errorsCsv).toContain('img/notes.jpg,7,"file: img/notes.jpg is not a supported image');
    expect(errorsCsv).toContain("part 'ghost' does not exist");
    expect(JSON.parse((await cli(['images', 'list', '-o', 'json'], { cwd: dir })).stdout)).toEqual([]);
  });

  it('uploads files for one part with --part/--info; --resume skips finished batches', async () => {
    const quick = await cli(['images', 'upload', 'data/img/0.jpg', 'data/img/001penny.jpg', '--part', 'p1', '--info', 'display weight=2'], { cwd: dir });
    expect(quick.code).toBe(0);
    expect(JSON.parse((await cli(['images', 'get', '001penny', '-o', 'json'], { cwd: dir })).stdout)).toEqual([{ image_id: '001penny', part_id: 'p1', info: 'display weight=2' }]);
    expect((await cli(['images', 'upload', 'data/img/0.jpg'], { cwd: dir })).code).toBe(2);

    const manifest = join(dir, 'data', 'all.ndjson');
    writeFileSync(manifest, SAMPLE.map((f, i) => JSON.stringify({ image_id: `r${i}`, part_id: 'p1', info: 'searchable', file: `img/${f}` })).join('\n'));
    // A previous run finished batch 0 (r0, r1) and stopped.
    // The checkpoint is bound to the input, the options that make up the batches, and the catalog.
    const dataDir = join(dir, '.catalog');
    const local = openCatalog({ dataDir });
    const { catalogId } = await local.service.getCatalogInfo(LOCAL_OWNER);
    await local.close();
    const options = { format: 'ndjson', batchSize: 2, batchMb: 32, dir: join(dir, 'data') };
    const checkpoint = Checkpoint.fresh(defaultCheckpointPath(manifest), { input: await describeInput(manifest), options }, async () => ({ catalogId, dataDir }));
    await checkpoint.markDone(0);
    const resumed = await cli(['images', 'upload', 'data/all.ndjson', '--batch-size', '2', '--concurrency', '2', '--resume'], { cwd: dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('6 created, 0 updated, 0 rejected');
    expect(resumed.stderr).toContain('1 batches skipped');
    expect(existsSync(defaultCheckpointPath(manifest))).toBe(false);
    const ids = (JSON.parse((await cli(['images', 'list', '-o', 'json'], { cwd: dir })).stdout) as { image_id: string }[]).map((i) => i.image_id);
    expect(ids).toEqual(['0', '001penny', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
  });
});

describe('catalog images (remote mode)', () => {
  let h: Harness;
  let dir: string;
  beforeEach(async () => {
    h = await createHarness('http');
    dir = tempDir('catalog-cli-images-');
    setUp(dir);
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'Part one' } }]);
  });
  afterEach(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('uploads a manifest over HTTP in concurrent batches with the same results as local mode', async () => {
    const { secret } = await h.service.createToken(LOCAL_OWNER, { name: 'cli', roles: ['dataContributor'] });
    writeFileSync(join(dir, 'data', 'manifest.csv'), MANIFEST);
    const env = { CATALOG_URL: h.url ?? '', CATALOG_TOKEN: secret };
    const run = await cli(['images', 'upload', 'data/manifest.csv', '--batch-size', '2', '--concurrency', '3', '-o', 'json'], { cwd: dir, env });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ created: 4, updated: 0, rejected: 4 });
    const ids = (await h.admin.listImages({})).result.map((i) => i.image_id);
    expect(ids).toEqual(['0', '2', '5', 'front']);
    const download = await cli(['images', 'download', '2', '-O', 'out.bin'], { cwd: dir, env });
    expect(download.code).toBe(0);
    expect(readFileSync(join(dir, 'out.bin')).equals(readFileSync(join(IMAGES, '2.jpg')))).toBe(true);
    await h.admin.setMaintenance(true);
    const blocked = await cli(['images', 'upload', 'data/manifest.csv'], { cwd: dir, env });
    expect(blocked.code).toBe(5);
    expect(blocked.stderr).toContain('maintenance mode');
  });
});
