/**
 * Turns at catalog.db's write lock for the threads of one `catalog serve` (the main thread and the
 * writer thread), first come first served, over an 8-byte SharedArrayBuffer each thread is given:
 * a ticket lock (the next ticket, the ticket served).
 *
 * Why: the writer thread writes parts, attributes and relations; the main thread writes image
 * metadata (the commit of an upload) and the webhook outbox (a round every 500 ms). Left to SQLite,
 * the main thread's BEGIN IMMEDIATE during a writer transaction waited in SQLite's busy handler,
 * which blocks the thread and SLEEPS between tries (1, 2, 5 ... 100 ms): every request of the
 * event loop stalled behind a write it had nothing to do with, and the writer in turn slept while
 * the main thread held the lock. Here the main thread waits for its turn with Atomics.waitAsync
 * (its event loop keeps turning) and is woken the moment the writer's task ends; turns are served
 * in the order they were asked for, so neither thread starves the other.
 *
 * Correctness never depends on it: SQLite's own locking still orders the writes (other processes,
 * an import, do not take turns), and a wait longer than `maxWaitMs` (a thread that ended holding a
 * turn) skips the turns ahead of it rather than stall.
 */
const NEXT = 0;
const SERVING = 1;

/** Atomics.waitAsync (Node 16 and later; typed in the ES2024 library, not in this project's ES2023 one). */
const waitAsync = (Atomics as unknown as {
  waitAsync(cells: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

export class WriteTurns {
  private readonly cells: Int32Array;

  /** `buffer`: from {@link WriteTurns.newBuffer}, shared by every thread that takes turns. */
  constructor(buffer: SharedArrayBuffer, private readonly maxWaitMs = 30_000) {
    this.cells = new Int32Array(buffer, 0, 2);
  }

  /** A buffer for new turns (pass it to each thread, e.g. in workerData). */
  static newBuffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(8);
  }

  /** Turns asked for and not finished (the one being served included), for tests and logs. */
  waiting(): number {
    return Atomics.load(this.cells, NEXT) - Atomics.load(this.cells, SERVING);
  }

  /**
   * Runs `work` in this thread's turn: waits (without blocking the thread) until every turn asked
   * for before has ended, then runs it and ends the turn when it settles. Resolves or rejects as
   * `work` does.
   */
  async run<T>(work: () => T | Promise<T>): Promise<T> {
    const ticket = Atomics.add(this.cells, NEXT, 1);
    const deadline = Date.now() + this.maxWaitMs;
    for (;;) {
      const serving = Atomics.load(this.cells, SERVING);
      if (serving === ticket) break;
      const left = deadline - Date.now();
      if (left <= 0) {
        // A turn never ended (its thread is gone): skip to this one.
        if (Atomics.compareExchange(this.cells, SERVING, serving, ticket) === serving) break;
        continue;
      }
      const wait = waitAsync(this.cells, SERVING, serving, left);
      if (wait.async) await wait.value;
    }
    try {
      return await work();
    } finally {
      // Unless a waiter skipped past this turn (it took too long): the turns after it are served then.
      Atomics.compareExchange(this.cells, SERVING, ticket, ticket + 1);
      Atomics.notify(this.cells, SERVING);
    }
  }
}

/**
 * `store` whose listed methods each run in a turn of `turns` (the main thread's writes to catalog.db
 * in `catalog serve`); every other member is the store's own. Every method runs with the store
 * itself as `this`, wrapped or not: a store keeps state in its fields (a cache, a count of its own
 * writes), and a method called on a wrapper that inherits from it would set those fields on the
 * wrapper, hiding from the other methods what it did.
 */
export function takingTurns<T extends object>(store: T, methods: readonly (keyof T & string)[], turns: WriteTurns): T {
  const members = new Map<PropertyKey, unknown>();
  for (const name of methods) {
    const method = Reflect.get(store, name) as (...args: unknown[]) => unknown;
    if (typeof method !== 'function') throw new Error(`takingTurns: ${name} is not a method`);
    members.set(name, (...args: unknown[]) => turns.run(() => method.apply(store, args)));
  }
  return new Proxy(store, {
    get(target, key) {
      const known = members.get(key);
      if (known !== undefined) return known;
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      members.set(key, bound);
      return bound;
    },
  });
}
