/**
 * Which posting lists a fresh reader decodes ahead (SearchIndex.warm; docs/search.md, "`catalog
 * serve`: where a search runs"): the lists of the terms that many parts hold, found from a sample
 * of the parts, so that finding them costs the same at 10,000 parts as at 10,000,000. Ranking the
 * stored lists by their block counts read every block of the index: seconds per reader thread at
 * start-up, growing with the catalog.
 */
import type { EngineDocument } from '../../../core/search/engine/document.js';

/** Parts a reader samples to find the frequent terms. */
export const WARM_SAMPLE_PARTS = 2000;
/** Lists a reader decodes ahead at most. */
export const WARM_MAX_TERMS = 256;
/**
 * Share of the sampled parts a term must be in to be warmed: 0.2 % (4 of 2,000 sampled parts; at
 * least 2). Rarer lists cost a search little to read; the budget (WARM_POSTINGS) and
 * WARM_MAX_TERMS bound what is decoded, the most widely held first.
 */
export const WARM_MIN_SHARE = 0.002;

/**
 * The terms held by at least `minShare` of `documents` (and by at least two of them), the most
 * widely held first (ties by term, binary order), at most `max`.
 */
export function frequentTerms(documents: Iterable<EngineDocument>, minShare: number, max: number): string[] {
  const held = new Map<string, number>();
  let n = 0;
  for (const doc of documents) {
    n++;
    for (const term of doc.terms.keys()) held.set(term, (held.get(term) ?? 0) + 1);
  }
  const min = Math.max(2, Math.ceil(n * minShare));
  return [...held]
    .filter(([, count]) => count >= min)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, Math.max(0, max))
    .map(([term]) => term);
}
