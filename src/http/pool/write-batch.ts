/**
 * The writer thread's side of group commit (catalog-worker.ts): the writes that queued on the main
 * thread while the previous batch ran (write-queue.ts) come as one {@link WriteBatchTask} and run in
 * one transaction (Catalog.groupCommit), each answered with its own result, in arrival order.
 */
import { CatalogError, toProblem } from '../../api/errors.js';
import type { GroupedOutcome } from '../../core/ports.js';
import type { Catalog } from '../../core/services.js';
import type { PoolResult, PoolTask, WriteBatchTask } from './protocol.js';

/** The call a task names, `catalog[service][method](...args)`, ready to run. Throws for an unknown method (a bug). */
export function callOf(catalog: Catalog, task: PoolTask): () => Promise<unknown> {
  const target = catalog[task.service] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const method = target[task.method];
  if (typeof method !== 'function') throw new Error(`catalog worker: no method ${task.service}.${task.method}`);
  return () => method.apply(target, task.args);
}

/** Whether the request a write serves was given up (PoolTask.givenUp). */
export function givenUp(task: PoolTask): boolean {
  return task.givenUp !== undefined && Atomics.load(task.givenUp, 0) === 1;
}

/** The answer of a write dropped because its request was given up. */
export const GIVEN_UP = new CatalogError('request_timeout', 'the request was given up (its connection closed) before it ran; nothing of it was stored');

/** A write's outcome as its PoolResult: a CatalogError as data, anything else as an internal error. */
function resultOf(outcome: GroupedOutcome): PoolResult {
  if (outcome.kind === 'done') return { ok: true, value: outcome.value };
  const error = outcome.kind === 'dropped' ? GIVEN_UP : outcome.error;
  if (error instanceof CatalogError) return { ok: false, problem: toProblem(error), retryAfterSeconds: error.retryAfterSeconds };
  return { ok: false, internal: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}

/**
 * Runs a batch of writes on `catalog` in one transaction (its groupCommit; without one, each in
 * its own), in order: one result per write, in the batch's order. A write given up before it ran,
 * or before the batch commits, is not stored (GIVEN_UP). Rejects only when the transaction itself
 * fails (every write of the batch then fails with it, nothing stored).
 */
export async function runWriteBatch(catalog: Catalog, batch: WriteBatchTask): Promise<PoolResult[]> {
  const writes = batch.writes.map((task) => ({ run: callOf(catalog, task), wanted: () => !givenUp(task) }));
  if (catalog.groupCommit) return (await catalog.groupCommit.run(writes)).map(resultOf);
  const results: PoolResult[] = [];
  for (const write of writes) {
    if (!write.wanted()) results.push(resultOf({ kind: 'dropped' }));
    else results.push(resultOf(await write.run().then((value) => ({ kind: 'done', value }) as const, (error: unknown) => ({ kind: 'failed', error }) as const)));
  }
  return results;
}
