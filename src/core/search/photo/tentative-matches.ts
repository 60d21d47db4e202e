/**
 * Tentative matches of a photo query (photo-index.ts; docs/search.md, "Photo search"): the posting
 * scan that compares a query descriptor with a posting list by Hamming distance, keeps at most one
 * match per (image, query keypoint) — the nearest — and the burst rule that keeps only the nearest
 * matches of a keypoint that matched too many images. The scan runs in WebAssembly
 * (scan-kernel.ts) over the index's posting heap (posting-heap.ts), where the matches and the
 * per-slot state live too. Pure code; the arrays grow by doubling.
 */
import { DESCRIPTOR_WORDS } from './hamming.js';
import { align8, type PostingHeap } from './posting-heap.js';
import type { Postings } from './postings.js';
import { ScanContextLayout as L } from './scan-kernel.js';

/** Matches room of a new set. */
const INITIAL_CAPACITY = 4096;

/**
 * Flat arrays of tentative matches, filled query keypoint by query keypoint. One set serves every
 * query of an index ({@link reset}); its arrays are ranges of the heap, and the views below are
 * current after {@link refresh} (the heap may grow during a scan).
 */
export class TentativeMatches {
  /** Image slot of each match. */
  slot: Int32Array = new Int32Array(0);
  /** Query keypoint of each match. */
  q: Int32Array = new Int32Array(0);
  /** Reference keypoint (number within its image). */
  kp: Int32Array = new Int32Array(0);
  /** Hamming distance, bits. */
  dist: Uint16Array = new Uint16Array(0);
  /** idf of the word the match was found in (float32). */
  idf: Float32Array = new Float32Array(0);
  /** Matches so far. */
  count = 0;
  /** Postings compared so far (diagnostics). */
  compared = 0;
  private readonly heap: PostingHeap;
  /** The kernel's context block (scan-kernel.ts ScanContextLayout). */
  private readonly ctx: number;
  /** Room for matches, and for slots (lastQ, lastMatch, alive). */
  private capacity = 0;
  private slotCapacity = 0;
  private matchAt = { slot: 0, q: 0, kp: 0, dist: 0, idf: 0 };
  private viewBuffer: ArrayBufferLike | undefined;

  /** A set of matches in `heap`, empty until {@link reset}. */
  constructor(heap: PostingHeap) {
    this.heap = heap;
    this.ctx = heap.alloc(L.bytes);
  }

  /**
   * Starts a query over an index of `slots` image slots, `alive[slot]` false for removed ones: no
   * match, no slot matched yet.
   */
  reset(slots: number, alive: readonly boolean[]): void {
    this.count = 0;
    this.compared = 0;
    const heap = this.heap;
    if (slots > this.slotCapacity) {
      if (this.slotCapacity > 0) {
        const i32 = heap.i32;
        heap.release(i32[(this.ctx + L.lastQ) >> 2] ?? 0, this.slotCapacity * 4);
        heap.release(i32[(this.ctx + L.lastMatch) >> 2] ?? 0, this.slotCapacity * 4);
        heap.release(i32[(this.ctx + L.alive) >> 2] ?? 0, this.slotCapacity);
      }
      const capacity = Math.max(slots, Math.ceil(this.slotCapacity * 1.25));
      const lastQ = heap.alloc(capacity * 4);
      const lastMatch = heap.alloc(capacity * 4);
      const aliveAt = heap.alloc(capacity);
      const i32 = heap.i32;
      i32[(this.ctx + L.lastQ) >> 2] = lastQ;
      i32[(this.ctx + L.lastMatch) >> 2] = lastMatch;
      i32[(this.ctx + L.alive) >> 2] = aliveAt;
      this.slotCapacity = capacity;
    }
    if (this.capacity === 0) this.reserve(INITIAL_CAPACITY);
    const i32 = heap.i32;
    const lastQ = (i32[(this.ctx + L.lastQ) >> 2] ?? 0) >> 2;
    i32.fill(-1, lastQ, lastQ + slots);
    const aliveAt = i32[(this.ctx + L.alive) >> 2] ?? 0;
    const u8 = heap.u8;
    for (let s = 0; s < slots; s++) u8[aliveAt + s] = alive[s] ? 1 : 0;
    this.refresh();
  }

  /** Byte offset in the heap of the query descriptor set by {@link setQuery}. */
  get queryAt(): number {
    return this.ctx + L.query;
  }

  /** Sets the query descriptor of the next scans: the one at word offset `offset` of `descriptors`. */
  setQuery(descriptors: Uint32Array, offset: number): void {
    const u32 = this.heap.u32;
    const at = (this.ctx + L.query) >> 2;
    for (let w = 0; w < DESCRIPTOR_WORDS; w++) u32[at + w] = descriptors[offset + w] ?? 0;
  }

  /**
   * Compares query keypoint `qi` (its descriptor set by {@link setQuery}) with every posting of `p`;
   * a posting within `maxD` bits (and within `maxHalf` on its first 128 bits, tested first so most
   * postings cost half a comparison) of a live image becomes a match with weight `idf`, or improves
   * that image's match with `qi` when nearer.
   */
  scan(p: Postings, qi: number, idf: number, maxHalf: number, maxD: number): void {
    const n = p.length;
    this.compared += n;
    if (n === 0) return;
    if (this.count + n > this.capacity) this.reserve(this.count + n);
    this.count = this.heap.scan(this.ctx, p.descAt, p.slotAt, p.kpAt, n, qi, idf, maxHalf, maxD, this.count);
  }

