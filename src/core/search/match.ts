/**
 * Exact evaluation of a search against one part, in memory, with the same view a reader gets from
 * `viewPart` (visibility by role; per-organization values as the organization sees them: own,
 * inherited under `sub`, else the default). The index answers most searches by itself; this is
 * used for the parts whose per-organization values matter to a query (see plan.ts), so that
 * search and part reads can never disagree on what an organization sees.
 */
import { viewPart } from '../catalog/parts.js';
import { canSeeVisibility } from '../permissions.js';
import { joinedRuns } from './engine/document.js';
import { filterValueMatches, foldFilterValue, langTexts, tokenize } from './text.js';
import type { Alternative, ExpandedWord, PartViewContext, SearchFilter, StoredPart } from '../model.js';

/** Whether the token sequence contains the alternative's phrase (last token as a prefix if so marked). */
export function alternativeMatches(alternative: Alternative, tokens: readonly string[]): boolean {
  const phrase = alternative.tokens;
  const n = phrase.length;
  for (let i = 0; i + n <= tokens.length; i++) {
    let ok = true;
    for (let j = 0; j < n && ok; j++) {
      const want = phrase[j] ?? '';
      const got = tokens[i + j] ?? '';
      ok = j === n - 1 && alternative.prefix ? got.startsWith(want) : got === want;
    }
    if (ok) return true;
  }
  return false;
}

/** Whether any alternative of the word (its synonyms included) matches any of the token fields. */
export function wordMatches(word: ExpandedWord, fields: readonly (readonly string[])[]): boolean {
  return word.alternatives.some((a) => fields.some((f) => alternativeMatches(a, f))) || (word.synonyms ?? []).some((a) => fields.some((f) => alternativeMatches(a, f)));
}

/**
 * Whether a language map's text (any language) passes one of the filter values (folded):
 * case-insensitively equal, or starting with it as whole words (text.ts filterValueMatches).
 */
export function valuePasses(value: Record<string, string>, accepted: ReadonlySet<string>): boolean {
  return langTexts(value).some((t) => {
    const folded = foldFilterValue(t);
    if (accepted.has(folded)) return true;
    for (const a of accepted) if (filterValueMatches(folded, a)) return true;
    return false;
  });
}

export interface PartEvaluation {
  matches: boolean;
  /** Every word matched in the id or a name (the higher ranking tier). */
  namesTier: boolean;
  /**
   * Some word matched only through a typo neighbour (`alternatives` after the first), which ranks
   * the part below every exact match. With it, namesTier counts typo neighbours too.
   */
  typo?: boolean;
  /**
   * Some word (or run of words, QueryWord.synonymSpan) matched only through a synonym, which ranks
   * the part below every exact match; namesTier then counts synonyms in names too.
   */
  synonym?: boolean;
}

/**
 * The token sequences a text is matched against: its tokens, and each punctuated run joined as a
 * sequence of its own (`Form-Data` → `formdata`), as the index holds them (engine/document.ts
 * joinedRuns; in the id, a word within a run's first token matches that token anyway, so a run's
 * prefixes match here as its id term's keys do there). A phrase never spans a joined run.
 */
function fieldsOf(text: string): string[][] {
  return [tokenize(text), ...joinedRuns(text).map((joined) => [joined])];
}

/** Evaluates words (AND) and filters (AND; values within one filter OR) on the part as `ctx` sees it. */
export function evaluatePart(part: StoredPart, words: readonly ExpandedWord[], filters: readonly SearchFilter[], ctx: PartViewContext): PartEvaluation {
  const view = viewPart(part, ctx);
  for (const filter of filters) {
    const accepted = new Set(filter.values.map(foldFilterValue));
    const entry = view.attributes.find((a) => a.attribute_id === filter.attribute.attribute_id);
    if (!entry || !entry.values.some((v) => valuePasses(v.value, accepted))) return { matches: false, namesTier: false };
  }
  const idFields = fieldsOf(part.part_id);
  const nameFields = langTexts(part.name).flatMap(fieldsOf);
  const valueFields: string[][] = [];
  for (const entry of view.attributes) {
    if (!ctx.attributes.get(entry.attribute_id)?.searchable) continue;
    for (const value of entry.values) for (const text of langTexts(value.value)) valueFields.push(...fieldsOf(text));
  }
  let namesTier = true;
  let typo = false;
  let synonym = false;
  /** How one word matches: undefined (not at all), else in names (or the id) and the way (0 exact, 1 synonym, 2 typo). */
  const judge = (word: ExpandedWord): { names: boolean; way: number } | undefined => {
    const exact: ExpandedWord = { word: word.word, alternatives: word.alternatives.filter((a) => a.typo !== true), idAlternatives: [] };
    const typos: ExpandedWord = { word: word.word, alternatives: word.alternatives.filter((a) => a.typo === true), idAlternatives: [] };
    const synonyms: ExpandedWord = { word: word.word, alternatives: word.synonyms ?? [], idAlternatives: [] };
    const inId = word.idAlternatives.some((a) => idFields.some((f) => alternativeMatches(a, f)));
    const way = inId || wordMatches(exact, nameFields) || wordMatches(exact, valueFields) ? 0
      : wordMatches(synonyms, nameFields) || wordMatches(synonyms, valueFields) ? 1
        : wordMatches(typos, nameFields) || wordMatches(typos, valueFields) ? 2 : undefined;
    if (way === undefined) return undefined;
    return { names: inId || wordMatches(word, nameFields), way };
  };
  for (let i = 0; i < words.length; ) {
    const word = words[i] as ExpandedWord;
    const span = word.word.synonymSpan;
    const count = span && span.count >= 2 && i + span.count <= words.length ? span.count : 1;
    const run = words.slice(i, i + count);
    i += count;
    const judged = run.map(judge);
    let names: boolean;
    let way: number;
    if (judged.every((j) => j !== undefined)) {
      names = judged.every((j) => j?.names === true);
      way = Math.max(...judged.map((j) => j?.way ?? 0));
    } else if (span && count > 1) {
      // The run as a whole may be matched by a multi-word synonym (QueryWord.synonymSpan).
      const spanWord: ExpandedWord = { word: word.word, alternatives: span.alternatives, idAlternatives: [] };
      if (wordMatches(spanWord, nameFields)) names = true;
      else if (wordMatches(spanWord, valueFields)) names = false;
      else return { matches: false, namesTier: false };
      way = 1;
    } else return { matches: false, namesTier: false };
    if (!names) namesTier = false;
    if (way === 1) synonym = true;
    if (way === 2) typo = true;
  }
  return { matches: true, namesTier: namesTier && words.length > 0, ...(typo ? { typo } : {}), ...(synonym ? { synonym } : {}) };
}

/**
 * Per word: satisfied by the default_value of a searchable per-organization attribute the caller
 * sees (organization views only). Parts without per-organization values see every default, so such
 * a word holds for all of them at once.
 */
export function wordsInDefaults(words: readonly ExpandedWord[], ctx: PartViewContext): boolean[] {
  if (ctx.organization === undefined) return words.map(() => false);
  const defaults: string[][] = [];
  for (const a of ctx.attributes.values()) {
    if (a.per_org_values && a.searchable && a.default_value && canSeeVisibility(ctx.principal, a.visibility)) {
      for (const text of langTexts(a.default_value)) defaults.push(tokenize(text));
    }
  }
  return words.map((w) => defaults.length > 0 && wordMatches(w, defaults));
}
