/**
 * Text normalisation shared by the search index and the query side (decisions §8), mirroring the
 * SQLite FTS5 tokenizer `unicode61 remove_diacritics 2`: tokens are runs of letters, digits and
 * private-use characters (Unicode categories L*, N*, Co); everything else separates tokens; tokens
 * are lower-cased and stripped of diacritics. FTS5 re-tokenizes whatever we give it, so a small
 * mismatch here can only make a typo or prefix decision less precise, never break a query.
 */

import type { LangMap } from '../../api/schemas.js';

const SEPARATORS = /[^\p{L}\p{N}\p{Co}]+/u;
const ASCII_SEPARATORS = /[^A-Za-z0-9]+/;
const MARKS = /\p{M}+/gu;
// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/;

/** One token folded as FTS5 folds it: lower case, diacritics removed (`Crème` -> `creme`). */
export function foldToken(token: string): string {
  if (ASCII.test(token)) return token.toLowerCase();
  return token.toLowerCase().normalize('NFD').replace(MARKS, '').normalize('NFC');
}

/** The tokens of a text, folded, in order (`"pci:8086:1539"` -> `["pci", "8086", "1539"]`). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  // Plain ASCII (most catalog text) needs neither normalisation nor Unicode classes.
  if (ASCII.test(text)) {
    for (const raw of text.toLowerCase().split(ASCII_SEPARATORS)) if (raw !== '') out.push(raw);
    return out;
  }
  for (const raw of text.normalize('NFC').split(SEPARATORS)) {
    if (raw === '') continue;
    const token = foldToken(raw);
    if (token !== '') out.push(token);
  }
  return out;
}

/**
 * Whether `text` begins with one of the separators names are written with, `-` `_` `.` `/` `@`
 * (`@types/react`, `.env`), not counting leading whitespace. Quotes and brackets around a word
 * are not part of a name.
 */
export function startsWithSeparator(text: string): boolean {
  return NAME_SEPARATOR_FIRST.test(text.trimStart());
}

const NAME_SEPARATOR_FIRST = /^[-_./@]/u;

/** Text as it goes into the index: NFC, so that FTS5 sees precomposed letters it can fold. */
export function indexText(text: string): string {
  return ASCII.test(text) ? text : text.normalize('NFC');
}

/** Number of code points (not UTF-16 units) of a string. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Filter values compare case-insensitively (decisions §8). */
export function foldFilterValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  return (/^[\u0000-\u007f]*$/.test(value) ? value : value.normalize('NFC')).toLowerCase();
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * Whether a stored value passes a filter value, both folded ({@link foldFilterValue}):
 * equal, or the filter value is the stored value's first whole words (`intel` passes `intel
 * corporation`, `intel corp` does not: the stored value must continue with a character that is
 * not a letter or digit right after it, and the filter value must end in a letter or digit).
 */
export function filterValueMatches(stored: string, accepted: string): boolean {
  if (stored === accepted) return true;
  if (accepted === '' || stored.length <= accepted.length || !stored.startsWith(accepted)) return false;
  return WORD_CHAR.test(accepted.slice(-1)) && !WORD_CHAR.test(stored.charAt(accepted.length));
}

/** The texts of a language map, in language order (deterministic documents). */
export function langTexts(map: LangMap): string[] {
  const keys = Object.keys(map);
  if (keys.length === 1) return [map[keys[0] ?? ''] ?? ''];
  return keys
    .sort()
    .map((k) => map[k] ?? '');
}
