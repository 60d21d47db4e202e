/**
 * The CLI as a user runs it (in-process): bulk import, errors file, dry run, exit codes, output formats.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

describe('catalog import (local mode)', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('catalog-cli-');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports the attribute fixtures from CSV and NDJSON identically', async () => {
    const csv = await cli(['attributes', 'import', join(FIXTURES, 'attributes.csv')], { cwd: dir });
    expect(csv.code).toBe(0);
    expect(csv.stderr).toContain('attributes import: 7 created, 0 updated, 0 rejected');
    const fromCsv = JSON.parse((await cli(['attributes', 'list', '-o', 'json'], { cwd: dir })).stdout) as unknown[];
    const other = tempDir('catalog-cli-');
    try {
      expect((await cli(['attributes', 'import', join(FIXTURES, 'attributes.ndjson')], { cwd: other })).code).toBe(0);
      const fromNdjson = JSON.parse((await cli(['attributes', 'list', '-o', 'json'], { cwd: other })).stdout) as unknown[];
      expect(fromNdjson).toEqual(fromCsv);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    expect(fromCsv).toHaveLength(7);
    expect(fromCsv[3]).toEqual({
      attribute_id: 'stock_bin', type: 'text', name: { en: 'Stock bin', de: 'Lagerplatz' }, searchable: true, filterable: true,
      visibility: 'factoryWorker', org_visibility: 'sub', labels: ['sku'], per_org_values: true, default_value: { en: 'not stocked' }, display_order: 7,
    });
  });

  it('reports every problem of a broken CSV row with its line, keeps the good rows, writes an errors file, exits 3', async () => {
    const input = join(dir, 'attrs.csv');
    writeFileSync(input, [
      'attribute_id,type,name.en,searchable,display_order',
      'good,text,Good,true,1',
      'bad,colour,Bad,perhaps,-2',
      'also-good,enum,Also good,false,',
      'x'.repeat(10_000) + ',text,Long,false,',
    ].join('\n'));
    const run = await cli(['attributes', 'import', input, '-o', 'json'], { cwd: dir });
    expect(run.code).toBe(3);
    const summary = JSON.parse(run.stdout) as { created: number; rejected: number; errors: Record<string, string[]>; errorsFile: string };
    expect(summary.created).toBe(2);
    expect(summary.rejected).toBe(2);
    expect(summary.errors['line:3']?.length).toBeGreaterThanOrEqual(3);
    expect(summary.errors['line:3']?.join(' ')).toMatch(/line 3: .*type/);
    expect(summary.errors['line:3']?.join(' ')).toMatch(/searchable/);
    expect(summary.errors['line:3']?.join(' ')).toMatch(/display_order/);
    expect(summary.errors['line:5']?.join(' ')).toMatch(/256 characters/);
    expect(summary.errorsFile).toBe(join(dir, 'attrs.errors.csv'));
    const errorsCsv = readFileSync(summary.errorsFile, 'utf8');
    expect(errorsCsv.split('\n')[0]).toMatch(/^attribute_id,type,name.en,searchable,display_order,_line,_error,_raw$/);
    expect(errorsCsv).toContain('bad,colour,Bad,perhaps,-2,3,');
    expect(run.stderr).toContain(`rejected rows with their errors: ${summary.errorsFile}`);
  });

  it('bad input loses nothing already stored: malformed NDJSON and unknown fields', async () => {
    expect((await cli(['attributes', 'import', join(FIXTURES, 'attributes.csv')], { cwd: dir })).code).toBe(0);
    const input = join(dir, 'more.ndjson');
    writeFileSync(input, ['{"attribute_id":"new","type":"text","name":{"en":"New"}}', '{"attribute_id": "broken", ', '{"attribute_id":"vendor","colour":"red"}'].join('\n'));
    const run = await cli(['attributes', 'import', input], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('attributes import: 1 created, 0 updated, 2 rejected');
    const list = JSON.parse((await cli(['attributes', 'list', '-o', 'json'], { cwd: dir })).stdout) as { attribute_id: string; name: unknown }[];
    expect(list.map((a) => a.attribute_id)).toContain('new');
    expect(list).toHaveLength(8);
    expect(list.find((a) => a.attribute_id === 'vendor')?.name).toEqual({ en: 'Vendor', de: 'Hersteller' });
  });

  it('--dry-run counts would-create and would-update and writes nothing', async () => {
    await cli(['attributes', 'import', join(FIXTURES, 'attributes.ndjson'), '--batch-size', '3'], { cwd: dir });
    const input = join(dir, 'dry.ndjson');
    writeFileSync(input, ['{"attribute_id":"vendor","searchable":false}', '{"attribute_id":"fresh","type":"text","name":{"en":"F"}}'].join('\n'));
    const run = await cli(['attributes', 'import', input, '--dry-run'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('would create 1, would update 1, 0 rejected');
    const list = JSON.parse((await cli(['attributes', 'get', 'vendor', 'fresh', '-o', 'json'], { cwd: dir })).stdout) as { searchable: boolean }[];
    expect(list).toHaveLength(1);
    expect(list[0]?.searchable).toBe(true);
  });

  it('list -o csv can be imported again (round trip), parts included', async () => {
    await cli(['attributes', 'import', join(FIXTURES, 'attributes.csv')], { cwd: dir });
    await cli(['parts', 'import', join(FIXTURES, 'parts.csv')], { cwd: dir });
    const before = (await cli(['parts', 'list', '-o', 'json'], { cwd: dir })).stdout;
    const csv = await cli(['parts', 'list', '-o', 'csv'], { cwd: dir });
    writeFileSync(join(dir, 'export.csv'), csv.stdout);
    const other = tempDir('catalog-cli-');
    try {
      await cli(['attributes', 'import', join(FIXTURES, 'attributes.csv')], { cwd: other });
      const again = await cli(['parts', 'import', join(dir, 'export.csv')], { cwd: other });
      expect(again.code).toBe(0);
      const strip = (s: string) => (JSON.parse(s) as Record<string, unknown>[]).map(({ serviceId: _s, createdAt: _c, modifiedAt: _m, ...rest }) => rest);
      expect(strip((await cli(['parts', 'list', '-o', 'json'], { cwd: other })).stdout)).toEqual(strip(before));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('usage errors exit 2; unknown ids exit 6; stdin needs --format', async () => {
    expect((await cli(['attributes', 'list', '-o', 'yaml'], { cwd: dir })).code).toBe(2);
    expect((await cli(['attributes', 'import', '-'], { cwd: dir, stdin: '' })).code).toBe(2);
    expect((await cli(['attributes', 'import', join(dir, 'missing.csv')], { cwd: dir })).stderr).toMatch(/no such file/);
    const fromStdin = await cli(['attributes', 'import', '-', '--format', 'ndjson'], { cwd: dir, stdin: '{"attribute_id":"s","type":"text","name":{"en":"S"}}\n' });
    expect(fromStdin.code).toBe(0);
    expect(existsSync(join(dir, '.catalog', 'catalog.db'))).toBe(true);
    const get = await cli(['attributes', 'get', 'nope'], { cwd: dir });
    expect(get.code).toBe(6);
    expect(get.stderr).toContain("attribute 'nope'");
  });
});
