/**
 * The built CLI on a real pseudo-terminal of 100 columns (util-linux `script`, as a user's terminal):
 * a `list` table fits the width, cuts long cells with …, draws no line between rows, shows attribute
 * values as `id: value` text, prints one page of 30 rows and the exact command of the next page
 * (which works); in a pipe the same command prints every row.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, catalogSync, ROOT } from '../helpers/bin.js';
import { tempDir } from '../helpers/harness.js';

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const PARTS = 75;
/** Terminal escape sequences (colours, cursor): ESC [ ... letter. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

/** Runs `catalog <args>` on a pseudo-terminal `columns` wide; stdout and stderr both reach the terminal. */
function onTerminal(args: string[], columns = 100): { code: number | null; lines: string[] } {
  const quoted = [BIN, ...args].map((a) => `'${a.replace(/'/g, `'"'"'`)}'`).join(' ');
  const run = spawnSync('script', ['-qec', `stty cols ${columns} rows 50; ${quoted}`, '/dev/null'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CI: '', NO_COLOR: '', TERM: 'xterm-256color' },
  });
  // The terminal's own text: colours removed, CRLF line ends.
  const text = run.stdout.replace(ANSI, '').replace(/\r/g, '');
  return { code: run.status, lines: text.split('\n').filter((l) => l !== '') };
}

describe.skipIf(!hasScript)('output on a terminal of 100 columns', () => {
  let dir: string;
  let dataDir: string;
  beforeAll(() => {
    dir = tempDir('catalog-tty-');
    dataDir = join(dir, 'data');
    const csv = readFileSync(join(ROOT, 'fixtures', 'demo', 'parts.csv'), 'utf8').split('\n');
    writeFileSync(join(dir, 'parts.csv'), `${csv.slice(0, PARTS + 1).join('\n')}\n`);
    expect(catalogSync(['--data-dir', dataDir, 'attributes', 'import', join(ROOT, 'fixtures', 'demo', 'attributes.csv')]).code).toBe(0);
    expect(catalogSync(['--data-dir', dataDir, 'parts', 'import', join(dir, 'parts.csv')]).code).toBe(0);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('parts list: one page of 30 rows that fits, readable values, no row separators, the next command works', () => {
    const run = onTerminal(['--data-dir', dataDir, 'parts', 'list']);
    expect(run.code).toBe(0);
    for (const line of run.lines) expect([...line].length, line).toBeLessThanOrEqual(100);
    const rows = run.lines.filter((l) => /^│ pci:/.test(l));
    expect(rows).toHaveLength(30);
    // One separator: under the header. None between rows.
    expect(run.lines.filter((l) => l.startsWith('├'))).toHaveLength(1);
    expect(run.lines.join('\n')).not.toContain('{"attribute_id"');
    expect(rows[0]).toMatch(/│ category: computer>pci/);
    expect(rows.some((r) => r.includes('…'))).toBe(true);
    // The hint names the exact next command, with the data directory in force.
    const next = run.lines.findIndex((l) => l.includes('the next page:'));
    expect(next, run.lines.join('\n')).toBeGreaterThan(0);
    const command = run.lines[next + 1]?.trim() ?? '';
    const lastShown = /^│ (\S+)/.exec(rows[29] ?? '')?.[1] ?? '';
    expect(command).toBe(`catalog --data-dir ${dataDir} parts list --after ${lastShown}`);
    const second = onTerminal(command.split(' ').slice(1));
    const secondRows = second.lines.filter((l) => /^│ pci:/.test(l));
    expect(secondRows).toHaveLength(30);
    expect(secondRows[0]).not.toBe(rows[0]);
    expect(secondRows.map((r) => /^│ (\S+)/.exec(r)?.[1] ?? '').every((id) => id > lastShown)).toBe(true);
  });

  it('parts show fits the terminal too', () => {
    const id = readFileSync(join(dir, 'parts.csv'), 'utf8').split('\n')[1]?.split(',')[0] ?? '';
    const run = onTerminal(['--data-dir', dataDir, 'parts', 'show', id]);
    expect(run.code).toBe(0);
    expect(run.lines[0]).toBe(`part ${id}`);
    for (const line of run.lines) expect([...line].length, line).toBeLessThanOrEqual(100);
  });

  it('in a pipe the same command prints every part', () => {
    const run = catalogSync(['--data-dir', dataDir, 'parts', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(PARTS + 1);
    expect(run.stderr).toBe('');
  });

  it('--all on a terminal prints every row, and still fits', () => {
    const run = onTerminal(['--data-dir', dataDir, 'parts', 'list', '--all', '--fields', 'part_id,name.en,attr:vendor.en']);
    expect(run.code).toBe(0);
    expect(run.lines.filter((l) => /^│ pci:/.test(l))).toHaveLength(PARTS);
    expect(run.lines[1]).toMatch(/│ part_id +│ name\.en +│ attr:vendor\.en +│/);
    for (const line of run.lines) expect([...line].length, line).toBeLessThanOrEqual(100);
  });
});
