/**
 * Start-up (issue 12: `catalog search x` on a small local catalog within 2× `node -e 0`): what the
 * BUILT CLI loads and how it reuses compiled code. A local search must not load the packages of
 * other paths (image decoding, the HTTP server and client, worker pools, PostgreSQL, S3, spinners);
 * a remote one must not open SQLite. Speed itself is measured by bench/startup.js, never here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, catalogSync, ROOT } from '../helpers/bin.js';

const RECORDER = join(import.meta.dirname, '..', 'helpers', 'record-modules.cjs');
/** Packages a local text search has no use for, by their directory under node_modules. */
const HEAVY = ['sharp', '@techstark/opencv-js', 'fastify', '@fastify/multipart', 'undici', 'piscina', 'pg', '@aws-sdk/client-s3', '@aws-sdk/lib-storage', 'sonic-boom', 'cli-table3'];

const dir = mkdtempSync(join(tmpdir(), 'catalog-start-up-modules-'));
const dataDir = join(dir, 'catalog');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  const csv = join(dir, 'parts.csv');
  writeFileSync(csv, 'part_id,name.en\ncog-1,Cog wheel\ngear-1,Gear box\n');
  const setup = catalogSync(['--data-dir', dataDir, '--quiet', 'parts', 'import', csv]);
  expect(setup.code, setup.stderr).toBe(0);
});

/** Runs the built CLI with the recorder preloaded; returns its result and the packages it loaded. */
function runRecorded(args: string[], env: Record<string, string> = {}) {
  const out = join(dir, `modules-${Math.random().toString(36).slice(2)}.json`);
  const run = spawnSync(process.execPath, ['--require', RECORDER, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CI: '1', CATALOG_TEST_MODULES_OUT: out, ...env },
  });
  const files = JSON.parse(readFileSync(out, 'utf8')) as string[];
  const packages = new Set(files.flatMap((f) => {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f);
    return m?.[1] ? [m[1]] : [];
  }));
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, packages };
}

describe('a local `catalog search`', () => {
  it('loads SQLite and none of the packages of other paths', () => {
    const run = runRecorded(['--data-dir', dataDir, 'search', 'cog']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('cog-1');
    expect(run.packages.has('better-sqlite3')).toBe(true);
    expect(HEAVY.filter((name) => run.packages.has(name))).toEqual([]);
  });

  it('loads no node:crypto, node:child_process or node:fs/promises (issue 12: ~5 ms CPU of its start-up; the bundle requires them on first use)', () => {
    const out = join(dir, 'builtins.txt');
    const run = spawnSync(process.execPath, ['-e', `
      process.once('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));
      process.argv = [process.argv[0], ${JSON.stringify(BIN)}, '--data-dir', ${JSON.stringify(dataDir)}, 'search', 'cog'];
      require(${JSON.stringify(BIN)});
    `], { encoding: 'utf8', env: { ...process.env, CI: '1' } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('cog-1');
    const builtins = readFileSync(out, 'utf8').split('\n');
    expect(builtins).toContain('NativeModule vm'); // the list is Node's own, as read
    expect(builtins.filter((m) => /^NativeModule (crypto|child_process|fs\/promises)$/.test(m))).toEqual([]);
  });

  it('still loads cli-table3 when it draws a table (the recorder sees packages loaded by import())', () => {
    const run = runRecorded(['--data-dir', dataDir, '-o', 'table', 'search', 'cog']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.packages.has('cli-table3')).toBe(true);
  });
});

describe('a remote `catalog search`', () => {
  it('loads the HTTP client and not SQLite', () => {
    const run = runRecorded(['--remote', 'http://127.0.0.1:9', 'search', 'cog']);
    expect(run.code).toBe(5);
    expect(run.packages.has('undici')).toBe(true);
    expect(run.packages.has('better-sqlite3')).toBe(false);
  });
});

describe('the code cache (src/cli/compile-cache.ts)', () => {
  it('is written by a first run, used by the next, and changes no output', () => {
    const cache = join(dir, 'compile-cache');
    const first = catalogSync(['--data-dir', dataDir, '-o', 'json', '--fields', 'id,name', 'search', 'cog'], { CATALOG_COMPILE_CACHE: cache });
    expect(first.code, first.stderr).toBe(0);
    const [versionDir] = readdirSync(cache);
    const [bundleDir] = readdirSync(join(cache, versionDir!));
    const entries = readdirSync(join(cache, versionDir!, bundleDir!));
    expect(entries).toEqual(expect.arrayContaining([expect.stringMatching(/^main\.cjs\.[0-9a-f]{16}\.bin$/), expect.stringMatching(/^cli-.*\.cjs\.[0-9a-f]{16}\.bin$/), expect.stringMatching(/^local-.*\.cjs\.[0-9a-f]{16}\.bin$/)]));
    const second = catalogSync(['--data-dir', dataDir, '-o', 'json', '--fields', 'id,name', 'search', 'cog'], { CATALOG_COMPILE_CACHE: cache });
    const uncached = catalogSync(['--data-dir', dataDir, '-o', 'json', '--fields', 'id,name', 'search', 'cog'], { CATALOG_COMPILE_CACHE: '0' });
    const results = (stdout: string) => (JSON.parse(stdout) as { results: unknown[] }).results;
    expect(results(second.stdout)).toEqual(results(first.stdout));
    expect(results(uncached.stdout)).toEqual(results(first.stdout));
    // Stale entries (of a chunk the bundle no longer has, of an older main.cjs) go when a run writes entries.
    writeFileSync(join(cache, versionDir!, bundleDir!, 'cli-0ld.cjs.0123456789abcdef.bin'), 'old');
    writeFileSync(join(cache, versionDir!, bundleDir!, 'main.cjs.0123456789abcdef.bin'), 'old');
    rmSync(join(cache, versionDir!, bundleDir!, entries.find((e) => e.startsWith('local-'))!));
    expect(catalogSync(['--data-dir', dataDir, 'search', 'cog'], { CATALOG_COMPILE_CACHE: cache }).code).toBe(0);
    expect(readdirSync(join(cache, versionDir!, bundleDir!)).sort()).toEqual([...entries].sort());
  });

  it('never runs the old code of a file rebuilt to the same length (V8 checks only the length)', () => {
    const bundle = join(dir, 'same-length');
    const cache = join(dir, 'same-length-cache');
    mkdirSync(bundle);
    const load = () => spawnSync(process.execPath, ['-e', `
      require(${JSON.stringify(join(ROOT, 'dist', 'bundle', 'compile-cache.cjs'))}).installCompileCache(${JSON.stringify(bundle)}, { CATALOG_COMPILE_CACHE: ${JSON.stringify(cache)} });
      process.stdout.write(String(require(${JSON.stringify(join(bundle, 'answer.cjs'))})));
    `], { encoding: 'utf8' });
    writeFileSync(join(bundle, 'answer.cjs'), 'module.exports = 1;');
    expect(load().stdout).toBe('1');
    expect(load().stdout).toBe('1');
    writeFileSync(join(bundle, 'answer.cjs'), 'module.exports = 2;');
    expect(load().stdout).toBe('2');
  });

  it('is not used in a directory others may write', () => {
    const shared = join(dir, 'shared');
    const run = spawnSync('sh', ['-c', `mkdir -m 0777 "${shared}" && chmod 0777 "${shared}" && "${BIN}" --data-dir "${dataDir}" search cog`], {
      encoding: 'utf8',
      env: { ...process.env, CI: '1', CATALOG_COMPILE_CACHE: shared },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('cog-1');
    expect(readdirSync(shared)).toEqual([]);
  });
});
