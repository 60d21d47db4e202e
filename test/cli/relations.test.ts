/**
 * `catalog relations import|add|get` as a user runs them (local mode).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

describe('catalog relations', () => {
  let dir: string;
  beforeEach(async () => {
    dir = tempDir('catalog-cli-');
    await cli(['attributes', 'import', join(FIXTURES, 'attributes.csv')], { cwd: dir });
    await cli(['parts', 'import', join(FIXTURES, 'parts.csv')], { cwd: dir });
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports the fixture and shows both sides of a substitute', async () => {
    const run = await cli(['relations', 'import', join(FIXTURES, 'relations.csv')], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('relations import: 2 created, 0 updated, 0 rejected');
    const got = JSON.parse((await cli(['relations', 'get', 'pci:8086:1539', '-o', 'json'], { cwd: dir })).stdout) as { part_id: string; part_role: string; type: string; user_id: string }[];
    expect(got.map((r) => [r.part_id, r.part_role, r.type, r.user_id])).toEqual([
      ['pci:10ec:8168', 'related_part', 'equivalent', 'local'],
      ['pci:8086:15b8', 'anchor_part', 'substitute', 'local'],
    ]);
  });

  it('stores the good rows of a batch and rejects the bad ones with their lines (all-or-nothing API)', async () => {
    const input = join(dir, 'rel.csv');
    writeFileSync(input, ['anchor_part_id,related_part_id,type', 'pci:8086:1539,pci:10de:1b80,duplicate', 'pci:8086:1539,ghost,equivalent', 'pci:1022:1480,pci:1022:1480,equivalent', 'pci:10de:1b80,pci:1022:1480,cousin'].join('\n'));
    const run = await cli(['relations', 'import', input, '-o', 'json'], { cwd: dir });
    expect(run.code).toBe(3);
    const summary = JSON.parse(run.stdout) as { created: number; rejected: number; errors: Record<string, string[]> };
    expect(summary.created).toBe(1);
    expect(summary.rejected).toBe(3);
    expect(Object.keys(summary.errors).sort()).toEqual(['line:3', 'line:4', 'line:5']);
    expect(summary.errors['line:3']?.join()).toMatch(/ghost/);
    expect(readFileSync(join(dir, 'rel.errors.csv'), 'utf8')).toContain('pci:8086:1539,ghost,equivalent,3,');
    const got = await cli(['relations', 'get', 'pci:10de:1b80', '--type', 'duplicate', '-o', 'json'], { cwd: dir });
    expect((JSON.parse(got.stdout) as unknown[]).length).toBe(1);
  });

  it('add writes one relation; get of an unknown part exits 6', async () => {
    expect((await cli(['relations', 'add', 'pci:8086:1539', 'pci:8086:15b8', '--type', 'not_related'], { cwd: dir })).code).toBe(0);
    expect((await cli(['relations', 'get', 'nope'], { cwd: dir })).code).toBe(6);
    expect((await cli(['relations', 'add', 'pci:8086:1539', 'pci:8086:15b8', '--type', 'cousin'], { cwd: dir })).code).toBe(2);
  });
});
