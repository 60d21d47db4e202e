import { grown } from './typed-arrays.js';

/** A hit with what orders it (topk.ts, top-select.ts). */
export interface RankedDoc {
  doc: number;
  tier: number;
  score: number;
  key: number;
}

/**
 * The best k hits of a stream, in the order of text search (docs/search.md, "Answering a query"):
 * tier ascending, score descending, order key ascending (part id order; keys are distinct, so the
 * order is total and the result exact).
 *
 * Why not a binary heap of hit objects: a session keeps the first 10,000 hits (api-decisions §8),
 * so k is large, and a frequent word offers ~100,000 hits; a heap of objects spent most of a search
 * allocating hits and sifting them (a CPU profile at 1,000,000 parts: 18 of 23 ms). This collector
 * keeps hits in flat typed arrays, appends while there is room for 2k, and when full keeps the best k
 * by selection (linear on average, as Tantivy's TopNComputer does); the worst kept hit is then the
 * threshold that rejects what follows without storing it. Memory: 21 bytes a hit, at most 2k hits
 * (k = ∞ grows with the hits offered).
 */
/** Tiers are below this (topk.ts finishTier: 9 bits of rules, 5 of the attribute order's sum, exactness). */
export const TIER_COUNT = 32768;

export class TopCollector {
  private doc: Int32Array;
  private tier: Uint16Array;
  private score: Float64Array;
  private key: Float64Array;
  private size = 0;
  /** Whether a threshold is known (after the first truncation). */
  private bounded = false;
  private thTier = 0;
  private thScore = 0;
  private thKey = 0;
  /** Buffer size at which the best k are selected: 2k (no limit when k is unbounded). */
  private readonly limit: number;

  /** `k` ≥ 0: how many hits to keep (Number.MAX_SAFE_INTEGER or more: all). */
  constructor(readonly k: number) {
    this.limit = k >= 2 ** 30 ? Number.POSITIVE_INFINITY : Math.max(2 * k, 16);
    const initial = Math.min(this.limit, 1024);
    this.doc = new Int32Array(initial);
    this.tier = new Uint16Array(initial);
    this.score = new Float64Array(initial);
    this.key = new Float64Array(initial);
  }

  /**
   * Whether a hit of `tier` scoring at most `bound` can still be kept: false once k better hits
   * are known. Lets a caller skip scoring (ties: a hit equal to the threshold in tier and score may
   * still win on its key, so only a strictly lower bound is refused).
   */
  admits(tier: number, bound: number): boolean {
    return !this.bounded || tier < this.thTier || (tier === this.thTier && bound >= this.thScore);
  }

  /** Offers one hit; ignored when k better hits are already known. */
  offer(doc: number, tier: number, score: number, key: number): void {
    if (this.k <= 0) return;
    if (this.bounded) {
      if (tier > this.thTier) return;
      if (tier === this.thTier && (score < this.thScore || (score === this.thScore && key > this.thKey))) return;
    }
    if (this.size === this.doc.length) this.grow();
    const i = this.size++;
    this.doc[i] = doc;
    this.tier[i] = tier;
    this.score[i] = score;
    this.key[i] = key;
    if (this.size >= this.limit) this.truncate();
  }

  /** The kept hits, best first: at most k. */
  result(): RankedDoc[] {
    // Select the best k first and sort only those: a session keeps 10,000 hits and the buffer holds
    // up to 2k, so sorting it whole was a third of a frequent word's ranking.
    if (this.size > this.k) this.truncate();
    const order = this.order();
    order.sort(this.comparator());
    const n = Math.min(this.k, order.length);
    const out = new Array<RankedDoc>(n);
    for (let j = 0; j < n; j++) {
      const i = order[j] ?? 0;
      out[j] = { doc: this.doc[i] ?? 0, tier: this.tier[i] ?? 0, score: this.score[i] ?? 0, key: this.key[i] ?? 0 };
    }
    return out;
  }

  /** Hit order over the current arrays: < 0 when hit a ranks before hit b (indices are in range). */
  private comparator(): (a: number, b: number) => number {
    const { tier, score, key } = this;
    return (a, b) => (tier[a] as number) - (tier[b] as number) || (score[b] as number) - (score[a] as number) || (key[a] as number) - (key[b] as number);
  }

  private order(): Int32Array {
    const order = new Int32Array(this.size);
    for (let i = 0; i < this.size; i++) order[i] = i;
    return order;
  }

  private grow(): void {
    const size = Math.min(this.limit, this.doc.length * 2);
    this.doc = grown(this.doc, size);
    this.tier = grown(this.tier, size);
    this.score = grown(this.score, size);
    this.key = grown(this.key, size);
  }

  /** Keeps the best k hits (selection, then compaction) and makes the worst of them the threshold. */
  private truncate(): void {
    const order = this.order();
    const k = this.k;
    selectBest(order, k, this.comparator());
    // order[0..k) are the best k, order[k - 1] the worst of them (selectBest's postcondition).
    const worst = order[k - 1] ?? 0;
    this.thTier = this.tier[worst] ?? 0;
    this.thScore = this.score[worst] ?? 0;
    this.thKey = this.key[worst] ?? 0;
    this.bounded = true;
    const kept = order.subarray(0, k).sort();
    for (let j = 0; j < k; j++) {
      const i = kept[j] ?? 0;
      this.doc[j] = this.doc[i] ?? 0;
      this.tier[j] = this.tier[i] ?? 0;
      this.score[j] = this.score[i] ?? 0;
      this.key[j] = this.key[i] ?? 0;
    }
    this.size = k;
  }
}

/**
 * Rearranges `items` so that its first `k` entries are the k smallest by `compare`, with the k-th
 * smallest at index k − 1 (Hoare's quickselect, median-of-three pivots; linear on average).
 */
export function selectBest(items: Int32Array, k: number, compare: (a: number, b: number) => number): void {
  let lo = 0;
  let hi = items.length - 1;
  const target = k - 1;
  if (target < 0 || target > hi) return;
  const swap = (i: number, j: number) => {
    const t = items[i] ?? 0;
    items[i] = items[j] ?? 0;
    items[j] = t;
  };
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    // Median of three at `mid`.
    if (compare(items[mid] ?? 0, items[lo] ?? 0) < 0) swap(mid, lo);
    if (compare(items[hi] ?? 0, items[lo] ?? 0) < 0) swap(hi, lo);
    if (compare(items[hi] ?? 0, items[mid] ?? 0) < 0) swap(hi, mid);
    const pivot = items[mid] ?? 0;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (compare(items[i] ?? 0, pivot) < 0) i++;
      while (compare(items[j] ?? 0, pivot) > 0) j--;
      if (i <= j) {
        swap(i, j);
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return;
  }
}
