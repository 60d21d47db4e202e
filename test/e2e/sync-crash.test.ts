/**
 * `catalog images sync` killed with SIGKILL mid-sync and run again (the built CLI, both modes): the
 * second run sends only the photos the first did not store, and the catalog ends with every photo
 * exactly once, each with its file's SHA-256; a third run finds nothing to do.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { buildApp } from '../../src/http/app.js';
import { openCatalog } from '../../src/open-catalog.js';
import { BIN, ROOT } from '../helpers/bin.js';
import { SHARED_IMAGES } from '../helpers/data.js';
import { tempDir } from '../helpers/harness.js';

const COUNT = 40;

/** Runs the built CLI; `killWhen` is polled every 20 ms and SIGKILLs it once true. */
function runUntil(args: string[], env: Record<string, string>, killWhen: () => boolean = () => false): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  // Not spawnSync: the server of the remote mode answers from this process's event loop.
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, CI: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setInterval(() => {
    if (killWhen()) child.kill('SIGKILL');
  }, 20);
  return new Promise((resolve) => child.once('exit', (code, signal) => {
    clearInterval(timer);
    resolve({ code, signal, stdout, stderr });
  }));
}

describe.each(['local', 'remote'] as const)('images sync killed with SIGKILL and run again (%s)', (mode) => {
  let dir: string;
  let close = async (): Promise<void> => undefined;
  beforeAll(() => {
    expect(existsSync(join(ROOT, 'dist', 'bundle', 'main.cjs')), 'run `npm run build` first').toBe(true);
  });
  afterEach(async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses and duplicates nothing', async () => {
    dir = tempDir('catalog-sync-crash-');
    const photos = join(dir, 'photos');
    mkdirSync(photos);
    const expected = new Map<string, string>();
    const names = readdirSync(SHARED_IMAGES).filter((f) => f.endsWith('.jpg')).sort().slice(0, COUNT);
    names.forEach((name, i) => {
      const file = `P${String(i).padStart(2, '0')}.jpg`;
      copyFileSync(join(SHARED_IMAGES, name), join(photos, file));
      expected.set(file, `"${createHash('sha256').update(readFileSync(join(SHARED_IMAGES, name))).digest('hex')}"`);
    });
    const dataDir = join(dir, 'catalog');
    const parts = [...expected.keys()].map((f) => ({ part_id: f.replace('.jpg', ''), name: { en: f } }));

    let env: Record<string, string>;
    let stored: () => number;
    let catalog: Catalog | undefined;
    if (mode === 'local') {
      env = { CATALOG_DATA_DIR: dataDir };
      const seed = openCatalog({ dataDir });
      await new LocalCatalogClient(seed).upsertParts(parts);
      await seed.close();
      stored = () => {
        const db = new Database(join(dataDir, 'catalog.db'), { readonly: true, fileMustExist: true });
        try {
          return (db.prepare('SELECT count(*) AS n FROM images').get() as { n: number }).n;
        } finally {
          db.close();
        }
      };
    } else {
      catalog = openCatalog({ dataDir });
      const uploads: string[] = [];
      const app: FastifyInstance = buildApp({ catalog, accessLog: { write: (line: string) => (/"POST \/1\/catalog\/images" 200 /.test(line) ? uploads.push(line) : 0) } });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      const { secret } = await catalog.service.createToken(LOCAL_OWNER, { name: 'sync', roles: ['dataContributor'] });
      await new LocalCatalogClient(catalog).upsertParts(parts);
      env = { CATALOG_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, CATALOG_TOKEN: secret };
      stored = () => uploads.length * 2;
      const opened = catalog;
      close = async () => {
        await app.close();
        await opened.close();
      };
    }

    const args = ['images', 'sync', photos, '--batch-size', '2', '--concurrency', '1', '-o', 'json'];
    const killed = await runUntil(args, env, () => stored() >= 6);
    expect(killed.signal, killed.stderr).toBe('SIGKILL');

    const second = await runUntil(args, env);
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout) as { created: number; updated: number; unchanged: number; rejected: number };
    expect(summary.rejected).toBe(0);
    expect(summary.updated).toBe(0);
    expect(summary.unchanged).toBeGreaterThanOrEqual(6);
    expect(summary.unchanged).toBeLessThan(COUNT);
    expect(summary.created + summary.unchanged).toBe(COUNT);

    const third = await runUntil(args, env);
    expect(JSON.parse(third.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: COUNT, rejected: 0 });

    const reader = catalog ?? openCatalog({ dataDir });
    try {
      const listed = (await new LocalCatalogClient(reader).listImages({ projection: ['part_id', 'etag'], paging: { limit: 1000 } })).result;
      expect(new Map(listed.map((i) => [i.image_id, i.etag]))).toEqual(expected);
      expect(listed.every((i) => `${i.part_id ?? ''}.jpg` === i.image_id)).toBe(true);
    } finally {
      if (!catalog) await reader.close();
    }
  });
});
