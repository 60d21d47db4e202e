/**
 * Work that arrives while a batch runs forms the next batch (PostgreSQL searches through the
 * engine reader, sessions written together): one batch at a time, at most `maxBatch` items each.
 * The first batch starts a turn of the event loop after its first item, so that what arrives in
 * the same turn joins it. A database round trip is the cost here, not the work: a batch pays its
 * snapshot, lock and commit once for all its items.
 */
export class Batches<T> {
  private readonly waiting: T[] = [];
  private running = false;

  /**
   * `run` takes a batch whole and settles each of its items itself (resolving or rejecting the
   * caller's promise); it must not throw.
   */
  constructor(private readonly maxBatch: number, private readonly run: (batch: T[]) => Promise<void>) {}

  /** Adds `item` to the next batch. */
  add(item: T): void {
    this.waiting.push(item);
    if (!this.running) void this.drain();
  }

  /** Runs batch after batch until none waits. */
  private async drain(): Promise<void> {
    this.running = true;
    try {
      await new Promise((resolve) => setImmediate(resolve));
      while (this.waiting.length > 0) await this.run(this.waiting.splice(0, this.maxBatch));
    } finally {
      this.running = false;
    }
  }
}
