/**
 * A catalog worker of `catalog serve` (pooled-catalog.ts): a worker thread holding its own open
 * catalog (its own SQLite connections; WAL lets readers and the one writer work at once) and
 * answering calls of the main thread. Loaded by piscina, once per thread.
 */
import { workerData } from 'node:worker_threads';
import { CatalogError, toProblem } from '../../api/errors.js';
import { openCatalog } from '../../open-catalog.js';
import type { CatalogWorkerData, PoolResult, PoolTask } from './protocol.js';

const data = workerData as CatalogWorkerData;
const catalog = openCatalog(data.catalog);
// piscina hands a thread tasks once this module has loaded, so a reader's first search does not pay
// for reading the per-part arrays (issue 12: ~0.2 s at 1,000,000 parts); until then the pool's
// other threads answer.
if (data.warmSearch) await catalog.search.warm();

/** Runs one call. CatalogErrors come back as data; anything else is thrown (a bug or the environment). */
export default async function run(task: PoolTask): Promise<PoolResult> {
  const target = catalog[task.service] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const method = target[task.method];
  if (typeof method !== 'function') throw new Error(`catalog worker: no method ${task.service}.${task.method}`);
  try {
    return { ok: true, value: await method.apply(target, task.args) };
  } catch (error) {
    if (error instanceof CatalogError) return { ok: false, problem: toProblem(error), retryAfterSeconds: error.retryAfterSeconds };
    throw error;
  }
}