  /**
   * The heap ranges this set holds, as [offset, bytes asked for] (a snapshot of the index marks
   * them free: index-snapshot.ts).
   */
  heapRanges(): [number, number][] {
    const ranges: [number, number][] = [[this.ctx, L.bytes]];
    if (this.slotCapacity > 0) {
      const i32 = this.heap.i32;
      ranges.push([i32[(this.ctx + L.lastQ) >> 2] ?? 0, this.slotCapacity * 4], [i32[(this.ctx + L.lastMatch) >> 2] ?? 0, this.slotCapacity * 4], [i32[(this.ctx + L.alive) >> 2] ?? 0, this.slotCapacity]);
    }
    if (this.capacity > 0) {
      const c = this.capacity;
      const at = this.matchAt;
      ranges.push([at.slot, c * 4], [at.q, c * 4], [at.kp, c * 4], [at.dist, c * 2], [at.idf, c * 4]);
    }
    return ranges;
  }

  /** Bytes of the heap this set holds (context, per-slot state, matches). */
  get heapBytes(): number {
    const slots = 2 * align8(this.slotCapacity * 4) + align8(this.slotCapacity);
    const matches = 4 * align8(this.capacity * 4) + align8(this.capacity * 2);
    return align8(L.bytes) + slots + matches;
  }

  /** Makes the match views current (after scans, whose room may have grown the heap). */
  refresh(): void {
    if (this.viewBuffer === this.heap.buffer) return;
    const buffer = this.heap.buffer;
    const c = this.capacity;
    this.slot = new Int32Array(buffer, this.matchAt.slot, c);
    this.q = new Int32Array(buffer, this.matchAt.q, c);
    this.kp = new Int32Array(buffer, this.matchAt.kp, c);
    this.dist = new Uint16Array(buffer, this.matchAt.dist, c);
    this.idf = new Float32Array(buffer, this.matchAt.idf, c);
    this.viewBuffer = buffer;
  }

  /**
   * Burstiness: when the matches from `from` on (one query keypoint's) exceed `maxPerKeypoint`,
   * keeps only the `keep` nearest (a descriptor close to postings of many images — a flat patch, a
   * replicated border, a repeated texture, the soft corner of a small enlarged icon — is weak
   * evidence for any one of them and would flood verification; dropping them all would
   * drop the true one with them).
   */
  limitBurst(from: number, maxPerKeypoint: number, keep: number): void {
    if (this.count - from <= maxPerKeypoint) return;
    this.refresh();
    this.count = from + keepNearest(from, this.count, keep, this.slot, this.kp, this.dist, this.idf);
  }

  /** Room for at least `need` matches (doubling), the first {@link count} kept. */
  private reserve(need: number): void {
    let capacity = Math.max(INITIAL_CAPACITY, this.capacity);
    while (capacity < need) capacity *= 2;
    const heap = this.heap;
    const old = this.matchAt;
    const oldCapacity = this.capacity;
    const at = { slot: heap.alloc(capacity * 4), q: heap.alloc(capacity * 4), kp: heap.alloc(capacity * 4), dist: heap.alloc(capacity * 2), idf: heap.alloc(capacity * 4) };
    const u8 = heap.u8;
    if (this.count > 0) {
      u8.copyWithin(at.slot, old.slot, old.slot + this.count * 4);
      u8.copyWithin(at.q, old.q, old.q + this.count * 4);
      u8.copyWithin(at.kp, old.kp, old.kp + this.count * 4);
      u8.copyWithin(at.dist, old.dist, old.dist + this.count * 2);
      u8.copyWithin(at.idf, old.idf, old.idf + this.count * 4);
    }
    if (oldCapacity > 0) {
      heap.release(old.slot, oldCapacity * 4);
      heap.release(old.q, oldCapacity * 4);
      heap.release(old.kp, oldCapacity * 4);
      heap.release(old.dist, oldCapacity * 2);
      heap.release(old.idf, oldCapacity * 4);
    }
    const i32 = heap.i32;
    i32[(this.ctx + L.matchSlot) >> 2] = at.slot;
    i32[(this.ctx + L.matchQ) >> 2] = at.q;
    i32[(this.ctx + L.matchKp) >> 2] = at.kp;
    i32[(this.ctx + L.matchDist) >> 2] = at.dist;
    i32[(this.ctx + L.matchIdf) >> 2] = at.idf;
    this.matchAt = at;
    this.capacity = capacity;
    this.viewBuffer = undefined;
  }
}

/** Histogram of descriptor distances (0–256 bits) for {@link keepNearest}; zeroed after each use. */
const distanceCounts = new Int32Array(257);

/**
 * Keeps the `keep` tentative matches of [from, to) with the smallest descriptor distance (ties: the
 * earlier), moved to the front of that range in their original order; returns how many were kept.
 * Linear: the cut-off distance comes from a histogram (distances are at most 256 bits).
 */
function keepNearest(from: number, to: number, keep: number, slot: Int32Array, kp: Int32Array, dist: Uint16Array, idf: Float32Array): number {
  if (keep <= 0) return 0;
  if (to - from <= keep) return to - from;
  const counts = distanceCounts;
  for (let i = from; i < to; i++) counts[dist[i] ?? 0] = (counts[dist[i] ?? 0] ?? 0) + 1;
  let cut = 0;
  let below = 0;
  while (cut < 256 && below + (counts[cut] ?? 0) < keep) below += counts[cut++] ?? 0;
  counts.fill(0);
  let atCut = keep - below;
  let o = from;
  for (let i = from; i < to; i++) {
    const d = dist[i] ?? 0;
    if (d > cut || (d === cut && atCut-- <= 0)) continue;
    slot[o] = slot[i] ?? 0;
    kp[o] = kp[i] ?? 0;
    dist[o] = d;
    idf[o] = idf[i] ?? 0;
    o++;
  }
  return o - from;
}
