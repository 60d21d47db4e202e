/**
 * One-typo tolerance (decisions §8): a query word of at least {@link TYPO_MIN_LENGTH} letters that
 * the catalog does not know matches the catalog's words within one edit (insert, delete,
 * substitute, or swap of two neighbours). Candidates come from a deletion-neighbourhood table: the
 * index stores every known word under itself and under each of its one-letter deletions, so the
 * words within one edit of `q` are among those stored under `q` or under a deletion of `q`
 * (SymSpell); {@link withinOneEdit} then drops the few at distance two.
 */
import { codePointLength } from './text.js';

/** Shortest query word that is typo-tolerant. */
export const TYPO_MIN_LENGTH = 5;
/** Shortest vocabulary word (a 5-letter query word minus one letter is 4). */
export const TYPO_TERM_MIN_LENGTH = TYPO_MIN_LENGTH - 1;
/** Longest word kept in the vocabulary (see isVocabularyTerm). */
export const TERM_MAX_LENGTH = 40;
/** Most typo neighbours one word expands to (the closest in length first, then alphabetical). */
export const MAX_TYPO_NEIGHBOURS = 16;

const LETTERS_ONLY = /^\p{L}+$/u;
const ASCII_LETTERS = /^[a-z]+$/;

/** Shortest query word that tolerates two typos. */
export const TWO_TYPOS_MIN_LENGTH = 9;

/**
 * Word lengths (in letters) from which a query word tolerates one and two typos
 * (`catalog serve --typo-min-length`, `--two-typos-min-length`; docs/api.md, Search).
 */
export interface TypoRules {
  oneTypoMinLength: number;
  twoTyposMinLength: number;
}

export const DEFAULT_TYPO_RULES: TypoRules = { oneTypoMinLength: TYPO_MIN_LENGTH, twoTyposMinLength: TWO_TYPOS_MIN_LENGTH };

/** Whether a query token may be matched with one typo: letters only (no digits), ≥ 5 of them (or `rules`). */
export function isTypoEligible(token: string, rules: TypoRules = DEFAULT_TYPO_RULES): boolean {
  return LETTERS_ONLY.test(token) && codePointLength(token) >= rules.oneTypoMinLength;
}

/** How many typos a query token tolerates under `rules`: 0, 1 or 2. */
export function typosAllowed(token: string, rules: TypoRules = DEFAULT_TYPO_RULES): 0 | 1 | 2 {
  if (!isTypoEligible(token, rules)) return 0;
  return codePointLength(token) >= rules.twoTyposMinLength ? 2 : 1;
}

/**
 * Whether an indexed token enters the typo vocabulary: letters only, 4..40 of them. The vocabulary
 * is the words a typo may reach: a query word tolerates typos only when it is letters only
 * ({@link isTypoEligible}), so its neighbours are letter words too, and a token with a digit (a part
 * number: one per part on a real catalog) is never one. Each vocabulary word is stored under itself
 * and its one-letter deletions ({@link lookupKeys}); a 5-letter query minus a letter is 4 letters.
 */
export function isVocabularyTerm(token: string): boolean {
  if (ASCII_LETTERS.test(token)) return token.length >= TYPO_TERM_MIN_LENGTH && token.length <= TERM_MAX_LENGTH;
  if (!LETTERS_ONLY.test(token)) return false;
  const n = codePointLength(token);
  return n >= TYPO_TERM_MIN_LENGTH && n <= TERM_MAX_LENGTH;
}

