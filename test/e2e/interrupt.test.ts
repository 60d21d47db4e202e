/**
 * Ctrl-C on a terminal behaves as in a pipe (design/cli.md "Bulk import"): the spinner
 * stops, the checkpoint and the errors file are flushed, the summary and the resume command are
 * printed, exit 130, no stray temporary files. The import runs on a real pseudo-terminal made by
 * util-linux `script` (sized with stty: a 0-column terminal is no terminal to draw on), and Ctrl-C is
 * the byte \x03 typed into it, which the terminal turns into SIGINT for the foreground process.
 *
 * (Before: ora's cursor restorer re-raised SIGINT once our one-shot listener had gone, so a terminal
 * got neither the summary nor the resume command.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/cli/command-line.js';
import { BIN } from '../helpers/bin.js';
import { tempDir } from '../helpers/harness.js';

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

/** Every file under `dir` whose name ends in .tmp. */
function tmpFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tmp'));
}

describe.skipIf(!hasScript)('Ctrl-C on a terminal', () => {
  let work: string;
  beforeAll(() => {
    work = tempDir('catalog-interrupt-');
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('stops the spinner, flushes checkpoint and errors file, prints the summary and the resume command, exits 130', async () => {
    const csv = join(work, 'parts.csv');
    const dataDir = join(work, 'data');
    const lines = ['part_id,name.en'];
    // Every 1,000th row is rejected (no name), so an errors file is being written too.
    for (let i = 0; i < 60_000; i++) lines.push(i % 1000 === 7 ? `p${i},` : `p${String(i).padStart(6, '0')},Part ${i}`);
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const command = `stty cols 120 rows 40; exec ${[BIN, '--data-dir', dataDir, 'parts', 'import', csv, '--batch-size', '200'].map(shellQuote).join(' ')}`;
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
    delete env.CI;
    delete env.NO_COLOR;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env });
    let output = '';
    let typed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Ctrl-C once the spinner shows progress and a batch is recorded.
      if (!typed && /parts: [\d,]+ rows read/.test(output) && existsSync(`${csv}.checkpoint.json`)) {
        typed = true;
        child.stdin.write('\x03');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(typed, output).toBe(true);
    expect(code, output).toBe(130);
    // The terminal echoes ^C; the spinner line is cleared before the summary.
    const text = output.replace(/\r/g, '');
    expect(text).toContain('\u001b[?25h'); // the spinner stopped: the cursor is shown again
    const summary = /parts import: ([\d,]+) created, 0 updated, (\d+) rejected/.exec(text);
    expect(summary, text).not.toBeNull();
    expect(text).toContain(`rejected rows with their errors: ${join(work, 'parts.errors.csv')}`);
    expect(text).toContain(`interrupted: resume with\n  catalog --data-dir ${dataDir} parts import ${csv} --resume --batch-size 200\n`);
    const stored = JSON.parse(readFileSync(`${csv}.checkpoint.json`, 'utf8')) as { version: number; doneThrough: number; identity: { target: { dataDir: string } } };
    expect(stored.version).toBe(2);
    expect(stored.doneThrough).toBeGreaterThanOrEqual(0);
    expect(stored.identity.target.dataDir).toBe(dataDir);
    // The errors file is complete: one line per rejected row (plus the header).
    const errors = readFileSync(join(work, 'parts.errors.csv'), 'utf8').trim().split('\n');
    expect(errors.length - 1).toBe(Number(summary?.[2]));
    expect(tmpFiles(work)).toEqual([]);
  }, 120_000);
});
