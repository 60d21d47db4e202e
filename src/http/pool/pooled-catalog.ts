/**
 * The catalog `catalog serve` runs on: every core in use, and the event loop never waits on
 * SQLite. better-sqlite3 is synchronous, so a 1,000-part write (validation and one transaction,
 * 200–500 ms) or a costly search would otherwise stall every other request on the main thread.
 *
 * - Writes of attributes, parts, organizations and relations go to ONE writer thread (SQLite has
 *   one writer at a time anyway; one thread keeps them in arrival order without lock waits). The
 *   writes that queue while it runs a batch are its next batch, one transaction (write-queue.ts).
 * - Reads and text searches go to a pool of reader threads, each with its own connections (WAL
 *   lets them read while the writer writes); a write committed by the writer is seen by the very
 *   next read, on any thread.
 * - The main thread keeps what streams or is cheap: authentication, tokens, maintenance mode,
 *   GET part (one indexed row, ~6 µs of SQLite: the hop to a thread and back cost ~90 µs of CPU a
 *   request, and serving it here took a GET part from ~215 to ~125 µs of server CPU),
 *   image uploads and originals (files stream through it), image search (its decodes already run
 *   off the event loop in a bounded pool), and cheap text searches: each text search is first tried
 *   here within {@link MAIN_THREAD_SEARCH_POSTINGS} postings (main-thread-search.ts) while no task
 *   waits for a reader; one that would read more gives up before storing anything and goes to a
 *   reader thread (answer-early.ts). A rare word's search costs ~0.1 ms, the hop ~0.3 ms. So do
 *   small session pages without values or images
 *   ({@link cheapPage}), under the same condition.
 *
 * Each worker opens the same data directory with the same options (catalog-worker.ts). Errors
 * cross as problem+json and are rebuilt as the same CatalogError, so a pooled server answers
 * exactly as an unpooled one.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel, MessageChannel, type TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { CatalogError, fromProblem } from '../../api/errors.js';
import type { Principal, SearchResponse } from '../../api/schemas.js';
import { builtWorkerFile } from '../../adapters/worker-file.js';
import type { SearchImage, SearchStateRequest } from '../../core/search/service.js';
import type { NewSession } from '../../core/ports.js';
import type { Catalog } from '../../core/services.js';
import { requestScope } from '../../core/request-scope.js';
import type { CatalogLocation, OpenCatalogOptions } from '../../open-catalog.js';
import { LOCAL_OWNER } from '../../core/permissions.js';
import { rehearse } from '../../core/search/rehearsal.js';
import { methodsRunOn } from './call-routes.js';
import { untilIdle } from './idle-gate.js';
import { MAIN_THREAD_SEARCH_POSTINGS, searchWithinPostings } from './main-thread-search.js';
import { WriteQueue } from './write-queue.js';
import { THREAD_READY, type CatalogWorkerData, type PooledServiceName, type PoolResult, type PoolTask, type WriteBatchAnswer, type WriteBatchTask } from './protocol.js';

/** Decoded postings the main thread's engine keeps (its searches read small lists only; ~6 MB). */
export const MAIN_THREAD_POSTING_CACHE = 500_000;

/** Options of {@link poolCatalog}: the catalog's own options (plain data: they are sent to each worker) and the pool sizes. */
export interface PooledCatalogOptions {
  catalog: Omit<OpenCatalogOptions, 'clock' | 'ids' | 'decodePool'> & { dataDir: string } & CatalogLocation;
  /**
   * Reader threads (default: the machine's parallelism, at most 4). 0: the writer thread alone,
   * every read and search on the main thread (a PostgreSQL catalog: see {@link poolCatalog}).
   */
  readers?: number | undefined;
  /** Calls that may wait for a thread before the server answers 503 (default 1,024 for the writer and for each reader). */
  maxQueue?: number | undefined;
  /** Writes that may wait for the writer thread (default {@link DEFAULT_MAX_QUEUED_WRITES}); beyond, a 503 with Retry-After. */
  maxQueuedWrites?: number | undefined;
  /** Queued writes the writer runs in one transaction at most (default write-queue.ts DEFAULT_MAX_BATCH; 1: each alone). */
  maxWriteBatch?: number | undefined;
  /** How long `start()` waits for the threads to be ready (default {@link READY_TIMEOUT_MS}). */
  readyTimeoutMs?: number | undefined;
  /** Postings a text search may read on the main thread (default {@link MAIN_THREAD_SEARCH_POSTINGS}; 0: none there). */
  mainThreadSearchPostings?: number | undefined;
  /**
   * Turns at catalog.db's write lock shared with the main thread's own writes (image metadata,
   * webhooks, tokens; adapters/sqlite/write-turns.ts): the writer runs each task in one.
   */
  writeTurns?: SharedArrayBuffer | undefined;
}

