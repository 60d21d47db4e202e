import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint, defaultCheckpointPath, describeInput, identityDifferences } from './checkpoint.js';
import type { CheckpointIdentity, CheckpointTarget } from './checkpoint.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-checkpoint-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const target: CheckpointTarget = { catalogId: '0b5c8f1e-4f0e-4a43-9d7e-2f1d8c9b6a01', dataDir: '/data/a' };
const identity: CheckpointIdentity = {
  input: { path: '/in/parts.csv', size: 1234, mtimeMs: 1_700_000_000_000.5, headSha256: 'ab'.repeat(32) },
  options: { format: 'csv', batchSize: 1000 },
  target,
};
const fresh = (path: string) => Checkpoint.fresh(path, { input: identity.input, options: identity.options }, () => Promise.resolve(target));

async function resumeAt(path: string): Promise<Checkpoint> {
  const stored = await Checkpoint.inspect(path);
  if (stored.state !== 'found') throw new Error(`no checkpoint: ${stored.state}`);
  return Checkpoint.resume(path, stored);
}

describe('Checkpoint', () => {
  it('default path', () => {
    expect(defaultCheckpointPath('data/parts.csv')).toBe('data/parts.csv.checkpoint.json');
  });

  it('starts empty and writes nothing (nor asks the target) until a batch is done', async () => {
    const path = join(dir, 'empty.json');
    let asked = 0;
    const cp = Checkpoint.fresh(path, identity, async () => {
      asked++;
      return target;
    });
    expect([cp.resumed, cp.doneCount, cp.isDone(0), asked]).toEqual([false, 0, false, 0]);
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
    await cp.markDone(0);
    await cp.markDone(1);
    expect(asked).toBe(1);
  });

  it('stores the contiguous prefix plus out-of-order batches, its whole identity, and resumes', async () => {
    const path = join(dir, 'resume.json');
    const cp = fresh(path);
    await Promise.all([cp.markDone(0), cp.markDone(1), cp.markDone(4), cp.markDone(6), cp.markDone(2)]);
    const stored = JSON.parse(await readFile(path, 'utf8')) as { doneThrough: number; doneAbove: number[]; identity: unknown };
    expect([stored.doneThrough, stored.doneAbove]).toEqual([2, [4, 6]]);
    expect(stored.identity).toEqual(identity);

    const again = await resumeAt(path);
    expect(again.resumed).toBe(true);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => again.isDone(i))).toEqual([true, true, true, false, true, false, true, false]);
    await again.markDone(3);
    const folded = JSON.parse(await readFile(path, 'utf8')) as { doneThrough: number; doneAbove: number[]; identity: unknown };
    expect([folded.doneThrough, folded.doneAbove]).toEqual([4, [6]]);
    expect(folded.identity).toEqual(identity);
    expect(again.doneCount).toBe(6);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('inspect: missing, unusable (corrupt, or a version 1 file bound to its input only), found', async () => {
    expect(await Checkpoint.inspect(join(dir, 'nope.json'))).toEqual({ state: 'missing' });
    const corrupt = join(dir, 'corrupt.json');
    await writeFile(corrupt, '{"version":2,');
    expect(await Checkpoint.inspect(corrupt)).toEqual({ state: 'unusable', reason: 'not valid JSON' });
    const v1 = join(dir, 'v1.json');
    await writeFile(v1, JSON.stringify({ version: 1, input: { inputPath: 'x', inputSize: 1, inputMtimeMs: 1 }, doneThrough: 9, doneAbove: [] }));
    expect(await Checkpoint.inspect(v1)).toMatchObject({ state: 'unusable', reason: expect.stringContaining('older version') });
  });

  it.each<[string, (i: CheckpointIdentity) => CheckpointIdentity, RegExp]>([
    ['another path', (i) => ({ ...i, input: { ...i.input, path: '/in/other.csv' } }), /^input file: checkpoint \/in\/parts.csv, now \/in\/other.csv$/],
    ['another size', (i) => ({ ...i, input: { ...i.input, size: 99 } }), /^input size: checkpoint 1,234 bytes, now 99 bytes$/],
    ['another mtime', (i) => ({ ...i, input: { ...i.input, mtimeMs: 1 } }), /^input modified: /],
    ['other first bytes', (i) => ({ ...i, input: { ...i.input, headSha256: 'cd'.repeat(32) } }), /^input content: the first 64 KiB differ$/],
    ['another batch size', (i) => ({ ...i, options: { ...i.options, batchSize: 500 } }), /^option batchSize: checkpoint 1000, now 500$/],
    ['another --dir', (i) => ({ ...i, options: { ...i.options, dir: '/imgs' } }), /^option dir: checkpoint \(none\), now \/imgs$/],
    ['another data directory', (i) => ({ ...i, target: { ...i.target, dataDir: '/data/b' } }), /^target: checkpoint data directory \/data\/a, now data directory \/data\/b$/],
    ['a server instead', (i) => ({ ...i, target: { catalogId: i.target.catalogId, remote: 'http://h:1' } }), /^target: checkpoint data directory \/data\/a, now server http:\/\/h:1$/],
    ['another catalog at the same path', (i) => ({ ...i, target: { ...i.target, catalogId: 'x' } }), /^catalog: checkpoint 0b5c8f1e-.*, now x \(another catalog at the same path\)$/],
  ])('identityDifferences names %s', (_name, change, expected) => {
    const diffs = identityDifferences(identity, change(identity));
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toMatch(expected);
    expect(identityDifferences(identity, structuredClone(identity))).toEqual([]);
  });

  it('describeInput hashes the first block: same size and time but other bytes differ', async () => {
    const a = join(dir, 'a.csv');
    await writeFile(a, 'part_id\np1\n');
    await utimes(a, 1_700_000_000, 1_700_000_000);
    const before = await describeInput(a);
    await writeFile(a, 'part_id\np2\n');
    await utimes(a, 1_700_000_000, 1_700_000_000);
    const after = await describeInput(a);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expect(identityDifferences({ ...identity, input: before }, { ...identity, input: after })).toEqual(['input content: the first 64 KiB differ']);
  });

  it('remove() deletes the file and later marks write nothing', async () => {
    const path = join(dir, 'removed.json');
    const cp = fresh(path);
    await cp.markDone(0);
    await cp.remove();
    await cp.markDone(1);
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([-1, 1.5, Number.NaN])('markDone(%s) is a RangeError', async (index) => {
    await expect(fresh(join(dir, 'range.json')).markDone(index)).rejects.toBeInstanceOf(RangeError);
  });
});
