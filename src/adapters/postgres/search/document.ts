/**
 * What the PostgreSQL search index stores for one part (decisions §8), as text columns before
 * tsvector.ts turns them into lexemes: a pure function of the part and the attribute definitions.
 * Carried over from the SQLite FTS5 index (removed from adapters/sqlite when the search engine
 * landed), so both stores index the same words in the same fields:
 * - `pid`: the part id's tokens, each marked with ID_MARK; `names`: the names in every language,
 * - `values` v0..v3: values of searchable attributes that are NOT per-organization, by visibility,
 * - `flt`: one token per value of a filterable, not per-organization attribute (filterToken),
 * - `rows`: one view per segment of visibility tiers, so ranking sees only what the caller sees,
 * - `orgValues`: every organization's searchable per-organization values (only to learn whether a
 *   word occurs in any of them), `holder`: the part has per-organization values.
 */
import { createHash } from 'node:crypto';
import type { Attribute, LangMap, PartAttribute, Visibility } from '../../../api/schemas.js';
import { isVocabularyTerm } from '../../../core/search/typo.js';
import { ID_MARK } from '../../../core/search/engine/document.js';
import { VISIBILITY_ORDER } from '../../../core/permissions.js';
import { foldFilterValue, indexText, langTexts, tokenize } from '../../../core/search/text.js';

/** Visibility -> value column. */
export const VALUE_COLUMNS: Readonly<Record<Visibility, 'v0' | 'v1' | 'v2' | 'v3'>> = {
  factoryWorker: 'v0',
  csa: 'v1',
  admin: 'v2',
  superAdmin: 'v3',
};
/** The name-like columns: a hit whose every word matches here ranks above value hits. */
export const NAME_COLUMNS = ['pid', 'names'] as const;
export const FILTER_COLUMN = 'flt';
export const META_COLUMN = 'meta';
export const HOLDER_TOKEN = 'holder';
/** The `meta` token of a part without per-organization values (keeps every row's length alike). */
export const PLAIN_TOKEN = 'plain';
/** Per-organization value columns of the organization-values table, by visibility. */
export const ORG_VALUE_COLUMNS: Readonly<Record<Visibility, 'o0' | 'o1' | 'o2' | 'o3'>> = {
  factoryWorker: 'o0',
  csa: 'o1',
  admin: 'o2',
  superAdmin: 'o3',
};

/** The part as the index needs it. */
export interface IndexablePart {
  part_id: string;
  name: LangMap;
  attributes: readonly PartAttribute[];
}

/**
 * One full-text row of a part: the view of callers whose visibility tier (index in
 * VISIBILITY_ORDER of the narrowest level they see) is in `lo..hi`. Values and filter tokens of
 * tiers above `hi` are left out, so the row's length is what those callers see.
 */
export interface SearchDocumentRow {
  lo: number;
  hi: number;
  /** v0..v3 (empty above `hi`) */
  values: [string, string, string, string];
  flt: string;
}

export interface SearchDocument {
  pid: string;
  names: string;
  /** v0..v3: every value (the view of tier 3). */
  values: [string, string, string, string];
  /** Every filter token (tier 3). */
  flt: string;
  meta: string;
  /** The rows to index, one per distinct view, tiers ascending; together they cover 0..3. */
  rows: SearchDocumentRow[];
  /** Whether the part has any per-organization value. */
  holder: boolean;
  /** o0..o3: every organization's searchable per-organization values; null when there are none. */
  orgValues: [string, string, string, string] | null;
  /** Vocabulary words of names and values (prefix expansion, typo candidates; see isVocabularyTerm). */
  terms: string[];
}

/**
 * The index token standing for "attribute `attributeId` has value `value`" (case-insensitive):
 * `f` + 24 hex digits of SHA-256. A single alphanumeric token, so FTS5 keeps it whole.
 */
export function filterToken(attributeId: string, value: string): string {
  const key = `${attributeId}\u0000${foldFilterValue(value)}`;
  let token = filterTokens.get(key);
  if (token === undefined) {
    token = `f${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 24)}`;
    remember(filterTokens, key, token);
  }
  return token;
}

/** Filter values and value texts repeat across parts (vendors, colours): bounded memos spare the hashing and tokenizing. */
const MEMO_CAP = 20_000;
const filterTokens = new Map<string, string>();
const textTerms = new Map<string, string[]>();

function remember<V>(memo: Map<string, V>, key: string, value: V): void {
  if (memo.size >= MEMO_CAP) memo.clear();
  memo.set(key, value);
}

