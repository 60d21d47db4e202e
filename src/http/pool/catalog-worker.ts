/**
 * A catalog worker of `catalog serve` (pooled-catalog.ts): a worker thread holding its own open
 * catalog (its own SQLite connections; WAL lets readers and the one writer work at once) and
 * answering calls of the main thread. Loaded by piscina, once per thread.
 */
import { BroadcastChannel, workerData, type MessagePort } from 'node:worker_threads';
import type { Principal } from '../../api/schemas.js';
import { CatalogError, toProblem } from '../../api/errors.js';
import { openCatalog } from '../../open-catalog.js';
import { THREAD_READY, type CatalogWorkerData, type PoolResult, type PoolTask } from './protocol.js';

const data = workerData as CatalogWorkerData;
const catalog = openCatalog(data.catalog);
// piscina hands a thread tasks once this module has loaded, so a reader's first search does not pay
// for reading the per-part arrays (issue 12: ~0.2 s at 1,000,000 parts); until then the pool's
// other threads answer.
if (data.warmSearch) await catalog.search.warm();
const ready = new BroadcastChannel(data.readyChannel);
ready.postMessage(THREAD_READY);
ready.close();

/** A CatalogError as data; anything else rethrown (a bug or the environment). */
function asProblem(error: unknown): PoolResult {
  if (error instanceof CatalogError) return { ok: false, problem: toProblem(error), retryAfterSeconds: error.retryAfterSeconds };
  throw error;
}

/**
 * A text search answered on `port` as soon as its first page is ranked (PoolTask.answerPort):
 * the answer, or the CatalogError that came before it, goes to the port; the session is ranked
 * and stored afterwards, and the task resolves when it is.
 */
async function searchAnsweringEarly(task: PoolTask, port: MessagePort): Promise<PoolResult> {
  try {
    const [principal, body] = task.args as [Principal, unknown];
    await catalog.search.searchAnsweringEarly(principal, body, (response) => port.postMessage({ ok: true, value: response } satisfies PoolResult));
  } catch (error) {
    port.postMessage(asProblem(error));
  } finally {
    port.close();
  }
  return { ok: true, value: null };
}

/** Runs one call. CatalogErrors come back as data; anything else is thrown (a bug or the environment). */
export default async function run(task: PoolTask): Promise<PoolResult> {
  if (task.answerPort) return searchAnsweringEarly(task, task.answerPort);
  const target = catalog[task.service] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const method = target[task.method];
  if (typeof method !== 'function') throw new Error(`catalog worker: no method ${task.service}.${task.method}`);
  try {
    return { ok: true, value: await method.apply(target, task.args) };
  } catch (error) {
    return asProblem(error);
  }
}
