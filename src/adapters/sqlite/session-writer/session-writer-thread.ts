/**
 * Search sessions stored by a thread of their own (`catalog serve`'s main thread).
 *
 * Why: the main thread answers cheap text searches itself and stores their sessions after
 * answering (http/pool/session-batcher.ts), one transaction per turn of the event loop.
 * That write cost ~0.2-0.4 ms of the main thread's ~1.1 ms a rare-word search at 1,000,000 parts,
 * on the same thread as the next request. Here the batch is handed to a thread (a structured
 * clone of the sessions: a cheap search has at most a few thousand hits) and the main thread goes
 * on; the promise resolves once the batch is committed, so a read of the session that waits for
 * it (SessionBatcher.flush) still finds it.
 *
 * The thread opens sessions.db alone (no catalog), under the write lock the server's threads share.
 */
import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { NewSession, SessionBatchWriter } from '../../../core/ports.js';
import { builtWorkerFile } from '../../worker-file.js';
import { packedBytes } from '../../session-blocks.js';
import { SESSIONS_FILE } from '../session-store.js';
import type { SessionWriteTask, SessionWriterData } from './session-writer-worker.js';

/** Batches that may wait for the thread; beyond, a batch is refused and lost as in a crash (sessions are a cache). */
const MAX_WAITING_BATCHES = 1024;
/**
 * Bytes of hits handed to the thread and not yet stored, at most (default): beyond, a batch is
 * refused and lost as in a crash. The reader threads' sessions come here too, a frequent word's
 * ~20 KB packed, so a writer held up (sessions.db locked by another process for its 30 s, a slow
 * disk) must not let them pile up in memory without bound.
 */
export const MAX_PENDING_SESSION_BYTES = 64 * 1024 * 1024;

/** What a batch of sessions holds in memory until stored: its hits' bytes (8 a hit in an array, packed blocks as they are) and ~200 a session. */
export function batchBytes(sessions: readonly NewSession[]): number {
  let bytes = 0;
  for (const { hits } of sessions) {
    bytes += 200;
    if ('blocks' in hits) for (const block of hits.blocks) bytes += packedBytes(block);
    else bytes += (hits.cardIds.length + (hits.scores?.length ?? 0)) * 8;
  }
  return bytes;
}

/**
 * The buffers of the sessions' packed hits (PackedSessionHits, from reader threads) that their
 * blocks alone use, to transfer rather than copy: under 50 connections at 1,000,000 parts, cloning
 * the hits of every frequent word's session took a quarter of the main thread. A
 * transferred buffer is gone from this thread: the sessions are the writer's from here on.
 */
function ownedBuffers(sessions: readonly NewSession[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const { hits } of sessions) {
    if (!('blocks' in hits)) continue;
    for (const block of hits.blocks) {
      for (const bytes of [block.cardIds, block.scores]) {
        if (bytes && bytes.byteOffset === 0 && bytes.buffer instanceof ArrayBuffer && bytes.byteLength === bytes.buffer.byteLength) buffers.add(bytes.buffer);
      }
    }
  }
  return [...buffers];
}

/** A started session-writer thread: `write` is the SessionBatcher's SessionBatchWriter. */
export interface SessionWriterThread {
  write: SessionBatchWriter;
  /** Starts the thread now (once sessions.db exists), so the first search does not wait for it. Idempotent. */
  start(): void;
  /** Waits for the batches handed over, then stops the thread. */
  close(): Promise<void>;
}

/**
 * A session writer for the data directory `dataDir`; its thread starts with the first batch (after
 * the catalog has created and migrated sessions.db). `write` rejects a batch (lost, as in a
 * crash) that would take the bytes waiting past `maxPendingBytes` ({@link MAX_PENDING_SESSION_BYTES}). Returns undefined when the worker is not built
 * (TypeScript sources before `npm run build`): the caller then writes on its own thread.
 */
export function startSessionWriterThread(dataDir: string, lock: SharedArrayBuffer | undefined, options: { maxPendingBytes?: number } = {}): SessionWriterThread | undefined {
  const filename = builtWorkerFile(new URL('./session-writer-worker.js', import.meta.url));
  if (!filename) return undefined;
  const workerData: SessionWriterData = { path: join(dataDir, SESSIONS_FILE), lock };
  let pool: Piscina | undefined;
  const maxPendingBytes = options.maxPendingBytes ?? MAX_PENDING_SESSION_BYTES;
  let pendingBytes = 0;
  const start = (): Piscina => {
    if (!pool) {
      pool = new Piscina({ filename, workerData, minThreads: 1, maxThreads: 1, idleTimeout: Number.POSITIVE_INFINITY, concurrentTasksPerWorker: 1, maxQueue: MAX_WAITING_BATCHES });
      // A thread that fails to start (sessions.db unreadable) fails the batches it was given,
      // which are then lost as in a crash; the server itself goes on.
      pool.on('error', () => undefined);
    }
    return pool;
  };
  return {
    write: async (sessions, budget) => {
      const bytes = batchBytes(sessions);
      if (pendingBytes + bytes > maxPendingBytes) throw new Error(`the session writer is behind (${pendingBytes} bytes of sessions waiting): ${sessions.length} sessions dropped`);
      pendingBytes += bytes;
      try {
        await start().run({ sessions, budget } satisfies SessionWriteTask, { transferList: ownedBuffers(sessions) });
      } finally {
        pendingBytes -= bytes;
      }
    },
    start() {
      start();
    },
    async close() {
      if (!pool) return;
      await pool.close();
      await pool.destroy();
    },
  };
}
