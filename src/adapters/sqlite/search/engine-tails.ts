/**
 * The search engine writer's cache of where each term's posting list ends (engine-store.ts,
 * docs/search.md "Writer caches"): by term id, the first doc, posting count and last doc of the
 * term's last stored block. That is all an append needs: the store extends the block where it is
 * stored (one UPDATE concatenating the new count, the stored postings and the new ones), so the
 * cache holds no block bytes, 17 bytes a term in typed arrays, and every term of a large import
 * fits. It replaced a cache of the blocks' bytes bounded at 16 MB (~320 bytes of objects a term
 * besides the bytes), which at 1,000,000 parts held too few terms: 886,449 of 2.2 million term
 * writes read the last block back (five statements instead of one; 1,140,185 at 10 MB).
 */

/** Term ids at or above this are not cached (their writes read the last block back): ≤ ~9 MB of arrays. */
export const TAIL_MAX_TERM_ID = 1 << 19;

/** Where the posting lists of terms end, by term id (see the module comment). */
export class TailIndex {
  private firstDocs = new Float64Array(1024);
  private lastDocs = new Float64Array(1024);
  /** Postings of the last block; 0: not known. */
  private counts = new Uint8Array(1024);
  /** Ids below this may be set (the arrays' used part, cleared by clear()). */
  private used = 0;

  /** Postings of term `id`'s last block (1..BLOCK_SIZE), or 0 when not known. */
  count(id: number): number {
    return id < this.used ? (this.counts[id] ?? 0) : 0;
  }

  /** First doc of term `id`'s last block (when count(id) > 0). */
  firstDoc(id: number): number {
    return this.firstDocs[id] ?? 0;
  }

  /** Last doc of term `id`'s list (when count(id) > 0). */
  lastDoc(id: number): number {
    return this.lastDocs[id] ?? 0;
  }

  /** Term `id`'s list ends with a block starting at `firstDoc`, of `count` postings, the last one `lastDoc`; undefined: not known. */
  set(id: number, tail: { firstDoc: number; count: number; lastDoc: number } | undefined): void {
    if (tail === undefined) {
      if (id < this.used) this.counts[id] = 0;
      return;
    }
    if (id >= TAIL_MAX_TERM_ID || id < 0 || tail.count > 255) return;
    if (id >= this.counts.length) this.grow(id + 1);
    this.firstDocs[id] = tail.firstDoc;
    this.lastDocs[id] = tail.lastDoc;
    this.counts[id] = tail.count;
    if (id >= this.used) this.used = id + 1;
  }

  /** Forgets every term (the state they describe is no longer the stored one). */
  clear(): void {
    this.counts.fill(0, 0, this.used);
    this.used = 0;
  }

  private grow(need: number): void {
    let size = this.counts.length;
    while (size < need) size *= 2;
    const firstDocs = new Float64Array(size);
    firstDocs.set(this.firstDocs);
    const lastDocs = new Float64Array(size);
    lastDocs.set(this.lastDocs);
    const counts = new Uint8Array(size);
    counts.set(this.counts);
    this.firstDocs = firstDocs;
    this.lastDocs = lastDocs;
    this.counts = counts;
  }
}
