/**
 * Recovery, end to end with the built CLI (design/cli.md "Conventions"): a checkpoint
 * belongs to its input, its options and its target catalog. `--resume` with any difference is refused
 * at once (exit 2) naming it, writes nothing and keeps the checkpoint; the resume command the CLI
 * prints repeats the options in force, shell-quoted, and running it as printed (through `sh -c`)
 * completes the import into the same data directory.
 *
 * (Before: `--resume` against another data directory skipped the finished batches and exited 0,
 * and the printed command lacked --data-dir and --batch-size.)
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, catalogSpawn, catalogSync, exited } from '../helpers/bin.js';
import { tempDir } from '../helpers/harness.js';

const ROWS = 20_000;

/** Waits (without a deadline of its own: vitest's timeout bounds it) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

function countParts(dataDir: string): number {
  const run = catalogSync(['--data-dir', dataDir, 'parts', 'list', '-o', 'ndjson', '--fields', 'part_id']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim().split('\n').filter((l) => l !== '').length;
}

describe('import --resume is bound to its input, options and target', () => {
  let work: string;
  let csv: string;
  let checkpoint: string;
  let dataDir: string;
  let resumeCommand: string;
  let stored: string;

  beforeAll(async () => {
    work = tempDir('catalog-resume-');
    // A directory name that needs quoting in a shell.
    dataDir = join(work, "data dir's");
    csv = join(work, 'parts.csv');
    checkpoint = `${csv}.checkpoint.json`;
    const lines = ['part_id,name.en'];
    for (let i = 0; i < ROWS; i++) lines.push(`p${String(i).padStart(6, '0')},Part ${i}`);
    writeFileSync(csv, `${lines.join('\n')}\n`);
    // Interrupted once a batch is recorded.
    const child = catalogSpawn(['--data-dir', dataDir, 'parts', 'import', csv, '--batch-size', '200']);
    await until(() => existsSync(checkpoint) || child.exitCode !== null);
    child.kill('SIGINT');
    const { code } = await exited(child);
    expect(code, child.output().stderr).toBe(130);
    const printed = /interrupted: resume with\n {2}(.+)\n/.exec(child.output().stderr);
    expect(printed, child.output().stderr).not.toBeNull();
    resumeCommand = printed?.[1] ?? '';
    stored = readFileSync(checkpoint, 'utf8');
  }, 120_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('the printed command repeats --data-dir (quoted) and --batch-size, and adds --resume', () => {
    expect(resumeCommand).toBe(`catalog --data-dir '${work}/data dir'"'"'s' parts import ${csv} --resume --batch-size 200`);
  });

  it('another data directory: refused at once with exit 2, nothing written, the checkpoint kept', () => {
    const other = join(work, 'other');
    const run = catalogSync(['--data-dir', other, 'parts', 'import', csv, '--batch-size', '200', '--resume']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`target: checkpoint data directory ${dataDir}, now data directory ${other}`);
    expect(run.stderr).toContain('nothing was imported and the checkpoint is kept');
    expect(existsSync(other)).toBe(false);
    expect(readFileSync(checkpoint, 'utf8')).toBe(stored);
  });

  it('another batch size, or a changed input: refused with exit 2 naming the difference', () => {
    const batch = catalogSync(['--data-dir', dataDir, 'parts', 'import', csv, '--batch-size', '100', '--resume']);
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('option batchSize: checkpoint 200, now 100');
    const copy = join(work, 'copy.csv');
    writeFileSync(copy, readFileSync(csv));
    writeFileSync(`${copy}.checkpoint.json`, stored);
    const moved = catalogSync(['--data-dir', dataDir, 'parts', 'import', copy, '--batch-size', '200', '--resume']);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain(`input file: checkpoint ${csv}, now ${copy}`);
    const { mtime } = { mtime: new Date('2020-01-01T00:00:00Z') };
    utimesSync(copy, mtime, mtime);
    expect(catalogSync(['--data-dir', dataDir, 'parts', 'import', copy, '--batch-size', '200', '--resume']).stderr).toContain('input modified: ');
    expect(readFileSync(checkpoint, 'utf8')).toBe(stored);
  });

  it('another catalog at the same path: refused with exit 2 (the catalog identity differs)', () => {
    const kept = `${dataDir}.kept`;
    renameSync(dataDir, kept);
    try {
      expect(catalogSync(['--data-dir', dataDir, 'attributes', 'import', join(import.meta.dirname, '..', '..', 'fixtures', 'attributes.csv')]).code).toBe(0);
      const run = catalogSync(['--data-dir', dataDir, 'parts', 'import', csv, '--batch-size', '200', '--resume']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/catalog: checkpoint [0-9a-f-]{36}, now [0-9a-f-]{36} \(another catalog at the same path\)/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      renameSync(kept, dataDir);
    }
    expect(readFileSync(checkpoint, 'utf8')).toBe(stored);
  });

  it('the printed command, run as printed through sh -c, completes the import into the same data directory', () => {
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(BIN, join(bin, 'catalog'));
    const run = spawnSync('sh', ['-c', resumeCommand], { cwd: work, encoding: 'utf8', env: { ...process.env, CI: '1', PATH: `${bin}:${process.env.PATH ?? ''}` } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/finished batches are skipped/);
    expect(run.stderr).toMatch(/\d+ batches skipped \(done before --resume\)/);
    expect(existsSync(checkpoint)).toBe(false);
    expect(countParts(dataDir)).toBe(ROWS);
  }, 120_000);
});
