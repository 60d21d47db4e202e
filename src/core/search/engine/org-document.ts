/**
 * What a store's search index keeps of a part besides the engine's postings (decisions §8; shared by
 * the SQLite and PostgreSQL indexes): whether it holds per-organization values, every
 * organization's searchable per-organization values by visibility tier (SQLite: the FTS5 table
 * `search_org_docs`; PostgreSQL: a tsvector row; either probed only to learn whether a query word
 * occurs in any of them at all, EngineReader.inOrgValues), and its typo-vocabulary words. A pure
 * function of the part and the attribute definitions, so the writers, the rebuilds and the tests
 * build the same thing.
 */
import type { Attribute, LangMap, PartAttribute } from '../../../api/schemas.js';
import { VISIBILITY_ORDER } from '../../permissions.js';
import { indexText, langTexts, tokenize } from '../text.js';
import { isVocabularyTerm } from '../typo.js';
import { joinedRuns } from './document.js';

/** The part as the index needs it. */
export interface IndexablePart {
  part_id: string;
  name: LangMap;
  attributes: readonly PartAttribute[];
}

/** See the module comment. */
export interface OrgDocument {
  /** Whether the part has any per-organization value. */
  holder: boolean;
  /** By visibility tier 0..3: every organization's searchable per-organization values; null when there are none. */
  orgValues: [string, string, string, string] | null;
  /** Vocabulary words of names and values (prefix expansion, typo candidates; see isVocabularyTerm). */
  terms: string[];
}

/** Value texts repeat across parts (vendors, colours): a bounded memo spares the tokenizing. */
const MEMO_CAP = 20_000;
const textTerms = new Map<string, string[]>();

/** The typo-vocabulary words of a text (memoised for short texts, which are the repeated ones). */
function vocabularyTerms(text: string): string[] {
  const cached = textTerms.get(text);
  if (cached) return cached;
  const terms = tokenize(text).filter(isVocabularyTerm);
  if (text.length <= 200) {
    if (textTerms.size >= MEMO_CAP) textTerms.clear();
    textTerms.set(text, terms);
  }
  return terms;
}

/** Builds the document of a part. Values of unknown attributes are ignored. */
export function buildOrgDocument(part: IndexablePart, attributes: ReadonlyMap<string, Attribute>): OrgDocument {
  const orgValues: [string[], string[], string[], string[]] = [[], [], [], []];
  const terms = new Set<string>();
  let holder = false;
  for (const text of langTexts(part.name)) {
    for (const t of tokenize(text)) if (isVocabularyTerm(t)) terms.add(t);
    // A name's joined runs (`form-data` → `formdata`) are words too: typed with a typo, they are found.
    for (const t of joinedRuns(text)) if (isVocabularyTerm(t)) terms.add(t);
  }
  for (const entry of part.attributes) {
    const attribute = attributes.get(entry.attribute_id);
    for (const value of entry.values) if (value.organization !== '') holder = true;
    if (!attribute?.searchable) continue;
    const column = VISIBILITY_ORDER.indexOf(attribute.visibility);
    for (const value of entry.values) {
      const texts = langTexts(value.value);
      if (attribute.per_org_values) {
        if (value.organization !== '') orgValues[column]?.push(...texts);
        else continue;
      }
      for (const text of texts) for (const t of vocabularyTerms(text)) terms.add(t);
    }
  }
  const join = (texts: readonly string[]) => (texts.length === 0 ? '' : indexText(texts.length === 1 ? (texts[0] ?? '') : texts.join('\n')));
  const hasOrgText = orgValues.some((v) => v.length > 0);
  return {
    holder,
    orgValues: hasOrgText ? [join(orgValues[0]), join(orgValues[1]), join(orgValues[2]), join(orgValues[3])] : null,
    terms: [...terms],
  };
}
