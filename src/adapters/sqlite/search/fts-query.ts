/**
 * Words as FTS5 MATCH expressions (the SQLite search index's query syntax; decisions §8).
 *
 * Every piece of user text reaches FTS5 inside a double-quoted string (with `"` doubled), so no
 * user input can be read as FTS5 syntax: no operator, column filter or unbalanced quote can be
 * injected, and no input produces an FTS5 syntax error. Column names and operators come from
 * this module only.
 */
import type { Alternative, ExpandedWord } from '../../../core/model.js';

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
