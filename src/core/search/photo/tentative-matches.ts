/**
 * Tentative matches of a photo query (photo-index.ts; docs/search.md, "Photo search"): the posting
 * scan that compares a query descriptor with a posting list by Hamming distance, keeps at most one
 * match per (image, query keypoint) — the nearest — and the burst rule that keeps only the nearest
 * matches of a keypoint that matched too many images. Pure code; the arrays grow by doubling.
 */
import { DESCRIPTOR_WORDS, popcount32 } from './hamming.js';
import { grow, type Postings } from './postings.js';

/** Flat arrays of tentative matches, filled query keypoint by query keypoint. */
export class TentativeMatches {
  /** Image slot of each match. */
  slot = new Int32Array(4096);
  /** Query keypoint of each match. */
  q = new Int32Array(4096);
  /** Reference keypoint (number within its image). */
  kp = new Int32Array(4096);
  /** Hamming distance, bits. */
  dist = new Uint16Array(4096);
  /** idf of the word the match was found in. */
  idf = new Float32Array(4096);
  /** Matches so far. */
  count = 0;
  /** Postings compared so far (diagnostics). */
  compared = 0;
  /** Per slot, the last query keypoint that matched it, and that match's number. */
  private readonly lastQ: Int32Array;
  private readonly lastMatch: Int32Array;
  private readonly alive: readonly boolean[];

  /** For an index of `slots` image slots, `alive[slot]` false for removed ones. */
  constructor(slots: number, alive: readonly boolean[]) {
    this.lastQ = new Int32Array(slots).fill(-1);
    this.lastMatch = new Int32Array(slots);
    this.alive = alive;
  }

  /**
   * Compares query keypoint `qi` (its descriptor in q0…q7) with every posting of `p`; a posting
   * within `maxD` bits (and within `maxHalf` on its first 128 bits, tested first so most postings
   * cost half a comparison) of a live image becomes a match with weight `idf`, or improves that
   * image's match with `qi` when nearer.
   */
  scan(p: Postings, qi: number, q0: number, q1: number, q2: number, q3: number, q4: number, q5: number, q6: number, q7: number, idf: number, maxHalf: number, maxD: number): void {
    const pd = p.desc;
    const lastQ = this.lastQ;
    const lastMatch = this.lastMatch;
    this.compared += p.length;
    for (let j = 0; j < p.length; j++) {
      const o = j * DESCRIPTOR_WORDS;
      // Hamming distance with the query descriptor held in locals (this loop is the scan).
      let d = popcount32(q0 ^ (pd[o] ?? 0)) + popcount32(q1 ^ (pd[o + 1] ?? 0)) + popcount32(q2 ^ (pd[o + 2] ?? 0)) + popcount32(q3 ^ (pd[o + 3] ?? 0));
      if (d > maxHalf) continue;
      d += popcount32(q4 ^ (pd[o + 4] ?? 0)) + popcount32(q5 ^ (pd[o + 5] ?? 0)) + popcount32(q6 ^ (pd[o + 6] ?? 0)) + popcount32(q7 ^ (pd[o + 7] ?? 0));
      if (d > maxD) continue;
      const slot = p.slot[j] ?? 0;
      if (!this.alive[slot]) continue;
      if (lastQ[slot] === qi) {
        const at = lastMatch[slot] ?? 0;
        if (d < (this.dist[at] ?? 0)) {
          this.dist[at] = d;
          this.kp[at] = p.kp[j] ?? 0;
        }
        continue;
      }
      if (this.count === this.slot.length) this.grow();
      const at = this.count++;
      this.slot[at] = slot;
      this.q[at] = qi;
      this.kp[at] = p.kp[j] ?? 0;
      this.dist[at] = d;
      this.idf[at] = idf;
      lastQ[slot] = qi;
      lastMatch[slot] = at;
    }
  }

  /**
   * Burstiness: when the matches from `from` on (one query keypoint's) exceed `maxPerKeypoint`,
   * keeps only the `keep` nearest (a descriptor close to postings of many images — a flat patch, a
   * replicated border, a repeated texture, the soft corner of a small enlarged icon — is weak
   * evidence for any one of them and would flood verification; all were dropped before issue 14's
   * fourth round, the true one with them).
   */
  limitBurst(from: number, maxPerKeypoint: number, keep: number): void {
    if (this.count - from > maxPerKeypoint) this.count = from + keepNearest(from, this.count, keep, this.slot, this.kp, this.dist, this.idf);
  }

  private grow(): void {
    const cap = this.slot.length * 2;
    this.slot = grow(this.slot, cap);
    this.q = grow(this.q, cap);
    this.kp = grow(this.kp, cap);
    this.dist = grow(this.dist, cap);
    this.idf = grow(this.idf, cap);
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
