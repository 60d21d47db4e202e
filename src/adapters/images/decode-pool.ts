/**
 * A bounded pool for image decodes.
 *
 * sharp already decodes off the main thread, in libuv's thread pool (4 threads by default), and
 * that same pool serves every `fs` call, including the reads of GET /1/catalog/images/{id}/original.
 * Measured (bench/soak.js's bomb, 32 concurrent image searches with a 32 KB 16383 × 16383 1-bit
 * PNG on the 2-core machine): the decodes held all four threads and a GET original waited 45 s
 * while the event loop itself stayed free. Worker threads (piscina) would not help the DECODE:
 * sharp in a worker queues onto the same process-wide libuv pool. (They do help the JavaScript
 * that follows it — ORB keypoints and word assignment for photo search — which is why that runs on
 * a piscina feature thread, local-features/feature-threads.ts, still admitted through this pool.)
 * So what is bounded is how many decodes may
 * hold a libuv thread at once (`concurrency`, below the pool's size), and how many may wait
 * (`maxQueue`; beyond it a caller gets {@link DecodeQueueFullError} at once, the HTTP layer's 503
 * with Retry-After).
 */

/** Thrown by {@link DecodePool.run} when `maxQueue` decodes are already waiting. */
export class DecodeQueueFullError extends Error {
  constructor(readonly maxQueue: number) {
    super(`image decoding is busy (${maxQueue} decodes waiting)`);
    this.name = 'DecodeQueueFullError';
  }
}

/** Options of a {@link DecodePool}. */
export interface DecodePoolOptions {
  /** Decodes running at once (≥ 1); keep it below UV_THREADPOOL_SIZE (4) so file reads keep a thread. */
  concurrency: number;
  /** Decodes that may wait for a slot (≥ 0); more are refused with DecodeQueueFullError. */
  maxQueue: number;
}

/** Runs async tasks with at most `concurrency` at once and at most `maxQueue` waiting, in arrival order. */
export class DecodePool {
  readonly concurrency: number;
  readonly maxQueue: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: DecodePoolOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new RangeError('decode concurrency must be an integer ≥ 1');
    if (!Number.isInteger(options.maxQueue) || options.maxQueue < 0) throw new RangeError('decode queue must be an integer ≥ 0');
    this.concurrency = options.concurrency;
    this.maxQueue = options.maxQueue;
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `task` when a slot is free. `bounded: false` (uploads, which writers send and the
   * request limits already bound) waits whatever the queue length; otherwise a full queue throws
   * {@link DecodeQueueFullError} (rejected promise) without running the task.
   */
  async run<T>(task: () => Promise<T>, options: { bounded?: boolean } = {}): Promise<T> {
    if (this.running >= this.concurrency) {
      if ((options.bounded ?? true) && this.waiting.length >= this.maxQueue) throw new DecodeQueueFullError(this.maxQueue);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (running stays the same), else free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
