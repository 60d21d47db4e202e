/**
 * What the search engine indexes for one part (docs/search.md, "Index"): pure, so every store, the
 * rebuild and the exhaustive reference scorer build the same document.
 *
 * Terms live in namespaces, so one dictionary holds them all:
 * - a word of the names or of a value (folded token, core/search/text.ts): groups 0 (names) and
 *   1..4 (values of searchable, not per-organization attributes by visibility tier);
 * - ID_MARK + a token of the part id: group 0 (ids are matched only by the word itself);
 * - the joined form of a punctuated run of tokens (`6204-2RS` → `62042rs`, `@types/react` →
 *   `typesreact`), in the run's group, not counted in the lengths: a part number or a package name
 *   typed without its separators finds the part; in the id, ID_JOINED_MARK + the run's first token
 *   and the rest apart (idJoinedTerm), group 0;
 * - EXACT_MARK + every token of one name joined, and EXACT_ID_MARK + every token of the id joined:
 *   group 0, tf 1 (the "exact" ranking rule: a query whose tokens joined equal it names this part,
 *   whatever separators it typed; the "begins" rule: a name whose term begins with the query's
 *   tokens joined begins with what was typed). Ids have their own mark so that a range of names
 *   is not a range of every id (ids often share a prefix: `npm:`, `pci:8086:`);
 * - IDENT_MARK + attribute id + NUL + every token of a value joined, for each value of a searchable,
 *   not per-organization attribute that is one chunk without whitespace (isIdentifierLike): in the value's
 *   group, tf 1 (the "exact" ranking rule for the catalog's identifier attributes, ranking settings
 *   `identifierAttributes`: a search names the attributes, so changing the setting re-indexes
 *   nothing; the value's group keeps a hidden value out of a caller's lists);
 * - ATTR_MARK + a word (or joined run) of a value of an attribute of the catalog's attribute order
 *   (ranking settings `attributeOrder`), in the value's group, the frequency the attribute marks
 *   (topk.ts attributeMarks) of the best such attribute holding the word: the attribute rule's
 *   order (a tier sees the marks of the groups it may read, doc-chunks.ts tierView). Only with an
 *   order: a catalog without one indexes nothing more;
 * - PAIR_MARK + two tokens next to each other in one name or one searchable value, neither holding
 *   a digit (pairTerm), in the text's group, not counted in the lengths: the proximity rule (words
 *   typed next to each other found next to each other). Tokens with digits are part numbers and
 *   codes, which the name and identifier rules rank; their pairs would add a dictionary term per
 *   part;
 * - COMPLETIONS_MARK + the first 2 or 3 letters of a word (completionsTerm), for every word and
 *   joined run of the names and values longer than that (the words a short prefix completes):
 *   each group's frequencies summed over those words, and with an attribute order its attribute
 *   marks OR-ed (ATTR_MARK + the term). A short prefix typed (`co`) is then one list read, where
 *   the dictionary range of its completions holds every word and part number it begins (thousands
 *   of lists, read and merged, on a large catalog); the sums are what the range's lists merge to
 *   (topk.ts materializeClass), so the ranking is the same either way;
 * - NAMES_BEGIN_MARK + the first 2 or 3 letters of a name's tokens joined (namesBeginTerm), for every
 *   name longer than that: group 0, tf the number of such names; and NAMES_BONUS_MARK + the same
 *   letters (namesBonusTerm): group 0, tf 1 + the name bonus units of the shortest of them
 *   (topk.ts nameBonus). The "begins" rule for a query of 2 or 3 letters: one list and its bonuses,
 *   where the range of exact-name terms holds one term per name it begins;
 * - NAME_HEAD_MARK + the first token of a name of two or more tokens (nameHeadTerm), and
 *   NAME_LEAD_TERM for a name that begins with a name separator (`@babel/types`; text.ts
 *   startsWithSeparator): group 0, tf 1. The "begins" rule's as-typed test (searcher.ts
 *   asTypedBonus): `pret` begins `pretty` as typed but `p-retry` only once its separator is
 *   dropped, which the head `p`, shorter than what was typed, tells;
 * - FILTER_MARK + attribute id + NUL + folded value, for each value of a filterable, not
 *   per-organization attribute: group 0, tf 1 (no score);
 * - HOLDER_TERM for a part with any per-organization value (their view depends on the reader).
 */
