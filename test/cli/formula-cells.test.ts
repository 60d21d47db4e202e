/**
 * CSV and TSV exports are safe to open in a spreadsheet (docs/import-formats.md, "Formula cells"):
 * a text cell beginning with =, +, -, @, a tab or CR is written with a leading `'`, which imports
 * remove, so the export re-imports to exactly what was stored; `--raw-csv` writes it unguarded.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { guardFormula, unguardFormula } from '../../src/cli/output/formula-guard.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';

const HOSTILE = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x","y")', '@SUM(1+1)', '+1+1', '-2+3', "'=already quoted", "''=twice", "'plain quote", 'plain'];

describe('formula cells in CSV and TSV exports', () => {
  let dir: string;
  beforeEach(async () => {
    dir = tempDir('catalog-formula-');
    const parts = HOSTILE.map((name, i) => JSON.stringify({ part_id: `p${i}`, name: { en: name } })).join('\n');
    expect((await cli(['parts', 'import', '-', '--format', 'ndjson'], { cwd: dir, stdin: `${parts}\n` })).code).toBe(0);
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  for (const format of ['csv', 'tsv'] as const) {
    it(`${format}: no cell begins with a formula character, and the export re-imports exactly`, async () => {
      const exported = await cli(['parts', 'list', '-o', format, '--fields', 'part_id,name.en'], { cwd: dir });
      expect(exported.code, exported.stderr).toBe(0);
      const sep = format === 'csv' ? ',' : '\t';
      const cells = exported.stdout.trim().split('\n').slice(1).map((line) => line.slice(line.indexOf(sep) + 1).replace(/^"/, ''));
      for (const cell of cells) expect(cell, cell).not.toMatch(/^[=+\-@\t\r]/);
      // Re-imported into a fresh catalog: the same names.
      writeFileSync(join(dir, `export.${format}`), exported.stdout);
      const copy = join(dir, 'copy');
      expect((await cli(['--data-dir', copy, 'parts', 'import', `export.${format}`], { cwd: dir })).code).toBe(0);
      const back = await cli(['--data-dir', copy, 'parts', 'list', '-o', 'json'], { cwd: dir });
      const names = (JSON.parse(back.stdout) as { part_id: string; name: { en: string } }[]).map((p) => p.name.en);
      expect(names.sort()).toEqual([...HOSTILE].sort());
    });
  }

  it('--raw-csv writes the cells as stored', async () => {
    const raw = await cli(['--raw-csv', 'parts', 'list', '-o', 'csv', '--fields', 'name.en'], { cwd: dir });
    expect(raw.stdout.split('\n')).toContain('@SUM(1+1)');
  });

  it('guarding then unguarding is the identity', () => {
    for (const text of [...HOSTILE, '', "'", "''", '\t=x', '\r']) expect(unguardFormula(guardFormula(text))).toBe(text);
    expect(guardFormula('=1')).toBe("'=1");
    expect(unguardFormula("'abc")).toBe("'abc");
  });
});
