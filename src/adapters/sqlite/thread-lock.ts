/**
 * A lock shared by the threads of one process (the main thread and the worker threads of
 * `catalog serve`), over a 4-byte SharedArrayBuffer each thread is given.
 *
 * Why: the reader threads each write a session to sessions.db per search. Left to SQLite, two
 * threads that want its write lock at once see SQLITE_BUSY, and the busy handler SLEEPS and retries
 * (1, 2, 5, 10 ... 100 ms): under 50 concurrent searches most of a reader's time went to those
 * sleeps, and they made the p99 (load test). Here a waiting thread blocks in
 * Atomics.wait and is woken the moment the holder releases.
 *
 * Correctness never depends on it: SQLite's own locking still orders the writes (other processes
 * do not share this lock), and a wait longer than `maxWaitMs` (a thread killed while holding it)
 * proceeds without the lock rather than stall.
 */
const FREE = 0;
const HELD = 1;

export class ThreadLock {
  private readonly cell: Int32Array;

  /** `buffer`: from {@link ThreadLock.newBuffer}, shared by every thread that takes the lock. */
  constructor(buffer: SharedArrayBuffer, private readonly maxWaitMs = 5_000) {
    this.cell = new Int32Array(buffer, 0, 1);
  }

  /** A buffer for a new lock (pass it to each thread, e.g. in workerData). */
  static newBuffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(4);
  }

  /** Runs `work` (synchronous) holding the lock; returns its result, rethrows its error. */
  run<T>(work: () => T): T {
    const deadline = Date.now() + this.maxWaitMs;
    let held = false;
    while (!(held = Atomics.compareExchange(this.cell, 0, FREE, HELD) === FREE)) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      Atomics.wait(this.cell, 0, HELD, left);
    }
    try {
      return work();
    } finally {
      if (held) {
        Atomics.store(this.cell, 0, FREE);
        Atomics.notify(this.cell, 0, 1);
      }
    }
  }
}
