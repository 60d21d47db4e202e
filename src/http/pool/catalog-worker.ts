/**
 * A catalog worker of `catalog serve` (pooled-catalog.ts): a worker thread holding its own open
 * catalog (its own SQLite connections; WAL lets readers and the one writer work at once) and
 * answering calls of the main thread. Loaded by piscina, once per thread.
 */
import { BroadcastChannel, workerData, type MessagePort } from 'node:worker_threads';
import type { Principal } from '../../api/schemas.js';
import { CatalogError, toProblem } from '../../api/errors.js';
import { openCatalog, openCatalogAt } from '../../open-catalog.js';
import type { NewSession, SessionSink } from '../../core/ports.js';
import { packSessionHits } from '../../adapters/session-blocks.js';
import { WriteTurns } from '../../adapters/sqlite/write-turns.js';
import { LOCAL_OWNER } from '../../core/permissions.js';
import { rehearse } from '../../core/search/rehearsal.js';
import { searchAnsweringEarly } from './answer-early.js';
import { untilIdle } from './idle-gate.js';
import { THREAD_READY, type CatalogWorkerData, type PoolResult, type PoolTask, type WriteBatchTask } from './protocol.js';
import { callOf, runWriteBatch } from './write-batch.js';

const data = workerData as CatalogWorkerData;
/**
 * Sessions this reader's current task ranked (tasks run one at a time: concurrentTasksPerWorker 1),
 * returned with the task's result for the main thread to store (PoolResult.sessions), packed. A reader
 * that stored them itself waited for sessions.db's write lock while other searches queued behind
 * it (50 connections at 1,000,000 parts: ~1 s of every 10 per reader).
 */
let handed: NewSession[] = [];
// Packed here (the readers have the spare CPU; the session writer serves every thread), each
// block in a buffer of its own: the main thread transfers them to the session writer uncopied.
const handOff = ({ session, hits }: NewSession): void => {
  handed.push({ session, hits: 'blocks' in hits ? hits : packSessionHits(hits) });
};
// A reader's sessions are all handed back: none is pending on the thread, so there is nothing to flush.
const handBack: SessionSink = { keep: handOff, flush: () => Promise.resolve() };
// A PostgreSQL server's writer thread opens the PostgreSQL catalog (its own connections).
const catalog = data.catalog.databaseUrl !== undefined
  ? await openCatalogAt(data.catalog)
  : openCatalog({ ...data.catalog, ...(data.warmSearch ? { sessionSink: () => handBack } : {}) });
/**
 * The writer's turns at catalog.db's write lock, shared with the main thread's own writes
 * (write-turns.ts): each transaction of a write batch runs in one, so a main-thread write waits for
 * the transaction in progress without blocking its event loop, and the next waits for it without
 * SQLite's busy sleeps.
 */
const turns = data.writeTurns ? new WriteTurns(data.writeTurns) : undefined;

/** The sessions handed over since the last call, emptied. */
function takeSessions(): { sessions?: NewSession[] } {
  if (handed.length === 0) return {};
  const sessions = handed;
  handed = [];
  return { sessions };
}
// piscina hands a thread tasks once this module has loaded, so a reader's first search does not pay
// for reading the per-part arrays (~0.2 s at 1,000,000 parts); until then the pool's
// other threads answer.
if (data.warmSearch) await catalog.search.warm();
const ready = new BroadcastChannel(data.readyChannel);
ready.postMessage(THREAD_READY);
ready.close();

// A reader rehearses searches of its own catalog while no client needs it (core/search/rehearsal.ts,
// idle-gate.ts), once the main thread says the whole server is ready.
if (data.warmSearch) {
  const go = new BroadcastChannel(data.rehearseChannel);
  go.onmessage = () => {
    go.close();
    void rehearse(catalog.search, catalog.service.store, LOCAL_OWNER, untilIdle, { facets: true });
  };
  // Waiting for the word keeps no thread alive (unref'd once its handler is set).
  go.unref();
}

/** A CatalogError as data; anything else rethrown (a bug or the environment). */
function asProblem(error: unknown): PoolResult {
  if (error instanceof CatalogError) return { ok: false, problem: toProblem(error), retryAfterSeconds: error.retryAfterSeconds };
  throw error;
}

/**
 * A text search answered on `port` as soon as its first page is ranked (PoolTask.answerPort):
 * the answer, or the CatalogError that came before it, goes to the port; the session is ranked
 * afterwards, and the task resolves with it (PoolResult.sessions) for the main thread to store.
 */
async function searchWithAnswerPort(task: PoolTask, port: MessagePort): Promise<PoolResult> {
  try {
    const [principal, body] = task.args as [Principal, unknown];
    await searchAnsweringEarly(catalog.search, principal, body, (response) => port.postMessage({ ok: true, value: response } satisfies PoolResult));
  } catch (error) {
    port.postMessage(asProblem(error));
  } finally {
    port.close();
  }
  return { ok: true, value: null, ...takeSessions() };
}

/**
 * Runs one read on a reader, or on the writer a batch of writes (WriteBatchTask, the only tasks
 * the writer gets: write-queue.ts) in its turns at the write lock. CatalogErrors come back as
 * data; anything else is thrown (a bug or the environment).
 */
export default async function run(task: PoolTask | WriteBatchTask): Promise<PoolResult | PoolResult[]> {
  if ('writes' in task) {
    const port = task.answerPort;
    try {
      return await runWriteBatch(catalog, task, turns ? (work) => turns.run(work) : undefined, port ? (answer) => port.postMessage(answer) : undefined);
    } finally {
      port?.close();
    }
  }
  if (task.answerPort) return searchWithAnswerPort(task, task.answerPort);
  try {
    const value = await callOf(catalog, task)();
    return { ok: true, value, ...takeSessions() };
  } catch (error) {
    handed = [];
    return asProblem(error);
  }
}
