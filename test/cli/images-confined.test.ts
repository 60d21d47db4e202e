/**
 * The image commands write and read only where they are told: `images export` names its files by
 * their SHA-256 checked against the bytes, never by what the server's ETag says (a server answering
 * `ETag: "../../../escape"` writes nothing outside --dir), and `images upload` sends only files
 * under --dir (the manifest's directory by default): absolute paths, `../` and symlinks leading out
 * are rejected rows, not uploads.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';
import { SHARED_IMAGES } from '../helpers/data.js';

const JPEG = readFileSync(join(SHARED_IMAGES, '0.jpg'));

/** A server that lists one image and answers its original with the given ETag. */
async function lyingServer(etag: string, body: Buffer = JPEG): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/1/catalog/images/list') {
      request.resume();
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ result: [{ image_id: 'x', part_id: 'p1', info: 'display', position: null }], last_object_id: 'x', more_data: false }));
      return;
    }
    if (request.method === 'GET' && request.url === '/1/catalog/images/x/original') {
      response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length, etag });
      response.end(body);
      return;
    }
    response.writeHead(404, { 'content-type': 'application/problem+json' });
    response.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no', code: 'not_found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

describe('images export trusts no ETag', () => {
  let root: string;
  let server: Server | undefined;
  beforeEach(() => {
    root = tempDir('catalog-export-etag-');
    mkdirSync(join(root, 'a', 'b', 'c'), { recursive: true });
  });
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    rmSync(root, { recursive: true, force: true });
  });

  it('writes nothing outside --dir for an ETag holding a path, and says the server is not a catalog server', async () => {
    const lying = await lyingServer('"../../../../escape"');
    server = lying.server;
    const run = await cli(['images', 'export', '--dir', 'out'], { cwd: join(root, 'a', 'b', 'c'), env: { CATALOG_URL: lying.url, CATALOG_TOKEN: 'cat_x' } });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/ETag/);
    expect(readdirSync(root).sort()).toEqual(['a', '.config'].filter((name) => existsSync(join(root, name))).sort());
    expect(existsSync(join(root, 'a', 'escape.jpg'))).toBe(false);
    expect(existsSync(join(root, 'escape.jpg'))).toBe(false);
  });

  it('refuses bytes that do not hash to the ETag', async () => {
    const lying = await lyingServer(`"${'0'.repeat(64)}"`);
    server = lying.server;
    const run = await cli(['images', 'export', '--dir', 'out'], { cwd: root, env: { CATALOG_URL: lying.url, CATALOG_TOKEN: 'cat_x' } });
    expect(run.code).toBe(5);
    expect(existsSync(join(root, 'out', 'files', `${'0'.repeat(64)}.jpg`))).toBe(false);
  });

  it('still exports what a real answer names', async () => {
    const sha = createHash('sha256').update(JPEG).digest('hex');
    const honest = await lyingServer(`"${sha}"`);
    server = honest.server;
    const run = await cli(['images', 'export', '--dir', 'out'], { cwd: root, env: { CATALOG_URL: honest.url, CATALOG_TOKEN: 'cat_x' } });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(root, 'out', 'files', `${sha}.jpg`)).equals(JPEG)).toBe(true);
  });
});

describe('images upload sends only files under --dir', () => {
  let root: string;
  beforeEach(async () => {
    root = tempDir('catalog-upload-confined-');
    mkdirSync(join(root, 'set', 'img'), { recursive: true });
    writeFileSync(join(root, 'set', 'img', 'ok.jpg'), JPEG);
    writeFileSync(join(root, 'secret.jpg'), JPEG);
    symlinkSync(join(root, 'secret.jpg'), join(root, 'set', 'img', 'link.jpg'));
    expect((await cli(['parts', 'import', '-', '--format', 'ndjson'], { cwd: root, stdin: '{"part_id":"p1","name":{"en":"Part one"}}\n' })).code).toBe(0);
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('rejects absolute paths, ../ and symlinks leading out, and uploads the rest', async () => {
    writeFileSync(join(root, 'set', 'manifest.csv'), [
      'image_id,part_id,info,file',
      'ok,p1,display,img/ok.jpg',
      `abs,p1,display,${join(root, 'secret.jpg')}`,
      'up,p1,display,../secret.jpg',
      'link,p1,display,img/link.jpg',
    ].join('\n'));
    const run = await cli(['images', 'upload', 'set/manifest.csv', '-o', 'json'], { cwd: root });
    expect(run.code, run.stderr).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ created: 1, rejected: 3 });
    const listed = await cli(['images', 'list', '-o', 'json'], { cwd: root });
    expect((JSON.parse(listed.stdout) as { image_id: string }[]).map((image) => image.image_id)).toEqual(['ok']);
    const errors = readFileSync(join(root, 'set', 'manifest.errors.csv'), 'utf8');
    for (const id of ['abs', 'up', 'link']) expect(errors).toMatch(new RegExp(`^${id},.*outside the manifest's directory`, 'm'));
  });
});
