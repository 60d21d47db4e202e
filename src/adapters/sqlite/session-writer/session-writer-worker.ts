/**
 * The session-writer thread of `catalog serve` (session-writer-thread.ts): stores the main thread's
 * search sessions in sessions.db, so that the SQLite transaction (~0.2-0.4 ms a batch) runs beside
 * the event loop instead of on it (rare-word latency). Loaded by piscina, once.
 */
import { workerData } from 'node:worker_threads';
import type { NewSession, SessionBudget } from '../../../core/ports.js';
import { openSessionDatabase, SqliteSessionStore } from '../session-store.js';
import { ThreadLock } from '../thread-lock.js';

/** What session-writer-thread.ts hands the thread. */
export interface SessionWriterData {
  /** sessions.db's path. */
  path: string;
  /** sessions.db's write lock, shared with the server's other threads (thread-lock.ts). */
  lock: SharedArrayBuffer | undefined;
}

/** One batch: stored in order in one transaction (SessionStore.createMany). */
export interface SessionWriteTask {
  sessions: readonly NewSession[];
  budget: SessionBudget;
}

const data = workerData as SessionWriterData;
const store = new SqliteSessionStore(openSessionDatabase(data.path), data.lock ? new ThreadLock(data.lock) : undefined);

/** Stores one batch; a failure (a full disk, a lock held too long) rejects the caller's promise. */
export default async function run(task: SessionWriteTask): Promise<void> {
  await store.createMany(task.sessions, task.budget);
}