import type { Attribute, LangMap, PartAttribute } from '../../../api/schemas.js';
import { VISIBILITY_ORDER } from '../../permissions.js';
import { foldFilterValue, langTexts, startsWithSeparator, tokenize } from '../text.js';
import { GROUPS } from './postings.js';
import { attributeMarks, nameBonus, NAME_BONUS_UNIT } from './topk.js';

/** Prefix of id terms (a private-use character: never produced by the tokenizer for other text). */
export const ID_MARK = '\uE001';
/** Prefix of filter terms. */
export const FILTER_MARK = '\uE002';
/** The term of parts with per-organization values. */
export const HOLDER_TERM = '\uE003holder';
/** Prefix of a name's exact-field term. */
export const EXACT_MARK = '\uE004';
/** Prefix of the id's exact-field term. */
export const EXACT_ID_MARK = '\uE005';

/** Prefix of an identifier value's exact-field term. */
export const IDENT_MARK = '\uE006';
/** Whether `term` is a marked engine term (of a name, an id, a filter, a pair...: a private-use mark first), never a word of the vocabulary. */
export function isMarkedTerm(term: string): boolean {
  const first = term.charCodeAt(0);
  return first >= 0xe000 && first <= 0xf8ff;
}

/** Prefix of the completions term of a short prefix ({@link completionsTerm}). */
export const COMPLETIONS_MARK = '\uE00A';

/**
 * Lengths, in code points, of the prefixes that have a completions term: the shortest a search
 * takes as a prefix (query.ts MIN_PREFIX_LENGTH) and one more. Longer prefixes begin few enough
 * words to read their dictionary range.
 */
export const COMPLETIONS_LENGTHS: readonly number[] = [2, 3];

/** The prefixes of `text` of each of COMPLETIONS_LENGTHS shorter than it (in code points), shortest first. */
function shortPrefixesOf(text: string): string[] {
  const points = [...text];
  return COMPLETIONS_LENGTHS.filter((length) => points.length > length).map((length) => points.slice(0, length).join(''));
}

/** The term holding, for prefix `prefix` (one of COMPLETIONS_LENGTHS long), the postings of every longer word it begins. */
export function completionsTerm(prefix: string): string {
  return COMPLETIONS_MARK + prefix;
}

/** Prefix of the names-begin term of a short prefix ({@link namesBeginTerm}). */
export const NAMES_BEGIN_MARK = '\uE00B';
/** Prefix of the name-bonus term of a short prefix ({@link namesBonusTerm}). */
export const NAMES_BONUS_MARK = '\uE00C';

/** The term of the parts with a name longer than `prefix` (one of COMPLETIONS_LENGTHS long) that begins with it, separators aside: tf the number of such names. */
export function namesBeginTerm(prefix: string): string {
  return NAMES_BEGIN_MARK + prefix;
}

/** The term holding, for the parts of {@link namesBeginTerm}, 1 + the name bonus units (topk.ts nameBonus) of their shortest such name. */
export function namesBonusTerm(prefix: string): string {
  return NAMES_BONUS_MARK + prefix;
}

/** Prefix of the head term of a name ({@link nameHeadTerm}). */
export const NAME_HEAD_MARK = '\uE00D';
/** The term of the parts with a name that begins with a separator (`@babel/types`, `.env`). */
export const NAME_LEAD_TERM = '\uE00E';

