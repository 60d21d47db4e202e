/**
 * What a new user met on a terminal, on real pseudo-terminals (util-linux `script`) with
 * the built CLI: tables that stay readable at 80 columns, search tables showing values, headers not
 * red; an import of a file with a bar, percentage, rate and time left; bash completion typed with
 * <TAB> in an interactive bash.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, catalogSync, ROOT } from '../helpers/bin.js';
import { tempDir } from '../helpers/harness.js';

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const ESC = String.fromCharCode(27);
/** Terminal escape sequences (colours, cursor): ESC [ ... letter. */
const ANSI = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, 'g');
const quote = (a: string) => `'${a.replace(/'/g, `'"'"'`)}'`;

/** Runs `catalog <args>` on a pseudo-terminal `columns` wide; the raw text and its lines without escapes. */
function onTerminal(args: string[], columns: number, env: Record<string, string> = {}, cwd = ROOT): { code: number | null; raw: string; lines: string[] } {
  const run = spawnSync('script', ['-qec', `stty cols ${columns} rows 50; ${[BIN, ...args].map(quote).join(' ')}`, '/dev/null'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: '', NO_COLOR: '', TERM: 'xterm-256color', ...env },
  });
  const text = run.stdout.replace(ANSI, '').replace(/\r\n/g, '\n');
  return { code: run.status, raw: run.stdout, lines: text.split('\n').filter((l) => l !== '') };
}

describe.skipIf(!hasScript)('a new user on a terminal', () => {
  let dir: string;
  let dataDir: string;
  beforeAll(() => {
    dir = tempDir('catalog-field-tty-');
    dataDir = join(dir, 'data');
    const csv = readFileSync(join(ROOT, 'fixtures', 'demo', 'parts.csv'), 'utf8').split('\n');
    writeFileSync(join(dir, 'parts.csv'), `${csv.slice(0, 201).join('\n')}\n`);
    expect(catalogSync(['--data-dir', dataDir, 'attributes', 'import', join(ROOT, 'fixtures', 'demo', 'attributes.csv')]).code).toBe(0);
    expect(catalogSync(['--data-dir', dataDir, 'parts', 'import', join(dir, 'parts.csv')]).code).toBe(0);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('9: attributes list at 80 columns keeps its columns readable (the last ones left out, none cut to a few characters)', () => {
    const run = onTerminal(['--data-dir', dataDir, 'attributes', 'list'], 80);
    expect(run.code).toBe(0);
    for (const line of run.lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    const header = run.lines.find((l) => l.includes('attribute_id')) ?? '';
    const columns = header.split('│').map((c) => c.trim()).filter((c) => c !== '');
    expect(columns.slice(0, 3)).toEqual(['attribute_id', 'name', 'type']);
    // Every column shown is at least as wide as its header: nothing reads `attr…`.
    for (const c of columns) expect(c).not.toContain('…');
    expect(run.lines.some((l) => /│ vendor\s+│ en: Vendor/.test(l)), run.lines.join('\n')).toBe(true);
  });

  it('9: parts list shows the values, not the timestamp; search shows each hit\'s values; headers are not red', () => {
    const parts = onTerminal(['--data-dir', dataDir, 'parts', 'list'], 100);
    expect(parts.lines.find((l) => l.includes('part_id'))?.includes('modifiedAt')).toBe(false);
    const search = onTerminal(['--data-dir', dataDir, 'search', 'ethernet', '--limit', '5'], 100);
    expect(search.code).toBe(0);
    const header = search.lines.find((l) => l.includes(' id ')) ?? '';
    expect(header.split('│').map((c) => c.trim()).filter((c) => c !== '')).toEqual(['id', 'name', 'attributes']);
    // Each hit shows its values (cut to the terminal's width: `class: Eth…` when names are long).
    expect(search.lines.some((l) => /│ .*class: Eth/.test(l)), search.lines.join('\n')).toBe(true);
    // cli-table3's default header colour is red (ESC[31m); headers are bold instead.
    expect(parts.raw).not.toContain(`${ESC}[31m`);
    expect(search.raw).not.toContain(`${ESC}[31m`);
  });

  it('10: an import of a file shows a bar with the percentage, the rate and the time left, cleared before the summary', () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => `bulk:${i},Bulk part ${i} with a few words`);
    writeFileSync(join(dir, 'bulk.csv'), `part_id,name.en\n${rows.join('\n')}\n`);
    const run = onTerminal(['--data-dir', dataDir, 'parts', 'import', join(dir, 'bulk.csv'), '--batch-size', '500'], 120);
    expect(run.code).toBe(0);
    const frames = run.raw.replace(ANSI, '').split(/\r|\n/);
    expect(frames.some((f) => /[█░]{20}\s+\d{1,3}% · parts: [\d,]+ rows read, [\d,]+ stored, 0 rejected · [\d.]+ [kMG]?B\/s · (\d+[hms])+(\d+[ms])? left/.test(f)), frames.slice(0, 20).join('\n')).toBe(true);
    // The summary starts on a clean line: the progress line was erased first (cursor to column 1, erase to the end).
    expect(run.raw).toMatch(new RegExp(`${ESC}\\[1G${ESC}\\[0K(${ESC}\\[[0-9;?]*[A-Za-z])*parts import: 60,000 created, 0 updated, 0 rejected`));
  });

  it('11: bash completion, typed with <TAB>: after global options, a leaf command\'s options, completion itself', () => {
    const script = join(dir, 'completion.bash');
    writeFileSync(script, catalogSync(['completion', 'bash']).stdout);
    const typed = [
      `source ${quote(script)}`,
      'catalog --data-dir cc sea\t--ima\ts\t\u0015',
      'catalog serve --po\t\u0015',
      'catalog migrate --bat\t\u0015',
      'catalog comp\tz\t\u0015',
      'catalog --data-dir cc parts imp\t--id\t\u0015',
      'exit',
    ];
    // The keys arrive one line at a time, as typed: bash reads each with its completion.
    const feeder = `for l in ${typed.map((t) => quote(`${t}\n`)).join(' ')}; do printf '%s' "$l"; sleep 0.3; done`;
    const typing = spawnSync('bash', ['-c', `(${feeder}) | script -qec 'bash --norc --noprofile -i' /dev/null`], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, TERM: 'dumb', PS1: '$ ', INPUTRC: '/dev/null' },
      timeout: 30_000,
    });
    // Without escapes, bells and carriage returns: the lines as the terminal shows them.
    // eslint-disable-next-line no-control-regex
    const screen = typing.stdout.replace(ANSI, '').replace(/[\u0000-\u0009\u000b-\u001f]/g, '');
    expect(screen, screen).toContain('catalog --data-dir cc search --images ');
    expect(screen).toContain('catalog serve --port ');
    expect(screen).toContain('catalog migrate --batch-size ');
    expect(screen).toContain('catalog completion zsh ');
    expect(screen).toContain('catalog --data-dir cc parts import --id-replace ');
    // --version is offered once.
    const words = catalogSync(['completion', 'bash']).stdout;
    const program = /^\s+""\) subs="[^"]*"; opts="([^"]*)"/m.exec(words)?.[1] ?? '';
    expect(program.split(' ').filter((w) => w === '--version')).toHaveLength(1);
  });
});
