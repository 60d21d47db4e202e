/**
 * The main thread's write queue (http/pool/write-queue.ts): a write that finds the writer idle goes
 * alone; the writes that arrive while a batch runs go together as the next, at most maxBatch, in
 * arrival order, and each caller gets its own result.
 */
import { describe, expect, it } from 'vitest';
import type { PoolResult, PoolTask, WriteBatchTask } from '../../../src/http/pool/protocol.js';
import { WriteQueue } from '../../../src/http/pool/write-queue.js';

const task = (n: number): PoolTask => ({ service: 'service', method: 'upsertParts', args: [n] });

describe('the queue of writes for the writer thread', () => {
  it('sends what queued while a batch ran as the next batch, in order, each answered with its own result', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const queue = new WriteQueue(async (batch: WriteBatchTask) => {
      batches.push(batch.writes.map((write) => write.args[0] as number));
      // The first batch runs until released; the others at once.
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return batch.writes.map((write): PoolResult => ((write.args[0] as number) === 3 ? { ok: false, problem: { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'three', code: 'bad_request' }, retryAfterSeconds: undefined } : { ok: true, value: `answer ${write.args[0] as number}` }));
    }, 2);
    const answered: number[] = [];
    const results = [1, 2, 3, 4, 5].map((n) => queue.run(task(n)).then((result) => {
      answered.push(n);
      return result;
    }));
    expect(queue.size).toBe(4);
    release();
    const settled = await Promise.all(results);
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
    expect(answered).toEqual([1, 2, 3, 4, 5]);
    expect(settled.map((result) => (result.ok ? result.value : 'problem' in result ? result.problem.detail : undefined))).toEqual(['answer 1', 'answer 2', 'three', 'answer 4', 'answer 5']);
    expect(queue.size).toBe(0);
  });

  it('answers the writes of a transaction the writer has committed before the rest of their batch has run', async () => {
    let finish: () => void = () => undefined;
    const queue = new WriteQueue(async (batch, answered) => {
      answered({ from: 0, results: [{ ok: true, value: 'first' }] });
      await new Promise<void>((resolve) => (finish = resolve));
      return batch.writes.map((_, i): PoolResult => ({ ok: true, value: i === 0 ? 'first' : 'second' }));
    }, 16);
    // Both in one batch: the writer is busy with neither yet when they are queued.
    const blocker = queue.run(task(0));
    const first = queue.run(task(1));
    const second = queue.run(task(2));
    let secondSettled = false;
    void second.then(() => (secondSettled = true));
    expect(await blocker).toEqual({ ok: true, value: 'first' });
    finish();
    expect(await first).toEqual({ ok: true, value: 'first' });
    expect(secondSettled).toBe(false);
    finish();
    expect(await second).toEqual({ ok: true, value: 'second' });
  });

  it('fails every write of a batch the writer could not run, and goes on with the next', async () => {
    let sent = 0;
    const queue = new WriteQueue(async (batch) => {
      if (++sent === 1) throw new Error('the writer thread ended');
      return batch.writes.map((): PoolResult => ({ ok: true, value: 'ok' }));
    }, 16);
    const first = queue.run(task(1));
    const second = queue.run(task(2));
    await expect(first).rejects.toThrow('the writer thread ended');
    expect(await second).toEqual({ ok: true, value: 'ok' });
  });
});