/** The term of the parts with a name of two or more tokens whose first token is `token`. */
export function nameHeadTerm(token: string): string {
  return NAME_HEAD_MARK + token;
}

/** Prefix of a word's attribute-order term (the marks of the best listed attribute holding it). */
export const ATTR_MARK = '\uE007';
/** Prefix of the joined form of a punctuated run of the part id ({@link idJoinedTerm}). */
export const ID_JOINED_MARK = '\uE008';
/** Prefix of a pair of adjacent tokens ({@link pairTerm}). */
export const PAIR_MARK = '\uE009';
/** Between a pair's two tokens: sorts before every character a token holds, so a pair's range is its left token's. */
const PAIR_SPLIT = '\u0001';
/** Between an id run's first token and the rest joined: sorts before every character a token holds. */
const ID_JOINED_SPLIT = '\u0001';
/**
 * Longest value text (in UTF-16 units) given an identifier term: part numbers and codes are short;
 * a description never equals a query, so it costs no dictionary entry.
 */
export const IDENTIFIER_MAX_LENGTH = 40;

/**
 * Whether a value's text gets an identifier term: one chunk without whitespace (`6204-2RS`,
 * `SKF.6204`) of at most IDENTIFIER_MAX_LENGTH. Values with words (`Intel Corporation`, a
 * description) are left out: every part holds such values, and their terms slowed searches of
 * catalogs that name no identifier attribute (decisions/0030).
 */
export function isIdentifierLike(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.length > 0 && trimmed.length <= IDENTIFIER_MAX_LENGTH && !/\s/u.test(trimmed);
}

/**
 * Version of what a part contributes to the index: a store whose index was built with another
 * version rebuilds it when it opens (SQLite search_state `layout`, PostgreSQL settings
 * `search_document`).
 */
export const DOCUMENT_FORMAT = 8;

/** The exact-field term of a name's tokens. */
export function exactTerm(tokens: readonly string[]): string {
  return EXACT_MARK + tokens.join('');
}

/** The exact-field term of the id's tokens. */
export function exactIdTerm(tokens: readonly string[]): string {
  return EXACT_ID_MARK + tokens.join('');
}

/**
 * The exact-field term of a value of identifier attribute `attributeId` (document.ts IDENT_MARK):
 * the value's tokens joined, so `6204-2RS`, `6204 2RS` and `62042rs` give the same term.
 */
export function identifierTerm(attributeId: string, tokens: readonly string[]): string {
  return `${IDENT_MARK}${attributeId}\u0000${tokens.join('')}`;
}

/**
 * The proximity term of token `left` followed by token `right` in one text (document.ts
 * PAIR_MARK); with `right` a prefix typed, the terms of its completions begin with it.
 */
export function pairTerm(left: string, right: string): string {
  return PAIR_MARK + left + PAIR_SPLIT + right;
}

/** Whether a token may be one side of a pair term: it holds no digit (part numbers and codes hold one). */
export function isPairToken(token: string): boolean {
  return !/\p{Nd}/u.test(token);
}

/** The pair terms of a text's tokens: each two adjacent tokens that may be paired ({@link isPairToken}). */
function addPairs(terms: Map<string, number[]>, tokens: readonly string[], group: number): void {
  for (let i = 1; i < tokens.length; i++) {
    const left = tokens[i - 1] as string;
    const right = tokens[i] as string;
    if (isPairToken(left) && isPairToken(right)) add(terms, pairTerm(left, right), group);
  }
}

/** A text's punctuated runs: each whitespace-separated chunk of two or more tokens, as its tokens. */
export function punctuatedRuns(text: string): string[][] {
  const out: string[][] = [];
  for (const chunk of text.split(/\s+/u)) {
    const tokens = tokenize(chunk);
    if (tokens.length > 1) out.push(tokens);
  }
  return out;
}

/** The joined forms of a text's punctuated runs ({@link punctuatedRuns}), each run's tokens joined. */
export function joinedRuns(text: string): string[] {
  return punctuatedRuns(text).map((tokens) => tokens.join(''));
}

