/**
 * Per-organization values in PostgreSQL's full-text types: the one place the PostgreSQL
 * store still uses tsvector + GIN, as SQLite still uses FTS5 for the same thing — to learn whether a
 * query word occurs in ANY organization's per-organization values (which decides whether a query
 * must evaluate parts with such values one by one). Built from the core's tokenizer, so both stores
 * match the same words.
 *
 * We never let PostgreSQL parse text: documents are tsvector literals of our own tokens (core
 * tokenize: letters and digits, lower case, no diacritics, as FTS5 unicode61 folds them) with
 * positions and weights, and queries are tsquery literals of quoted lexemes. No user text is ever
 * read as tsquery syntax, no stemming, no stop words.
 *
 * The tsvector: the values of each visibility tier with weight A..D (tier 0..3); a gap of 8
 * positions between tiers keeps a phrase (`<->`) from spanning two of them, as FTS5 columns do.
 */
import type { Alternative } from '../../../core/model.js';
import { tokenize } from '../../../core/search/text.js';

/** Highest position PostgreSQL stores in a tsvector. */
const MAX_POSITION = 16_383;
/** Most positions kept per lexeme (PostgreSQL's limit is 256). */
const MAX_POSITIONS_PER_LEXEME = 255;
const FIELD_GAP = 8;

/** A tsvector/tsquery lexeme literal: single-quoted, `'` doubled and `\` escaped. */
export function lexemeLiteral(token: string): string {
  return `'${token.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** Builds a tsvector literal field by field. */
class VectorBuilder {
  private position = 0;
  private readonly positions = new Map<string, string[]>();

  add(tokens: readonly string[], weight: 'A' | 'B' | 'C' | 'D'): void {
    if (tokens.length === 0) return;
    if (this.position > 0) this.position += FIELD_GAP;
    for (const token of tokens) {
      this.position++;
      let list = this.positions.get(token);
      if (!list) {
        list = [];
        this.positions.set(token, list);
      }
      if (list.length < MAX_POSITIONS_PER_LEXEME) list.push(`${Math.min(this.position, MAX_POSITION)}${weight}`);
    }
  }

  literal(): string {
    const out: string[] = [];
    for (const [token, list] of this.positions) out.push(`${lexemeLiteral(token)}:${list.join(',')}`);
    return out.join(' ');
  }
}

const WEIGHTS = ['A', 'B', 'C', 'D'] as const;

/**
 * The tsvector literal of every organization's searchable per-organization values (core
 * org-document.ts, by visibility tier 0..3 → weight A..D), or null when there are none. Only
 * probed for whether a word occurs in any of them (EngineReader.inOrgValues), as SQLite probes its
 * FTS5 table; ranking and counting go through the engine.
 */
export function orgVector(orgValues: readonly string[] | null): string | null {
  if (!orgValues) return null;
  const v = new VectorBuilder();
  orgValues.forEach((text, tier) => v.add(tokenize(text), WEIGHTS[tier] ?? 'D'));
  return v.literal();
}

// -- queries ---------------------------------------------------------------------------------

/** One alternative as a tsquery phrase, restricted to `weights` when given: `'pci' <-> '8086' <-> '15':*`. */
export function tsPhrase(alternative: Alternative, weights = ''): string {
  const last = alternative.tokens.length - 1;
  return alternative.tokens
    .map((t, i) => {
      const label = (i === last && alternative.prefix ? '*' : '') + weights;
      return lexemeLiteral(t) + (label === '' ? '' : `:${label}`);
    })
    .join(' <-> ');
}

/** Any of the alternatives (parenthesised disjunction). */
export function tsAny(alternatives: readonly Alternative[], weights = ''): string {
  if (alternatives.length === 0) throw new Error('a clause needs at least one alternative');
  return `(${alternatives.map((a) => `(${tsPhrase(a, weights)})`).join(' | ')})`;
}

/** The weights of per-organization values a caller of `tier` sees (tiers 0..tier). */
export function orgWeights(tier: number): string {
  return WEIGHTS.slice(0, tier + 1).join('');
}