/**
 * Writes that may wait for the writer thread by default. The writer runs them in arrival order,
 * those that queued while a batch ran together as the next (write-queue.ts); a write that waited
 * longer than its client (the 60 s connection timeout) was given up and is dropped unanswered. 64 writes of one to a few parts wait a
 * few seconds at most; a client beyond them gets a 503 with Retry-After at once, which the CLI and
 * the HTTP client retry, instead of an answer a minute later or none.
 */
export const DEFAULT_MAX_QUEUED_WRITES = 64;

/** Default wait for the threads in `start()`: a catalog of millions of parts warms in about a second. */
const READY_TIMEOUT_MS = 60_000;

/** Resolves when `count` threads have posted THREAD_READY on `channel`, or after `timeoutMs`. */
function threadsReady(channel: string, count: number, timeoutMs: number): Promise<void> {
  const listener = new BroadcastChannel(channel);
  return new Promise<void>((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      listener.close();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    timer.unref();
    listener.onmessage = (event) => {
      if ((event as MessageEvent).data === THREAD_READY && ++seen >= count) done();
    };
  });
}

/** A Catalog whose reads and writes run on worker threads; `close` stops the threads too. */
export interface PooledCatalog extends Catalog {
  /** Thread counts, for logs and tests. */
  readonly threads: { readers: number; writer: number };
  /**
   * Text searches answered so far on the main thread (within its postings) and on reader threads,
   * and of the latter those answered before their session was ranked (the readers kept up).
   */
  readonly searches: { onMainThread: number; onReaders: number; answeredEarly: number };
  /** Session pages (GET /1/find/search/state/{sessionId}) answered so far on the main thread ({@link cheapPage}) and on reader threads. */
  readonly pages: { onMainThread: number; onReaders: number };
  /** Tasks sent to each reader thread so far (empty before the threads start), for tests and logs. */
  readerTasks(): number[];
  /**
   * Starts the threads now and resolves once every thread can take tasks (each reader has read the
   * search engine's per-part arrays), or after `readyTimeoutMs` whatever the threads do (a call
   * then waits for its thread as before). The first call routed to a thread starts them too.
   * Idempotent.
   */
  start(): Promise<void>;
  /**
   * Resolves once the main thread has read the per-part arrays of its own cheap searches and
   * pages, which it does after {@link start} (in slices, answering between them); until then
   * those go to a reader. Never rejects (a failed read leaves them on the readers).
   */
  mainThreadReady(): Promise<void>;
}

/** The built worker (worker-file.ts); without a build, the path in src/, which then fails to start with its name. */
function workerFile(): string {
  const url = new URL('./catalog-worker.js', import.meta.url);
  return builtWorkerFile(url) ?? fileURLToPath(url);
}

/** Piscina refuses a task when its queue is full: the server is saturated, not broken (503 with Retry-After). */
function busyError(error: unknown): unknown {
  return /queue is at limit/i.test((error as Error).message)
    ? new CatalogError('unavailable', 'the server is busy: too many requests are waiting; retry in a moment', undefined, { retryAfterSeconds: 1 })
    : error;
}

