/**
 * `catalog search` as a user runs it (local mode): the page footer with the next command, the -o json
 * envelope, --page and --session, --all as NDJSON with --max-items, filters, and a clear error for an
 * unknown session.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

describe('catalog search', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('catalog-cli-search-');
    expect((await cli(['attributes', 'import', join(FIXTURES, 'demo', 'attributes.csv')], { cwd: dir })).code).toBe(0);
    expect((await cli(['parts', 'import', join(FIXTURES, 'demo', 'parts.csv')], { cwd: dir })).code).toBe(0);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a page with the footer naming the next command; that command reads the next page', async () => {
    const first = await cli(['search', 'gigabit', '--limit', '5', '-o', 'tsv'], { cwd: dir });
    expect(first.code).toBe(0);
    const rows = first.stdout.trim().split('\n');
    expect(rows[0]).toBe('id\tname\tmodifiedAt');
    expect(rows).toHaveLength(6);
    const footer = /page 1 of (\d+) \(hits 1-5 of (\d+)\) · next: catalog -o tsv search --session (\S+) --page 2 --limit 5$/m.exec(first.stderr);
    expect(footer, first.stderr).not.toBeNull();
    const [, pages, total, session] = footer ?? [];
    expect(Number(pages)).toBe(Math.ceil(Number(total) / 5));
    const second = await cli(['search', '--session', session ?? '', '--page', '2', '--limit', '5', '-o', 'json'], { cwd: dir });
    const envelope = JSON.parse(second.stdout) as { sessionId: string; page: number; limit: number; resultsTotalCount: number; nextPage: number | null; results: { id: string; name: string }[] };
    expect(envelope).toMatchObject({ sessionId: session, page: 2, limit: 5, resultsTotalCount: Number(total), nextPage: 3 });
    expect(envelope.results).toHaveLength(5);
    const firstIds = rows.slice(1).map((r) => r.split('\t')[0]);
    for (const r of envelope.results) expect(firstIds).not.toContain(r.id);
  });

  it('--all streams every hit once as NDJSON; --max-items caps it', async () => {
    const json = JSON.parse((await cli(['search', 'ethernet', '--limit', '3', '-o', 'json'], { cwd: dir })).stdout) as { resultsTotalCount: number };
    const all = await cli(['search', 'ethernet', '--all'], { cwd: dir });
    expect(all.code).toBe(0);
    const hits = all.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string });
    expect(hits).toHaveLength(Math.min(json.resultsTotalCount, 10_000));
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
    const capped = await cli(['search', 'ethernet', '--all', '--max-items', '7'], { cwd: dir });
    expect(capped.stdout.trim().split('\n')).toHaveLength(7);
    expect(capped.stderr).toMatch(/7 hits \(of \d+; --max-items reached\)/);
  });

  it('filters on a filterable attribute; a non-filterable one is a usage-level error', async () => {
    const filtered = JSON.parse((await cli(['search', '--filter', 'class=Ethernet controller', '--limit', '1000', '-o', 'json'], { cwd: dir })).stdout) as { results: { id: string }[]; resultsTotalCount: number };
    expect(filtered.resultsTotalCount).toBeGreaterThan(100);
    expect(filtered.results.every((r) => r.id.startsWith('pci:'))).toBe(true);
    const bad = await cli(['search', '--filter', 'unit_cost=1'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not filterable/);
  });

  it('--facets prints value counts over every hit after the table, and puts them in the json envelope', async () => {
    const table = await cli(['search', 'ethernet', '--facets', 'vendor,class', '--limit', '2', '-o', 'tsv'], { cwd: dir });
    expect(table.code).toBe(0);
    expect(table.stderr).toMatch(/^vendor: .+ \(\d+\)( · .+ \(\d+\))*$/m);
    expect(table.stderr).toMatch(/^class: Ethernet controller \(\d+\)/m);
    const json = JSON.parse((await cli(['search', 'ethernet', '--facets', 'class', '--limit', '2', '-o', 'json'], { cwd: dir })).stdout) as { resultsTotalCount: number; facets: { class: { value: string; count: number }[] } };
    const top = json.facets.class[0];
    expect(top?.value).toBe('Ethernet controller');
    expect(top?.count).toBeGreaterThan(2);
    expect(top?.count).toBeLessThanOrEqual(json.resultsTotalCount);
  });

  it('--highlights adds a matches column, spans in [...] in a pipe; json keeps the structured highlights', async () => {
    const run = await cli(['search', 'gigabit', 'ethernet', 'contr', '--highlights', '--limit', '3', '-o', 'tsv'], { cwd: dir });
    expect(run.code).toBe(0);
    const [header, row] = run.stdout.trim().split('\n');
    expect(header).toBe('id\tname\tmatches');
    expect(row).toMatch(/\tname\.en: .*\[Gigabit\].*\[Ethernet\] \[Contr\]oller/i);
    const json = JSON.parse((await cli(['search', 'gigab', '--highlights', '--limit', '1', '-o', 'json'], { cwd: dir })).stdout) as { results: { highlights: { field: string; matches: { how: string }[] }[] }[] };
    expect(json.results[0]?.highlights.some((h) => h.field === 'name' && h.matches.some((m) => m.how === 'prefix'))).toBe(true);
  });

  it('an unknown or expired session is a clear error with exit 6, never an empty success', async () => {
    const run = await cli(['search', '--session', '00000000-0000-4000-8000-000000000000'], { cwd: dir });
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/does not exist, has expired .* start a new search/);
    expect((await cli(['search', 'x', '--session', 'abc'], { cwd: dir })).code).toBe(2);
  });

  it('--facet-values counts one attribute over the hits (with --prefix and --limit); -o json is the API answer', async () => {
    const table = await cli(['search', 'ethernet', '--facet-values', 'vendor', '--prefix', 'intel', '--limit', '3', '-o', 'tsv'], { cwd: dir });
    expect(table.code, table.stderr).toBe(0);
    const rows = table.stdout.trim().split('\n');
    expect(rows[0]).toBe('value\tcount');
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.length).toBeLessThanOrEqual(4);
    for (const row of rows.slice(1)) expect(row).toMatch(/^Intel[^\t]*\t\d+$/);
    const json = JSON.parse((await cli(['search', 'ethernet', '--facet-values', 'vendor', '-o', 'json'], { cwd: dir })).stdout) as { attribute_id: string; values: { value: string; count: number }[] };
    expect(json.attribute_id).toBe('vendor');
    const counts = json.values.map((v) => v.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const bad = await cli(['search', 'ethernet', '--prefix', 'intel'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--facet-values/);
  });

  it('--attributes and --images add readable columns; -o json keeps the full values', async () => {
    const table = await cli(['search', 'pci:8086:1539', '--attributes', '--images', '-o', 'tsv'], { cwd: dir });
    expect(table.code, table.stderr).toBe(0);
    const [header, first] = table.stdout.trim().split('\n');
    expect(header).toBe('id\tname\timages\tattributes');
    expect(first).toMatch(/^pci:8086:1539\t[^\t]+\t\t[^\t]+$/);
    for (const shown of ['vendor: Intel Corporation', 'vendor_id: 8086', 'class: Ethernet controller']) expect(first).toContain(shown);
    const json = JSON.parse((await cli(['search', 'pci:8086:1539', '--attributes', '--images', '-o', 'json'], { cwd: dir })).stdout) as { results: { id: string; images: unknown[]; attributes: { attribute_id: string; values: { value: Record<string, string> }[] }[] }[] };
    const hit = json.results.find((r) => r.id === 'pci:8086:1539');
    expect(hit?.images).toEqual([]);
    expect(hit?.attributes.find((a) => a.attribute_id === 'vendor')?.values[0]?.value).toEqual({ en: 'Intel Corporation' });
  });
});