/** Whether `term` is a term of the part id: a token (ID_MARK) or a run joined (ID_JOINED_MARK). */
export function isIdTerm(term: string): boolean {
  return term.startsWith(ID_MARK) || term.startsWith(ID_JOINED_MARK);
}

/**
 * The term of a punctuated run of the part id (two or more tokens): ID_JOINED_MARK, the first
 * token, ID_JOINED_SPLIT, the other tokens joined (`pci:8086:10d3` → `pci`, `808610d3`). The
 * first token stands apart so that a word typed finds the run only when it reaches past that token
 * ({@link idJoinedKeys}): a word within it finds the token itself (ID_MARK), and a catalog whose
 * ids all begin alike (`pci:`, `npm:`) never makes a word like `pci` a range of every id.
 */
export function idJoinedTerm(tokens: readonly string[]): string {
  return ID_JOINED_MARK + (tokens[0] ?? '') + ID_JOINED_SPLIT + tokens.slice(1).join('');
}

/** The first token and the rest joined of an id run's term ({@link idJoinedTerm}), or undefined for any other term. */
export function splitIdJoinedTerm(term: string): { first: string; rest: string } | undefined {
  if (!term.startsWith(ID_JOINED_MARK)) return undefined;
  const split = term.indexOf(ID_JOINED_SPLIT);
  return split < 0 ? undefined : { first: term.slice(ID_JOINED_MARK.length, split), rest: term.slice(split + 1) };
}

/**
 * Most id runs a word begun finds as completions ({@link idJoinedKeys}): each run is one part's, so
 * a range is as wide as the ids it begins (`usb0` begins every `usb:0…` id: a third of a device
 * catalog's), and its terms are read and merged one by one. A word whose range holds more finds
 * only the run it spells whole, until it is typed far enough to narrow the range to this many
 * (docs/search.md, Identifiers).
 */
export const ID_RUN_COMPLETIONS_MAX = 1000;

/**
 * The keys under which the id runs spelled by `word` (one token, typed without separators) are
 * found: one {@link idJoinedTerm} per way of cutting the word after its first code point and
 * before its last (the run's first token, then the rest). A run whose tokens joined equal `word` is
 * one of these terms; a run whose joined form begins with `word` and is longer than its first
 * token lies in the dictionary range of one of them.
 */
export function idJoinedKeys(word: string): string[] {
  const points = [...word];
  const keys: string[] = [];
  for (let cut = 1; cut < points.length; cut++) keys.push(ID_JOINED_MARK + points.slice(0, cut).join('') + ID_JOINED_SPLIT + points.slice(cut).join(''));
  return keys;
}

/**
 * The postings that turn part index entry `previous` (undefined: none) into `doc`: each term of
 * `previous` that `doc` lacks with null (its posting removed), and each term of `doc` whose
 * frequencies differ from `previous`'s, or that `previous` lacks, with its frequencies. A term the
 * part holds as before is left out: a posting holds no length (postings.ts), so its blocks stay as
 * they are, and readers keep its decoded list.
 */
export function* documentChanges(doc: EngineDocument, previous: EngineDocument | undefined): Generator<[term: string, tf: number[] | null]> {
  if (previous) for (const term of previous.terms.keys()) if (!doc.terms.has(term)) yield [term, null];
  for (const [term, tf] of doc.terms) {
    const before = previous?.terms.get(term);
    if (before === undefined || before.length !== tf.length || before.some((n, g) => n !== tf[g])) yield [term, tf];
  }
}

/** The part as the engine needs it. */
export interface EngineIndexablePart {
  part_id: string;
  name: LangMap;
  attributes: readonly PartAttribute[];
}