/** The 503 of a write that finds the writer's queue full. */
function busyWriter(maxQueue: number): CatalogError {
  return new CatalogError('unavailable', `the server is busy: ${maxQueue} writes are already waiting for the writer; retry in a moment`, undefined, { retryAfterSeconds: 1 });
}

/**
 * `task` with a flag the writer thread reads before running it, set when the HTTP request it serves
 * is given up (core/request-scope.ts `abortSignal`); `task` itself outside a request.
 */
function withGivenUpFlag(task: PoolTask): PoolTask {
  const signal = requestScope()?.abortSignal?.();
  if (signal === undefined) return task;
  const givenUp = new Int32Array(new SharedArrayBuffer(4));
  if (signal.aborted) givenUp[0] = 1;
  else signal.addEventListener('abort', () => Atomics.store(givenUp, 0, 1), { once: true });
  return { ...task, givenUp };
}

/** A thread's result as the value, or the very CatalogError the thread's core threw. */
function unwrap(result: PoolResult): unknown {
  if (result.ok) return result.value;
  if ('internal' in result) throw new Error(result.internal);
  const rebuilt = fromProblem(result.problem.status, result.problem);
  throw result.retryAfterSeconds === undefined ? rebuilt : new CatalogError(rebuilt.code, rebuilt.detail, rebuilt.errors, { retryAfterSeconds: result.retryAfterSeconds });
}

/** Runs a task on a thread (of a pool, or of the reader pools); piscina's run options. */
type RunTask = (task: PoolTask, runOptions?: { transferList?: TransferListItem[] }) => Promise<unknown>;

/**
 * Calls of `service` run by `run`; the sessions a call's searches ranked on a reader
 * (PoolResult.sessions) go to `keepSessions` before its value is returned, so a page of one
 * that the client asks for next finds it queued.
 */
function route(run: RunTask, service: PooledServiceName, keepSessions: KeepSessions): (method: string, args: unknown[]) => Promise<unknown> {
  return async (method, args) => {
    let result: PoolResult;
    try {
      result = (await run({ service, method, args } satisfies PoolTask)) as PoolResult;
    } catch (error) {
      throw busyError(error);
    }
    await keepHandedSessions(result, keepSessions);
    return unwrap(result);
  };
}

/** Stores, or queues for storing, sessions a reader thread ranked (SearchService.storeSessions of the main thread: its SessionBatcher). */
type KeepSessions = (sessions: readonly NewSession[]) => Promise<void>;

/** Passes the sessions a reader's task handed back (PoolResult.sessions), if any, to `keepSessions`. */
async function keepHandedSessions(result: PoolResult, keepSessions: KeepSessions): Promise<void> {
  if (result.ok && result.sessions) await keepSessions(result.sessions);
}

/**
 * A text search on a reader thread, answered as soon as its first page is ranked
 * (answer-early.ts): the answer comes on a MessagePort of its own while the
 * thread goes on ranking the session's hits. `stored` settles once the thread has handed the ranked
 * session back and `keepSessions` has queued it (or it is lost with a failed thread).
 */
async function searchOnReader(run: RunTask, principal: Principal, body: unknown, keepSessions: KeepSessions, settled: () => void): Promise<{ response: SearchResponse; stored: Promise<unknown> }> {
  const { port1, port2 } = new MessageChannel();
  try {
    const answer = new Promise<PoolResult>((resolve, reject) => {
      port1.once('message', resolve);
      // Messages posted before the thread closed its end arrive before 'close'.
      port1.once('close', () => reject(new Error('a reader thread ended a search without answering it')));
    });
    const task: PoolTask = { service: 'search', method: 'search', args: [principal, body], answerPort: port2 };
    let ranked: Promise<unknown>;
    try {
      ranked = run(task, { transferList: [port2] });
    } catch (error) {
      settled();
      throw busyError(error);
    }
    void ranked.then(settled, settled);
    // The thread hands the ranked session back (PoolResult.sessions); it is queued here.
    const stored = ranked.then((result) => keepHandedSessions(result as PoolResult, keepSessions));
    // A thread that fails (a bug, an exit) rejects `stored` and may never answer.
    const response = (await Promise.race([answer, ranked.then(() => answer, (error: unknown) => Promise.reject(busyError(error)))]).then(unwrap)) as SearchResponse;
    return { response, stored: stored.catch(() => undefined) };
  } finally {
    port1.close();
  }
}

