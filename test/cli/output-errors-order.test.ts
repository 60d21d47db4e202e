/**
 * The errors file and the summary's errors are in input line order even when batches in flight
 * finish out of order (`--concurrency` of image uploads). The bulk loop runs
 * with a job whose first batch is held until the later ones have finished: no timing involved.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { BulkWriteResult } from '../../src/api/schemas.js';
import { runBulk, type BulkRow } from '../../src/cli/bulk/run-bulk.js';
import { createContext } from '../../src/cli/context.js';
import { tempDir } from '../helpers/harness.js';

type Item = { id: string };

/** Runs a bulk job over `rows` with `send`; returns its exit code and the errors file's line numbers. */
async function importLines(
  ctx: ReturnType<typeof createContext>, errorsPath: string, rows: AsyncIterable<BulkRow<Item>>,
  send: (batch: BulkRow<Item>[]) => Promise<BulkWriteResult>, batching: { batchSize: number; concurrency: number },
): Promise<{ code: number; lines: number[] }> {
  const code = await runBulk<Item>(ctx, {
    what: 'test import',
    rows,
    format: 'ndjson',
    errorsPath,
    ...batching,
    idOf: (item) => item.id,
    send,
    dryRun: () => Promise.resolve({ created: 0, updated: 0, rejected: [] }),
    progressLine: () => '',
    dryRunMode: false,
    resume: false,
    options: { format: 'ndjson', batchSize: batching.batchSize },
    resumeCommand: 'catalog test import --resume',
  });
  const lines = readFileSync(errorsPath, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { _line: number })._line);
  return { code, lines };
}

describe('bulk errors in input order', () => {
  const dir = tempDir('catalog-cli-order-');
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('batches finishing out of order still write the errors file and the summary in line order', async () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    const ctx = createContext({ stdout: new PassThrough(), stderr, stdin: Readable.from(['']), env: { HOME: dir }, cwd: dir }, { output: 'json' });
    ctx.format = 'tsv';
    async function* rows(): AsyncGenerator<BulkRow<Item>> {
      for (let line = 1; line <= 6; line++) {
        // Line 4 is rejected while reading (no item): it must wait for the batches before it.
        yield line === 4 ? { line, record: { id: `r${line}` }, problems: ['bad row'] } : { line, record: { id: `r${line}` }, item: { id: `r${line}` } };
      }
    }
    // Batch 0 (line 1) finishes only after batch 1 (line 2) and batch 2 (line 3) have.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let finished = 0;
    const send = async (batch: BulkRow<Item>[]): Promise<BulkWriteResult> => {
      const id = batch[0]?.item?.id ?? '';
      if (id === 'r1') await held;
      finished++;
      if (finished === 2) release();
      return { created: [], updated: [], errors: { [id]: [`refused ${id}`] } };
    };
    const errorsPath = join(dir, 'input.errors.ndjson');
    const { code, lines } = await importLines(ctx, errorsPath, rows(), send, { batchSize: 1, concurrency: 3 });
    expect(code).toBe(3);
    expect(lines).toEqual([1, 2, 3, 4, 5, 6]);
    const inline = err.split('\n').filter((l) => /^ {2}(\S+: )?line/.test(l)).map((l) => /line (\d+)/.exec(l)?.[1]);
    expect(inline).toEqual(['1', '2', '3', '4', '5']);
  });
  it('a row rejected while reading waits for the earlier rows of the batch still being filled', async () => {
    // An images upload whose odd lines the service refuses (unknown part) and whose even lines are
    // refused while reading (missing file): even with --concurrency 1 an even line waits until the
    // batch holding line 1, still being filled, is sent, so the lines come out in order.
    const stderr = new PassThrough();
    const ctx = createContext({ stdout: new PassThrough(), stderr, stdin: Readable.from(['']), env: { HOME: dir }, cwd: dir }, { output: 'json' });
    ctx.format = 'tsv';
    async function* rows(): AsyncGenerator<BulkRow<Item>> {
      for (let line = 1; line <= 6; line++) {
        yield line % 2 === 0 ? { line, record: { id: `r${line}` }, problems: ['no such file'] } : { line, record: { id: `r${line}` }, item: { id: `r${line}` } };
      }
    }
    const send = (batch: BulkRow<Item>[]): Promise<BulkWriteResult> =>
      Promise.resolve({ created: [], updated: [], errors: Object.fromEntries(batch.map((r) => [r.item?.id ?? '', ['unknown part']])) });
    const errorsPath = join(dir, 'one-batch.errors.ndjson');
    const { code, lines } = await importLines(ctx, errorsPath, rows(), send, { batchSize: 10, concurrency: 1 });
    expect(code).toBe(3);
    expect(lines).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
