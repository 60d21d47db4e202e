/**
 * The best k of n hits whose scores are all known (one word: every posting is scored anyway), in
 * the order of text search (docs/search.md, "Answering a query"): tier ascending, score
 * descending, order key ascending. The same answer as {@link TopCollector}, by one selection over
 * the scores instead of a stream of truncations.
 *
 * Why: a search answered early ranks its session's 10,000 hits after the answer (core
 * search/service.ts), and for a word of 100,000+ postings the collector's truncations (a
 * comparator over three arrays at each step, three to four times over 2k hits) and its final
 * comparator sort were 60 % of that ranking. Here the cut is found on the scores alone
 * (a numeric selection of one Float64Array), ties at the cut are decided by key, and only the k
 * kept are sorted, by a sort with the comparison written out.
 */
import { TIER_COUNT, type RankedDoc } from './top-collector.js';

/** Tiers are topk.ts tiers: below TIER_COUNT. */
const TIERS = TIER_COUNT;

/** Working memory, grown to the largest n seen (one thread runs one search at a time). */
let scratchValues = new Float64Array(0);
let scratchIndex = new Int32Array(0);
/** The kept hits, compact (what the sort compares, without reaching into n-sized arrays). */
let keptTier = new Uint16Array(0);
let keptScore = new Float64Array(0);
let keptKey = new Float64Array(0);
let keptDoc = new Int32Array(0);

/**
 * The best `k` (≥ 1) of hits `0..n-1`: hit i is doc `docs[i]` of tier `tiers[i]` and score
 * `scores[i]`; `keyOf[doc]` its order key (distinct per doc). Returns them best first.
 */
export function selectTopScored(n: number, docs: Int32Array, tiers: Uint16Array, scores: Float64Array, keyOf: ArrayLike<number>, k: number): RankedDoc[] {
  const take = Math.min(k, n);
  if (scratchIndex.length < n) {
    scratchIndex = new Int32Array(n);
    scratchValues = new Float64Array(n);
  }
  // The tier that the k-th best hit is in: every hit of a better tier is kept.
  const perTier = countTiers(n, tiers);
  let cutTier = 0;
  let before = 0;
  while (cutTier < TIERS - 1 && before + (perTier[cutTier] as number) < take) before += perTier[cutTier++] as number;
  // Of the cut tier, the best `wanted` by score; of the hits scoring exactly the cut, the first by key.
  const wanted = take - before;
  const cutScore = wanted < (perTier[cutTier] as number) ? kthLargest(scratchValues, cutTierScores(n, tiers, scores, cutTier, scratchValues), wanted) : Number.NEGATIVE_INFINITY;
  const cut: Cut = { tier: cutTier, score: cutScore, count: 0, above: 0, ties: 0 };
  chooseAboveCut(n, docs, tiers, scores, keyOf, cut, scratchIndex, scratchValues);
  // The ties to keep: those whose key is at most the (wanted − above)-th smallest (keys are distinct).
  const fromTies = Math.min(wanted - cut.above, cut.ties);
  if (fromTies > 0) {
    const lastKey = fromTies === cut.ties ? Number.POSITIVE_INFINITY : -kthLargest(scratchValues, cut.ties, fromTies);
    chooseTies(n, docs, tiers, scores, keyOf, cut, lastKey, scratchIndex);
  }
  return sortedHits(cut.count, scratchIndex, docs, tiers, scores, keyOf);
}

/** Where the k best end: the tier and score of the cut, and what choosing found. */
interface Cut {
  tier: number;
  score: number;
  /** Hits chosen so far (in the index scratch). */
  count: number;
  /** Of them, hits of the cut tier scoring above the cut. */
  above: number;
  /** Hits of the cut tier scoring exactly the cut (their negated keys in the value scratch). */
  ties: number;
}

// The steps below are small functions of one loop each: V8 optimizes each as a whole after a few
// calls, where one long function was compiled a loop at a time and deoptimized at the next loop.

/** Hits per tier. */
function countTiers(n: number, tiers: Uint16Array): Int32Array {
  const perTier = new Int32Array(TIERS);
  for (let i = 0; i < n; i++) {
    const t = tiers[i] as number;
    perTier[t] = (perTier[t] as number) + 1;
  }
  return perTier;
}

/** Copies the scores of tier `tier` into `out`; returns how many. */
function cutTierScores(n: number, tiers: Uint16Array, scores: Float64Array, tier: number, out: Float64Array): number {
  let m = 0;
  for (let i = 0; i < n; i++) if (tiers[i] === tier) out[m++] = scores[i] as number;
  return m;
}

/** Chooses every hit above the cut into `chosen`; puts the negated keys of hits at the cut into `tieKeys`. */
function chooseAboveCut(n: number, docs: Int32Array, tiers: Uint16Array, scores: Float64Array, keyOf: ArrayLike<number>, cut: Cut, chosen: Int32Array, tieKeys: Float64Array): void {
  const cutTier = cut.tier;
  const cutScore = cut.score;
  let count = 0;
  let above = 0;
  let ties = 0;
  for (let i = 0; i < n; i++) {
    const t = tiers[i] as number;
    if (t > cutTier) continue;
    const score = scores[i] as number;
    if (t < cutTier || score > cutScore) {
      chosen[count++] = i;
      if (t === cutTier) above++;
    } else if (score === cutScore) tieKeys[ties++] = -(keyOf[docs[i] as number] as number);
  }
  cut.count = count;
  cut.above = above;
  cut.ties = ties;
}

