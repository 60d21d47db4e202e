/**
 * Output people and scripts can trust, the CLI in-process as a user runs it:
 * unquoted search words, --fields the same in every format, import summaries with the first errors
 * inline, a header with unknown columns refused before any row, relations --dry-run counting like a
 * real run, a read of a missing data directory, an upload that moves an image, a --remote that is
 * not a catalog server, and an image search reading stdin.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIDENT_IMAGE_SCORE } from '../../src/api/schemas.js';
import { runCli } from '../../src/cli/main.js';
import { cli } from '../helpers/cli.js';
import { SHARED_IMAGES } from '../helpers/data.js';
import { tempDir } from '../helpers/harness.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

describe('output of the catalog CLI', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('catalog-cli-output-');
    expect((await cli(['attributes', 'import', join(FIXTURES, 'attributes.csv')], { cwd: dir })).code).toBe(0);
    expect((await cli(['parts', 'import', join(FIXTURES, 'parts.csv')], { cwd: dir })).code).toBe(0);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('search takes its words unquoted: the same hits as the quoted text', async () => {
    const unquoted = await cli(['search', 'gigabit', 'network', '-o', 'json'], { cwd: dir });
    expect(unquoted.code).toBe(0);
    const quoted = await cli(['search', 'gigabit network', '-o', 'json'], { cwd: dir });
    const ids = (s: string) => (JSON.parse(s) as { results: { id: string }[] }).results.map((r) => r.id);
    expect(ids(unquoted.stdout)).toEqual(ids(quoted.stdout));
    expect(ids(unquoted.stdout)).toContain('pci:8086:1539');
  });

  it('--fields means the same in table, json, ndjson, csv and tsv, nested names included', async () => {
    const args = ['parts', 'get', 'pci:8086:1539', '--fields', 'part_id,name.en,attr:vendor.en'];
    const json = await cli([...args, '-o', 'json'], { cwd: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ part_id: 'pci:8086:1539', name: { en: 'I211 Gigabit Network Connection' }, 'attr:vendor.en': 'Intel Corporation' }]);
    const ndjson = await cli([...args, '-o', 'ndjson'], { cwd: dir });
    expect(JSON.parse(ndjson.stdout)).toEqual(JSON.parse(json.stdout)[0]);
    expect((await cli([...args, '-o', 'csv'], { cwd: dir })).stdout).toBe('part_id,name.en,attr:vendor.en\npci:8086:1539,I211 Gigabit Network Connection,Intel Corporation\n');
    expect((await cli([...args, '-o', 'tsv'], { cwd: dir })).stdout).toBe('part_id\tname.en\tattr:vendor.en\npci:8086:1539\tI211 Gigabit Network Connection\tIntel Corporation\n');
    const table = await cli([...args, '-o', 'table'], { cwd: dir });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ part_id +│ name\.en +│ attr:vendor\.en +│/);
    expect(table.stdout).toMatch(/│ pci:8086:1539 │ I211 Gigabit Network Connection │ Intel Corporation │/);
    // search -o json applies --fields to the hits too.
    const hits = JSON.parse((await cli(['search', 'gigabit', '--fields', 'id', '-o', 'json'], { cwd: dir })).stdout) as { results: Record<string, unknown>[] };
    expect(hits.results.length).toBeGreaterThan(0);
    for (const hit of hits.results) expect(Object.keys(hit)).toEqual(['id']);
    const unknown = await cli(['parts', 'list', '--fields', 'nme.en', '-o', 'json'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown field 'nme.en'/);
  });

  it('table cells show attribute values as id: value text, and a part list in a pipe streams every part', async () => {
    const table = await cli(['parts', 'get', 'pci:8086:1539', '-o', 'table', '--fields', 'part_id,attributes'], { cwd: dir });
    expect(table.stdout).toContain('vendor: Intel Corporation');
    expect(table.stdout).toContain('stock_bin@acme: A-12');
    expect(table.stdout).not.toContain('{"attribute_id"');
    const tsv = await cli(['parts', 'list'], { cwd: dir });
    expect(tsv.stdout.trim().split('\n')).toHaveLength(readFileSync(join(FIXTURES, 'parts.csv'), 'utf8').trim().split('\n').length);
  });

  it('an import summary shows its first errors inline; a header naming unknown columns is refused before any row', async () => {
    const rows = ['part_id,name.en', ...Array.from({ length: 8 }, (_, i) => `bad${i},`)].join('\n');
    writeFileSync(join(dir, 'rows.csv'), `${rows}\n`);
    const run = await cli(['parts', 'import', 'rows.csv'], { cwd: dir });
    expect(run.code).toBe(3);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe('parts import: 0 created, 0 updated, 8 rejected');
    expect(lines.slice(1, 6).map((l) => /^ {2}(?:bad\d: )?line (\d+):/.exec(l)?.[1])).toEqual(['2', '3', '4', '5', '6']);
    expect(lines[6]).toMatch(/and more \(8 rejected rows in all\)/);
    expect(lines[7]).toBe(`rejected rows with their errors: ${join(dir, 'rows.errors.csv')}`);

    writeFileSync(join(dir, 'header.csv'), 'partid,nme.en,colour\nx,y,z\nw,v,u\n');
    const header = await cli(['parts', 'import', 'header.csv'], { cwd: dir });
    expect(header.code).toBe(2);
    expect(header.stderr.trim().split('\n')).toHaveLength(1);
    expect(header.stderr).toContain("'partid' (did you mean 'part_id'?)");
    expect(header.stderr).toContain("'nme.en' (did you mean 'name.en'?)");
    expect(header.stderr).toContain("'colour' (did you mean 'attr:colour.en'?)");
    expect(existsSync(join(dir, 'header.errors.csv'))).toBe(false);
  });

  it('relations import --dry-run rejects relations naming missing parts, as the real run does', async () => {
    writeFileSync(join(dir, 'rel.csv'), 'anchor_part_id,related_part_id,type\nnope1,nope2,duplicate\npci:8086:1539,pci:8086:15b8,equivalent\npci:8086:1539,ghost,substitute\n');
    const dry = await cli(['relations', 'import', 'rel.csv', '--dry-run', '-o', 'json'], { cwd: dir });
    const real = await cli(['relations', 'import', 'rel.csv', '-o', 'json'], { cwd: dir });
    expect(dry.code).toBe(3);
    expect(real.code).toBe(3);
    const counts = (s: string) => {
      const j = JSON.parse(s) as { created: number; updated: number; rejected: number; errors: Record<string, string[]> };
      return { changed: j.created + j.updated, rejected: j.rejected, errors: j.errors };
    };
    expect(counts(dry.stdout)).toEqual(counts(real.stdout));
    expect(counts(dry.stdout).rejected).toBe(2);
  });

  it('a read of a data directory that does not exist fails with exit 6 naming it, and creates nothing', async () => {
    const missing = join(dir, 'no-such-catalog');
    for (const args of [['parts', 'list'], ['attributes', 'get', 'x'], ['search', 'x'], ['parts', 'show', 'x']]) {
      const run = await cli(['--data-dir', missing, ...args], { cwd: dir });
      expect(run.code, args.join(' ')).toBe(6);
      expect(run.stderr).toContain(`data directory ${missing} does not exist`);
      expect(existsSync(missing)).toBe(false);
    }
    const write = await cli(['--data-dir', missing, 'attributes', 'import', join(FIXTURES, 'demo', 'attributes.csv')], { cwd: dir });
    expect(write.code).toBe(0);
    expect(existsSync(join(missing, 'catalog.db'))).toBe(true);
    const cannot = await cli(['--data-dir', '/proc/nope', 'attributes', 'import', join(FIXTURES, 'demo', 'attributes.csv')], { cwd: dir });
    expect(cannot.code).toBe(2);
    expect(cannot.stderr).toMatch(/data directory \/proc\/nope/);
  });
});

/** Runs the CLI in-process with binary stdin (the shared helper takes text). */
async function cliBytes(args: string[], cwd: string, stdin: Buffer): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const env = { HOME: cwd, XDG_CONFIG_HOME: join(cwd, '.config'), PATH: process.env.PATH };
  const code = await runCli(['node', 'catalog', ...args], { stdout, stderr, stdin: Readable.from([stdin]), env, cwd });
  return { code, stdout: out, stderr: err };
}

