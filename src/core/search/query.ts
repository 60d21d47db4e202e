/**
 * The text of a search (decisions §8) as words: the storage-neutral query model (core/model.ts
 * QueryWord) that every SearchIndex adapter answers. No index syntax lives here.
 */
import type { QueryWord } from '../model.js';
import { codePointLength, startsWithSeparator, tokenize } from './text.js';
import { DEFAULT_TYPO_RULES, typosAllowed, type TypoRules } from './typo.js';

/** Shortest last word that is matched as a prefix; a shorter one must match a whole token. */
export const MIN_PREFIX_LENGTH = 2;
/** Most words one search may have. */
export const MAX_QUERY_WORDS = 32;

/**
 * Splits search text into words. The last word is a prefix unless the text ends in whitespace or
 * its last token is shorter than {@link MIN_PREFIX_LENGTH}. Words without any letter or digit
 * (pure punctuation) are dropped.
 */
export function parseQueryText(text: string, rules: TypoRules = DEFAULT_TYPO_RULES): QueryWord[] {
  const words: QueryWord[] = [];
  for (const chunk of text.split(/\s+/u)) {
    const tokens = tokenize(chunk);
    if (tokens.length === 0) continue;
    const typos = tokens.length === 1 ? typosAllowed(tokens[0] ?? '', rules) : 0;
    words.push({ tokens, prefix: false, typo: typos > 0, ...(typos === 2 ? { maxTypos: 2 as const } : {}), ...(startsWithSeparator(chunk) ? { leadingSeparator: true } : {}) });
  }
  const last = words[words.length - 1];
  const lastToken = last?.tokens[last.tokens.length - 1];
  if (last && lastToken !== undefined && !/\s$/u.test(text) && codePointLength(lastToken) >= MIN_PREFIX_LENGTH) last.prefix = true;
  return words;
}