/** One part's index entry. */
export interface EngineDocument {
  /** Term -> GROUPS frequencies (see postings.ts). */
  terms: Map<string, number[]>;
  /** Token counts: [id + names, values tier 0, 1, 2, 3]; a tier T sees lengths[0] + Σ_{k ≤ T} lengths[1 + k]. */
  lengths: [number, number, number, number, number];
  /** The part has per-organization values. */
  holder: boolean;
}

/** The filter term for "attribute has value" (case-insensitive, decisions §8). */
export function filterTerm(attributeId: string, value: string): string {
  return `${FILTER_MARK}${attributeId}\u0000${foldFilterValue(value)}`;
}

/** Length of a part for tier T (bm25.ts dl). */
export function tierLength(lengths: ArrayLike<number>, tier: number): number {
  let n = lengths[0] ?? 0;
  for (let k = 0; k <= tier; k++) n += lengths[1 + k] ?? 0;
  return n;
}

function add(terms: Map<string, number[]>, term: string, group: number): void {
  let tf = terms.get(term);
  if (!tf) {
    tf = new Array<number>(GROUPS).fill(0);
    terms.set(term, tf);
  }
  tf[group] = (tf[group] ?? 0) + 1;
}

/** Adds position `position` of the attribute order to the marks of `term` in `group` (topk.ts attributeMarks: the best position wins). */
function markAttribute(terms: Map<string, number[]>, term: string, group: number, position: number): void {
  let tf = terms.get(term);
  if (!tf) {
    tf = new Array<number>(GROUPS).fill(0);
    terms.set(term, tf);
  }
  tf[group] = (tf[group] ?? 0) | attributeMarks(position);
}

/** Adds the exact-field term `term` of a field once (tf 1, however many fields share it). */
function addExact(terms: Map<string, number[]>, tokens: readonly string[], term: string): void {
  if (tokens.length === 0) return;
  if (!terms.has(term)) add(terms, term, 0);
}

/** Adds the head terms of a name (NAME_HEAD_MARK, NAME_LEAD_TERM), once each (tf 1). */
function addNameHead(terms: Map<string, number[]>, text: string, tokens: readonly string[]): void {
  const first = tokens[0];
  if (first === undefined) return;
  if (tokens.length >= 2) addExact(terms, tokens, nameHeadTerm(first));
  if (startsWithSeparator(text)) addExact(terms, tokens, NAME_LEAD_TERM);
}

/**
 * Builds the engine document of a part; values of unknown attributes are ignored. `order`: the
 * attribute order (attribute_id → position, 0-based, below topk.ts MAX_ATTRIBUTE_ORDER), whose
 * attributes' words get ATTR_MARK terms; absent or empty: none.
 */
export function buildEngineDocument(part: EngineIndexablePart, attributes: ReadonlyMap<string, Attribute>, order?: ReadonlyMap<string, number>): EngineDocument {
  const terms = new Map<string, number[]>();
  const lengths: [number, number, number, number, number] = [0, 0, 0, 0, 0];
  const idTokens = tokenize(part.part_id);
  for (const token of idTokens) {
    add(terms, ID_MARK + token, 0);
    lengths[0]++;
  }
  for (const run of punctuatedRuns(part.part_id)) add(terms, idJoinedTerm(run), 0);
  addExact(terms, idTokens, exactIdTerm(idTokens));
  for (const text of langTexts(part.name)) {
    const tokens = tokenize(text);
    for (const token of tokens) {
      add(terms, token, 0);
      lengths[0]++;
    }
    for (const joined of joinedRuns(text)) add(terms, joined, 0);
    addPairs(terms, tokens, 0);
    addExact(terms, tokens, exactTerm(tokens));
    addNameHead(terms, text, tokens);
  }
  let holder = false;
  for (const entry of part.attributes) {
    for (const value of entry.values) if (value.organization !== '') holder = true;
    const attribute = attributes.get(entry.attribute_id);
    if (!attribute || attribute.per_org_values) continue;
    const group = 1 + VISIBILITY_ORDER.indexOf(attribute.visibility);
    const position = attribute.searchable ? order?.get(attribute.attribute_id) : undefined;
    for (const value of entry.values) {
      for (const text of langTexts(value.value)) {
        if (attribute.searchable) {
          const tokens = tokenize(text);
          for (const token of tokens) {
            add(terms, token, group);
            lengths[group] = (lengths[group] ?? 0) + 1;
          }
          for (const joined of joinedRuns(text)) add(terms, joined, group);
          addPairs(terms, tokens, group);
          if (position !== undefined) for (const word of [...tokens, ...joinedRuns(text)]) markAttribute(terms, ATTR_MARK + word, group, position);
          if (tokens.length > 0 && isIdentifierLike(text)) {
            const term = identifierTerm(attribute.attribute_id, tokens);
            if (!terms.get(term)?.[group]) add(terms, term, group);
          }
        }
        if (attribute.filterable) {
          const term = filterTerm(attribute.attribute_id, text);
          if (!terms.has(term)) add(terms, term, 0);
        }
      }
    }
  }
  if (holder) add(terms, HOLDER_TERM, 0);
  addCompletions(terms);
  addNamesBegin(terms);
  return { terms, lengths, holder };
}

