/**
 * The catalog `catalog serve` runs on: every core in use, and the event loop never waits on
 * SQLite. better-sqlite3 is synchronous, so a 1,000-part write (validation and one transaction,
 * 200–500 ms) or a costly search would otherwise stall every other request on the main thread.
 *
 * - Writes of attributes, parts, organizations and relations go to ONE writer thread (SQLite has
 *   one writer at a time anyway; one thread keeps them in arrival order without lock waits).
 * - Reads and text searches go to a pool of reader threads, each with its own connections (WAL
 *   lets them read while the writer writes); a write committed by the writer is seen by the very
 *   next read, on any thread.
 * - The main thread keeps what streams or is cheap: authentication, tokens, maintenance mode,
 *   image uploads and originals (files stream through it), image search (its decodes already run
 *   off the event loop in a bounded pool).
 *
 * Each worker opens the same data directory with the same options (catalog-worker.ts). Errors
 * cross as problem+json and are rebuilt as the same CatalogError, so a pooled server answers
 * exactly as an unpooled one.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { CatalogError, fromProblem } from '../../api/errors.js';
import type { Catalog } from '../../core/services.js';
import type { OpenCatalogOptions } from '../../open-catalog.js';
import type { CatalogWorkerData, PooledServiceName, PoolResult, PoolTask } from './protocol.js';

/** Which calls run on the writer thread and which on the readers. Everything else stays on the main thread. */
const WRITES: Readonly<Partial<Record<PooledServiceName, readonly string[]>>> = {
  service: ['upsertAttributes', 'deleteAttributes', 'upsertParts', 'deleteParts', 'upsertOrganizations', 'upsertSynonyms', 'deleteSynonyms'],
  relations: ['createRelations'],
};
const READS: Readonly<Partial<Record<PooledServiceName, readonly string[]>>> = {
  service: ['getPart', 'listParts', 'selectParts', 'listAttributes', 'selectAttributes', 'listOrganizations', 'listSynonyms'],
  relations: ['getRelations', 'listRelations'],
  search: ['searchState', 'facetValues'],
};

/** Options of {@link poolCatalog}: the catalog's own options (plain data: they are sent to each worker) and the pool sizes. */
export interface PooledCatalogOptions {
  catalog: Omit<OpenCatalogOptions, 'clock' | 'ids' | 'decodePool'> & { dataDir: string };
  /** Reader threads (default: the machine's parallelism, at most 4; at least 1). */
  readers?: number | undefined;
  /** Calls that may wait for a thread before the server answers 503 (default 1,024 per pool). */
  maxQueue?: number | undefined;
}

/** A Catalog whose reads and writes run on worker threads; `close` stops the threads too. */
export interface PooledCatalog extends Catalog {
  /** Thread counts, for logs and tests. */
  readonly threads: { readers: number; writer: number };
  /**
   * Starts the threads now (the server calls it once it listens, so a port in use never has to
   * stop threads that are still opening their catalogs); the first call routed to a thread starts
   * them too. Idempotent.
   */
  start(): void;
}

/** The built worker: beside this module in dist/; from the TypeScript sources (tests), the one in dist/. */
function workerFile(): string {
  const path = fileURLToPath(new URL('./catalog-worker.js', import.meta.url));
  return existsSync(path) ? path : path.replace(`${sep}src${sep}`, `${sep}dist${sep}`);
}

function route(pool: () => Piscina, service: PooledServiceName): (method: string, args: unknown[]) => Promise<unknown> {
  return async (method, args) => {
    let result: PoolResult;
    try {
      result = (await pool().run({ service, method, args } satisfies PoolTask)) as PoolResult;
    } catch (error) {
      // Piscina refuses a task when its queue is full: the server is saturated, not broken.
      if (/queue is at limit/i.test((error as Error).message)) {
        throw new CatalogError('unavailable', 'the server is busy: too many requests are waiting; retry in a moment', undefined, { retryAfterSeconds: 1 });
      }
      throw error;
    }
    if (result.ok) return result.value;
    const rebuilt = fromProblem(result.problem.status, result.problem);
    throw result.retryAfterSeconds === undefined ? rebuilt : new CatalogError(rebuilt.code, rebuilt.detail, rebuilt.errors, { retryAfterSeconds: result.retryAfterSeconds });
  };
}

/** `target` with the listed methods sent to `call` instead; every other member is the target's own. */
function delegate<T extends object>(target: T, methods: readonly string[], call: (method: string, args: unknown[]) => Promise<unknown>, keep?: (method: string, args: unknown[]) => boolean): T {
  const proxy = Object.create(target) as T;
  for (const method of methods) {
    const own = (target as Record<string, unknown>)[method];
    if (typeof own !== 'function') throw new Error(`pooled catalog: ${method} is not a method`);
    Object.defineProperty(proxy, method, {
      value: (...args: unknown[]) => (keep?.(method, args) ? (own as (...a: unknown[]) => unknown).apply(target, args) : call(method, args)),
    });
  }
  return proxy;
}

/**
 * Starts the worker threads on the data directory of `main`, the catalog the main thread keeps
 * (opened with `options.catalog`, so migrations and index rebuilds already ran there, once). The
 * returned catalog owns `main`: its `close` closes the threads and `main`.
 */
export function poolCatalog(main: Catalog, options: PooledCatalogOptions): PooledCatalog {
  const readers = Math.max(1, options.readers ?? Math.min(4, availableParallelism()));
  const data = (warmSearch: boolean): CatalogWorkerData => ({ catalog: options.catalog, warmSearch });
  const common = { filename: workerFile(), maxQueue: options.maxQueue ?? 1024, idleTimeout: Number.POSITIVE_INFINITY, concurrentTasksPerWorker: 1 };
  let pools: { readers: Piscina; writer: Piscina } | undefined;
  const start = () => {
    pools ??= {
      readers: new Piscina({ ...common, workerData: data(true), minThreads: readers, maxThreads: readers }),
      writer: new Piscina({ ...common, workerData: data(false), minThreads: 1, maxThreads: 1 }),
    };
    return pools;
  };
  const calls = (service: PooledServiceName) => {
    const read = route(() => start().readers, service);
    const write = route(() => start().writer, service);
    const writes = new Set(WRITES[service] ?? []);
    return (method: string, args: unknown[]) => (writes.has(method) ? write(method, args) : read(method, args));
  };
  const methods = (service: PooledServiceName) => [...(WRITES[service] ?? []), ...(READS[service] ?? [])];
  // A search with a query image stays here: its decode is already off the event loop, bounded.
  const searchWithImage = (method: string, args: unknown[]) => method === 'search' && args[2] !== undefined;
  let closing: Promise<void> | undefined;
  return {
    service: delegate(main.service, methods('service'), calls('service')),
    relations: delegate(main.relations, methods('relations'), calls('relations')),
    search: delegate(main.search, [...methods('search'), 'search'], calls('search'), searchWithImage),
    images: main.images,
    threads: { readers, writer: 1 },
    start() {
      start();
    },
    close() {
      closing ??= (async () => {
        if (pools) {
          await Promise.all([pools.readers.close(), pools.writer.close()]);
          await Promise.all([pools.readers.destroy(), pools.writer.destroy()]);
        }
        await main.close();
      })();
      return closing;
    },
  };
}
