/**
 * The reference ranking of text search (docs/search.md, "Ranking rules"): the rules and the
 * formula computed plainly from the parts themselves, every part looked at, every hit scored
 * (topk.ts exhaustiveTopK), no index, no threshold. Tests and benchmarks compare the engine's top
 * k with it; it must stay the engine's definition, not a second ranking for users.
 *
 * What it covers: the words of parseQueryText (tokens, the last one a prefix, typo-eligible
 * words), punctuated words (phrase and joined form), the part id, the name rule (exact, begins
 * with its name bonus, a typo neighbour's name, a value of an identifier attribute), the proximity
 * rule (adjacent tokens read from the texts, not from pair terms), typo neighbours
 * from the vocabulary of every part (so a word's neighbours are those the store's deletion keys
 * find: one typo; two typos only for a word the catalog does not hold, when every neighbour
 * shares a key or the first letter; a neighbour found in fewer parts than the word as typed left
 * out), caller
 * visibility by tier, the custom ranking attribute and `sort` (TextSearchQuery.order), the attribute
 * order (TextSearchQuery.attributeOrder: read from the parts' values, not from the index). Not covered:
 * filters, synonyms and per-organization values.
 */
import type { Attribute, LangMap, PartAttribute } from '../../../api/schemas.js';
import type { QueryWord, SearchOrder } from '../../model.js';
import { VISIBILITY_ORDER } from '../../permissions.js';
import { compareBinary } from '../rank.js';
import { codePointLength, foldFilterValue, langTexts, tokenize } from '../text.js';
import { typoNeighbours } from '../typo.js';
import { averageLength, ID_WEIGHT, NAME_WEIGHT } from './bm25.js';
import { buildEngineDocument, exactIdTerm, exactTerm, ID_MARK, ID_RUN_COMPLETIONS_MAX, idJoinedTerm, identifierTerm, isIdTerm, isPairToken, joinedRuns, NAME_LEAD_TERM, nameHeadTerm, splitIdJoinedTerm, tierLength } from './document.js';
import { buildOrgDocument } from './org-document.js';
import { compareValues, parseNumberValue, RANK_BOOST_UNIT } from './order-keys.js';
import { AS_TYPED_BONUS, attributeMarks, BEGINS_FIELD, COMPLETION, EXACT_FIELD, exhaustiveTopK, nameBonus, NEAR_FIELD, termList, TYPO, type TermList } from './topk.js';

/** A part as the reference reads it. */
export interface ReferencePart {
  part_id: string;
  name: LangMap;
  attributes: readonly PartAttribute[];
}

/**
 * The part ids of every hit of `words` for a caller of visibility tier `tier` (0..3), best first,
 * by the ranking rules and BM25, ties by part id in binary order; with `order`, the custom
 * ranking attribute between the rules and BM25, or a sort instead of them; `identifiers`: the
 * identifier attributes (TextSearchQuery.identifiers), whose values equal to the query, separators
 * aside, rank with the exact name level when tier `tier` sees them; `attributeOrder`: the attribute
 * order (a word in an earlier attribute the tier sees first).
 */
