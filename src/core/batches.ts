/**
 * Work that arrives while a batch runs forms the next batch: one batch at a time, at most
 * `maxBatch` items each, in arrival order. A database round trip or a commit is the cost this
 * spares, not the work: a batch pays it once for all its items. Used by PostgreSQL searches and
 * sessions (adapters/postgres) and by `catalog serve`'s writes for its writer thread
 * (http/pool/write-queue.ts).
 */
export class Batches<T> {
  private readonly waiting: T[] = [];
  private running = false;

  /**
   * `run` takes a batch whole and settles each of its items itself (resolving or rejecting the
   * caller's promise); it must not throw. `gatherFirst`: the first batch starts a turn of the
   * event loop after its first item, so that what arrives in the same turn joins it (otherwise
   * an item that finds no batch running goes at once, alone).
   */
  constructor(private readonly maxBatch: number, private readonly run: (batch: T[]) => Promise<void>, private readonly gatherFirst = true) {}

  /** Items waiting for a batch (not the running batch's). */
  get size(): number {
    return this.waiting.length;
  }

  /** Adds `item` to the next batch. */
  add(item: T): void {
    this.waiting.push(item);
    if (!this.running) void this.drain();
  }

  /** Runs batch after batch until none waits. */
  private async drain(): Promise<void> {
    this.running = true;
    try {
      if (this.gatherFirst) await new Promise((resolve) => setImmediate(resolve));
      while (this.waiting.length > 0) await this.run(this.waiting.splice(0, this.maxBatch));
    } finally {
      this.running = false;
    }
  }
}