/** `target` with the listed methods sent to `call` instead; every other member is the target's own. */
function delegate<T extends object>(target: T, methods: readonly string[], call: (method: string, args: unknown[]) => Promise<unknown>): T {
  const proxy = Object.create(target) as T;
  for (const method of methods) {
    if (typeof (target as Record<string, unknown>)[method] !== 'function') throw new Error(`pooled catalog: ${method} is not a method`);
    Object.defineProperty(proxy, method, { value: (...args: unknown[]) => call(method, args) });
  }
  return proxy;
}

/**
 * Tasks without an affinity a reader holds at once (one running, one queued in its piscina pool,
 * so it never waits for the next hand-over); the rest wait in {@link ReaderPools}' own queue.
 */
const READER_DEPTH = 2;

/** A task without an affinity waiting for a reader to have room. */
interface WaitingTask {
  task: PoolTask;
  runOptions: { transferList?: TransferListItem[] } | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The reader threads, one single-thread piscina pool each, so that a task can go to a chosen
 * thread: a text search (while the readers keep up) to the reader its query hashes to, whose
 * result cache then has the query, anything else to the first reader with room (see `run`).
 */
class ReaderPools {
  /** Tasks sent to each reader and not settled yet (running or queued). */
  private readonly inFlight: number[];
  /** Tasks sent to each reader so far. */
  readonly sent: number[];
  /** Per reader, the affinities (queries) of its tasks in flight, with their counts. */
  private readonly queries: Map<number, number>[];
  /** Tasks without an affinity that no reader had room for yet, oldest first. */
  private readonly waiting: WaitingTask[] = [];

  /**
   * `maxWaiting`: tasks that may wait in this queue; beyond, `run` rejects as a full piscina queue
   * does. `writesWaiting`: whether writes queue for the writer thread; meanwhile one reader fewer
   * runs (see `dispatch`), and {@link wake} is called when that may have changed.
   */
  constructor(private readonly pools: readonly Piscina[], private readonly maxWaiting: number, private readonly writesWaiting: () => boolean = () => false) {
    this.inFlight = pools.map(() => 0);
    this.sent = pools.map(() => 0);
    this.queries = pools.map(() => new Map());
  }

  /** Tasks waiting for a reader (in this queue or a reader's own), not running. */
  queueSize(): number {
    return this.waiting.length + this.pools.reduce((sum, pool) => sum + pool.queueSize, 0);
  }

  /**
   * Runs `task` on a reader. With an `affinity` (a text search while the readers keep up): on the
   * reader `affinity` hashes to when that reader is no busier than the least busy one, or is at
   * most one task busier and that task is the same query (the same affinity), else on the least
   * busy reader (the first of them). The one task of slack is a search answered early whose
   * session the reader is still ranking (a few ms): a client's repeat of the same words waits for
   * it and finds them in that reader's cache, rather than ranking them cold on another reader
   * (20-60 ms for a frequent word at 1,000,000 parts). Other words do not wait behind that ranking:
   * a sequential client's next frequent word that hashed to the busy reader waited for the previous
   * word's session there while the other reader sat idle (bench/compare.js, docs/search.md).
   *
   * Without one (reads, and searches once the readers are saturated): first come, first served
   * from one queue, each task to the first reader with room ({@link READER_DEPTH}). Handed to the
   * least busy reader's own queue at once, a task waited behind whatever that reader had queued,
   * a frequent word ranked cold among them, while the other reader drained its queue.
   *
   * Rejects as piscina does (a full queue: "queue is at limit").
   */
  run(task: PoolTask, affinity: number | undefined, runOptions?: { transferList?: TransferListItem[] }): Promise<unknown> {
    // While writes wait, a search takes its turn in the one queue too: sent to its reader at once,
    // it would run beside the reads `dispatch` holds back for the writer.
    if (affinity === undefined || this.writesWaiting()) {
      if (this.waiting.length >= this.maxWaiting) return Promise.reject(new Error('Task queue is at limit'));
      return new Promise((resolve, reject) => {
        this.waiting.push({ task, runOptions, resolve, reject });
        this.dispatch();
      });
    }
    const least = this.leastBusy();
    const preferred = affinity % this.pools.length;
    const slack = (this.queries[preferred]?.get(affinity) ?? 0) > 0 ? 1 : 0;
    const chosen = (this.inFlight[preferred] ?? 0) <= (this.inFlight[least] ?? 0) + slack ? preferred : least;
    return this.send(chosen, task, affinity, runOptions);
  }

