/**
 * The main thread's queue of writes for `catalog serve`'s writer thread (pooled-catalog.ts): the
 * writes that arrive while a batch runs there form the next batch, at most `maxBatch` of them,
 * sent as one task (WriteBatchTask) that the writer runs in one transaction (write-batch.ts).
 * Writes keep their arrival order: batches run one at a time, each in the order its writes came,
 * and every write is answered with its own result.
 *
 * Why: the writer is one thread; under load writes queue for it, and every write paid its own
 * commit, the largest share of its time there. A write that finds the writer idle goes at once,
 * alone. The writer answers each transaction's writes as it commits (WriteBatchTask.answerPort).
 */
import { Batches } from '../../core/batches.js';
import type { PoolResult, PoolTask, WriteBatchAnswer, WriteBatchTask } from './protocol.js';

/**
 * Writes a batch holds at most by default. The writer commits a batch's writes every 250 ms of
 * them (write-batch.ts GROUP_BUDGET_MS) and answers them then, so the bound matters little: it
 * only keeps one batch's task message small (docs/decisions, group commit, for the batch sizes
 * seen under load).
 */
export const DEFAULT_MAX_BATCH = 16;

interface QueuedWrite {
  task: PoolTask;
  resolve: (result: PoolResult) => void;
  reject: (error: unknown) => void;
}

export class WriteQueue {
  private readonly batches: Batches<QueuedWrite>;

  /**
   * `send` runs a batch on the writer and resolves with one result per write, in order; it may
   * pass the results of the batch's first transactions to `answered` as each commits (those writes
   * are answered then). `settled` is called after each batch has settled (the reader pools wake
   * then: pooled-catalog.ts).
   */
  constructor(
    private readonly send: (batch: WriteBatchTask, answered: (answer: WriteBatchAnswer) => void) => Promise<PoolResult[]>,
    maxBatch = DEFAULT_MAX_BATCH,
    private readonly settled: () => void = () => undefined,
  ) {
    // A write that finds the writer idle goes at once, alone.
    this.batches = new Batches(maxBatch, (batch) => this.runBatch(batch), false);
  }

  /** Writes waiting for a batch (not the running batch's). */
  get size(): number {
    return this.batches.size;
  }

  /** Queues `task` for the next batch; resolves with its own result once its batch has committed (or failed). */
  run(task: PoolTask): Promise<PoolResult> {
    return new Promise<PoolResult>((resolve, reject) => this.batches.add({ task, resolve, reject }));
  }

  /** Sends one batch to the writer and answers each of its writes. */
  private async runBatch(batch: QueuedWrite[]): Promise<void> {
    try {
      // A write answered early is resolved again below with the same result: a no-op.
      const results = await this.send({ writes: batch.map((write) => write.task) }, ({ from, results: early }) => early.forEach((result, k) => batch[from + k]?.resolve(result)));
      batch.forEach((write, i) => {
        const result = results[i];
        if (result === undefined) write.reject(new Error(`the writer thread answered ${results.length} of a batch of ${batch.length} writes`));
        else write.resolve(result);
      });
    } catch (error) {
      for (const write of batch) write.reject(error);
    } finally {
      this.settled();
    }
  }
}
