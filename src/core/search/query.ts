/**
 * The text of a search (decisions §8) as words, and words as FTS5 MATCH expressions.
 *
 * Every piece of user text reaches FTS5 inside a double-quoted string (with `"` doubled), so no
 * user input can be read as FTS5 syntax: no operator, column filter or unbalanced quote can be
 * injected, and no input produces an FTS5 syntax error. Column names and operators come from
 * this module only.
 */
import { codePointLength, tokenize } from './text.js';

/** Shortest last word that is matched as a prefix; a shorter one must match a whole token. */
export const MIN_PREFIX_LENGTH = 2;
/** Most words one search may have. */
export const MAX_QUERY_WORDS = 32;

/**
 * One whitespace-separated word of the query. Punctuation inside a word splits it into tokens
 * that must appear in sequence (a phrase), so `pci:8086:1539` finds that id and `8086` alone
 * finds it too.
 */
export interface QueryWord {
  tokens: string[];
  /** The last token matches as a prefix: the last word of a text that does not end in a space. */
  prefix: boolean;
}

/** One way a word may match: a phrase of tokens, the last one possibly a prefix. */
export interface Alternative {
  tokens: string[];
  prefix: boolean;
}

/**
 * A word with every way it may match: in names and values, itself (or the vocabulary words its
 * prefix begins) plus typo neighbours (see typo.ts); in the part id, itself.
 */
export interface ExpandedWord {
  word: QueryWord;
  alternatives: Alternative[];
  /** Ways to match a token of the part id (column `pid`). */
  idAlternatives: Alternative[];
}

/**
 * The part id is indexed as its tokens each prefixed with this private-use character (a token
 * character for FTS5): id tokens live apart from the words of names and values, so a prefix of an
 * id piece costs FTS5 only the id tokens with that prefix, and id pieces need no vocabulary entry.
 */
export const ID_MARK = '\uE001';

/** The `pid` column text of a part id: `pci:8086:1539` -> `\uE001pci \uE0018086 \uE0011539`. */
export function markedIdText(tokens: readonly string[]): string {
  return tokens.map((t) => ID_MARK + t).join(' ');
}

/**
 * Splits search text into words. The last word is a prefix unless the text ends in whitespace or
 * its last token is shorter than {@link MIN_PREFIX_LENGTH}. Words without any letter or digit
 * (pure punctuation) are dropped.
 */
export function parseQueryText(text: string): QueryWord[] {
  const words: QueryWord[] = [];
  for (const chunk of text.split(/\s+/u)) {
    const tokens = tokenize(chunk);
    if (tokens.length > 0) words.push({ tokens, prefix: false });
  }
  const last = words[words.length - 1];
  const lastToken = last?.tokens[last.tokens.length - 1];
  if (last && lastToken !== undefined && !/\s$/u.test(text) && codePointLength(lastToken) >= MIN_PREFIX_LENGTH) last.prefix = true;
  return words;
}

/** An FTS5 string literal: the text in double quotes, inner quotes doubled. */
export function quoteFts(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** One alternative as an FTS5 phrase: `"pci 8086 15"*`. */
export function ftsPhrase(alternative: Alternative): string {
  return quoteFts(alternative.tokens.join(' ')) + (alternative.prefix ? '*' : '');
}

/** Column names are ours, never user input; this guards against a programming slip. */
function columnList(columns: readonly string[]): string {
  for (const c of columns) if (!/^[a-z][a-z0-9_]*$/.test(c)) throw new Error(`not a column name: ${c}`);
  return `{${columns.join(' ')}}`;
}

/** A clause true when any alternative matches in any of `columns`: `{pid names} : ("a" OR "b"*)`. */
export function ftsClause(alternatives: readonly Alternative[], columns: readonly string[]): string {
  if (alternatives.length === 0) throw new Error('a clause needs at least one alternative');
  return `${columnList(columns)} : (${alternatives.map(ftsPhrase).join(' OR ')})`;
}

/** A clause matching exact tokens (filter and marker tokens, which the index writes itself). */
export function ftsTokenClause(tokens: readonly string[], columns: readonly string[]): string {
  return ftsClause(tokens.map((t) => ({ tokens: [t], prefix: false })), columns);
}

/**
 * A clause true when the word matches a token of the id (`pid`) or, through its alternatives, one
 * of `columns` (names and value columns): `({pid} : ("\uE001x"*)) OR ({names v0} : ("x" OR "xy"))`.
 */
export function ftsWordClause(word: ExpandedWord, columns: readonly string[]): string {
  const id = ftsClause(word.idAlternatives.map((a) => ({ tokens: a.tokens.map((t) => ID_MARK + t), prefix: a.prefix })), ['pid']);
  return columns.length === 0 ? id : `(${id}) OR (${ftsClause(word.alternatives, columns)})`;
}

/** Conjunction of clauses, each parenthesised; undefined for none. */
export function ftsAnd(clauses: readonly string[]): string | undefined {
  if (clauses.length === 0) return undefined;
  return clauses.map((c) => `(${c})`).join(' AND ');
}

/** `positive NOT negative`. FTS5 has no unary NOT, so a positive side is required. */
export function ftsNot(positive: string, negative: string): string {
  return `(${positive}) NOT (${negative})`;
}
