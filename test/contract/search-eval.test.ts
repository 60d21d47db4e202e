/**
 * Contract: `catalog search eval` judges alike in local and --remote mode (and, through the
 * contract-postgres project, on a PostgreSQL catalog behind the server): the figures on a small
 * catalog whose answers are known; `--save` then `--baseline` exits 0 on the same run and 3 once a
 * part expected first is gone.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInMode } from '../helpers/cli-mode.js';
import { EVAL_ATTRIBUTES, EVAL_PARTS } from '../helpers/eval-catalog.js';
import { BACKEND } from '../helpers/harness.js';

const ATTRIBUTES = EVAL_ATTRIBUTES;
const PARTS = EVAL_PARTS;
// names: both first (rank 1, 1); other: widget → demo:2 at rank 2, zzz → nothing.
const JUDGMENTS = [
  'group,query,expected,filter',
  'names,react,npm:react,',
  'names,react-dom,npm:nothing|npm:react-dom,',
  'other,widget,demo:2,kind=gadget',
  'other,zzz,npm:react,',
].join('\n');

interface Report {
  groups: { group: string; queries: number; 'success@1': number; 'success@3': number; 'success@10': number; mrr: number }[];
  worst: { line: number; rank: number | null; first: { id: string }[] }[];
}

// On PostgreSQL only the server's catalog is: local mode is a SQLite data directory.
describe.each(BACKEND === 'postgres' ? (['remote'] as const) : (['local', 'remote'] as const))('catalog search eval (%s)', (mode) => {
  const c = cliInMode(mode, 'catalog-cli-eval-');

  it('prints the figures per group and overall; --baseline exits 0 on the same run and 3 on a worse one', async () => {
    writeFileSync(join(c.dir, 'attributes.csv'), ATTRIBUTES);
    writeFileSync(join(c.dir, 'parts.csv'), PARTS);
    writeFileSync(join(c.dir, 'judgments.csv'), JUDGMENTS);
    expect((await c.run(['attributes', 'import', 'attributes.csv'])).code).toBe(0);
    expect((await c.run(['parts', 'import', 'parts.csv'])).code).toBe(0);

    const first = await c.run(['-o', 'json', 'search', 'eval', 'judgments.csv', '--save', 'figures.json']);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as Report;
    expect(report.groups).toEqual([
      { group: 'names', queries: 2, 'success@1': 1, 'success@3': 1, 'success@10': 1, mrr: 1 },
      { group: 'other', queries: 2, 'success@1': 0, 'success@3': 0.5, 'success@10': 0.5, mrr: 0.25 },
      { group: 'all', queries: 4, 'success@1': 0.5, 'success@3': 0.75, 'success@10': 0.75, mrr: 0.625 },
    ]);
    expect(report.worst.map((w) => [w.line, w.rank, w.first.map((h) => h.id)])).toEqual([[5, null, []], [4, 2, ['demo:1', 'demo:2']]]);

    const same = await c.run(['search', 'eval', 'judgments.csv', '--baseline', 'figures.json', '-o', 'tsv']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout.split('\n')[0]).toBe('group\tqueries\tsuccess@1\tsuccess@3\tsuccess@10\tmrr');
    expect(same.stdout).toContain('all\t4\t0.5\t0.75\t0.75\t0.625');
    expect(same.stderr).toMatch(/line 5 \[other\] "zzz": npm:react not in the first 10 of 0 hits; first: no hit/);
    expect(same.stderr).toMatch(/no figure moved by more than 0.005/);

    expect((await c.run(['parts', 'delete', 'npm:react-dom'])).code).toBe(0);
    const worse = await c.run(['-q', 'search', 'eval', 'judgments.csv', '--baseline', 'figures.json', '-o', 'tsv']);
    expect(worse.code).toBe(3);
    expect(worse.stderr).toMatch(/worse than figures\.json \(by more than 0\.005\):\n {2}names success@1: 1\.000 → 0\.500/);
    // Within a tolerance that allows the drop, the same run passes.
    expect((await c.run(['-q', 'search', 'eval', 'judgments.csv', '--baseline', 'figures.json', '--tolerance', '0.9'])).code).toBe(0);
  });
});
