import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint, defaultCheckpointPath } from './checkpoint.js';
import type { CheckpointInput } from './checkpoint.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-checkpoint-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const input: CheckpointInput = { inputPath: 'parts.csv', inputSize: 1234, inputMtimeMs: 1_700_000_000_000.5, batchSize: 1000 };

describe('Checkpoint', () => {
  it('default path', () => {
    expect(defaultCheckpointPath('data/parts.csv')).toBe('data/parts.csv.checkpoint.json');
  });

  it('starts empty and writes nothing until a batch is done', async () => {
    const path = join(dir, 'empty.json');
    const cp = await Checkpoint.open(path, input);
    expect([cp.resumed, cp.doneCount, cp.isDone(0)]).toEqual([false, 0, false]);
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('stores the contiguous prefix plus out-of-order batches, and resumes', async () => {
    const path = join(dir, 'resume.json');
    const cp = await Checkpoint.open(path, input);
    await Promise.all([cp.markDone(0), cp.markDone(1), cp.markDone(4), cp.markDone(6), cp.markDone(2)]);
    const stored = JSON.parse(await readFile(path, 'utf8')) as { doneThrough: number; doneAbove: number[] };
    expect([stored.doneThrough, stored.doneAbove]).toEqual([2, [4, 6]]);

    const again = await Checkpoint.open(path, { ...input });
    expect(again.resumed).toBe(true);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => again.isDone(i))).toEqual([true, true, true, false, true, false, true, false]);
    await again.markDone(3);
    const folded = JSON.parse(await readFile(path, 'utf8')) as { doneThrough: number; doneAbove: number[] };
    expect([folded.doneThrough, folded.doneAbove]).toEqual([4, [6]]);
    expect(again.doneCount).toBe(6);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it.each<[string, Partial<CheckpointInput>]>([
    ['another path', { inputPath: 'other.csv' }],
    ['another size', { inputSize: 99 }],
    ['another mtime', { inputMtimeMs: 1 }],
    ['another batch size', { batchSize: 500 }],
  ])('a different input (%s) starts fresh', async (name, change) => {
    const path = join(dir, `${name.replace(/\W+/g, '_')}.json`);
    const cp = await Checkpoint.open(path, input);
    await cp.markDone(0);
    const other = await Checkpoint.open(path, { ...input, ...change });
    expect([other.resumed, other.isDone(0)]).toEqual([false, false]);
  });

  it('a corrupt file starts fresh', async () => {
    const path = join(dir, 'corrupt.json');
    await writeFile(path, '{"version":1,');
    const cp = await Checkpoint.open(path, input);
    expect(cp.resumed).toBe(false);
    await cp.markDone(0);
    expect((await Checkpoint.open(path, input)).isDone(0)).toBe(true);
  });

  it('remove() deletes the file and later marks write nothing', async () => {
    const path = join(dir, 'removed.json');
    const cp = await Checkpoint.open(path, input);
    await cp.markDone(0);
    await cp.remove();
    await cp.markDone(1);
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([-1, 1.5, Number.NaN])('markDone(%s) is a RangeError', async (index) => {
    const cp = await Checkpoint.open(join(dir, 'range.json'), input);
    await expect(cp.markDone(index)).rejects.toBeInstanceOf(RangeError);
  });
});
