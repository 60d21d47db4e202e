/**
 * A reader's memory of the term dictionary (engine_term_levels): term -> id, and the terms it
 * found absent. A dictionary lookup seeks every level (leveled-terms.ts) and a search asks for its
 * words, their typo neighbours, the exact-name terms and the id terms: most of them again at the
 * next search of the same words, after any write. Also the typo vocabulary's words under each
 * one-deletion key (search_term_keys), which a typo-eligible word looks up at every search.
 *
 * Valid as the engine's read side keeps it (engine-store.ts refresh): an id named by the
 * changed-terms log is forgotten (a deleted term's id can be given to a new term), and so is the
 * absence of the terms those ids name now (the log names every term a write added), and the typo
 * keys of those terms (a word the vocabulary gains is stored under its keys in the same write);
 * everything when the log does not cover the versions skipped or the index was rebuilt.
 *
 * And the terms of each dictionary range a search asked for (a prefix's completions, the names
 * beginning with a query: with a part number in every name, a range of a thousand names per
 * search of a common word). The log names every term a write added, changed the postings of or
 * emptied (an emptied term leaves the dictionary, but its engine_terms row stays while the log
 * names that write, so its term is read here; a rebuild starts the log over), so when the log
 * names a term a kept range's prefix begins, the range is answered as a new array (with the term
 * put in its place if it is new, or given its new id when it came back) and what the engine made
 * of the old one (searcher.ts, the names beginning with a query) is made again; until then, the
 * same array is answered and that stays valid. A kept range may so hold an emptied term, whose
 * list reads empty.
 * Re-reading the range instead cost a thousand dictionary rows per search of a common word while
 * parts were being renamed.
 */
import { LRUCache } from 'lru-cache';
import { takeIntoRanges, type TermRow } from '../../../core/search/engine/term-range.js';
import { isVocabularyTerm, lookupKeys } from '../../../core/search/typo.js';

/** Terms whose ids a reader keeps, least recently used out (~100 bytes each). */
export const TERM_ID_CACHE_TERMS = 100_000;
/** Absent terms a reader keeps between two engine versions; past it they are forgotten at once. */
const ABSENT_TERMS = 10_000;
/** Typo keys whose words a reader keeps, least recently used out (a word searched looks up ~10). */
export const TYPO_KEY_CACHE_KEYS = 50_000;

/** Terms of dictionary ranges a reader keeps, least recently used out (~100 bytes each). */
export const RANGE_CACHE_TERMS = 200_000;

/** A row of the typo vocabulary: a word stored under a key (itself or one of its deletions). */
export interface TypoKeyRow {
  key: string;
  term: string;
}

/** term -> id of the engine's dictionary, as of the engine version the reader has loaded. */
export class TermIdCache {
  private readonly termById = new Map<number, string>();
  private readonly ids = new LRUCache<string, number>({
    max: TERM_ID_CACHE_TERMS,
    dispose: (id, term) => {
      if (this.termById.get(id) === term) this.termById.delete(id);
    },
  });
  private readonly absent = new Set<string>();
  private readonly typoKeys = new LRUCache<string, readonly string[]>({ max: TYPO_KEY_CACHE_KEYS });
  private readonly ranges = new LRUCache<string, readonly TermRow[]>({ maxSize: RANGE_CACHE_TERMS, sizeCalculation: (rows) => rows.length + 1 });
  /** No range kept has a longer prefix (characters): the longest ever kept. */
  private longestRange = 0;

  /** The id of `term`: remembered, else `lookup(term)` (the dictionary), remembered either way. */
  get(term: string, lookup: (term: string) => number | undefined): number | undefined {
    const known = this.ids.get(term);
    if (known !== undefined) return known;
    if (this.absent.has(term)) return undefined;
    const id = lookup(term);
    if (id === undefined) {
      if (this.absent.size >= ABSENT_TERMS) this.absent.clear();
      this.absent.add(term);
    } else {
      this.ids.set(term, id);
      this.termById.set(id, term);
    }
    return id;
  }

  /** Forgets the term of `id` (its postings changed, or it was deleted and the id given again). */
  forgetId(id: number): void {
    const term = this.termById.get(id);
    if (term !== undefined) this.ids.delete(term);
  }

  /**
   * The typo vocabulary's words stored under any of `keys`, each once: remembered per key, else
   * `lookup(missing keys)` (the vocabulary's rows for them), remembered either way.
   */
  typoCandidates(keys: readonly string[], lookup: (keys: string[]) => TypoKeyRow[]): string[] {
    const out = new Set<string>();
    const missing: string[] = [];
    for (const key of keys) {
      const terms = this.typoKeys.get(key);
      if (terms === undefined) missing.push(key);
      else for (const term of terms) out.add(term);
    }
    if (missing.length > 0) {
      const found = new Map<string, string[]>(missing.map((key) => [key, []]));
      for (const row of lookup(missing)) found.get(row.key)?.push(row.term);
      for (const [key, terms] of found) {
        this.typoKeys.set(key, terms);
        for (const term of terms) out.add(term);
      }
    }
    return [...out];
  }

  /** The terms beginning with `prefix` if remembered (not made most recently used), else undefined. */
  keptRange(prefix: string): readonly TermRow[] | undefined {
    return this.ranges.peek(prefix);
  }

  /** The terms beginning with `prefix`, ascending: remembered, else `lookup()` (the dictionary's range), remembered. */
  range(prefix: string, lookup: () => TermRow[]): readonly TermRow[] {
    const known = this.ranges.get(prefix);
    if (known !== undefined) return known;
    const rows = lookup();
    // A range larger than the whole budget would only push every other one out.
    if (rows.length < RANGE_CACHE_TERMS) {
      this.ranges.set(prefix, rows);
      this.longestRange = Math.max(this.longestRange, prefix.length);
    }
    return rows;
  }

  /**
   * A write added `terms` or changed their postings: forgets that they were absent, the words
   * under their typo keys (the same write stored them there) and what the engine made of every
   * kept range that holds them now (each such range is answered as a new array, the term in it);
   * with no terms named, forgets every absent term, typo key and range.
   */
  written(terms?: Iterable<TermRow>): void {
    if (terms === undefined) {
      this.absent.clear();
      this.typoKeys.clear();
      this.ranges.clear();
      return;
    }
    for (const row of terms) {
      const { term } = row;
      this.absent.delete(term);
      // Only a word with typo keys is stored under any (search-index.ts writeVocabulary): a name or
      // id term (a long joined name) would make tens of keys to forget for nothing.
      if (isVocabularyTerm(term)) for (const key of lookupKeys(term)) this.typoKeys.delete(key);
      if (this.ranges.size > 0) takeIntoRanges(row, (prefix) => this.ranges.peek(prefix), (prefix, range) => this.ranges.set(prefix, range), this.longestRange);
    }
  }

  /** Forgets everything (the log cannot say what changed, or term ids started over). */
  clear(): void {
    this.ids.clear();
    this.termById.clear();
    this.absent.clear();
    this.typoKeys.clear();
    this.ranges.clear();
  }
}