/** The distinct strings made by deleting one code point of `term`. */
export function deletionVariants(term: string): string[] {
  const out = new Set<string>();
  // Slices at code point boundaries (a surrogate pair is one code point): every search of a
  // typo-eligible word and every new term of an import makes these keys.
  for (let i = 0; i < term.length; ) {
    const width = (term.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    out.add(term.slice(0, i) + term.slice(i + width));
    i += width;
  }
  return [...out];
}

/** The keys a query word is looked up under: itself and its deletions. */
export function lookupKeys(word: string): string[] {
  return [word, ...deletionVariants(word)];
}

/**
 * The typo keys of the vocabulary words `words` ({@link isVocabularyTerm}), each under itself and
 * its one-letter deletions ({@link lookupKeys}), as two columns of equal length: key and word
 * (array parameters of one statement).
 */
export function typoKeyColumns(words: Iterable<string>): { keys: string[]; words: string[] } {
  const keys: string[] = [];
  const owners: string[] = [];
  for (const word of words) {
    for (const key of lookupKeys(word)) {
      keys.push(key);
      owners.push(word);
    }
  }
  return { keys, words: owners };
}

/**
 * Whether `a` and `b` differ by at most one edit: insertion, deletion, substitution or a swap of
 * two adjacent characters (optimal string alignment distance ≤ 1). Compares code points.
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const x = codePoints(a);
  const y = codePoints(b);
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  if (x.length === y.length) {
    if (sameFrom(x, i + 1, y, i + 1)) return true; // substitution
    return x[i] === y[i + 1] && x[i + 1] === y[i] && sameFrom(x, i + 2, y, i + 2); // swap
  }
  const [longer, shorter] = x.length > y.length ? [x, y] : [y, x];
  return sameFrom(longer, i + 1, shorter, i); // insertion / deletion
}

/** Whether `p` from index `from` and `q` from `qFrom` hold the same code points to their ends. */
function sameFrom(p: ArrayLike<string>, from: number, q: ArrayLike<string>, qFrom: number): boolean {
  if (p.length - from !== q.length - qFrom) return false;
  for (let k = 0; from + k < p.length; k++) if (p[from + k] !== q[qFrom + k]) return false;
  return true;
}

/** Surrogate halves: a string without them has one UTF-16 unit per code point. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * `text` indexable by code point: the string itself when each unit is one (the common case: no
 * array is made for the words of every typo lookup), else its code points.
 */
function codePoints(text: string): ArrayLike<string> {
  return SURROGATE.test(text) ? [...text] : text;
}

/** Rows of {@link editDistance}, grown to the longest word seen (the function does not re-enter). */
let rows = [new Int32Array(0), new Int32Array(0), new Int32Array(0)];

/**
 * Optimal string alignment distance of `a` and `b` (insert, delete, substitute, swap of
 * neighbours; code points), or `max + 1` when it is above `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  const x = codePoints(a);
  const y = codePoints(b);
  if (Math.abs(x.length - y.length) > max) return max + 1;
  if ((rows[0]?.length ?? 0) < y.length + 1) rows = [new Int32Array(y.length + 1), new Int32Array(y.length + 1), new Int32Array(y.length + 1)];
  let [prev2, prev, row] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= y.length; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    row[0] = i;
    let best = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d = Math.min(d, (prev2[j - 2] ?? 0) + 1);
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    [prev2, prev, row] = [prev, row, prev2];
  }
  return Math.min(prev[y.length] ?? max + 1, max + 1);
}

/** The keys a word of two typos is looked up under: itself, its deletions and their deletions. */
export function lookupKeys2(word: string): string[] {
  const out = new Set(lookupKeys(word));
  for (const d of deletionVariants(word)) for (const dd of deletionVariants(d)) out.add(dd);
  return [...out];
}

/**
 * Picks the typo neighbours of `word` among candidate terms: within `maxTypos` edits (1 or 2),
 * not `word` itself, the closest first (then by length difference, then alphabetical), capped.
 */
export function typoNeighbours(word: string, candidates: Iterable<string>, maxTypos: 1 | 2 = 1): string[] {
  const length = codePointLength(word);
  if (maxTypos === 2) {
    const scored = [...new Set(candidates)].filter((t) => t !== word).map((t) => ({ t, d: editDistance(word, t, 2) })).filter((c) => c.d <= 2);
    scored.sort((p, q) => p.d - q.d || Math.abs(codePointLength(p.t) - length) - Math.abs(codePointLength(q.t) - length) || (p.t < q.t ? -1 : p.t > q.t ? 1 : 0));
    return scored.slice(0, MAX_TYPO_NEIGHBOURS).map((c) => c.t);
  }
  const found = [...new Set(candidates)].filter((t) => t !== word && withinOneEdit(word, t));
  found.sort((p, q) => Math.abs(codePointLength(p) - length) - Math.abs(codePointLength(q) - length) || (p < q ? -1 : p > q ? 1 : 0));
  return found.slice(0, MAX_TYPO_NEIGHBOURS);
}
