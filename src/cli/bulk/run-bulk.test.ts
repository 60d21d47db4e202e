/**
 * The bulk loop's groups of batches (BulkJob.groupSize / sendGroup; a local import writes several
 * batches per transaction): batches, results and checkpoints are those of batches sent one
 * by one, and a batch is recorded as finished only once its whole group is answered, so a group
 * that fails leaves all of its batches to `--resume`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { BulkWriteResult } from '../../api/schemas.js';
import { createContext } from '../context.js';
import { Checkpoint, defaultCheckpointPath } from './checkpoint.js';
import { runBulk, type BulkJob, type BulkRow } from './run-bulk.js';

type Item = { id: string };

const ROWS = 11;

/** Rows r1..r11 (line n = item rn); line 6 is rejected while reading. */
async function* rows(): AsyncGenerator<BulkRow<Item>> {
  for (let line = 1; line <= ROWS; line++) {
    yield line === 6 ? { line, record: { id: `r${line}` }, problems: ['bad row'] } : { line, record: { id: `r${line}` }, item: { id: `r${line}` } };
  }
}

/** Ids of a batch. */
const ids = (batch: BulkRow<Item>[]): string[] => batch.map((r) => r.item?.id ?? '?');

/** Each item created, but `refuse` rejected by the service. */
const answer = (batch: BulkRow<Item>[], refuse: string): BulkWriteResult => ({
  created: ids(batch).filter((id) => id !== refuse),
  updated: [],
  errors: ids(batch).includes(refuse) ? { [refuse]: [`refused ${refuse}`] } : {},
});

describe('runBulk with groups of batches', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-bulk-groups-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function context(): { ctx: ReturnType<typeof createContext>; stderr: () => string } {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    const ctx = createContext({ stdout: new PassThrough(), stderr, stdin: Readable.from(['']), env: { HOME: dir }, cwd: dir }, { dataDir: join(dir, 'data') });
    return { ctx, stderr: () => err };
  }

  function job(overrides: Partial<BulkJob<Item>>, input: string, errorsPath: string): BulkJob<Item> {
    return {
      what: 'test import',
      rows: rows(),
      format: 'ndjson',
      inputPath: input,
      errorsPath,
      batchSize: 2,
      idOf: (item) => item.id,
      send: () => Promise.reject(new Error('send: every batch goes through sendGroup here')),
      dryRun: () => Promise.resolve({ created: 0, updated: 0, rejected: [] }),
      progressLine: () => '',
      dryRunMode: false,
      resume: false,
      options: { format: 'ndjson', batchSize: 2 },
      resumeCommand: 'catalog test import --resume',
      ...overrides,
    };
  }

  it('sends consecutive batches together, what is left as a last smaller group; results, errors and counts per batch', async () => {
    const input = join(dir, 'all.ndjson');
    writeFileSync(input, 'rows\n');
    const groups: string[][][] = [];
    const sendGroup = (batches: BulkRow<Item>[][]): Promise<BulkWriteResult[]> => {
      groups.push(batches.map(ids));
      return Promise.resolve(batches.map((batch) => answer(batch, 'r9')));
    };
    const errorsPath = join(dir, 'all.errors.ndjson');
    const { ctx, stderr } = context();
    const code = await runBulk<Item>(ctx, job({ groupSize: 3, sendGroup }, input, errorsPath));
    await ctx.close();
    expect(groups).toEqual([
      [['r1', 'r2'], ['r3', 'r4'], ['r5', 'r7']],
      [['r8', 'r9'], ['r10', 'r11']],
    ]);
    expect(code).toBe(3);
    expect(stderr()).toContain('test import: 9 created, 0 updated, 2 rejected');
    const lines = readFileSync(errorsPath, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { _line: number })._line);
    expect(lines).toEqual([6, 9]);
    expect((await Checkpoint.inspect(defaultCheckpointPath(input))).state).toBe('missing');
  });

  it('a group that fails records none of its batches: --resume sends exactly them and the rest', async () => {
    const input = join(dir, 'fail.ndjson');
    writeFileSync(input, 'rows\n');
    const errorsPath = join(dir, 'fail.errors.ndjson');
    const first = context();
    let calls = 0;
    const failing = (batches: BulkRow<Item>[][]): Promise<BulkWriteResult[]> => {
      calls++;
      return calls === 2 ? Promise.reject(new Error('disk on fire')) : Promise.resolve(batches.map((batch) => answer(batch, '')));
    };
    await expect(runBulk<Item>(first.ctx, job({ groupSize: 2, sendGroup: failing }, input, errorsPath))).rejects.toThrow('disk on fire');
    await first.ctx.close();
    // Batches 0 and 1 (the first group) are recorded; batches 2 and 3 (the group that failed) are not.
    const stored = await Checkpoint.inspect(defaultCheckpointPath(input));
    expect(stored).toMatchObject({ state: 'found', doneCount: 2, file: { doneThrough: 1, doneAbove: [] } });
    expect(first.stderr()).toContain('finished batches are recorded');

    const resumed = context();
    const sent: string[][][] = [];
    const recording = (batches: BulkRow<Item>[][]): Promise<BulkWriteResult[]> => {
      sent.push(batches.map(ids));
      return Promise.resolve(batches.map((batch) => answer(batch, '')));
    };
    const alone = (batch: BulkRow<Item>[]): Promise<BulkWriteResult> => recording([batch]).then((results) => results[0] as BulkWriteResult);
    const code = await runBulk<Item>(resumed.ctx, job({ groupSize: 2, sendGroup: recording, send: alone, resume: true, rows: rows() }, input, errorsPath));
    await resumed.ctx.close();
    expect(code).toBe(3); // line 6, rejected while reading, again
    expect(sent).toEqual([
      [['r5', 'r7'], ['r8', 'r9']],
      [['r10', 'r11']],
    ]);
    expect(resumed.stderr()).toContain('2 finished batches are skipped');
  });

  it('a batch whose rows were all refused before sending is recorded without being sent; a lone batch goes through send', async () => {
    const input = join(dir, 'refused.ndjson');
    writeFileSync(input, 'rows\n');
    const errorsPath = join(dir, 'refused.errors.ndjson');
    async function* refusedRows(): AsyncGenerator<BulkRow<Item>> {
      for (let line = 1; line <= 5; line++) {
        const row: BulkRow<Item> = { line, record: { id: `r${line}` }, item: { id: `r${line}` }, validated: true };
        if (line === 3 || line === 4) row.refused = { key: `r${line}`, messages: ['refused before sending'] };
        yield row;
      }
    }
    const groups: string[][][] = [];
    const single: string[][] = [];
    const { ctx } = context();
    const code = await runBulk<Item>(ctx, job({
      rows: refusedRows(),
      groupSize: 2,
      sendGroup: (batches) => {
        groups.push(batches.map(ids));
        return Promise.resolve(batches.map((batch) => answer(batch, '')));
      },
      send: (batch) => {
        single.push(ids(batch));
        return Promise.resolve(answer(batch, ''));
      },
    }, input, errorsPath));
    await ctx.close();
    expect(code).toBe(3);
    // Batch 1 (r3, r4) is all refused: its group sends batch 0 alone; batch 2 (r5) is the last group.
    expect(groups).toEqual([]);
    expect(single).toEqual([['r1', 'r2'], ['r5']]);
    const lines = readFileSync(errorsPath, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { _line: number })._line);
    expect(lines).toEqual([3, 4]);
  });
});
