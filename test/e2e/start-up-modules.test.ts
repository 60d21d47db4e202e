/**
 * What the BUILT CLI loads at start-up: a local search must not load the packages of
 * other paths (image decoding, the HTTP server and client, worker pools, PostgreSQL, S3, spinners);
 * a remote one must not open SQLite. Speed itself is measured by bench/startup.js, never here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, catalogSync } from '../helpers/bin.js';

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

  it('loads no node:crypto, node:child_process or node:fs/promises (the bundle requires them on first use)', () => {
    const out = join(dir, 'builtins.txt');
    const run = spawnSync(process.execPath, ['-e', `
      process.once('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));
      process.argv = [process.argv[0], ${JSON.stringify(BIN)}, '--data-dir', ${JSON.stringify(dataDir)}, 'search', 'cog'];
      require(${JSON.stringify(BIN)});
    `], { encoding: 'utf8', env: { ...process.env, CI: '1' } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('cog-1');
    const builtins = readFileSync(out, 'utf8').split('\n');
    expect(builtins).toContain('NativeModule path'); // the list is Node's own, as read
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
