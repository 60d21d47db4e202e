/**
 * The search document and query of a part in PostgreSQL's full-text types (issue 15), built from
 * ./document.ts (the fields the SQLite FTS5 index used), the core's tokenizer and typo rules, so both indexes match the same words in the same fields.
 *
 * We never let PostgreSQL parse text: documents are tsvector literals of our own tokens (core
 * tokenize: letters and digits, lower case, no diacritics, as FTS5 unicode61 folds them) with
 * positions and weights, and queries are tsquery literals of quoted lexemes. No user text is ever
 * read as tsquery syntax, no stemming, no stop words.
 *
 * A view row's tsvector: the part id's tokens, each marked with ID_MARK (weight A), then the names
 * (weight A), then the values the row's visibility tiers see (weight D); a gap of 8 positions
 * between fields keeps a phrase (`<->`) from spanning two of them, as FTS5 columns do.
 */
import type { Attribute } from '../../../api/schemas.js';
import type { Alternative, ExpandedWord, StoredPart } from '../../../core/model.js';
import { langTexts, tokenize } from '../../../core/search/text.js';
import { ID_MARK } from '../../../core/search/engine/document.js';
import { buildSearchDocument } from './document.js';

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

/** One view row of a part: what callers of visibility tiers lo..hi see. */
export interface PgDocRow {
  lo: number;
  hi: number;
  /** tsvector literal. */
  doc: string;
  /** Filter tokens of the row's view. */
  flt: string[];
}

/** What the PostgreSQL index stores for one part. */
export interface PgSearchDocument {
  rows: PgDocRow[];
  holder: boolean;
  /** tsvector literal of every organization's searchable per-organization values (weight = tier); null when none. */
  orgDoc: string | null;
  /** Vocabulary words (prefix expansion, typo candidates). */
  terms: string[];
}

/** The id tokens as indexed: each marked, so they live apart from words of names and values. */
export function idTokens(partId: string): string[] {
  return tokenize(partId).map((t) => ID_MARK + t);
}

const WEIGHTS = ['A', 'B', 'C', 'D'] as const;

/** Builds the PostgreSQL search document of a part. Values of unknown attributes are ignored. */
export function buildPgDocument(part: StoredPart, attributes: ReadonlyMap<string, Attribute>): PgSearchDocument {
  const doc = buildSearchDocument(part, attributes);
  const pid = idTokens(part.part_id);
  const names = langTexts(part.name).map(tokenize);
  const rows = doc.rows.map((row): PgDocRow => {
    const v = new VectorBuilder();
    v.add(pid, 'A');
    for (const tokens of names) v.add(tokens, 'A');
    for (const text of row.values) v.add(tokenize(text), 'D');
    return { lo: row.lo, hi: row.hi, doc: v.literal(), flt: row.flt === '' ? [] : row.flt.split(' ') };
  });
  let orgDoc: string | null = null;
  if (doc.orgValues) {
    const v = new VectorBuilder();
    doc.orgValues.forEach((text, tier) => v.add(tokenize(text), WEIGHTS[tier] ?? 'D'));
    orgDoc = v.literal();
  }
  return { rows, holder: doc.holder, orgDoc, terms: doc.terms };
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

/** A word matching a token of the id, or through its alternatives any field (`namesOnly`: the names). */
export function tsWord(word: ExpandedWord, namesOnly: boolean): string {
  const id = tsAny(word.idAlternatives.map((a) => ({ tokens: a.tokens.map((t) => ID_MARK + t), prefix: a.prefix })));
  return `(${id} | ${tsAny([...word.alternatives, ...(word.synonyms ?? [])], namesOnly ? 'A' : '')})`;
}

/**
 * The clauses of a query's words with their multi-word synonyms (issue 13; QueryWord.synonymSpan):
 * the kept words (`keep`) of a run that a synonym term may replace become one clause, `(all of
 * them) | (any synonym phrase)`. A run whose words are all left out is left out; with `superset`
 * (candidates evaluated one by one afterwards) a run missing any word is left out whole.
 */
export function tsClauses(words: readonly ExpandedWord[], keep: (i: number) => boolean, superset: boolean, namesOnly: boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; ) {
    const span = words[i]?.word.synonymSpan;
    if (!span || span.count < 2 || i + span.count > words.length) {
      if (keep(i)) out.push(tsWord(words[i] as ExpandedWord, namesOnly));
      i++;
      continue;
    }
    const run = Array.from({ length: span.count }, (_, j) => i + j);
    const kept = run.filter(keep);
    i += span.count;
    if (kept.length === 0 || (superset && kept.length < run.length)) continue;
    out.push(`((${kept.map((j) => tsWord(words[j] as ExpandedWord, namesOnly)).join(' & ')}) | ${tsAny(span.alternatives, namesOnly ? 'A' : '')})`);
  }
  return out;
}

/** Conjunction of clauses; undefined for none. */
export function tsAnd(clauses: readonly string[]): string | undefined {
  return clauses.length === 0 ? undefined : clauses.join(' & ');
}

/** The weights of per-organization values a caller of `tier` sees (tiers 0..tier). */
export function orgWeights(tier: number): string {
  return WEIGHTS.slice(0, tier + 1).join('');
}