/**
 * Adds the names-begin and name-bonus terms (NAMES_BEGIN_MARK, NAMES_BONUS_MARK) of a document's
 * exact-name terms: per completions length, the names longer than it counted under their first
 * letters, and the bonus of the shortest.
 */
function addNamesBegin(terms: Map<string, number[]>): void {
  const shortest = new Map<string, { names: number; length: number }>();
  for (const term of terms.keys()) {
    if (!term.startsWith(EXACT_MARK)) continue;
    const name = term.slice(EXACT_MARK.length);
    const length = [...name].length;
    for (const prefix of shortPrefixesOf(name)) {
      const known = shortest.get(prefix);
      if (known) {
        known.names++;
        known.length = Math.min(known.length, length);
      } else {
        shortest.set(prefix, { names: 1, length });
      }
    }
  }
  for (const [prefix, { names, length }] of shortest) {
    const begin = new Array<number>(GROUPS).fill(0);
    begin[0] = names;
    terms.set(namesBeginTerm(prefix), begin);
    const bonus = new Array<number>(GROUPS).fill(0);
    bonus[0] = 1 + nameBonus(length, [...prefix].length) / NAME_BONUS_UNIT;
    terms.set(namesBonusTerm(prefix), bonus);
  }
}

/**
 * Adds the completions terms (document.ts COMPLETIONS_MARK) of a document's words: for each word
 * or joined run (an unmarked term) longer than a completions length, its frequencies to the
 * completions term of its first letters, and its attribute marks (ATTR_MARK + the word) to that
 * term's attribute-order term.
 */
function addCompletions(terms: Map<string, number[]>): void {
  const sums = new Map<string, number[]>();
  const marks = new Map<string, number[]>();
  for (const [term, tf] of terms) {
    if (isMarkedTerm(term)) continue;
    const wordMarks = terms.get(ATTR_MARK + term);
    for (const prefix of shortPrefixesOf(term)) {
      const key = completionsTerm(prefix);
      const sum = sums.get(key);
      if (sum) for (let g = 0; g < GROUPS; g++) sum[g] = (sum[g] ?? 0) + (tf[g] ?? 0);
      else sums.set(key, [...tf]);
      if (!wordMarks) continue;
      const mark = marks.get(ATTR_MARK + key);
      if (mark) for (let g = 0; g < GROUPS; g++) mark[g] = (mark[g] ?? 0) | (wordMarks[g] ?? 0);
      else marks.set(ATTR_MARK + key, [...wordMarks]);
    }
  }
  for (const [key, tf] of sums) terms.set(key, tf);
  for (const [key, tf] of marks) terms.set(key, tf);
}
