/**
 * Searches a server thread runs on itself before it takes requests (issue 12), so that the first
 * real searches do not pay for V8's first runs of the ranking code. V8 compiles a function with its
 * optimizing compiler only after it ran hot; until then the first frequent-word search of a fresh
 * reader thread scored its 100,000s of postings in the interpreter and baseline code (the cold
 * first round of bench/compare.js: frequent p99 52.9 ms against 14.7 ms warm). Running each query
 * shape once over the largest lists compiles the paths every search takes (one word; a word typed
 * as a prefix, merged from several lists; two words intersected) and builds the full-visibility
 * tier views of those lists.
 *
 * Each query runs at both sizes a search asks for (a page answered early, then the session's hits:
 * one word ranks them by different code, topk.ts) and more than once: V8 compiles a function
 * after a few calls, and a function first compiled for one of its loops (on-stack replacement)
 * is deoptimized at the next loop it has no type feedback for. With one run, the first real
 * searches paid for it (bench/results.md, issue 12: a first frequent word's session ranked in
 * 46–62 ms, 4–8 ms warm).
 *
 * Nothing is stored: the queries go to the index directly, not through the search service.
 */
import { DEFAULT_SEARCH_LIMIT, VISIBILITIES } from '../../../api/schemas.js';
import type { QueryWord, TextSearchQuery } from '../../model.js';

/** Only plain words are useful here (not id tokens or filter terms, which carry marks). */
const PLAIN_WORD = /^[\p{L}\p{N}]{3,}$/u;

/**
 * Warm-up queries over `largestTerms` (index terms, largest posting list first): the two largest
 * plain words alone, as prefixes, together, and a three-letter prefix of the largest. Empty when
 * fewer than two plain words are given (a small catalog needs no warm-up). The view context sees
 * every visibility and no organization (a search of the raw catalog).
 */
/** How many times warmUpRuns repeats each query at each size. */
export const WARM_UP_ROUNDS = 3;


/**
 * The runs of a warm-up: each of {@link warmUpQueries} at a page's size and at `sessionHits` (the
 * session size, maxSessionHits), {@link WARM_UP_ROUNDS} times over.
 */
export function warmUpRuns(largestTerms: readonly string[], sessionHits: number): { query: TextSearchQuery; maxHits: number }[] {
  const queries = warmUpQueries(largestTerms);
  const runs: { query: TextSearchQuery; maxHits: number }[] = [];
  for (let round = 0; round < WARM_UP_ROUNDS; round++) {
    for (const query of queries) runs.push({ query, maxHits: DEFAULT_SEARCH_LIMIT }, { query, maxHits: sessionHits });
  }
  return runs;
}

export function warmUpQueries(largestTerms: readonly string[]): TextSearchQuery[] {
  const [first, second] = largestTerms.filter((t) => PLAIN_WORD.test(t));
  if (first === undefined || second === undefined) return [];
  const word = (token: string, prefix = false): QueryWord => ({ tokens: [token], prefix, typo: false });
  const ctx = { principal: { name: 'warm-up', roles: [], organization: null }, attributes: new Map(), organizations: new Map(), organization: undefined };
  const query = (words: QueryWord[]): TextSearchQuery => ({ words, visibleValues: [...VISIBILITIES], filters: [], ctx });
  return [query([word(first)]), query([word(second)]), query([word(first, true)]), query([word(first), word(second)]), query([word(second), word(first.slice(0, 3), true)])];
}