  /** The reader with the fewest tasks in flight (the first of them). */
  private leastBusy(): number {
    let least = 0;
    for (let i = 1; i < this.pools.length; i++) if ((this.inFlight[i] ?? 0) < (this.inFlight[least] ?? 0)) least = i;
    return least;
  }

  /**
   * Sends waiting tasks, oldest first, to readers with room. While writes wait for the writer
   * thread, at most one reader fewer than there are holds tasks (never fewer than one): every
   * reader busy left the writer one runnable thread among the readers and the main thread on a
   * machine with as many cores as readers, and the queued writes (answered only one after the
   * other) waited for CPU the reads took.
   */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      const reader = this.readerWithRoom();
      if (reader === undefined) return;
      const next = this.waiting.shift() as WaitingTask;
      this.send(reader, next.task, undefined, next.runOptions).then(next.resolve, next.reject);
    }
  }

  /** The reader a waiting task may go to now (see `dispatch`), if any. */
  private readerWithRoom(): number | undefined {
    if (!this.writesWaiting() || this.pools.length === 1) {
      const least = this.leastBusy();
      return (this.inFlight[least] ?? 0) < READER_DEPTH ? least : undefined;
    }
    const busy = this.inFlight.filter((n) => n > 0).length;
    let chosen: number | undefined;
    for (let i = 0; i < this.pools.length; i++) {
      const inFlight = this.inFlight[i] ?? 0;
      if (inFlight >= READER_DEPTH || (inFlight === 0 && busy >= this.pools.length - 1)) continue;
      if (chosen === undefined || inFlight < (this.inFlight[chosen] ?? 0)) chosen = i;
    }
    return chosen;
  }

  /** Sends what waits to the readers now allowed to take it: call when writes may have stopped waiting. */
  wake(): void {
    this.dispatch();
  }

  /** Runs `task` on reader `chosen`, counting it in flight until it settles. */
  private send(chosen: number, task: PoolTask, affinity: number | undefined, runOptions: { transferList?: TransferListItem[] } | undefined): Promise<unknown> {
    const pool = this.pools[chosen] as Piscina;
    const result = pool.run(task, runOptions);
    this.inFlight[chosen] = (this.inFlight[chosen] ?? 0) + 1;
    this.sent[chosen] = (this.sent[chosen] ?? 0) + 1;
    const queries = this.queries[chosen] as Map<number, number>;
    if (affinity !== undefined) queries.set(affinity, (queries.get(affinity) ?? 0) + 1);
    const settle = () => {
      this.inFlight[chosen] = (this.inFlight[chosen] ?? 1) - 1;
      if (affinity !== undefined) {
        const left = (queries.get(affinity) ?? 1) - 1;
        if (left > 0) queries.set(affinity, left);
        else queries.delete(affinity);
      }
      this.dispatch();
    };
    void result.then(settle, settle);
    return result;
  }

  async close(): Promise<void> {
    // What never reached a reader fails as a closing pool's queued tasks do.
    for (const waiting of this.waiting.splice(0)) waiting.reject(new Error('the reader threads are closing'));
    await Promise.all(this.pools.map((pool) => pool.close()));
  }

  async destroy(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.destroy()));
  }
}

