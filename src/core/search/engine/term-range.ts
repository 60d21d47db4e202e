/**
 * A dictionary range as a reader keeps it (the terms beginning with a prefix, ascending in binary
 * order, each with its id; EngineReader.termsWithPrefix), brought up to date with a write's terms
 * instead of read again. A write names every term it added or whose list it changed (emptied
 * ones included, which leave the dictionary but keep their ids: a kept range may hold such a
 * term, whose list is then empty, until the term comes back under a new id), so a kept range
 * changes only by the terms a write names.
 */
import { compareBinary } from '../rank.js';

/** A term of the dictionary and its id. */
export interface TermRow {
  id: number;
  term: string;
}

/**
 * A copy of `range` (ascending in binary order) that holds `row`: the same terms when it holds it
 * already (a list of it changed: what was made of the old array is stale), with `row`'s id when
 * that changed (a term a write emptied left the dictionary and came back under a new id), else
 * with it in its place.
 */
export function withTerm(range: readonly TermRow[], row: TermRow): TermRow[] {
  let lo = 0;
  let hi = range.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareBinary((range[mid] as TermRow).term, row.term) < 0) lo = mid + 1;
    else hi = mid;
  }
  const copy = range.slice();
  if (range[lo]?.term !== row.term) copy.splice(lo, 0, { id: row.id, term: row.term });
  else if (range[lo]?.id !== row.id) copy[lo] = { id: row.id, term: row.term };
  return copy;
}

/**
 * Puts `row` into every kept range whose prefix its term begins with (the term itself included):
 * `kept(prefix)` is the range a reader keeps for that prefix, if any; `keep(prefix, range)`
 * replaces it ({@link withTerm}). `longestPrefix`: no kept range has a longer prefix (characters),
 * so the prefixes past it are not looked up: a write's name terms run to 40 characters, the words
 * typed as prefixes to a handful.
 */
export function takeIntoRanges(row: TermRow, kept: (prefix: string) => readonly TermRow[] | undefined, keep: (prefix: string, range: TermRow[]) => void, longestPrefix = row.term.length): void {
  const last = Math.min(row.term.length, longestPrefix);
  for (let end = 0; end <= last; end++) {
    const prefix = row.term.slice(0, end);
    const range = kept(prefix);
    if (range !== undefined) keep(prefix, withTerm(range, row));
  }
}
