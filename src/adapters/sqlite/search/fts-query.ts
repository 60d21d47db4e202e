/**
 * Words as FTS5 MATCH expressions, for the probe of per-organization values (`search_org_docs`;
 * decisions §8): does a query word occur in any organization's value at all.
 *
 * Every piece of user text reaches FTS5 inside a double-quoted string (with `"` doubled), so no
 * user input can be read as FTS5 syntax: no operator, column filter or unbalanced quote can be
 * injected, and no input produces an FTS5 syntax error. Column names and operators come from
 * this module only.
 */
import type { Alternative } from '../../../core/model.js';

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

/** A clause true when any alternative matches in any of `columns`: `{o0 o1} : ("a" OR "b"*)`. */
export function ftsClause(alternatives: readonly Alternative[], columns: readonly string[]): string {
  if (alternatives.length === 0) throw new Error('a clause needs at least one alternative');
  return `${columnList(columns)} : (${alternatives.map(ftsPhrase).join(' OR ')})`;
}
