/**
 * The relevance formula of text search (decisions §8; docs/search.md, "Relevance"): BM25 over the
 * fields the caller may see, as one weighted field (BM25F-style). Storage-neutral and pure, so every
 * store and the exhaustive reference scorer compute bit-identical scores (same operations, same order).
 *
 * For a query word alternative `a` (one index term) and a part `d` seen by a caller of visibility
 * tier T (0 = factoryWorker .. 3 = superAdmin; a tier sees the values of its own and every lower tier):
 * - wtf(a, d) = ID_WEIGHT·tf_id + NAME_WEIGHT·tf_names + Σ_{k ≤ T} tf_values_k   (weighted term frequency)
 * - dl(d)     = |id tokens| + |name tokens| + Σ_{k ≤ T} |value tokens_k|        (only what T sees)
 * - avgdl     = Σ dl / N over every part, for the same tier
 * - idf(a)    = ln(1 + (N − df + 0.5) / (df + 0.5)), df = parts where wtf > 0 for tier T
 * - score     = Σ_words Σ_alternatives idf(a) · wtf·(K1 + 1) / (wtf + K1·(1 − B + B·dl/avgdl))
 * Higher is better. Values hidden from the caller change neither wtf, dl, avgdl nor df: ranking uses
 * only what the caller may see, by construction.
 */

export const K1 = 1.2;
export const B = 0.75;
/** Weight of a match in a token of the part id. */
export const ID_WEIGHT = 8;
/** Weight of a match in a name (any language). */
export const NAME_WEIGHT = 10;
/** Number of visibility tiers (VISIBILITY_ORDER). */
export const TIERS = 4;

/** Inverse document frequency (always > 0) of a term found in `df` of `n` parts. */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** The term-frequency part of BM25 for weighted frequency `wtf` in a part of length `dl` (tokens). */
export function tfPart(wtf: number, dl: number, avgdl: number): number {
  if (wtf <= 0) return 0;
  const norm = K1 * (1 - B + (B * dl) / (avgdl > 0 ? avgdl : 1));
  return (wtf * (K1 + 1)) / (wtf + norm);
}

/**
 * Collection statistics of one tier: parts and the sum of their lengths (dl) as that tier sees them.
 */
export interface TierStats {
  n: number;
  sumLength: number;
}

/** avgdl of a tier (1 for an empty catalog, so that formulas stay finite). */
export function averageLength(stats: TierStats): number {
  return stats.n > 0 && stats.sumLength > 0 ? stats.sumLength / stats.n : 1;
}
