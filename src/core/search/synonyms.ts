/**
 * Synonyms (docs/search.md "Synonyms", docs/api.md "Synonyms"): the rules of the
 * resource (a set is valid, bounded, normalised like search words) and how a set changes a query.
 *
 * Applied at query time, never at index time: a search's words gain their synonyms as further
 * alternatives (QueryWord.synonyms, synonymSpan), so a change of the sets needs no reindex and the
 * index answers them like any other alternative, flagged so that a synonym match ranks below an
 * exact one (engine/topk.ts SYNONYM). Pure.
 */
import {
  MAX_SYNONYM_SETS, MAX_SYNONYM_TERM_WORDS, type SynonymSet,
} from '../../api/schemas.js';
import type { Alternative, Decision, QueryWord } from '../model.js';
import { tokenize } from './text.js';

/** Most synonym alternatives one word (or one run of words) gains in a query, the first by set id kept. */
export const MAX_SYNONYMS_PER_WORD = 64;

/** An item of POST /1/catalog/synonyms after schema validation. */
export interface SynonymInput {
  synonym_id: string;
  input?: string | undefined;
  synonyms: string[];
}

/** A term's search words: folded tokens (case and diacritics), as search splits text (text.ts tokenize). */
export function synonymTerm(term: string): string[] {
  return tokenize(term);
}

/**
 * Decides one item of POST /1/catalog/synonyms against the stored set of that id and the number
 * of stored sets: every term must hold 1..{@link MAX_SYNONYM_TERM_WORDS} search words; a multi-way
 * set needs two different terms, a one-way set a term other than its input; terms that fold to
 * the same words are kept once (the first spelling); a new set beyond {@link MAX_SYNONYM_SETS} is
 * an error. The stored set is the input trimmed.
 */
export function decideSynonymUpsert(item: SynonymInput, existing: SynonymSet | undefined, storedSets: number): Decision<SynonymSet> {
  const messages: string[] = [];
  const check = (term: string, path: string): string | undefined => {
    const words = synonymTerm(term);
    if (words.length === 0) messages.push(`${path}: '${term}' has no letter or digit, so no search could ever use it`);
    else if (words.length > MAX_SYNONYM_TERM_WORDS) messages.push(`${path}: '${term}' has ${words.length} words; a term may have at most ${MAX_SYNONYM_TERM_WORDS}`);
    else return words.join(' ');
    return undefined;
  };
  const input = item.input !== undefined ? check(item.input, 'input') : undefined;
  const seen = new Set<string>(input !== undefined ? [input] : []);
  const synonyms: string[] = [];
  item.synonyms.forEach((term, i) => {
    const key = check(term, `synonyms[${i}]`);
    if (key === undefined || seen.has(key)) return;
    seen.add(key);
    synonyms.push(term.trim());
  });
  if (messages.length > 0) return { kind: 'error', messages };
  if (item.input !== undefined && synonyms.length === 0) return { kind: 'error', messages: ['synonyms: a one-way set needs at least one term other than its input'] };
  if (item.input === undefined && synonyms.length < 2) return { kind: 'error', messages: ['synonyms: a multi-way set needs at least two different terms (case and accents do not count)'] };
  if (!existing && storedSets >= MAX_SYNONYM_SETS) {
    return { kind: 'error', messages: [`the catalog already has ${storedSets} synonym sets, the most allowed (${MAX_SYNONYM_SETS}); delete some or replace an existing set`] };
  }
  const value: SynonymSet = { synonym_id: item.synonym_id, ...(item.input !== undefined ? { input: item.input.trim() } : {}), synonyms };
  return { kind: 'write', value, created: !existing };
}

/** Decides one id of DELETE /1/catalog/synonyms: an unknown id is an item error. */
export function decideSynonymDelete(id: string, existing: SynonymSet | undefined): Decision<null> {
  if (!existing) return { kind: 'error', messages: [`synonym set '${id}' does not exist`] };
  return { kind: 'write', value: null, created: false };
}

/** The sets compiled for queries: a term's words (joined by a space) -> the terms it also finds. */
export interface SynonymIndex {
  byTerm: ReadonlyMap<string, readonly Alternative[]>;
  /** Most words of any term with synonyms (the longest run of query words worth looking up). */
  maxWords: number;
}

/** Compiles stored sets (in synonym_id order, so the {@link MAX_SYNONYMS_PER_WORD} cap keeps the same ones everywhere). */
export function compileSynonyms(sets: readonly SynonymSet[]): SynonymIndex {
  const byTerm = new Map<string, Alternative[]>();
  let maxWords = 0;
  const add = (from: string[], to: string[]) => {
    if (from.length === 0 || to.length === 0) return;
    const key = from.join(' ');
    const list = byTerm.get(key) ?? [];
    if (list.length >= MAX_SYNONYMS_PER_WORD || list.some((a) => a.tokens.join(' ') === to.join(' '))) return;
    list.push({ tokens: to, prefix: false });
    byTerm.set(key, list);
    maxWords = Math.max(maxWords, from.length);
  };
  for (const set of [...sets].sort((a, b) => (a.synonym_id < b.synonym_id ? -1 : a.synonym_id > b.synonym_id ? 1 : 0))) {
    const terms = set.synonyms.map(synonymTerm);
    if (set.input !== undefined) {
      const input = synonymTerm(set.input);
      for (const t of terms) add(input, t);
    } else {
      for (const a of terms) for (const b of terms) if (a.join(' ') !== b.join(' ')) add(a, b);
    }
  }
  return { byTerm, maxWords };
}

/**
 * The query's words with their synonyms: a word whose tokens are a term gains the term's
 * synonyms (`synonyms`); a run of 2.. words whose tokens together are a term (`usb stick`) gains
 * them as a `synonymSpan` on its first word, the longest run first, runs never overlapping. Only
 * whole words count: the last word typed as a prefix gains a term's synonyms when it is the whole
 * term. Returns new word objects; `words` is not changed.
 */
export function applySynonyms(words: readonly QueryWord[], index: SynonymIndex): QueryWord[] {
  const out = words.map((w) => ({ ...w }));
  if (index.byTerm.size === 0) return out;
  for (let i = 0; i < out.length; i++) {
    const alone = index.byTerm.get((out[i] as QueryWord).tokens.join(' '));
    if (alone) (out[i] as QueryWord).synonyms = alone.map((a) => ({ tokens: [...a.tokens], prefix: false }));
  }
  for (let i = 0; i < out.length; ) {
    let taken = 1;
    for (let count = Math.min(index.maxWords, out.length - i); count >= 2; count--) {
      const tokens = out.slice(i, i + count).flatMap((w) => w.tokens);
      if (tokens.length > index.maxWords) continue;
      const found = index.byTerm.get(tokens.join(' '));
      if (!found) continue;
      (out[i] as QueryWord).synonymSpan = { count, alternatives: found.map((a) => ({ tokens: [...a.tokens], prefix: false })) };
      taken = count;
      break;
    }
    i += taken;
  }
  return out;
}
