/**
 * The writer thread's side of group commit (catalog-worker.ts): the writes that queued on the main
 * thread while the previous batch ran (write-queue.ts) come as one {@link WriteBatchTask} and run in
 * one transaction (Catalog.groupCommit), each answered with its own result, in arrival order.
 */
import { CatalogError, toProblem } from '../../api/errors.js';
import type { GroupedOutcome } from '../../core/ports.js';
import type { Catalog } from '../../core/services.js';
import type { PoolResult, PoolTask, WriteBatchAnswer, WriteBatchTask } from './protocol.js';

/** The call a task names, `catalog[service][method](...args)`, ready to run. Throws for an unknown method (a bug). */
export function callOf(catalog: Catalog, task: PoolTask): () => Promise<unknown> {
  const target = catalog[task.service] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const method = target[task.method];
  if (typeof method !== 'function') throw new Error(`catalog worker: no method ${task.service}.${task.method}`);
  return () => method.apply(target, task.args);
}

/**
 * Whether the request a write serves was given up (PoolTask.givenUp): it must not commit then,
 * unseen, after writes that were answered (core/request-scope.ts `abortSignal`).
 */
function givenUp(task: PoolTask): boolean {
  return task.givenUp !== undefined && Atomics.load(task.givenUp, 0) === 1;
}

/** The answer of a write dropped because its request was given up. */
const GIVEN_UP = new CatalogError('request_timeout', 'the request was given up (its connection closed) before it ran; nothing of it was stored');

/** A write's outcome as its PoolResult: a CatalogError as data, anything else as an internal error. */
function resultOf(outcome: GroupedOutcome): PoolResult {
  if (outcome.kind === 'done') return { ok: true, value: outcome.value };
  const error = outcome.kind === 'dropped' ? GIVEN_UP : outcome.error;
  if (error instanceof CatalogError) return { ok: false, problem: toProblem(error), retryAfterSeconds: error.retryAfterSeconds };
  return { ok: false, internal: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}

/**
 * How long a transaction of a batch runs writes before it commits what ran and the rest go on in
 * the next one, after another turn at the write lock (`inTurn`): the main thread's own writes (an
 * upload's metadata) wait for one such transaction, not for a whole batch.
 */
export const GROUP_BUDGET_MS = 250;

/**
 * Runs a batch of writes on `catalog`, in order, in as few transactions as {@link GROUP_BUDGET_MS}
 * allows (its groupCommit), each transaction in a turn of `inTurn`: one result per write, in the
 * batch's order, and each transaction's results passed to `committed` as soon as it commits. A
 * write given up before it ran, or before its transaction commits, is not stored (GIVEN_UP). A
 * transaction that fails with a CatalogError (storage full, database unavailable) answers each of
 * its writes with it; any other failure of a transaction rejects (the writes not answered yet then
 * fail with it; nothing of that transaction stored). Throws for a catalog without groupCommit.
 */
export async function runWriteBatch(
  catalog: Catalog,
  batch: WriteBatchTask,
  inTurn: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  committed: (answer: WriteBatchAnswer) => void = () => undefined,
): Promise<PoolResult[]> {
  const writes = batch.writes.map((task) => ({ run: callOf(catalog, task), wanted: () => !givenUp(task) }));
  const group = catalog.groupCommit;
  if (group === undefined) throw new Error('catalog worker: a catalog without group commit cannot run a write batch');
  const results: PoolResult[] = [];
  while (results.length < writes.length) {
    const from = results.length;
    const rest = writes.slice(from);
    const outcomes = await inTurn(() => group.run(rest, GROUP_BUDGET_MS)).catch((error: unknown) => {
      // The transaction itself failed (a full disk, a database that cannot be reached): nothing of
      // it is stored, and each write not answered yet fails with that error, which says so.
      if (error instanceof CatalogError) return rest.map((): GroupedOutcome => ({ kind: 'failed', error }));
      throw error;
    });
    const answered = outcomes.map(resultOf);
    results.push(...answered);
    // Answered as soon as committed: the batch's later transactions are not waited for.
    committed({ from, results: answered });
  }
  return results;
}
