/**
 * `catalog completion` and `catalog config` as a user runs them.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';

describe('completion and config', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('catalog-cli-');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('completion scripts list the nouns, verbs and options', async () => {
    const bash = await cli(['completion', 'bash'], { cwd: dir });
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -F _catalog catalog');
    expect(bash.stdout).toMatch(/"attributes"\) subs="import list get delete help"/);
    expect(bash.stdout).toContain('--dry-run');
    expect((await cli(['completion', 'zsh'], { cwd: dir })).stdout).toContain('#compdef catalog');
    expect((await cli(['completion', 'fish'], { cwd: dir })).stdout).toContain("__fish_seen_subcommand_from relations");
    expect((await cli(['completion', 'tcsh'], { cwd: dir })).code).toBe(2);
  });

  it('config shows each value and where it came from: flag > env > profile > default', async () => {
    mkdirSync(join(dir, '.config', 'catalog'), { recursive: true });
    writeFileSync(join(dir, 'token.txt'), 'cat_secret\n');
    writeFileSync(join(dir, '.config', 'catalog', 'config.json'), JSON.stringify({ profiles: { prod: { remote: 'http://prod.example:8080', tokenFile: 'token.txt', output: 'json' } } }));
    const run = await cli(['config', '--profile', 'prod', '-o', 'tsv'], { cwd: dir, env: { CATALOG_DATA_DIR: 'envdir' } });
    expect(run.code).toBe(0);
    const rows = Object.fromEntries(run.stdout.trim().split('\n').slice(1).map((l) => { const [k, v, s] = l.split('\t'); return [k, [v, s]]; }));
    expect(rows.mode).toEqual(['remote', 'profile']);
    expect(rows.remote).toEqual(['http://prod.example:8080', 'profile']);
    expect(rows['data-dir']).toEqual([join(dir, 'envdir'), 'env']);
    expect(rows.token).toEqual(['set (profile tokenFile token.txt)', 'profile']);
    expect(rows.output).toEqual(['tsv', 'flag']);
    expect(run.stdout).not.toContain('cat_secret');
    expect((await cli(['config', '--profile', 'nope'], { cwd: dir })).code).toBe(2);
  });
});
