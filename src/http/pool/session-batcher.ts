/**
 * SessionBatcher: `catalog serve`'s main thread stores search sessions after answering, in
 * batches (a SessionSink of core/ports.ts, given to its SearchService and fed the sessions its
 * reader threads rank). The sessions answered in one turn of the event loop are written together
 * on the next (SessionStore.createMany: one commit); with a SessionBatchWriter (the session-writer
 * thread, adapters/sqlite/session-writer) those of {@link SESSION_BATCH_WINDOW_MS} go in one
 * hand-over. Every read of a session first waits for {@link SessionBatcher.flush} (the search
 * service does so), so a page of a session always finds it. A crash in between loses the pending
 * sessions: they are a cache, and a page of one then answers 404 "start a new search".
 */
import { SessionPurge } from '../../core/search/session-purge.js';
import type { Clock, NewSession, SessionBatchWriter, SessionBudget, SessionSink, SessionStore } from '../../core/ports.js';

/**
 * With a SessionBatchWriter (a thread): how long the first of a batch of deferred sessions waits
 * for others before the batch is handed over, in milliseconds, and the most that wait. A page
 * asked for meanwhile, on any thread, has them stored first (flush). Each hand-over cost the main
 * thread far more than its message: a warm rare-word search through `inject`, alternated,
 * 275-342 µs of main-thread CPU with 5 ms against 192-258 µs with 50 ms.
 */
export const SESSION_BATCH_WINDOW_MS = 50;
/** Pending sessions from which a batch is handed over at once, window or not. */
export const SESSION_BATCH_MAX = 64;

/** A settled promise: SessionBatcher.flushing when no write is under way. */
const SETTLED: Promise<void> = Promise.resolve();

/** What a {@link SessionBatcher} stores through. */
export interface SessionBatcherOptions {
  /** The session store (its `createMany`, else `create` one by one, when no writer is given). */
  sessions: SessionStore;
  clock: Clock;
  /** Who stores each batch (default: `sessions` on this thread); `catalog serve` gives its session-writer thread. */
  writer?: SessionBatchWriter | undefined;
}

/** Sessions stored after answering, in batches. One per process whose sessions are read only through it. */
export class SessionBatcher implements SessionSink {
  private readonly sessions: SessionStore;
  private readonly clock: Clock;
  private readonly writer: SessionBatchWriter | undefined;
  private readonly purge: SessionPurge;
  /** The budget the search service gave with the last session (the same for all of them). */
  private budget: SessionBudget | undefined;
  /** Sessions answered and not yet stored, oldest first. */
  private pending: NewSession[] = [];
  /** Cancels the scheduled write of the pending sessions. */
  private cancelFlush: (() => void) | undefined;
  /** Whether the scheduled write waits for more sessions (a timer) rather than the next turn. */
  private flushGathers = false;
  /** The last batch's write (this thread's own writes go one after another); SETTLED when none is under way. */
  private flushing: Promise<void> = SETTLED;
  /** Batches handed to be stored and not stored yet (flush waits for all of them). */
  private readonly writing = new Set<Promise<void>>();

  constructor(options: SessionBatcherOptions) {
    this.sessions = options.sessions;
    this.clock = options.clock;
    this.writer = options.writer;
    this.purge = new SessionPurge(options.sessions, options.clock);
  }

  /**
   * SessionSink.keep: queues a session and schedules its write: on the next turn of the event
   * loop, or with a writer after {@link SESSION_BATCH_WINDOW_MS} (at once from
   * {@link SESSION_BATCH_MAX} pending).
   */
  keep(entry: NewSession, budget: SessionBudget): void {
    this.budget = budget;
    this.pending.push(entry);
    const gather = this.writer !== undefined && this.pending.length < SESSION_BATCH_MAX;
    if (this.cancelFlush && (gather || !this.flushGathers)) return;
    this.cancelFlush?.();
    this.flushGathers = gather;
    if (gather) {
      // Handed to a thread: a few milliseconds' sessions go in one hand-over (each one wakes the
      // thread; a sequential client's rare-word searches come ~1 ms apart).
      const timer = setTimeout(() => void this.flush(), SESSION_BATCH_WINDOW_MS);
      this.cancelFlush = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => void this.flush());
      this.cancelFlush = () => clearImmediate(immediate);
    }
  }

  /**
   * SessionSink.flush: stores the sessions kept so far and not yet stored, in one transaction;
   * resolves when they are stored (at once when none are pending). A failed write (a full disk, a
   * lock held too long) loses those sessions, as a crash would.
   */
  async flush(): Promise<void> {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    const batch = this.pending;
    if (batch.length > 0) {
      this.pending = [];
      const budget = this.budget;
      // A writer takes each batch at once: its one thread stores them in the order given, and it
      // refuses at once what would pass its bound of bytes waiting (so batches do not pile up here
      // behind one another). This thread's own writes go one after another.
      const previous = this.writer ? undefined : this.flushing;
      const write = (async () => {
        await previous;
        try {
          if (this.writer) await this.writer(batch, budget as SessionBudget);
          else if (this.sessions.createMany) await this.sessions.createMany(batch, budget);
          else for (const { session, hits } of batch) await this.sessions.create(session, hits, budget);
          await this.purge.afterWrite(this.clock.nowMicros());
        } catch {
          // Lost, as in a crash (see above); the next batch tries again.
        }
      })();
      this.writing.add(write);
      this.flushing = write;
      void write.finally(() => {
        this.writing.delete(write);
        if (this.flushing === write) this.flushing = SETTLED;
      });
    }
    await Promise.all(this.writing);
  }
}