export function referenceRanking(parts: readonly ReferencePart[], attributes: ReadonlyMap<string, Attribute>, words: readonly QueryWord[], tier: number, order?: SearchOrder, identifiers: readonly string[] = [], attributeOrder: readonly string[] = []): string[] {
  const sorted = [...parts].sort((a, b) => compareBinary(a.part_id, b.part_id));
  const docs = sorted.map((p) => buildEngineDocument(p, attributes));
  const dl = docs.map((d) => tierLength(d.lengths, tier));
  const data = { dl, key: sorted.map((_, i) => i), avgdl: averageLength({ n: docs.length, sumLength: dl.reduce((a, b) => a + b, 0) }), n: docs.length, ...referenceOrder(sorted, attributes, order), ...(attributeOrder.length > 0 ? { attributeOrder: attributeOrder.length } : {}) };
  /** The attribute order's position of each attribute a word's marks may come from (searchable, not per-organization, seen by the tier). */
  const positions = new Map<string, number>();
  attributeOrder.forEach((id, i) => {
    const a = attributes.get(id);
    if (a && a.searchable && !a.per_org_values && VISIBILITY_ORDER.indexOf(a.visibility) <= tier) positions.set(id, i);
  });
  /** The attribute marks of `word` in `part`: its best listed attribute holding it as a token or a joined run. */
  const marksOf = (part: ReferencePart, word: string, phrase?: (tokens: readonly string[]) => number): number => {
    let marks = 0;
    for (const entry of part.attributes) {
      const position = positions.get(entry.attribute_id);
      if (position === undefined) continue;
      for (const value of entry.values) {
        for (const text of langTexts(value.value)) {
          const tokens = tokenize(text);
          if (phrase ? phrase(tokens) > 0 : tokens.includes(word) || joinedRuns(text).includes(word)) marks |= attributeMarks(position);
        }
      }
    }
    return marks;
  };
  const vocabulary = [...new Set(sorted.flatMap((p) => buildOrgDocument(p, attributes).terms))];
  const allTerms = [...new Set(docs.flatMap((d) => [...d.terms.keys()]))].sort(compareBinary);

  /** One term's postings as the tier sees them, every posting flagged; `word`: a word of names and values (its attribute marks with an attribute order). */
  const list = (term: string, flags: number, word = false): TermList => {
    const weight = isIdTerm(term) ? ID_WEIGHT : NAME_WEIGHT;
    const ids: number[] = [];
    const wtf: number[] = [];
    const names: number[] = [];
    docs.forEach((d, i) => {
      const tf = d.terms.get(term);
      if (!tf) return;
      let w = (tf[0] ?? 0) * weight;
      for (let k = 0; k <= tier; k++) w += tf[1 + k] ?? 0;
      ids.push(i);
      wtf.push(w);
      names.push(((tf[0] ?? 0) > 0 ? 1 : 0) | flags);
    });
    return withMarks(termList(ids, wtf, names, docs.length), word ? (doc) => marksOf(sorted[doc] as ReferencePart, term) : undefined);
  };
  /** `l` with each posting's attribute marks from `marks` (only with an attribute order). */
  const withMarks = (l: TermList, marks: ((doc: number) => number) | undefined): TermList => (marks && attributeOrder.length > 0 ? { ...l, attr: Uint8Array.from(l.docs, marks) } : l);

  /** A phrase's occurrences in a token sequence (the last token a prefix if so marked). */
  const occurrences = (phrase: readonly string[], prefix: boolean, tokens: readonly string[]): number => {
    let n = 0;
    for (let i = 0; i + phrase.length <= tokens.length; i++) {
      let ok = true;
      for (let j = 0; j < phrase.length && ok; j++) {
        const want = phrase[j] ?? '';
        const got = tokens[i + j] ?? '';
        ok = j === phrase.length - 1 && prefix ? got.startsWith(want) : got === want;
      }
      if (ok) n++;
    }
    return n;
  };

  /** A phrase as a term list: its weighted occurrences per part (names and visible values, or the id). */
  const phraseList = (phrase: readonly string[], prefix: boolean, inId: boolean, flags: number): TermList => {
    const ids: number[] = [];
    const wtf: number[] = [];
    const names: number[] = [];
    sorted.forEach((part, i) => {
      let w = 0;
      let inNames = 0;
      if (inId) {
        const n = occurrences(phrase, prefix, tokenize(part.part_id));
        w = n * ID_WEIGHT;
        inNames = n > 0 ? 1 : 0;
      } else {
        let n = 0;
        for (const text of langTexts(part.name)) n += occurrences(phrase, prefix, tokenize(text));
        w = n * NAME_WEIGHT;
        inNames = n > 0 ? 1 : 0;
        for (const text of visibleValueTexts(part, attributes, tier)) w += occurrences(phrase, prefix, tokenize(text));
      }
      if (w > 0) {
        ids.push(i);
        wtf.push(w);
        names.push(inNames | flags);
      }
    });
    return withMarks(termList(ids, wtf, names, docs.length), inId ? undefined : (doc) => marksOf(sorted[doc] as ReferencePart, '', (tokens) => occurrences(phrase, prefix, tokens)));
  };

  const neighboursOf = (word: QueryWord): string[] => {
    const token = word.tokens[0];
    if (!word.typo || token === undefined || word.tokens.length !== 1) return [];
    // Two typos only for a word no part holds (searcher.ts expand).
    return typoNeighbours(token, vocabulary, allTerms.includes(token) ? 1 : (word.maxTypos ?? 1));
  };

  const tokens = words.flatMap((w) => w.tokens);
  const whole = exactTerm(tokens);
  const begins = words[words.length - 1]?.prefix === true;
  // The name bonus: per part, that of its shortest name beginning with the query.
  const bonus = new Map<number, number>();
  if (begins) {
    for (const t of allTerms.filter((t) => t.startsWith(whole) && t !== whole)) {
      const b = nameBonus(codePointLength(t) - 1, codePointLength(whole) - 1);
      docs.forEach((d, i) => {
        if (d.terms.has(t) && (!bonus.has(i) || b > (bonus.get(i) ?? 0))) bonus.set(i, b);
      });
    }
    // The as-typed bonus (searcher.ts asTypedBonus), from the part's name head terms.
    const typedLeading = words[0]?.leadingSeparator === true;
    const points = [...tokens.join('')];
    for (const [i, b] of bonus) {
      const terms = docs[i]?.terms ?? new Map<string, number[]>();
      const leading = terms.has(NAME_LEAD_TERM);
      const headShorter = tokens.length === 1 && points.some((_, j) => j > 0 && terms.has(nameHeadTerm(points.slice(0, j).join(''))));
      const sameHead = tokens.length === 1 || terms.has(nameHeadTerm(tokens[0] ?? ''));
      if (leading === typedLeading && !headShorter && sameHead) bonus.set(i, b + AS_TYPED_BONUS);
    }
  }
  const lists = words.map((word) => {
    const out: TermList[] = [];
    const seen = new Set<string>();
    // Typo neighbours rarer than the word as typed (one token) are left out.
    const ownDf = word.tokens.length === 1 ? list(word.tokens[0] ?? '', 0).docs.length : 0;
    const addToken = (token: string, prefix: boolean, mark: string, flags: number) => {
      const whole = mark + token;
      const terms = prefix ? allTerms.filter((t) => t.startsWith(whole)) : allTerms.includes(whole) ? [whole] : [];
      for (const t of terms) {
        if (seen.has(t)) continue;
        seen.add(t);
        const l = list(t, t === whole ? flags : flags | COMPLETION, mark === '');
        if ((flags & TYPO) !== 0 && l.docs.length < ownDf) continue;
        out.push(l);
      }
      // In the id, also the runs it spells joined: equal to it, or (a prefix) beginning with it
      // past their first token (a word within the first token finds that token above), while at
      // most ID_RUN_COMPLETIONS_MAX runs of that first token begin with it.
      if (mark !== ID_MARK) return;
      const widths = new Map<string, number>();
      const narrow = (first: string) => {
        const key = idJoinedTerm([first, token.slice(first.length)]);
        if (!widths.has(first)) widths.set(first, allTerms.filter((t) => t.startsWith(key)).length);
        return (widths.get(first) ?? 0) <= ID_RUN_COMPLETIONS_MAX;
      };
      for (const t of allTerms) {
        const run = splitIdJoinedTerm(t);
        if (!run || seen.has(t)) continue;
        const joinedRun = run.first + run.rest;
        if (joinedRun === token || (prefix && joinedRun.startsWith(token) && codePointLength(token) > codePointLength(run.first) && narrow(run.first))) {
          seen.add(t);
          out.push(list(t, joinedRun === token ? flags : flags | COMPLETION));
        }
      }
    };
    const addAlternative = (tokens: readonly string[], prefix: boolean, mark: string, flags: number) => {
      if (tokens.length > 1) {
        const key = `${mark}\u0000${tokens.join(' ')}`;
        if (seen.has(key)) return;
        seen.add(key);
        out.push(phraseList(tokens, prefix, mark === ID_MARK, flags));
      } else addToken(tokens[0] ?? '', prefix, mark, flags);
    };
    const joined = word.tokens.length > 1 ? [word.tokens.join('')] : undefined;
    addAlternative(word.tokens, word.prefix, '', 0);
    if (joined) addAlternative(joined, word.prefix, '', 0);
    for (const n of neighboursOf(word)) addAlternative([n], word.prefix, '', TYPO);
    addAlternative(word.tokens, word.prefix, ID_MARK, 0);
    if (joined) addAlternative(joined, word.prefix, ID_MARK, 0);
    // The name rule: the parts named by the whole query, those with a name that begins with it
    // (the last word a prefix), and (a one-word query) those called like a typo neighbour of it.
    out.push(list(whole, EXACT_FIELD), list(exactIdTerm(tokens), EXACT_FIELD));
    for (const attributeId of identifiers) out.push(list(identifierTerm(attributeId, tokens), EXACT_FIELD));
    if (begins) for (const t of allTerms.filter((t) => t.startsWith(whole) && t !== whole)) out.push(list(t, BEGINS_FIELD | COMPLETION));
    if (words.length === 1) for (const n of neighboursOf(word)) out.push(list(exactTerm([n]), NEAR_FIELD | TYPO));
    return out.filter((l) => l.docs.length > 0);
  });
  if (lists.some((l) => l.length === 0)) return [];
  return exhaustiveTopK(lists, [], data, parts.length, bonus.size > 0 ? bonus : undefined, adjacentPairs(sorted, attributes, words, tier)).hits.map((h) => sorted[h.doc]?.part_id ?? '');
}

