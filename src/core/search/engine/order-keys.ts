/**
 * Orders of search hits by an attribute's values (docs/search.md, "Ranking": the custom ranking
 * attribute and `sort`), as per-doc arrays the exact top-k reads beside its own (topk.ts DocData):
 * - a boost: the custom ranking attribute's rank, added to the BM25 score in units larger than
 *   any BM25 sum, so it decides after the rules' tier and before BM25;
 * - sort keys: the order key of `sort`, replacing the part id's (values first, ties by part id,
 *   parts without a value last, by part id).
 *
 * A part's values are the folded values (text.ts foldFilterValue) of the attribute's filter terms
 * (document.ts filterTerm: every language, every value of a filterable, not per-organization
 * attribute), so the arrays come from the index with no part read. Pure: the searcher hands over
 * the values with their doc ids; the reference builds them from the parts.
 */
import { compareBinary } from '../rank.js';

/** A folded value and the docs holding it. */
export interface ValueHolders {
  value: string;
  docs: ArrayLike<number>;
}

/**
 * Score units of one rank of the custom ranking attribute: more than the largest name bonus
 * (topk.ts NAME_BONUS_UNIT · NAME_BONUS_LETTERS = 65,536) plus any BM25 sum of a query (at most
 * 32 words, each below idf · (k1 + 1) ≈ 50 at 2³¹ parts), so a better rank always wins and the
 * name bonus and BM25 decide only within one rank. A million distinct ranks stay below 2³⁷, where
 * a double still resolves BM25 to 2⁻¹⁵.
 */
export const RANK_BOOST_UNIT = 131072;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/u;

/**
 * The number a value states (`12`, `-3.5`, `1e6`; spaces around allowed), or undefined when it is
 * not one (a custom ranking attribute's values must all be: ranking-settings.ts).
 */
export function parseNumberValue(text: string): number | undefined {
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}

/** A value as the orders compare it: its number, if it states one, and its text. */
interface Comparable {
  number: number | undefined;
  text: string;
}

function comparable(text: string): Comparable {
  return { number: parseNumberValue(text), text };
}

function compareComparable(x: Comparable, y: Comparable): number {
  if (x.number !== undefined && y.number !== undefined) return x.number - y.number;
  if (x.number !== undefined) return -1;
  if (y.number !== undefined) return 1;
  return compareBinary(x.text, y.text);
}

/** Ascending value order: numbers by value (before every text), then texts in code point order; 0 for equal values (`1`, `1.0`). */
export function compareValues(a: string, b: string): number {
  return compareComparable(comparable(a), comparable(b));
}

/**
 * Per doc (`capacity` entries), the dense rank of its best value in `direction` (0 = the best
 * value of the catalog; a part with several values takes its smallest for asc, its largest for
 * desc), -1 without a value; and how many distinct ranks there are. `numbersOnly`: values that are
 * not numbers count as absent (the custom ranking attribute).
 */
export function valueRanks(holders: readonly ValueHolders[], direction: 'asc' | 'desc', numbersOnly: boolean, capacity: number): { rank: Int32Array; distinct: number } {
  const values = holders.map((h) => ({ value: comparable(h.value), docs: h.docs })).filter((h) => !numbersOnly || h.value.number !== undefined);
  const sign = direction === 'asc' ? 1 : -1;
  values.sort((a, b) => sign * compareComparable(a.value, b.value));
  const rank = new Int32Array(Math.max(capacity, 0)).fill(-1);
  // Dense over the values that are some part's best: a value every holder of which has a better
  // one takes no rank (the reference ranks the parts' best values alone).
  let distinct = 0;
  let groupUsed = false;
  let previous: Comparable | undefined;
  for (const h of values) {
    if (previous !== undefined && compareComparable(previous, h.value) !== 0 && groupUsed) {
      distinct++;
      groupUsed = false;
    }
    previous = h.value;
    for (let i = 0; i < h.docs.length; i++) {
      const doc = h.docs[i] ?? 0;
      if (doc < rank.length && rank[doc] === -1) {
        rank[doc] = distinct;
        groupUsed = true;
      }
    }
  }
  if (groupUsed) distinct++;
  return { rank, distinct };
}

/** The custom ranking boost per doc: (distinct − rank) · RANK_BOOST_UNIT, 0 without a value. */
export function rankBoost(ranks: { rank: Int32Array; distinct: number }): Float64Array {
  const boost = new Float64Array(ranks.rank.length);
  for (let doc = 0; doc < boost.length; doc++) {
    const r = ranks.rank[doc] ?? -1;
    if (r >= 0) boost[doc] = (ranks.distinct - r) * RANK_BOOST_UNIT;
  }
  return boost;
}

/**
 * The order keys of a sort by value: docs with a value ordered by (rank, part order key) get keys
 * below 0, the others keep their part order key (≥ 0), so they follow, by part id.
 */
export function sortKeys(ranks: { rank: Int32Array }, key: ArrayLike<number>): Float64Array {
  const n = ranks.rank.length;
  const out = new Float64Array(n);
  const valued: number[] = [];
  for (let doc = 0; doc < n; doc++) {
    if ((ranks.rank[doc] ?? -1) >= 0) valued.push(doc);
    else out[doc] = key[doc] ?? 0;
  }
  valued.sort((a, b) => (ranks.rank[a] ?? 0) - (ranks.rank[b] ?? 0) || (key[a] ?? 0) - (key[b] ?? 0));
  valued.forEach((doc, i) => {
    out[doc] = i - valued.length;
  });
  return out;
}

/** The order keys of a sort by part id: the part order key, negated for desc. */
export function partIdKeys(key: ArrayLike<number>, capacity: number, direction: 'asc' | 'desc'): Float64Array {
  const out = new Float64Array(capacity);
  for (let doc = 0; doc < capacity; doc++) out[doc] = direction === 'asc' ? (key[doc] ?? 0) : -(key[doc] ?? 0);
  return out;
}