/** The typo-vocabulary words of a text (memoised for short texts, which are the repeated ones). */
function vocabularyTerms(text: string): string[] {
  const cached = textTerms.get(text);
  if (cached) return cached;
  const terms = tokenize(text).filter(isVocabularyTerm);
  if (text.length <= 200) remember(textTerms, text, terms);
  return terms;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * The folded filter values a stored value passes (filterValueMatches): itself, and every prefix
 * that ends in a letter or digit right before a character that is neither.
 */
export function filterKeys(value: string): string[] {
  const folded = foldFilterValue(value);
  const keys = [folded];
  for (let i = 1; i < folded.length; i++) {
    if (WORD_CHAR.test(folded.charAt(i - 1)) && !WORD_CHAR.test(folded.charAt(i))) keys.push(folded.slice(0, i));
  }
  return keys;
}

/** Builds the search document of a part. Values of unknown attributes are ignored. */
export function buildSearchDocument(part: IndexablePart, attributes: ReadonlyMap<string, Attribute>): SearchDocument {
  const names = langTexts(part.name);
  const values: [string[], string[], string[], string[]] = [[], [], [], []];
  const orgValues: [string[], string[], string[], string[]] = [[], [], [], []];
  const filterTokens = new Set<string>();
  /** Filter tokens by the tier of their attribute's visibility. */
  const tierFilterTokens: [Set<string>, Set<string>, Set<string>, Set<string>] = [new Set(), new Set(), new Set(), new Set()];
  let holder = false;
  for (const entry of part.attributes) {
    const attribute = attributes.get(entry.attribute_id);
    for (const value of entry.values) if (value.organization !== '') holder = true;
    if (!attribute) continue;
    const column = VISIBILITY_ORDER.indexOf(attribute.visibility);
    for (const value of entry.values) {
      const texts = langTexts(value.value);
      if (attribute.per_org_values) {
        if (attribute.searchable && value.organization !== '') orgValues[column]?.push(...texts);
        continue;
      }
      if (attribute.searchable) values[column]?.push(...texts);
      if (attribute.filterable) {
        for (const text of texts) {
          // The whole value and each of its leading whole-word prefixes: a filter value passes when
          // it is one of them (core/search/text.ts filterValueMatches, issue 13).
          for (const key of filterKeys(text)) {
            const token = filterToken(attribute.attribute_id, key);
            filterTokens.add(token);
            tierFilterTokens[column]?.add(token);
          }
        }
      }
    }
  }
  const terms = new Set<string>();
  for (const text of names) for (const t of tokenize(text)) if (isVocabularyTerm(t)) terms.add(t);
  for (const list of [...values, ...orgValues]) for (const text of list) for (const t of vocabularyTerms(text)) terms.add(t);
  const join = (texts: readonly string[]) => (texts.length === 0 ? '' : indexText(texts.length === 1 ? (texts[0] ?? '') : texts.join('\n')));
  const hasOrgText = orgValues.some((v) => v.length > 0);
  const valueTexts: [string, string, string, string] = [join(values[0]), join(values[1]), join(values[2]), join(values[3])];
  return {
    pid: tokenize(part.part_id).map((t) => ID_MARK + t).join(' '),
    names: join(names),
    values: valueTexts,
    flt: [...filterTokens].join(' '),
    meta: holder ? HOLDER_TOKEN : PLAIN_TOKEN,
    rows: viewRows(valueTexts, tierFilterTokens),
    holder,
    orgValues: hasOrgText ? [join(orgValues[0]), join(orgValues[1]), join(orgValues[2]), join(orgValues[3])] : null,
    terms: [...terms],
  };
}

/** Splits tiers 0..3 into segments at each tier that adds something, and builds each segment's row. */
function viewRows(values: readonly [string, string, string, string], tierFilterTokens: readonly Set<string>[]): SearchDocumentRow[] {
  const adds = (tier: number) => values[tier] !== '' || (tierFilterTokens[tier]?.size ?? 0) > 0;
  const rows: SearchDocumentRow[] = [];
  let lo = 0;
  for (let tier = 1; tier <= 4; tier++) {
    if (tier < 4 && !adds(tier)) continue;
    const hi = tier - 1;
    const flt: string[] = [];
    for (let t = 0; t <= hi; t++) for (const token of tierFilterTokens[t] ?? []) flt.push(token);
    rows.push({
      lo,
      hi,
      values: [values[0], hi >= 1 ? values[1] : '', hi >= 2 ? values[2] : '', hi >= 3 ? values[3] : ''],
      flt: [...new Set(flt)].join(' '),
    });
    lo = tier;
  }
  return rows;
}
