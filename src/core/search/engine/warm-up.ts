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
import type { TextSearchQuery } from '../../model.js';
import { parseQueryText } from '../query.js';
import { typosAllowed } from '../typo.js';

/** Only plain words are useful here (not id tokens or filter terms, which carry marks). */
const PLAIN_WORD = /^[\p{L}\p{N}]{3,}$/u;

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

/**
 * Warm-up queries over `largestTerms` (index terms, largest posting list first), parsed as a
 * search's text is (query.ts parseQueryText, default typo rules), so that they take the paths real
 * searches take: the two largest plain words alone, as a prefix, together, and a three-letter
 * prefix; then the largest word that tolerates one typo and the largest that tolerates two, alone
 * and beside the largest word. A typo-tolerant word is ranked from its typo neighbours merged into
 * one materialized list (topk.ts MaterializedWord), another branch of the same functions: warmed
 * with short words only, the first real search of `controller` or `corporation` deoptimized them
 * (V8: insufficient type feedback), and the next round of bench/compare.js ran them in baseline code
 * again while they were recompiled (frequent words 19-43 ms in round 2 against 4-8 ms in round 3).
 * Empty when fewer than two plain words are given (a small catalog needs no warm-up). The view
 * context sees every visibility and no organization (a search of the raw catalog).
 */
export function warmUpQueries(largestTerms: readonly string[]): TextSearchQuery[] {
  const ctx = { principal: { name: 'warm-up', roles: [], organization: null }, attributes: new Map(), organizations: new Map(), organization: undefined };
  return warmUpTexts(largestTerms).map((text) => ({ words: parseQueryText(text), visibleValues: [...VISIBILITIES], filters: [], ctx }));
}

/**
 * The search texts of {@link warmUpQueries} (a trailing space: whole words; none: the last word is
 * a prefix), each once; empty with fewer than two plain words. The search service runs them too,
 * through its own path (SearchService.warm).
 */
export function warmUpTexts(largestTerms: readonly string[]): string[] {
  const plain = largestTerms.filter((t) => PLAIN_WORD.test(t));
  const [first, second] = plain;
  if (first === undefined || second === undefined) return [];
  const texts = [`${first} `, `${second} `, first, `${first} ${second} `, `${second} ${first.slice(0, 3)}`];
  for (const typos of [1, 2] as const) {
    const word = plain.find((t) => typosAllowed(t) === typos);
    if (word !== undefined) texts.push(`${word} `, `${word} ${first} `);
  }
  return [...new Set(texts)];
}
