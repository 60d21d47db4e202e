/**
 * The messages between `catalog serve`'s main thread and its catalog workers (pooled-catalog.ts,
 * catalog-worker.ts). Plain data only: everything crosses a thread by structured clone.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ProblemBody } from '../../api/errors.js';
import type { NewSession } from '../../core/ports.js';
import type { CatalogLocation, OpenCatalogOptions } from '../../open-catalog.js';

/** Which service of a Catalog a call goes to. */
export type PooledServiceName = 'service' | 'relations' | 'search' | 'images';

/** One call: `catalog[service][method](...args)` in a worker. */
export interface PoolTask {
  service: PooledServiceName;
  method: string;
  args: unknown[];
  /**
   * For `search.search` answered early (answer-early.ts, a text search on a reader): the thread posts the search's
   * {@link PoolResult} here as soon as the first page is ranked, then goes on ranking the session;
   * the task itself resolves to `{ ok: true, value: null, sessions: [it] }` once it is ranked.
   */
  answerPort?: MessagePort;
  /**
   * A write's flag, shared with the main thread (a SharedArrayBuffer): 1 once the request it serves
   * was given up (its connection closed unanswered). The thread then does not run it.
   */
  givenUp?: Int32Array;
}

/**
 * A call's outcome. A CatalogError crosses as its problem+json body (the same serialisation the
 * HTTP server answers with), so the main thread rebuilds exactly the error the core threw.
 */
export type PoolResult =
  | {
    ok: true;
    value: unknown;
    /**
     * Sessions the call's searches ranked on a reader thread, for the main thread to store
     * (the reader's SessionSink, SearchService.storeSessions): the reader never waits for sessions.db's
     * write lock, and the main thread's session writer stores them in batches. Hits packed
     * (PackedSessionHits).
     */
    sessions?: NewSession[];
  }
  | { ok: false; problem: ProblemBody; retryAfterSeconds: number | undefined }
  /** A write of a batch that failed with anything but a CatalogError (a bug or the environment): its stack, rethrown on the main thread as an Error. */
  | { ok: false; internal: string };

/**
 * Writes that queued for the writer thread, run there in one transaction (write-batch.ts), in
 * order; the task resolves to one {@link PoolResult} per write, in the same order.
 */
export interface WriteBatchTask {
  writes: PoolTask[];
  /**
   * Where the writer posts the results of each transaction of the batch as soon as it commits
   * ({@link WriteBatchAnswer}), so that its writes are answered before the batch's later
   * transactions have run.
   */
  answerPort?: MessagePort;
}

/** The results of the batch's writes from index `from` on, committed (WriteBatchTask.answerPort). */
export interface WriteBatchAnswer {
  from: number;
  results: PoolResult[];
}

/** What pooled-catalog.ts hands each catalog worker thread (catalog-worker.ts). */
export interface CatalogWorkerData {
  /** The catalog's options; with a `databaseUrl`, the PostgreSQL catalog (the writer thread of a PostgreSQL server). */
  catalog: OpenCatalogOptions & CatalogLocation;
  /** A reader thread: load the search engine's per-part arrays before taking its first task. */
  warmSearch: boolean;
  /** A BroadcastChannel name: the thread posts {@link THREAD_READY} on it once it can take tasks. */
  readyChannel: string;
  /**
   * A BroadcastChannel name: the main thread posts on it once the whole server is ready (every
   * thread, and its own per-part arrays); a reader then rehearses searches while idle
   * (core/search/rehearsal.ts), not while the other threads still start.
   */
  rehearseChannel: string;
  /** The writer thread only: turns at catalog.db's write lock shared with the main thread (adapters/sqlite/write-turns.ts); each task runs in one. */
  writeTurns?: SharedArrayBuffer | undefined;
}

/** What a catalog worker posts on its ready channel. */
export const THREAD_READY = 'ready';
