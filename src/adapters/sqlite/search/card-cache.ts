/**
 * The result cards one SQLite connection keeps in memory (SqliteSearchIndex.readCards; issue 12):
 * by card id, oldest first, at most `capacity`, and indexed by the engine doc chunk of each card's
 * rowid. A write that reuses a card id (a rowid given to a new part, versions wrapping) rewrites
 * that doc's chunk, so when the engine version moves, the cards of the chunks written since are
 * dropped, and only those (`dropChunks`). The chunk index makes that cost what the changed chunks
 * hold instead of a walk over every card kept: with 5,000 cards kept, the first search after each
 * write spent 125-160 µs in that walk (1,000,000 parts, in process; bench/results.md).
 */
import type { ResultCard } from '../../../core/model.js';
import { EvictionHand } from './eviction-hand.js';

export class CardCache {
  private readonly cards = new Map<number, ResultCard>();
  /** Doc chunk -> the ids of the cards kept whose rowid lies in it. */
  private readonly byChunk = new Map<number, Set<number>>();
  /** Where {@link makeRoom}'s eviction goes on from. */
  private readonly hand = new EvictionHand(this.cards);

  /**
   * `chunkOf(id)`: the doc chunk of a card id's rowid, or undefined for an id that is never given
   * out again (a copy of the layout before migration 8), which no write can make stale.
   */
  constructor(private readonly capacity: number, private readonly chunkOf: (id: number) => number | undefined) {}

  get size(): number {
    return this.cards.size;
  }

  has(id: number): boolean {
    return this.cards.has(id);
  }

  get(id: number): ResultCard | undefined {
    return this.cards.get(id);
  }

  /** Keeps `card` under `id` (replacing what was kept under it); call {@link makeRoom} first. */
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

  /**
   * Drops the oldest cards until `incoming` more fit within the capacity, passing over those of
   * `keep` (the cards being read): a card passed over stays until the eviction has gone once round
   * the cache (a second chance, as the CLOCK algorithm gives a page just used). The eviction goes
   * on from where it stopped (eviction-hand.ts): 25-27 -> 8.5-10.6 µs for a search's 26 cards.
   */
  makeRoom(incoming: number, keep: readonly number[]): void {
    if (this.cards.size + incoming <= this.capacity) return;
    const kept = new Set(keep);
    this.hand.evictWhile(() => this.cards.size + incoming > this.capacity, (id) => {
      if (!kept.has(id)) this.delete(id);
    });
  }

  /** Drops every card whose rowid lies in one of `chunks`. */
  dropChunks(chunks: Iterable<number>): void {
    for (const chunk of chunks) {
      const ids = this.byChunk.get(chunk);
      if (!ids) continue;
      for (const id of ids) this.cards.delete(id);
      this.byChunk.delete(chunk);
    }
  }

  clear(): void {
    this.cards.clear();
    this.byChunk.clear();
    this.hand.reset();
  }

  private delete(id: number): void {
    this.cards.delete(id);
    const chunk = this.chunkOf(id);
    if (chunk === undefined) return;
    const ids = this.byChunk.get(chunk);
    ids?.delete(id);
    if (ids?.size === 0) this.byChunk.delete(chunk);
  }
}