/** The texts of `part`'s values a caller of tier `tier` searches: searchable, not per-organization attributes it sees. */
function visibleValueTexts(part: ReferencePart, attributes: ReadonlyMap<string, Attribute>, tier: number): string[] {
  return part.attributes.flatMap((entry) => {
    const attribute = attributes.get(entry.attribute_id);
    if (!attribute || !attribute.searchable || attribute.per_org_values || VISIBILITY_ORDER.indexOf(attribute.visibility) > tier) return [];
    return entry.values.filter((v) => v.organization === '').flatMap((v) => langTexts(v.value));
  });
}

/**
 * The proximity rule's lists, read from the texts: for each two words typed next to each other
 * (the first's last token, the second's first; a prefix when the second is the last word typed as
 * a one-token prefix; neither holding a digit), the indexes in `sorted` of the parts with those
 * tokens next to each other in one name or one value of a searchable attribute tier `tier` sees.
 */
function adjacentPairs(sorted: readonly ReferencePart[], attributes: ReadonlyMap<string, Attribute>, words: readonly QueryWord[], tier: number): Int32Array[] {
  const texts = sorted.map((part) => [...langTexts(part.name), ...visibleValueTexts(part, attributes, tier)].map(tokenize));
  const out: Int32Array[] = [];
  for (let i = 1; i < words.length; i++) {
    const left = words[i - 1]?.tokens.at(-1) ?? '';
    const next = words[i] as QueryWord;
    const right = next.tokens[0] ?? '';
    if (!isPairToken(left) || !isPairToken(right)) continue;
    const prefix = i === words.length - 1 && next.prefix && next.tokens.length === 1;
    const holds = (tokens: readonly string[]) => tokens.some((t, j) => {
      const after = tokens[j + 1];
      return t === left && after !== undefined && isPairToken(after) && (prefix ? after.startsWith(right) : after === right);
    });
    out.push(Int32Array.from(texts.flatMap((fields, doc) => (fields.some(holds) ? [doc] : []))));
  }
  return out;
}

