/**
 * Crash safety of image uploads (api-decisions.md §4): the built server is SIGKILLed in the middle
 * of a CLI upload of 30 images and restarted. Every image it lists must have a readable original
 * with the right SHA-256 (files are durable before their metadata commits), no orphan blob or temp
 * file may remain (swept at start), and running the upload again completes it without duplicates.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { tempDir } from '../helpers/harness.js';
import { SHARED_IMAGES } from '../helpers/data.js';
import { freePort } from '../helpers/bin.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'catalog.js');
const IMAGES = SHARED_IMAGES;
const COUNT = 30;


function catalogSync(args: string[], env: Record<string, string> = {}): string {
  return execFileSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Starts `catalog serve`; resolves once it listens. `onLog` sees every access-log line. */
function startServer(dataDir: string, port: number, onLog: (line: string) => void = () => undefined): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', String(port)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let buffer = '';
    let ready = false;
    child.stderr?.on('data', (data: Buffer) => {
      buffer += data.toString();
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (!ready && line.includes('catalog serving')) {
          ready = true;
          resolve(child);
        }
        onLog(line);
        newline = buffer.indexOf('\n');
      }
    });
    child.once('exit', (code) => {
      if (!ready) reject(new Error(`server exited with ${code ?? 'a signal'} before listening: ${buffer}`));
    });
  });
}

function runCli(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
  return { child, done };
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
}

describe('upload crash (built server, SIGKILL)', () => {
  let dir: string;
  const servers: ChildProcess[] = [];

  beforeAll(() => {
    // The built server, as users run it: `npm test` builds dist/ before the tests run. Never
    // rebuild here: other e2e tests run the built CLI at the same time.
    expect(existsSync(join(ROOT, 'dist', 'http', 'routes', 'images.js')), 'run `npm run build` first').toBe(true);
    dir = tempDir('catalog-crash-');
  });
  afterAll(() => {
    for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every listed image intact and completes on a second run', async () => {
    const dataDir = join(dir, 'data');
    const token = catalogSync(['--data-dir', dataDir, 'tokens', 'create', '--name', 'uploader', '--role', 'dataContributor']).trim();
    const partsFile = join(dir, 'parts.ndjson');
    writeFileSync(partsFile, ['{"part_id":"p1","name":{"en":"One"}}', '{"part_id":"p2","name":{"en":"Two"}}'].join('\n'));
    catalogSync(['--data-dir', dataDir, 'parts', 'import', partsFile]);

    const names = readdirSync(IMAGES).filter((f) => f.endsWith('.jpg')).sort().slice(0, COUNT);
    const expected = new Map<string, string>();
    const manifest = join(dir, 'manifest.ndjson');
    writeFileSync(manifest, names.map((file, i) => {
      expected.set(`img-${i}`, createHash('sha256').update(readFileSync(join(IMAGES, file))).digest('hex'));
      return JSON.stringify({ image_id: `img-${i}`, part_id: i % 2 === 0 ? 'p1' : 'p2', info: 'display searchable', file });
    }).join('\n'));

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let uploads = 0;
    let killed = false;
    // The callback only touches `server` on upload lines, which come after it is assigned.
    const server: ChildProcess = await startServer(dataDir, port, (line) => {
      if (/"POST \/1\/catalog\/images[?"]/.test(line) && / 200 /.test(line) && ++uploads === 5 && !killed) {
        killed = true;
        server.kill('SIGKILL');
      }
    });
    servers.push(server);
    const env = { CATALOG_URL: url, CATALOG_TOKEN: token };
    const uploadArgs = ['images', 'upload', manifest, '--dir', IMAGES, '--batch-size', '2', '--concurrency', '2'];
    const first = runCli(uploadArgs, env);
    const firstRun = await first.done;
    expect(killed).toBe(true);
    // The server died under it: the CLI gives up after its retries (unavailable = exit 5).
    expect(firstRun.code).toBe(5);

    const restarted = await startServer(dataDir, port);
    servers.push(restarted);
    const client = new HttpCatalogClient({ url, token, retries: 0 });
    try {
      const listed = (await client.listImages({ paging: { limit: 1000 } })).result;
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.length).toBeLessThan(COUNT);
      for (const image of listed) {
        const download = await client.downloadImage(image.image_id);
        const hash = createHash('sha256');
        for await (const chunk of download.stream as AsyncIterable<Buffer>) hash.update(chunk);
        expect(hash.digest('hex'), image.image_id).toBe(expected.get(image.image_id));
      }
      // The start-up sweep left no temp file and no blob that no image references.
      expect(filesUnder(join(dataDir, 'images', 'tmp'))).toEqual([]);
      const referenced = new Set(listed.map((i) => expected.get(i.image_id)));
      expect(filesUnder(join(dataDir, 'images', 'blobs')).filter((sha) => !referenced.has(sha))).toEqual([]);

      const second = runCli(uploadArgs, env);
      const secondRun = await second.done;
      expect(secondRun.code, secondRun.stderr).toBe(0);
      const all = (await client.listImages({ paging: { limit: 1000 } })).result;
      expect(all).toHaveLength(COUNT);
      expect(new Set(all.map((i) => i.image_id))).toEqual(new Set(expected.keys()));
    } finally {
      await client.close();
      restarted.kill('SIGTERM');
    }
  });
});
