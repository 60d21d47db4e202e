/**
 * The README tour's server: started as the tour starts it (`./bin/catalog.js
 * serve ... &` in a shell), `kill $!` stops the server itself; `--access-log <file>` puts the
 * access log in that file instead of stderr. Runs the built CLI (npm run build).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogSync, freePort, ROOT } from '../helpers/bin.js';
import { tempDir } from '../helpers/harness.js';

describe('catalog serve as the README tour runs it', () => {
  const dir = tempDir('catalog-cli-serve-');
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill $! stops the server; the access log goes to --access-log', async () => {
    const dataDir = join(dir, 'data');
    const token = catalogSync(['--data-dir', dataDir, 'tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin']).stdout.trim();
    const port = await freePort();
    const log = join(dir, 'serve.log');
    // The tour's lines, in a shell: start in the background, use it, `kill $!`, then check nothing listens.
    const script = [
      'set -e',
      `./bin/catalog.js --data-dir "$DATA" serve --port ${port} --access-log "$LOG" 2>"$DIR/serve.err" &`,
      `for i in $(seq 100); do ./bin/catalog.js --remote http://127.0.0.1:${port} maintenance status >/dev/null 2>&1 && break; sleep 0.1; done`,
      `./bin/catalog.js --remote http://127.0.0.1:${port} attributes list -o json`,
      'kill $!',
      'wait $! || true',
      `if ./bin/catalog.js --remote http://127.0.0.1:${port} maintenance status >/dev/null 2>&1; then echo STILL-LISTENING; fi`,
    ].join('\n');
    const run = spawnSync('sh', ['-c', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CI: '1', CATALOG_TOKEN: token, DATA: dataDir, LOG: log, DIR: dir },
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.split('\n').filter((l) => !l.startsWith('STILL')).join('\n'))).toEqual([]);
    expect(run.stdout).not.toContain('STILL-LISTENING');
    const access = readFileSync(log, 'utf8');
    expect(access).toMatch(/"POST \/1\/catalog\/attributes\/list[^"]*" 200/);
    expect(readFileSync(join(dir, 'serve.err'), 'utf8')).not.toMatch(/"POST /);
  });

  it('an access log that cannot be written fails at once, naming it', () => {
    const run = catalogSync(['--data-dir', join(dir, 'data'), 'serve', '--port', '0', '--access-log', join(dir, 'no', 'such', 'dir', 'x.log')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot write --access-log ${join(dir, 'no', 'such', 'dir', 'x.log')}`);
  });

  it('a reader of stderr that stops reading does not stall the server: the access log waits, then arrives whole', async () => {
    const dataDir = join(dir, 'stalled');
    const token = catalogSync(['--data-dir', dataDir, 'tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin']).stdout.trim();
    const port = await freePort();
    // stderr is a pipe nobody reads for a while (a stuck `| tee`, a stopped log shipper): requests
    // go on being answered, the access log waits in the server (bounded, access-log.ts), and when
    // the reader comes back every line arrives, whole and in order.
    const server = spawn(process.execPath, [join(ROOT, 'bin', 'catalog.js'), '--data-dir', dataDir, 'serve', '--port', String(port), '--readers', '1'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    server.stderr.pause();
    try {
      const get = async () => (await fetch(`http://127.0.0.1:${port}/1/catalog/info`, { headers: { authorization: `Bearer ${token}` } })).status;
      for (let i = 0; i < 100; i++) {
        if (await get().catch(() => 0) === 200) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      // Long URLs make long lines: 1,500 requests write ~700 KB, past any pipe's or socket pair's buffer.
      const long = `/1/catalog/parts/${'x'.repeat(400)}`;
      const statuses: number[] = [];
      for (let i = 0; i < 1500; i++) statuses.push((await fetch(`http://127.0.0.1:${port}${long}`, { headers: { authorization: `Bearer ${token}` } })).status);
      expect(statuses.every((s) => s === 404)).toBe(true);
      // Reading again: every line comes out, none dropped (far below the 16 MiB held back).
      let log = '';
      server.stderr.on('data', (d: Buffer) => (log += d.toString()));
      server.stderr.resume();
      const lines = () => (log.match(/"GET \/1\/catalog\/parts\/x{400}" 404/g) ?? []).length;
      for (let i = 0; i < 100 && lines() < 1500; i++) await new Promise((r) => setTimeout(r, 100));
      expect(lines()).toBe(1500);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  });

  it('limits given as flags reach the server: --max-body-mb and --readers', async () => {
    const dataDir = join(dir, 'limits');
    const token = catalogSync(['--data-dir', dataDir, 'tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin']).stdout.trim();
    const port = await freePort();
    const server = spawn(process.execPath, [join(ROOT, 'bin', 'catalog.js'), '--data-dir', dataDir, 'serve', '--port', String(port), '--max-body-mb', '1', '--readers', '1', '--access-log', join(dir, 'limits.log')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      let status = 0;
      // 1.5 MiB of organizations: over the 1 MiB given for "every other endpoint".
      const body = JSON.stringify(Array.from({ length: 30_000 }, (_, i) => ({ org_id: `organization-${i}-padding-padding` })));
      for (let i = 0; i < 100 && status === 0; i++) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/1/catalog/organizations`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
          status = res.status;
          expect((await res.json()) as { detail: string }).toMatchObject({ detail: expect.stringContaining('1 MiB') });
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect(status).toBe(413);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  });
});
