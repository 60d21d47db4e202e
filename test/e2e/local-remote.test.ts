/**
 * The built CLI (bin/catalog.js, as a user runs it) prints the same in local mode and in remote
 * mode against `catalog serve` on the same kind of data.
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'catalog.js');

function catalog(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1', ...env } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('local and remote mode print the same', () => {
  let dir: string;
  let server: ReturnType<typeof spawn>;
  let url: string;
  let token: string;
  beforeAll(async () => {
    dir = tempDir('catalog-e2e-');
    const created = catalog(['--data-dir', join(dir, 'server'), 'tokens', 'create', '--name', 'ci', '--role', 'catalogAdmin']);
    expect(created.code).toBe(0);
    token = created.stdout.trim();
    expect(token).toMatch(/^cat_[A-Za-z0-9_-]{43}$/);
    server = spawn(process.execPath, [BIN, '--data-dir', join(dir, 'server'), 'serve', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      server.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /at (http:\/\/\S+)/.exec(err);
        if (m?.[1]) resolve(m[1]);
      });
      server.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
    });
  });
  afterAll(async () => {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('attributes import then list -o json', () => {
    const local = catalog(['--data-dir', join(dir, 'local'), 'attributes', 'import', 'fixtures/attributes.csv']);
    const remote = catalog(['--remote', url, 'attributes', 'import', 'fixtures/attributes.csv'], { CATALOG_TOKEN: token });
    expect(local.code).toBe(0);
    expect(remote.code).toBe(0);
    expect(remote.stderr).toBe(local.stderr);
    const localList = catalog(['--data-dir', join(dir, 'local'), 'attributes', 'list', '-o', 'json']);
    const remoteList = catalog(['--remote', url, 'attributes', 'list', '-o', 'json'], { CATALOG_TOKEN: token });
    expect(localList.code).toBe(0);
    expect(remoteList.stdout).toBe(localList.stdout);
    expect((JSON.parse(localList.stdout) as unknown[]).length).toBe(7);
  });

  it('the server refuses to start without a token, saying how to create one', () => {
    const run = catalog(['--data-dir', join(dir, 'empty'), 'serve', '--port', '0']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('catalog tokens create');
  });

  it('a remote call without a token exits 4; an unreachable server exits 5', () => {
    expect(catalog(['--remote', url, 'attributes', 'list']).code).toBe(4);
    expect(catalog(['--remote', 'http://127.0.0.1:9', 'attributes', 'list'], { CATALOG_TOKEN: token }).code).toBe(5);
  });
});
