/**
 * The eviction order of a cache kept in a Map (insertion order: oldest first), walked from call to
 * call by one iterator (card-cache.ts, engine-store.ts `decoded`; issue 12).
 *
 * Why one iterator kept: a Map keeps the slots of deleted entries until it rehashes, and a new
 * iterator walks them all from the front. Started anew for every eviction, it walked thousands of
 * them once a cache was full: making room for a search's 26 cards took 25-27 µs against 8.5-10.6,
 * a lookup in a full posting cache ~4.2 µs against 0.2-0.4. An iterator goes on across deletions
 * and sees the entries set after it was made, so the keys it has still to give are those not yet
 * evicted, oldest first.
 */
export class EvictionHand<K> {
  private keys: IterableIterator<K> | undefined;

  constructor(private readonly map: ReadonlyMap<K, unknown>) {}

  /**
   * Offers the keys from the hand on, oldest first, to `visit` while `more()` holds; `visit`
   * deletes the key from the map or passes over it (the hand goes on past it either way), or
   * answers false to stop, and the next call then starts from the oldest key. Past the newest key
   * the hand starts again from the oldest, once a call: a key passed over is offered again only
   * after every other one, and a call that can delete nothing ends.
   */
  evictWhile(more: () => boolean, visit: (key: K) => boolean | void): void {
    let restarted = false;
    while (more()) {
      this.keys ??= this.map.keys();
      const next = this.keys.next();
      if (next.done) {
        this.keys = undefined;
        if (restarted) return;
        restarted = true;
        continue;
      }
      if (visit(next.value) === false) {
        this.keys = undefined;
        return;
      }
    }
  }

  /** The next call starts from the oldest key (after the map was cleared, say). */
  reset(): void {
    this.keys = undefined;
  }
}
