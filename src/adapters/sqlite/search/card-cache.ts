/**
 * The result cards one SQLite connection keeps in memory (SqliteSearchIndex.readCards): by card id,
 * least recently used evicted first (lru-cache), at most `capacity`, and indexed by the engine doc
 * chunk of each card's rowid. A write that reuses a card id (a rowid given to a new part, versions
 * wrapping) rewrites that doc's chunk, so when the engine version moves, the cards of the chunks
 * written since are dropped, and only those (`dropChunks`): the first search after a write then
 * costs what the changed chunks hold, not a walk over every card kept.
 */
import { LRUCache } from 'lru-cache';
import type { ResultCard } from '../../../core/model.js';

export class CardCache {
  private readonly cards: LRUCache<number, ResultCard>;
  /** Doc chunk -> the ids of the cards kept whose rowid lies in it. */
  private readonly byChunk = new Map<number, Set<number>>();

  /**
   * `capacity`: cards kept at most (≥ 1). `chunkOf(id)`: the doc chunk of a card id's rowid, or
   * undefined for an id that is never given out again (a copy of the layout before migration 8),
   * which no write can make stale.
   */
  constructor(capacity: number, private readonly chunkOf: (id: number) => number | undefined) {
    this.cards = new LRUCache<number, ResultCard>({
      max: Math.max(1, capacity),
      // An evicted or deleted card leaves its chunk's index too.
      dispose: (_card, id) => this.unindex(id),
    });
  }

  get size(): number {
    return this.cards.size;
  }

  has(id: number): boolean {
    return this.cards.has(id);
  }

  /** The card kept under `id`, marked as just used. */
  get(id: number): ResultCard | undefined {
    return this.cards.get(id);
  }

  /** Keeps `card` under `id` (replacing what was kept under it), evicting the least recently used card when full. */
  set(id: number, card: ResultCard): void {
    this.cards.set(id, card);
    const chunk = this.chunkOf(id);
    if (chunk === undefined) return;
    let ids = this.byChunk.get(chunk);
    if (!ids) {
      ids = new Set();
      this.byChunk.set(chunk, ids);
    }
    ids.add(id);
  }

  /** Drops every card whose rowid lies in one of `chunks`. */
  dropChunks(chunks: Iterable<number>): void {
    for (const chunk of chunks) {
      const ids = this.byChunk.get(chunk);
      if (!ids) continue;
      this.byChunk.delete(chunk);
      for (const id of ids) this.cards.delete(id);
    }
  }

  clear(): void {
    this.cards.clear();
    this.byChunk.clear();
  }

  private unindex(id: number): void {
    const chunk = this.chunkOf(id);
    if (chunk === undefined) return;
    const ids = this.byChunk.get(chunk);
    ids?.delete(id);
    if (ids?.size === 0) this.byChunk.delete(chunk);
  }
}