describe('images: an upload that moves an image; image search from stdin', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('catalog-cli-output-img-');
    mkdirSync(join(dir, 'img'));
    copyFileSync(join(SHARED_IMAGES, '1.jpg'), join(dir, 'img', 'one.jpg'));
    copyFileSync(join(SHARED_IMAGES, '2.jpg'), join(dir, 'img', 'two.jpg'));
    const parts = '{"part_id":"p1","name":{"en":"One"}}\n{"part_id":"p2","name":{"en":"Two"}}\n';
    expect((await cli(['parts', 'import', '-', '--format', 'ndjson'], { cwd: dir, stdin: parts })).code).toBe(0);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('says moved: 1 when an upload with --replace gives an existing image to another part; without it the row is rejected', async () => {
    writeFileSync(join(dir, 'm1.csv'), 'image_id,part_id,info,file\nshot,p1,searchable display,img/one.jpg\nother,p1,searchable display,img/two.jpg\n');
    expect((await cli(['images', 'upload', 'm1.csv'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'm2.csv'), 'image_id,part_id,info,file\nshot,p2,searchable display,img/one.jpg\nother,p1,searchable display,img/two.jpg\n');
    const refusedDry = await cli(['images', 'upload', 'm2.csv', '--dry-run'], { cwd: dir });
    expect(refusedDry.stderr).toMatch(/would update 1, 1 rejected/);
    const refused = await cli(['images', 'upload', 'm2.csv', '-o', 'json'], { cwd: dir });
    expect(refused.code).toBe(3);
    expect(readFileSync(join(dir, 'm2.errors.csv'), 'utf8')).toContain("image 'shot' already exists on part 'p1'");
    const stays = await cli(['images', 'get', 'shot', '-o', 'json'], { cwd: dir });
    expect(JSON.parse(stays.stdout)).toMatchObject([{ image_id: 'shot', part_id: 'p1' }]);
    const dry = await cli(['images', 'upload', 'm2.csv', '--dry-run', '--replace'], { cwd: dir });
    expect(dry.stderr).toMatch(/would update 2 \(moved: 1 to another part\)/);
    const run = await cli(['images', 'upload', 'm2.csv', '--replace', '-o', 'json'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/0 created, 2 updated \(moved: 1 to another part\), 0 rejected/);
    expect(JSON.parse(run.stdout)).toMatchObject({ created: 0, updated: 2, moved: 1, rejected: 0 });
  });

  it('search --image - reads the photo from stdin: the same hits as the file', async () => {
    const photo = readFileSync(join(dir, 'img', 'two.jpg'));
    const fromFile = await cli(['search', '--image', 'img/two.jpg', '-o', 'json'], { cwd: dir });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const fromStdin = await cliBytes(['search', '--image', '-', '-o', 'json'], dir, photo);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const ids = (s: string) => (JSON.parse(s) as { results: { id: string }[] }).results.map((r) => r.id);
    expect(ids(fromStdin.stdout)).toEqual(ids(fromFile.stdout));
    expect(ids(fromStdin.stdout)[0]).toBe('p1');
    const empty = await cli(['search', '--image', '-'], { cwd: dir, stdin: '' });
    expect(empty.code).toBe(2);
  });

  it('search --image shows each hit\'s similarity score; a photo of nothing in the catalog says so instead of listing every part', async () => {
    const found = await cli(['search', '--image', 'img/two.jpg', '-o', 'tsv'], { cwd: dir });
    expect(found.code, found.stderr).toBe(0);
    const [header, first] = found.stdout.trim().split('\n');
    expect(header?.split('\t')).toEqual(['id', 'name', 'score', 'modifiedAt']);
    const [id, , score] = first?.split('\t') ?? [];
    expect(id).toBe('p1');
    expect(Number(score)).toBeGreaterThanOrEqual(CONFIDENT_IMAGE_SCORE);
    expect(Number(score)).toBeLessThanOrEqual(1);
    copyFileSync(join(SHARED_IMAGES, 'tiger.jpg'), join(dir, 'img', 'tiger.jpg'));
    const none = await cli(['search', '--image', 'img/tiger.jpg'], { cwd: dir });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).not.toContain('p2');
    expect(none.stderr).toMatch(/no part matches this photo with a similarity score of at least 0\.5/);
    expect(none.stderr).toContain('--min-score 0');
    const closest = await cli(['search', '--image', 'img/tiger.jpg', '--min-score', '0', '-o', 'json'], { cwd: dir });
    const results = (JSON.parse(closest.stdout) as { results: { score: number }[] }).results;
    expect(results.length).toBe(2);
    for (const r of results) expect(r.score).toBeLessThan(CONFIDENT_IMAGE_SCORE);
    const bad = await cli(['search', '--image', 'img/tiger.jpg', '--min-score', '2'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--min-score.*between 0 and 1/);
  });
});

describe('tokens whoami', () => {
  it('shows the token in use: local mode is the data directory\'s owner with every permission', async () => {
    const dir = tempDir('catalog-cli-whoami-');
    const run = await cli(['tokens', 'whoami', '-o', 'json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ name: 'local', organization: '', may: 'writeCatalog setImagePosition maintenance', permissions: { writeCatalog: true, setImagePosition: true, maintenance: true } })]);
  });
});

describe('--remote pointed at something that is not a catalog server', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const notFound = req.url?.includes('/parts') === true;
      res.writeHead(notFound ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!DOCTYPE html>\n<html><head><title>Welcome</title></head>\n<body>${'<p>hello</p>\n'.repeat(50)}</body></html>\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    [['parts', 'list'], '404'],
    [['search', 'x'], '200'],
  ])('%j: one line naming the URL, the status and the content type', async (args, status) => {
    const run = await cli(['--remote', url, ...args], { cwd: tempDir('catalog-cli-remote-'), env: { CATALOG_TOKEN: 'cat_x' } });
    expect(run.code).toBe(5);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toContain(url);
    expect(lines[0]).toContain(`HTTP ${status} with text/html`);
    expect(run.stderr).not.toContain('<html>');
  });
});