/**
 * Largest page of a session read on the main thread (GET /1/find/search/state/{sessionId}): at
 * most this many result cards by primary key, and one range read of the session's blocks.
 */
export const MAIN_THREAD_PAGE_LIMIT = 100;

/**
 * Whether a session page is cheap enough for the main thread: a limit of at most
 * {@link MAIN_THREAD_PAGE_LIMIT} (the default 25 when absent) and a projection without
 * `results.attributes`, `results.images` or `results.highlights` (those read the hits' parts and
 * images). A page costs a session row, ≤ 2 blocks of ids and its cards (~0.1 ms for 25 at
 * 1,000,000 parts), less than the hop to a reader thread and back (~0.3 ms wall, docs/search.md);
 * the values are checked by the core wherever the page runs, so a bad one is the same 400.
 */
export function cheapPage(options: SearchStateRequest | undefined): boolean {
  const limit = options?.limit;
  if (limit !== undefined && !(typeof limit === 'number' && limit <= MAIN_THREAD_PAGE_LIMIT)) return false;
  const projection = options?.projection;
  const named = typeof projection === 'string' ? projection : (projection ?? []).join(',');
  return !/results\.(attributes|images|highlights)/.test(named);
}

/**
 * A text search's reader affinity: a hash (FNV-1a, 32 bits) of what its results depend on, the
 * caller's view and the request's `matches`; undefined for a body that is not an object (it fails
 * validation on any reader).
 */