/**
 * The custom ranking boost or the sort keys of `order` for `sorted` (parts in part id order),
 * computed plainly: each part's folded values of the attribute (every value and language of a
 * filterable, not per-organization attribute), its best one in the direction, the distinct best
 * values ranked.
 */
function referenceOrder(sorted: readonly ReferencePart[], attributes: ReadonlyMap<string, Attribute>, order: SearchOrder | undefined): { boost?: number[]; key?: number[]; byKey?: boolean } {
  if (!order) return {};
  const sign = order.direction === 'asc' ? 1 : -1;
  if (order.attributeId === undefined) return { key: sorted.map((_, i) => sign * i), byKey: true };
  const attribute = attributes.get(order.attributeId);
  const best = sorted.map((part) => {
    if (!attribute || !attribute.filterable || attribute.per_org_values) return undefined;
    const values = part.attributes.filter((e) => e.attribute_id === order.attributeId).flatMap((e) => e.values.flatMap((v) => langTexts(v.value).map(foldFilterValue)));
    const usable = order.kind === 'sort' ? values : values.filter((v) => parseNumberValue(v) !== undefined);
    return usable.sort((a, b) => sign * compareValues(a, b))[0];
  });
  const distinct: string[] = [];
  for (const v of best.filter((b): b is string => b !== undefined).sort((a, b) => sign * compareValues(a, b))) {
    if (distinct.length === 0 || compareValues(distinct[distinct.length - 1] ?? '', v) !== 0) distinct.push(v);
  }
  const rankOf = (v: string) => distinct.findIndex((d) => compareValues(d, v) === 0);
  if (order.kind === 'tieBreak') return { boost: best.map((v) => (v === undefined ? 0 : (distinct.length - rankOf(v)) * RANK_BOOST_UNIT)) };
  const valued = sorted.map((_, i) => i).filter((i) => best[i] !== undefined).sort((a, b) => rankOf(best[a] ?? '') - rankOf(best[b] ?? '') || a - b);
  const key = sorted.map((_, i) => i);
  valued.forEach((doc, i) => {
    key[doc] = i - valued.length;
  });
  return { key, byKey: true };
}