/** Chooses the hits at the cut whose key is at most `lastKey`. */
function chooseTies(n: number, docs: Int32Array, tiers: Uint16Array, scores: Float64Array, keyOf: ArrayLike<number>, cut: Cut, lastKey: number, chosen: Int32Array): void {
  let count = cut.count;
  for (let i = 0; i < n; i++) {
    if (tiers[i] === cut.tier && scores[i] === cut.score && (keyOf[docs[i] as number] as number) <= lastKey) chosen[count++] = i;
  }
  cut.count = count;
}

/** The chosen hits `chosen[0..count)` as RankedDocs, best first (copied compact, then sorted). */
function sortedHits(count: number, chosen: Int32Array, docs: Int32Array, tiers: Uint16Array, scores: Float64Array, keyOf: ArrayLike<number>): RankedDoc[] {
  if (keptTier.length < count) {
    keptTier = new Uint16Array(count);
    keptScore = new Float64Array(count);
    keptKey = new Float64Array(count);
    keptDoc = new Int32Array(count);
  }
  const order = new Int32Array(count);
  for (let j = 0; j < count; j++) {
    const i = chosen[j] as number;
    const doc = docs[i] as number;
    keptTier[j] = tiers[i] as number;
    keptScore[j] = scores[i] as number;
    keptKey[j] = keyOf[doc] as number;
    keptDoc[j] = doc;
    order[j] = j;
  }
  sortHits(order, count, keptTier, keptScore, keptKey);
  const out = new Array<RankedDoc>(count);
  for (let j = 0; j < count; j++) {
    const h = order[j] as number;
    out[j] = { doc: keptDoc[h] as number, tier: keptTier[h] as number, score: keptScore[h] as number, key: keptKey[h] as number };
  }
  return out;
}

/**
 * The `r`-th largest (1-based) of `values[0..m)`, which it reorders (Hoare's quickselect on the
 * numbers themselves, median-of-three pivots; linear on average). 1 ≤ r ≤ m.
 */
export function kthLargest(values: Float64Array, m: number, r: number): number {
  let lo = 0;
  let hi = m - 1;
  const target = r - 1;
  while (hi > lo) {
    if (hi === lo + 1) {
      // Two left (mid would be lo, and the median of three would write over one of them).
      if ((values[hi] as number) > (values[lo] as number)) {
        const t = values[lo] as number;
        values[lo] = values[hi] as number;
        values[hi] = t;
      }
      break;
    }
    const mid = (lo + hi) >>> 1;
    let a = values[lo] as number;
    let b = values[mid] as number;
    let c = values[hi] as number;
    // Descending order: the median of three at mid.
    if (b > a) [a, b] = [b, a];
    if (c > a) [a, c] = [c, a];
    if (c > b) [b, c] = [c, b];
    values[lo] = a;
    values[mid] = b;
    values[hi] = c;
    const pivot = b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) > pivot) i++;
      while ((values[j] as number) < pivot) j--;
      if (i <= j) {
        const t = values[i] as number;
        values[i] = values[j] as number;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target] as number;
}

/** Whether hit a ranks before hit b: tier ascending, score descending, key ascending. */
function ranksBefore(a: number, b: number, tiers: Uint16Array, scores: Float64Array, keys: Float64Array): boolean {
  const ta = tiers[a] as number;
  const tb = tiers[b] as number;
  if (ta !== tb) return ta < tb;
  const sa = scores[a] as number;
  const sb = scores[b] as number;
  if (sa !== sb) return sa > sb;
  return (keys[a] as number) < (keys[b] as number);
}

/** Sorts hit numbers `items[0..count)` (indices into the three arrays) best first (quicksort, insertion sort below 16). */
function sortHits(items: Int32Array, count: number, tiers: Uint16Array, scores: Float64Array, keys: Float64Array): void {
  const stack: number[] = [0, count - 1];
  while (stack.length > 0) {
    let hi = stack.pop() as number;
    let lo = stack.pop() as number;
    while (hi - lo >= 16) {
      const mid = (lo + hi) >>> 1;
      // Median of three into mid.
      if (ranksBefore(items[mid] as number, items[lo] as number, tiers, scores, keys)) swap(items, mid, lo);
      if (ranksBefore(items[hi] as number, items[lo] as number, tiers, scores, keys)) swap(items, hi, lo);
      if (ranksBefore(items[hi] as number, items[mid] as number, tiers, scores, keys)) swap(items, hi, mid);
      const pivot = items[mid] as number;
      let i = lo;
      let j = hi;
      while (i <= j) {
        while (ranksBefore(items[i] as number, pivot, tiers, scores, keys)) i++;
        while (ranksBefore(pivot, items[j] as number, tiers, scores, keys)) j--;
        if (i <= j) {
          swap(items, i, j);
          i++;
          j--;
        }
      }
      // Go on with the larger part, push the smaller: the stack stays O(log n).
      if (j - lo < hi - i) {
        stack.push(lo, j);
        lo = i;
      } else {
        stack.push(i, hi);
        hi = j;
      }
    }
    for (let x = lo + 1; x <= hi; x++) {
      const item = items[x] as number;
      let y = x - 1;
      while (y >= lo && ranksBefore(item, items[y] as number, tiers, scores, keys)) {
        items[y + 1] = items[y] as number;
        y--;
      }
      items[y + 1] = item;
    }
  }
}

function swap(items: Int32Array, i: number, j: number): void {
  const t = items[i] as number;
  items[i] = items[j] as number;
  items[j] = t;
}
