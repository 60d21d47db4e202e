/**
 * The messages between `catalog serve`'s main thread and its catalog workers (pooled-catalog.ts,
 * catalog-worker.ts). Plain data only: everything crosses a thread by structured clone.
 */
import type { ProblemBody } from '../../api/errors.js';
import type { OpenCatalogOptions } from '../../open-catalog.js';

/** Which service of a Catalog a call goes to. */
export type PooledServiceName = 'service' | 'relations' | 'search';

/** One call: `catalog[service][method](...args)` in a worker. */
export interface PoolTask {
  service: PooledServiceName;
  method: string;
  args: unknown[];
}

/**
 * A call's outcome. A CatalogError crosses as its problem+json body (the same serialisation the
 * HTTP server answers with), so the main thread rebuilds exactly the error the core threw.
 */
export type PoolResult =
  | { ok: true; value: unknown }
  | { ok: false; problem: ProblemBody; retryAfterSeconds: number | undefined };

/** What pooled-catalog.ts hands each catalog worker thread (catalog-worker.ts). */
export interface CatalogWorkerData {
  catalog: OpenCatalogOptions;
  /** A reader thread: load the search engine's per-part arrays before taking its first task (issue 12). */
  warmSearch: boolean;
}