export function searchAffinity(principal: Principal, body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const key = `${principal.roles.join(',')}|${principal.organization ?? ''}|${JSON.stringify((body as { matches?: unknown }).matches ?? null)}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * The catalog options a worker thread opens its catalog with: the server's, except that no thread
 * keeps the photo index's snapshot.
 */
export function threadCatalogOptions(catalog: PooledCatalogOptions['catalog']): PooledCatalogOptions['catalog'] {
  // No thread writes the photo index's snapshot: only the main thread searches by image. No
  // thread's stores take write turns themselves: the writer takes one per task (catalog-worker.ts).
  return { ...catalog, photoIndexSnapshot: false, catalogWriteTurns: undefined };
}

/**
 * Starts the worker threads on the data directory of `main`, the catalog the main thread keeps
 * (opened with `options.catalog`, so migrations and index rebuilds already ran there, once). The
 * returned catalog owns `main`: its `close` closes the threads and `main`.
 */
export function poolCatalog(main: Catalog, options: PooledCatalogOptions): PooledCatalog {
  // Without readers (PostgreSQL): reads and searches stay on the main thread; only the writes go
  // to the writer thread, whose event loop then waits for nothing but their statements.
  const writerOnly = options.readers === 0;
  const readers = writerOnly ? 0 : Math.max(1, options.readers ?? Math.min(4, availableParallelism()));
  const readyChannel = `catalog-thread-ready-${randomUUID()}`;
  const rehearseChannel = `catalog-rehearse-${randomUUID()}`;
  const data = (warmSearch: boolean): CatalogWorkerData => ({
    catalog: threadCatalogOptions(options.catalog),
    warmSearch,
    readyChannel,
    rehearseChannel,
    ...(warmSearch ? {} : { writeTurns: options.writeTurns }),
  });
  // atomics 'async': between tasks a thread waits with Atomics.waitAsync, so its event loop turns.
  // With piscina's default ('sync') it blocks in Atomics.wait and never runs a timer or an
  // immediate between tasks, so the stores' once-per-turn caches (catalog-store.ts turnDataVersion:
  // attributes, organizations, settings) never saw another connection's commit there: a reader
  // kept refusing a filter on an attribute the writer had just made filterable, and the writer
  // kept answering 503 after maintenance mode was switched off on the main thread.
  const common = { filename: workerFile(), maxQueue: options.maxQueue ?? 1024, idleTimeout: Number.POSITIVE_INFINITY, concurrentTasksPerWorker: 1, atomics: 'async' as const };
  let pools: { readers: ReaderPools; writer: Piscina; writes: WriteQueue; ready: Promise<void>; mainReady: Promise<void> } | undefined;
  /**
   * Whether this thread holds the per-part arrays its cheap searches and pages read. It reads them
   * once the readers are ready, not beside them: on 2 cores at 10,000,000 parts that is a third of
   * the start-up's CPU, and a search arriving meanwhile is answered by a reader.
   */
  let mainArrays = false;
  const start = () => {
    if (!pools) {
      // Listen before the threads exist, so that no thread's message is missed.
      const threads = threadsReady(readyChannel, readers + 1, options.readyTimeoutMs ?? READY_TIMEOUT_MS);
      const writer = new Piscina({ ...common, workerData: data(false), minThreads: 1, maxThreads: 1 });
      const readerThreads = Array.from({ length: readers }, () => new Piscina({ ...common, workerData: data(true), minThreads: 1, maxThreads: 1 }));
      // Writes wait here, not in piscina's queue: those that queue while a batch runs go as the next (write-queue.ts).
      // Each transaction's writes are answered as it commits, through a port of the batch's own.
      const sendBatch = async (batch: WriteBatchTask, answered: (answer: WriteBatchAnswer) => void): Promise<PoolResult[]> => {
        const { port1, port2 } = new MessageChannel();
        port1.on('message', answered);
        try {
          return (await writer.run({ ...batch, answerPort: port2 }, { transferList: [port2] })) as PoolResult[];
        } finally {
          port1.close();
        }
      };
      const writes: WriteQueue = new WriteQueue(sendBatch, options.maxWriteBatch, () => readerPools.wake());
      const readerPools: ReaderPools = new ReaderPools(readerThreads, common.maxQueue * readers, () => writes.size > 0);
      const ready = threads.then(() => undefined);
      const mainReady = writerOnly
        ? Promise.resolve()
        : ready.then(() => main.search.warm({ postings: 0 })).then(() => {
          mainArrays = true;
          // The server is ready: the readers rehearse searches, this thread its cheap ones, while idle
          // (core/search/rehearsal.ts, idle-gate.ts).
          const go = new BroadcastChannel(rehearseChannel);
          go.postMessage('rehearse');
          go.close();
          if (maxPostings > 0) void rehearse(main.search, main.service.store, LOCAL_OWNER, untilIdle, { maxPostings });
        }, () => undefined);
      // Without readers this thread ranks every search (PostgreSQL): it rehearses them whole.
      if (writerOnly) void ready.then(() => rehearse(main.search, main.service.store, LOCAL_OWNER, untilIdle), () => undefined);
      pools = { readers: readerPools, writer, writes, ready, mainReady };
    }
    return pools;
  };
  const maxQueuedWrites = options.maxQueuedWrites ?? DEFAULT_MAX_QUEUED_WRITES;
  const keepSessions: KeepSessions = (sessions) => main.search.storeSessions(sessions);
  const calls = (service: PooledServiceName) => {
    const read = route((task, runOptions) => start().readers.run(task, undefined, runOptions), service, keepSessions);
    // The reads held back while writes wait (ReaderPools.dispatch) go when a batch settles (WriteQueue).
    const write = route((task) => {
      const { writes } = start();
      if (writes.size >= maxQueuedWrites) throw busyWriter(maxQueuedWrites);
      return writes.run(withGivenUpFlag(task));
    }, service, keepSessions);
    const writes = new Set(methodsRunOn(service, 'write'));
    return (method: string, args: unknown[]) => (writes.has(method) ? write(method, args) : read(method, args));
  };
  const methods = (service: PooledServiceName) => [...methodsRunOn(service, 'write'), ...(writerOnly ? [] : methodsRunOn(service, 'read'))];
  const onReader = calls('search');
  const search = writerOnly ? main.search : delegate(main.search, methods('search'), onReader);
  const maxPostings = options.mainThreadSearchPostings ?? MAIN_THREAD_SEARCH_POSTINGS;
  const searches = { onMainThread: 0, onReaders: 0, answeredEarly: 0 };
  const pages = { onMainThread: 0, onReaders: 0 };
  /** Text searches running or waiting on the reader threads. */
  let readerSearches = 0;
  /** Sessions of reader searches answered and not yet stored (at most one per running or queued task). */
  const storing = new Map<string, Promise<unknown>>();
  if (!writerOnly) Object.defineProperty(search, 'search', {
    value: async (principal: Principal, body: unknown, image?: SearchImage) => {
      // A search with a query image stays here: its decode is already off the event loop, bounded.
      if (image !== undefined) return main.search.search(principal, body, image);
      // Only while no search waits for a reader: under load the readers' queue is first come, first
      // served, and cheap searches overtaking it there left the frequent words waiting for every
      // reader's backlog (50 connections at 1,000,000 parts: frequent-word p99 ~100 -> ~300 ms).
      if (maxPostings > 0 && mainArrays && start().readers.queueSize() === 0) {
        const answer = await searchWithinPostings(main.search, principal, body, maxPostings);
        if (answer !== undefined) {
          searches.onMainThread++;
          return answer;
        }
      }
      searches.onReaders++;
      // Answering before the session is ranked costs the page's ranking once more (~1.3 ms for a
      // frequent word at 1,000,000 parts): worth it while the readers keep up (at most one search
      // waiting per reader: a client's next search then waits for a session's ranking, not for a
      // whole search), not once searches queue up (a saturated server then answers as many per
      // second as without it).
      // While the readers keep up, the same query goes to the same reader if it is hardly busier
      // than the others: each reader keeps its own result cache (SqliteSearchIndex), so spread
      // over every reader a frequent word was ranked cold once per reader (20-60 ms each at
      // 1,000,000 parts).
      const affinity = searchAffinity(principal, body);
      const onPreferredReader: RunTask = (task, runOptions) => start().readers.run(task, affinity, runOptions);
      if (readerSearches >= 2 * readers) {
        // Saturated: the least busy reader, whatever it holds in cache (with the affinity, the
        // 50-connection load's p99 went 126-135 -> 156-173 ms, alternated).
        readerSearches++;
        try {
          return await onReader('search', [principal, body]);
        } finally {
          readerSearches--;
        }
      }
      readerSearches++;
      searches.answeredEarly++;
      const { response, stored } = await searchOnReader(onPreferredReader, principal, body, keepSessions, () => readerSearches--);
      // Until its session is stored, a page of it waits (searchState below).
      storing.set(response.sessionId, stored);
      void stored.finally(() => storing.delete(response.sessionId));
      return response;
    },
  });
  // A session a reader answered may still be ranked there, and no session answered (here or on a
  // reader) may be stored yet (session-batcher.ts): wait for both, in that order (a reader's
  // session is queued here once ranked). Then a small page without values or images is read here
  // (the hop to a reader and back cost more than the page), the rest on a reader.
  if (!writerOnly) Object.defineProperty(search, 'searchState', {
    value: async (principal: Principal, sessionId: string, options?: SearchStateRequest) => {
      await storing.get(sessionId);
      await main.search.flushSessions();
      if (maxPostings > 0 && mainArrays && cheapPage(options) && start().readers.queueSize() === 0) {
        pages.onMainThread++;
        return main.search.searchState(principal, sessionId, options);
      }
      pages.onReaders++;
      return onReader('searchState', [principal, sessionId, options]);
    },
  });
  let closing: Promise<void> | undefined;
  return {
    service: delegate(main.service, methods('service'), calls('service')),
    relations: delegate(main.relations, methods('relations'), calls('relations')),
    search,
    images: delegate(main.images, methods('images'), calls('images')),
    operations: main.operations,
    // The feed and webhooks read and write small rows: the main thread's own connection.
    changes: main.changes,
    threads: { readers, writer: 1 },
    searches,
    pages,
    readerTasks() {
      return pools ? [...pools.readers.sent] : [];
    },
    start() {
      return start().ready;
    },
    mainThreadReady() {
      return start().mainReady;
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
