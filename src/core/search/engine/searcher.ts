/**
 * Answering a text query with the search engine (docs/search.md, "Answering a query"), for every
 * store: the query's words resolved into index terms (prefixes, typo neighbours, phrases), the
 * organization rules (parts with per-organization values evaluated one by one), exact top-k
 * (topk.ts) and facet counts. Storage-neutral: the store hands an {@link EngineReader} over its
 * posting blocks and doc data, so SQLite and PostgreSQL rank alike, bit for bit.
 *
 * The reader is synchronous on purpose: SQLite answers it directly inside one read transaction (no
 * promise per term lookup), and a networked store answers it from a read-through cache, running the
 * search again after fetching what a run missed (adapters/postgres/search/engine-reader.ts). A
 * reader that misses returns "absent" values; the run's result is then discarded by its caller.
 */
import type { Attribute, SearchFacets, Visibility } from '../../../api/schemas.js';
import { viewPart } from '../../catalog/parts.js';
import type { Alternative, ExpandedWord, QueryWord, SearchFilter, StoredPart, TextSearchQuery } from '../../model.js';
import { canSeeVisibility, VISIBILITY_ORDER } from '../../permissions.js';
import { evaluatePart, valuePasses, wordsInDefaults } from '../match.js';
import { compareBinary } from '../rank.js';
import { codePointLength, filterValueMatches, foldFilterValue, langTexts, tokenize } from '../text.js';
import { lookupKeys, lookupKeys2, typoNeighbours } from '../typo.js';
import { averageLength, ID_WEIGHT, idf, NAME_WEIGHT } from './bm25.js';
import { containsDoc, countInEvery, intersect, membership, unionOf } from './doc-sets.js';
import { ATTR_MARK, COMPLETIONS_LENGTHS, completionsTerm, EXACT_MARK, exactIdTerm, exactTerm, filterTerm, namesBeginTerm, namesBonusTerm, HOLDER_TERM, ID_MARK, ID_RUN_COMPLETIONS_MAX, idJoinedKeys, identifierTerm, isPairToken, NAME_LEAD_TERM, nameHeadTerm, pairTerm } from './document.js';
import { partIdKeys, rankBoost, sortKeys, valueRanks, type ValueHolders } from './order-keys.js';
import { andWords, AS_TYPED_BONUS, attributeMarks, BEGINS_FIELD, compareRanked, COMPLETION, EXACT_FIELD, evaluatedRank, finishTier, materializeWord, nameBonus, NAME_BONUS_UNIT, NEAR_FIELD, NO_WORDS_TIER, orWords, scoredWord, SYNONYM, topK, TYPO, type DocData, type MaterializedWord, type RankedDoc, type TermList } from './topk.js';

/** A term's postings as one visibility tier sees them (wtf > 0 only); `names` bit 1: in the id or a name. */
export interface TierView {
  docs: Int32Array;
  wtf: Float64Array;
  names: Uint8Array;
}

/**
 * What the engine reads from a store (SQLite: engine-store.ts; PostgreSQL: engine-reader.ts). Doc
 * ids are the store's integer part keys. The doc arrays are indexed by doc id and reflect the
 * snapshot the search runs in.
 */
export interface EngineReader {
  /** Number of parts indexed. */
  readonly n: number;
  /** Sum of part lengths per visibility tier (bm25.ts avgdl). */
  readonly sumLength: readonly number[];
  /** Part length per tier, by doc. */
  readonly dl: readonly Float64Array[];
  /** Order key by doc (ascending key = ascending part id). */
  readonly key: Float64Array;
  /** Highest doc id + 1 the arrays hold. */
  readonly docCapacity: number;
  /** A term's id, or undefined when not indexed. */
  termId(term: string): number | undefined;
  /**
   * Terms beginning with `prefix`, ascending. A store may answer with the same array again only
   * while no term of the range was added or had its postings changed: the engine keeps what it
   * computes from a range (the names beginning with a query) for as long as the array is the same.
   */
  termsWithPrefix(prefix: string): readonly { id: number; term: string }[];
  /** Whether any term begins with `prefix`. */
  hasPrefix(prefix: string): boolean;
  /** Whether more than `max` terms begin with `prefix` (counted up to `max` + 1, the range not read). */
  prefixWiderThan(prefix: string, max: number): boolean;
  /** A term's postings as tier `tier` sees them. */
  termForTier(id: number, term: string, tier: number): TierView;
  /** Optional: reads the postings of many terms about to be asked for (a range's) together, where a store would read them one by one. */
  prefetch?(terms: readonly { id: number; term: string }[]): void;
  /** Vocabulary words stored under any of the one-deletion `keys` (core/search/typo.ts). */
  typoCandidates(keys: readonly string[]): string[];
  /** Vocabulary words in [lo, hi). */
  vocabularyRange(lo: string, hi: string): string[];
  /** Whether any organization's per-organization values (of the visibilities given) hold the word through one of its alternatives. */
  inOrgValues(alternatives: readonly Alternative[], visible: readonly Visibility[]): boolean;
  /** The stored part of doc `doc`. */
  part(doc: number): StoredPart | undefined;
  /** Every part (`nonHoldersOnly`: without per-organization values): the total and the first `limit` docs by part id. */
  allParts(nonHoldersOnly: boolean, limit: number): { total: number; docs: number[] };
  /** Every part's doc (core doc-chunks.ts DocColumns.everyDoc), in no particular order: for counting them. */
  everyPart(): Int32Array;
  /**
   * The index version the reader's answers show (a search's value orders are kept while it
   * holds); absent: nothing is kept between searches.
   */
  readonly version?: number;
  /** False once the running search asked for something the reader does not hold yet (its answer is then discarded). */
  complete?(): boolean;
}

/**
 * The visibility tier of a caller: the narrowest level it sees. Visibility is nested (every level
 * sees the wider ones, core/permissions.ts), so the visible levels are tiers 0..tier.
 */
export function visibilityTier(visible: readonly Visibility[]): number {
  let tier = 0;
  for (const v of visible) tier = Math.max(tier, VISIBILITY_ORDER.indexOf(v));
  return tier;
}

/** Each posting's flags with `flags` added (the same array when there are none to add). */
function withFlags(names: Uint8Array, flags: number): Uint8Array {
  if (flags === 0) return names;
  const out = new Uint8Array(names.length);
  for (let i = 0; i < names.length; i++) out[i] = (names[i] as number) | flags;
  return out;
}

/** A range of the dictionary as the store answers it (EngineReader.termsWithPrefix): the same array while none of its terms changed. */
type TermRange = readonly { id: number; term: string }[];

/** A word's term lists for one tier: the word as typed (and every other way but typos) and its typo neighbours. */
interface WordLists {
  exact: TermList[];
  typo: TermList[];
}

/** A word resolved into index term lists for one tier; `undefined` when nothing can match it. */
type ResolvedWord = TermList | MaterializedWord | undefined;

/** The name rule's lists of a query (exact, begins, near; see EngineSearcher.nameFields) and the name bonus by doc. */
interface NameFields {
  lists: { view: TierView; flags: number }[];
  bonus: NameBonus | undefined;
}

/** The parts with a name beginning with the query as one list, and each one's name bonus (topk.ts nameBonus), aligned with its docs. */
interface NameBonus {
  view: TierView;
  bonus: Float64Array;
}

/** Runs queries over one reader; keeps reusable working memory, so keep one per store connection. */
export class EngineSearcher {
  /** Working memory of countInEvery (doc-sets.ts), sized to the doc ids. */
  private mark = new Uint8Array(0);
  /** Attribute definitions for phrase checks (the query's view context). */
  private phraseAttributes: ReadonlyMap<string, Attribute> | undefined;
  /** The running search's attribute order (attribute_id → position); undefined without one. */
  private attributeOrder: ReadonlyMap<string, number> | undefined;

  /**
   * Term ids (null: not indexed) the running search has asked for, emptied when a search starts:
   * a word's own term is asked for by the typo rule, the neighbour filter and its list, and each
   * ask may be a statement in the store.
   */
  private readonly termIds = new Map<string, number | null>();

  /** The last value order computed (order-keys.ts), for the reader's version it was computed at. */
  private orderCache: { key: string; version: number; data: Pick<DocData, 'boost' | 'key'> } | undefined;

  /**
   * The names beginning with a query (nameFields) by the dictionary range they were made of and
   * the tier: the store answers a range with the same array while none of its terms changed.
   */
  private readonly namesBeginning = new WeakMap<TermRange, Map<number, NameBonus>>();
  /** The parts holding a pair whose right token was typed as a prefix, per tier, kept like {@link namesBeginning}. */
  private readonly pairsBeginning = new WeakMap<TermRange, Map<number, Int32Array>>();

  constructor(private readonly r: EngineReader) {}

  private termId(term: string): number | undefined {
    const known = this.termIds.get(term);
    if (known !== undefined) return known ?? undefined;
    const id = this.r.termId(term);
    this.termIds.set(term, id ?? null);
    return id;
  }

  /**
   * The ranked doc ids (at most `maxHits`) and the exact total, in the order of the ranking rules
   * (topk.ts). Every typo-eligible word is also matched through its typo neighbours, known or not
   * (real data is full of typos: a misspelling the catalog holds must not hide the word meant),
   * ranked below the word as typed.
   */
  matchingDocs(query: TextSearchQuery, maxHits: number): { total: number; docs: number[] } {
    return this.searchOnce(query, maxHits);
  }

  private searchOnce(query: TextSearchQuery, maxHits: number): { total: number; docs: number[] } {
    const { ctx } = query;
    this.termIds.clear();
    const words = query.words.map((w) => this.expand(w));
    const tier = visibilityTier(query.visibleValues);
    this.phraseAttributes = ctx.attributes;
    this.attributeOrder = query.attributeOrder && query.attributeOrder.length > 0 ? new Map(query.attributeOrder.map((id, i) => [id, i])) : undefined;
    const ordered = query.order !== undefined;
    if (words.length === 0 && query.filters.length === 0 && !ordered) return this.r.allParts(false, Math.min(maxHits, Number.MAX_SAFE_INTEGER));
    // Filters: one doc set per filter (values OR-ed); per-organization ones are decided per part below.
    const shared: Int32Array[] = [];
    const orgFilters: SearchFilter[] = [];
    for (const filter of query.filters) {
      if (!canSeeVisibility(ctx.principal, filter.attribute.visibility) || filter.values.length === 0) return { total: 0, docs: [] };
      if (filter.attribute.per_org_values) orgFilters.push(filter);
      else shared.push(this.docSet(filter.values.flatMap((v) => this.filterTerms(filter.attribute.attribute_id, v))));
    }
    // Per-organization values exist only on holders: without any, no probe of them (a statement per word).
    const probeOrgValues = query.visibleValues.length > 0 && this.termId(HOLDER_TERM) !== undefined;
    const inOrgText = words.map((w) => probeOrgValues && this.r.inOrgValues([...w.alternatives, ...(w.synonyms ?? [])], query.visibleValues));
    // A multi-word synonym in some organization's value: the run's parts must be evaluated one by one too.
    words.forEach((w, i) => {
      const span = w.word.synonymSpan;
      if (!span || !probeOrgValues || !this.r.inOrgValues(span.alternatives, query.visibleValues)) return;
      for (let j = i; j < i + span.count && j < words.length; j++) inOrgText[j] = true;
    });
    const inDefaults = wordsInDefaults(words, ctx);
    const orgSensitive = orgFilters.length > 0 || words.some((_, i) => inDefaults[i] === true || inOrgText[i] === true);
    const data = this.orderData(this.docData(tier), query);
    if (this.attributeOrder) data.attributeOrder = this.attributeOrder.size;
    const named = this.nameFields(words, tier, query.identifiers ?? []);
    const lists = words.map((w) => this.wordLists(w, tier, 0, named.lists));
    // A word found in a default or an organization's value has no place in the index's texts: its pairs rank no part.
    const pairs = this.pairDocs(words, tier, (i) => inDefaults[i] !== true && inOrgText[i] !== true);
    if (!orgSensitive) {
      const page = this.exactSpellingPage(words, lists, named, shared, pairs, data, maxHits);
      if (page) return page;
    }
    const resolvedWords = lists.map((l, i) => this.scoreWord(l, data, i === 0 ? named.bonus : undefined, true));
    const resolved = this.withSpans(words, resolvedWords, tier, data, () => true, false);

    if (!orgSensitive) {
      // A run whose store still lacks what it asked for is discarded (and run again once fetched):
      // every list is asked for by now, so the ranking would be work thrown away.
      if (resolved.some((r) => r === undefined) || this.r.complete?.() === false) return { total: 0, docs: [] };
      const universe = resolved.length === 0 && shared.length === 0 ? Int32Array.from(this.r.allParts(false, Number.MAX_SAFE_INTEGER).docs) : undefined;
      const { total, hits } = topK({ words: resolved as (TermList | MaterializedWord)[], filters: shared, universe, pairs }, data, maxHits);
      return { total, docs: hits.map((h) => h.doc) };
    }

    // Split (docs/search.md): parts without per-organization values ("non-holders") see every
    // default, so words found in a default are satisfied and a per-organization filter passes or
    // fails for all of them at once; parts with them ("holders") are evaluated one by one.
    const holders = this.docSet([HOLDER_TERM]);
    const defaultsPass = orgFilters.every((f) => {
      const fallback = ctx.organization !== undefined ? f.attribute.default_value : undefined;
      return fallback !== undefined && valuePasses(fallback, new Set(f.values.map(foldFilterValue)));
    });
    let total = 0;
    let ranked: RankedDoc[] = [];
    if (defaultsPass) {
      const positive = this.withSpans(words, resolvedWords, tier, data, (i) => inDefaults[i] !== true, false);
      if (positive.length === 0 && shared.length === 0) {
        // Without an order the first maxHits by part id are the answer; with one, every part is ranked below.
        const all = this.r.allParts(true, ordered ? Number.MAX_SAFE_INTEGER : maxHits);
        total = all.total;
        ranked = all.docs.map((doc) => ({ doc, tier: NO_WORDS_TIER, score: data.byKey ? 0 : (data.boost?.[doc] ?? 0), key: data.key[doc] ?? 0 }));
      } else if (!positive.some((r) => r === undefined)) {
        const found = topK({ words: positive as (TermList | MaterializedWord)[], filters: shared, exclude: holders, pairs }, data, maxHits);
        total = found.total;
        ranked = found.hits;
      }
    }
    const narrowed = this.withSpans(words, resolvedWords, tier, data, (i) => inDefaults[i] !== true && inOrgText[i] !== true, true);
    if (!narrowed.some((r) => r === undefined)) {
      const candidates = topK({ words: narrowed as (TermList | MaterializedWord)[], filters: [...shared, holders] }, data, Number.MAX_SAFE_INTEGER);
      for (const hit of candidates.hits) {
        const part = this.r.part(hit.doc);
        if (!part) continue;
        const result = evaluatePart(part, words, query.filters, ctx);
        if (!result.matches) continue;
        total++;
        // Parts evaluated one by one are ranked by the rules evaluatePart knows (typos, synonyms,
        // attribute) and the proximity of their indexed texts. With an attribute order, such a part
        // counts as holding its words in no listed attribute.
        const apart = pairs.reduce((n, p) => (containsDoc(p, hit.doc) ? n : n + 1), 0);
        const tierOf = words.length === 0 || data.byKey ? NO_WORDS_TIER : finishTier(evaluatedRank(result.typo === true, result.synonym === true, result.namesTier), false, result.namesTier ? 0 : (data.attributeOrder ?? 0), apart);
        ranked.push({ doc: hit.doc, tier: tierOf, score: hit.score, key: hit.key });
      }
    }
    ranked.sort(compareRanked);
    return { total, docs: ranked.slice(0, maxHits).map((h) => h.doc) };
  }

  /**
   * The answer ranked from the words as typed alone, when that is the answer; undefined otherwise.
   * A part matched through a typo neighbour ranks below every part matched without one (the typos
   * rule; the name rule before it names no part through a neighbour here), and a neighbour never
   * changes the score of a part holding the word itself (topk.ts preferExact). So when the parts
   * matched without neighbours fill `maxHits`, they are the first `maxHits`, and the neighbours'
   * parts are only counted, not scored. Not for a query where a part is named like a neighbour
   * (NEAR_FIELD ranks it by the name rule first) or with a multi-word synonym.
   */
  private exactSpellingPage(words: readonly ExpandedWord[], lists: readonly WordLists[], named: NameFields, filters: readonly Int32Array[], pairs: readonly Int32Array[], data: DocData, maxHits: number): { total: number; docs: number[] } | undefined {
    if (!lists.some((l) => l.typo.length > 0)) return undefined;
    if (named.lists.some((e) => (e.flags & NEAR_FIELD) !== 0)) return undefined;
    if (words.some((w) => (w.word.synonymSpan?.count ?? 0) >= 2)) return undefined;
    // At most as many parts as the shortest word's (or filter's) postings: fewer than a page, no page.
    const most = Math.min(...lists.map((l) => l.exact.reduce((n, t) => n + t.docs.length, 0)), ...filters.map((f) => f.length));
    if (most < maxHits) return undefined;
    const exact = lists.map((l, i) => this.scoreWord(l, data, i === 0 ? named.bonus : undefined, false));
    if (exact.some((w) => w === undefined)) return undefined;
    const page = topK({ words: exact as (TermList | MaterializedWord)[], filters, pairs }, data, maxHits);
    if (page.hits.length < maxHits) return undefined;
    const groups = [...lists.map((l) => [...l.exact, ...l.typo].map((t) => t.docs)), ...filters.map((f) => [f])];
    return { total: countInEvery(groups, this.markFor(this.r.docCapacity)), docs: page.hits.map((h) => h.doc) };
  }

  /**
   * Facet counts (docs/search.md, Facets): for each attribute, how many of ALL the hits
   * of `query` hold each value (folded as filters fold, shown as first stored), most frequent first,
   * ties by folded value in binary order, at most `maxValues`. An attribute the caller may not see,
   * or not filterable, counts nothing. Shared attributes are counted from their filter terms'
   * posting lists against the hit set (cost: the attribute's distinct values × their postings);
   * per-organization ones from each hit's view (`viewPart`: own, inherited, default), one part read
   * per hit.
   */
  facets(query: TextSearchQuery, attributes: readonly Attribute[], maxValues: number, valuePrefix = ''): SearchFacets {
    const foldedPrefix = foldFilterValue(valuePrefix);
    // Every part, for a query without words, filters or order: as typed integers, unsorted (counts need no order).
    const everyPart = query.words.length === 0 && query.filters.length === 0 && query.order === undefined;
    const matching = everyPart ? undefined : this.matchingDocs(query, Number.MAX_SAFE_INTEGER).docs;
    // Every part a hit: a value's count is its list's length (a list holds indexed parts only).
    const hit = matching ? new Uint8Array(this.r.docCapacity + 1) : undefined;
    if (hit && matching) for (const doc of matching) hit[doc] = 1;
    const out: SearchFacets = {};
    const parts = new Map<number, StoredPart | undefined>();
    const partOf = (doc: number): StoredPart | undefined => {
      if (!parts.has(doc)) parts.set(doc, this.r.part(doc));
      return parts.get(doc);
    };
    for (const attribute of attributes) {
      const id = attribute.attribute_id;
      if (!attribute.filterable || !canSeeVisibility(query.ctx.principal, attribute.visibility)) {
        out[id] = [];
        continue;
      }
      /** folded value -> count and a doc holding it (to show the value as stored). */
      const counts = new Map<string, { count: number; doc: number; shown?: string }>();
      if (!attribute.per_org_values) {
        const prefix = filterTerm(id, '');
        for (const t of this.r.termsWithPrefix(prefix + foldedPrefix)) {
          const list = this.r.termForTier(t.id, t.term, 0).docs;
          let count = hit ? 0 : list.length;
          let first = hit ? -1 : (list[0] ?? -1);
          if (hit) {
            for (const doc of list) {
              if (hit[doc] !== 1) continue;
              if (count++ === 0) first = doc;
            }
          }
          if (count > 0) counts.set(t.term.slice(prefix.length), { count, doc: first });
        }
      } else {
        for (const doc of matching ?? this.r.everyPart()) {
          const part = partOf(doc);
          if (!part) continue;
          const entry = viewPart(part, query.ctx).attributes.find((a) => a.attribute_id === id);
          const seen = new Set<string>();
          for (const value of entry?.values ?? []) {
            for (const text of langTexts(value.value)) {
              const folded = foldFilterValue(text);
              if (seen.has(folded) || !folded.startsWith(foldedPrefix)) continue;
              seen.add(folded);
              const c = counts.get(folded);
              if (c) c.count++;
              else counts.set(folded, { count: 1, doc, shown: text });
            }
          }
        }
      }
      const top = [...counts].sort((x, y) => y[1].count - x[1].count || compareBinary(x[0], y[0])).slice(0, maxValues);
      out[id] = top.map(([folded, c]) => ({ value: c.shown ?? storedValue(partOf(c.doc), id, folded) ?? folded, count: c.count }));
    }
    return out;
  }

  /**
   * The filter terms a filter value selects: the value itself and every stored value it
   * begins as whole words (`intel` → `intel corporation`), both folded (text.ts filterValueMatches).
   */
  private filterTerms(attributeId: string, value: string): string[] {
    const exact = filterTerm(attributeId, value);
    const prefix = filterTerm(attributeId, '');
    const out = [exact];
    for (const t of this.r.termsWithPrefix(exact)) {
      if (t.term !== exact && filterValueMatches(t.term.slice(prefix.length), exact.slice(prefix.length))) out.push(t.term);
    }
    return out;
  }

  /**
   * `data` with the query's order (TextSearchQuery.order): the custom ranking attribute's boost, or
   * a sort's keys. Unchanged without one (nothing read). Kept while the reader's version holds.
   */
  private orderData(data: DocData, query: TextSearchQuery): DocData {
    const order = query.order;
    if (!order) return data;
    const byKey = order.kind === 'sort';
    const cacheKey = `${order.kind}\u0000${order.attributeId ?? ''}\u0000${order.direction}`;
    const version = this.r.version;
    const cached = this.orderCache;
    if (cached && version !== undefined && cached.version === version && cached.key === cacheKey) return { ...data, ...cached.data, byKey };
    const capacity = this.r.docCapacity;
    let made: Pick<DocData, 'boost' | 'key'>;
    if (order.attributeId === undefined) made = { key: partIdKeys(this.r.key, capacity, order.direction) };
    else {
      const prefix = filterTerm(order.attributeId, '');
      const holders: ValueHolders[] = this.r.termsWithPrefix(prefix).map((t) => ({ value: t.term.slice(prefix.length), docs: this.r.termForTier(t.id, t.term, 0).docs }));
      const ranks = valueRanks(holders, order.direction, !byKey, capacity);
      made = byKey ? { key: sortKeys(ranks, this.r.key) } : { boost: rankBoost(ranks), key: data.key };
    }
    if (version !== undefined && (this.r.complete?.() ?? true)) this.orderCache = { key: cacheKey, version, data: made };
    return { ...data, ...made, byKey };
  }

  /** The per-doc arrays of tier `tier` for the scorer. */
  private docData(tier: number): DocData {
    return { dl: this.r.dl[tier] ?? new Float64Array(0), key: this.r.key, avgdl: averageLength({ n: this.r.n, sumLength: this.r.sumLength[tier] ?? 0 }), n: this.r.n };
  }

  /** The ascending doc ids holding any of `terms` as tier `tier` sees them (filter and marker terms: group 0, any tier; a phrase's tokens: the query's tier). */
  private docSet(terms: readonly string[], tier = 0): Int32Array {
    const lists: Int32Array[] = [];
    for (const term of new Set(terms)) {
      const id = this.termId(term);
      if (id !== undefined) lists.push(this.r.termForTier(id, term, tier).docs);
    }
    if (lists.length === 1) return lists[0] ?? new Int32Array(0);
    const all = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
    let j = 0;
    for (const l of lists) {
      all.set(l, j);
      j += l.length;
    }
    all.sort();
    let u = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[u++] = all[i] ?? 0;
    return all.slice(0, u);
  }

  /**
   * A word's ways to match: itself (the last word as a prefix: every indexed word it begins); a
   * punctuated word also as its tokens joined (`form-data` → `formdata`, document.ts joinedRuns);
   * and, when it is a typo-eligible word (typo.ts), its vocabulary neighbours within its edits
   * (`typo`: ranked below the word as typed). In the part id: itself and its joined form.
   */
  private expand(word: QueryWord): ExpandedWord {
    const alternatives: Alternative[] = [{ tokens: word.tokens, prefix: word.prefix }];
    const idAlternatives: Alternative[] = [{ tokens: word.tokens, prefix: word.prefix }];
    if (word.tokens.length > 1) {
      const joined: Alternative = { tokens: [word.tokens.join('')], prefix: word.prefix };
      alternatives.push(joined);
      idAlternatives.push(joined);
    }
    const token = word.tokens[0];
    if (word.typo && token !== undefined) {
      // Two typos only for a word the catalog does not hold: a word it holds is one people type
      // (its neighbours two edits away are mostly other words), and a long word's two-deletion
      // keys are ~5 times its one-deletion keys, the largest cost of a search of known words.
      const maxTypos = this.termId(token) === undefined ? (word.maxTypos ?? 1) : 1;
      const candidates = this.r.typoCandidates(maxTypos === 2 ? lookupKeys2(token) : lookupKeys(token));
      // Two typos: the vocabulary keeps one-deletion keys only, so besides them its words
      // beginning with the same letter are checked (docs/search.md, Typos).
      if (maxTypos === 2) {
        const first = String.fromCodePoint(token.codePointAt(0) ?? 0);
        candidates.push(...this.r.vocabularyRange(first, `${first}\u{10FFFF}`));
      }
      for (const neighbour of typoNeighbours(token, candidates, maxTypos)) {
        alternatives.push({ tokens: [neighbour], prefix: word.prefix, typo: true });
      }
    }
    return { word, alternatives, idAlternatives, ...(word.synonyms ? { synonyms: word.synonyms } : {}) };
  }

  /**
   * The parts the name rule ranks first (docs/search.md, "Ranking"), as term lists for tier `tier`
   * with their flags: the parts whose id or one of whose names equals the whole query, separators
   * aside (EXACT_FIELD; document.ts EXACT_MARK, EXACT_ID_MARK), or a value of one of the
   * `identifiers` (TextSearchQuery.identifiers) does (EXACT_FIELD; IDENT_MARK, in the value's
   * group, so a tier that may not read the value has no posting of it); when the last word is typed as a
   * prefix, the parts with a name that begins with the whole query (BEGINS_FIELD: `reac` names
   * `react` and `react-dom`), each with a name bonus for its shortest such name; for a one-word
   * query, the parts called like one of its typo neighbours (NEAR_FIELD: a misspelling of
   * `typescript` finds the part named so before the parts that hold the misspelling among other
   * words). The names beginning with the query are a range of the dictionary, at most as many
   * terms as the prefix's completions (a name's first token or joined run is one).
   */
  private nameFields(words: readonly ExpandedWord[], tier: number, identifiers: readonly string[]): NameFields {
    const out: NameFields = { lists: [], bonus: undefined };
    if (words.length === 0) return out;
    const add = (term: string, flags: number) => {
      const id = this.termId(term);
      if (id === undefined) return;
      const view = this.r.termForTier(id, term, tier);
      if (view.docs.length > 0) out.lists.push({ view, flags });
    };
    const tokens = words.flatMap((w) => w.word.tokens);
    const whole = exactTerm(tokens);
    add(whole, EXACT_FIELD);
    add(exactIdTerm(tokens), EXACT_FIELD);
    for (const attributeId of identifiers) add(identifierTerm(attributeId, tokens), EXACT_FIELD);
    if (words[words.length - 1]?.word.prefix === true) {
      const begins = this.namesBeginningWith(whole, tier);
      // A name longer than the query holds more than the word typed: a completion (the exactness rule).
      if (begins) {
        out.lists.push({ view: begins.view, flags: BEGINS_FIELD | COMPLETION });
        out.bonus = this.asTypedBonus(begins, words, tier);
      }
    }
    if (words.length === 1) for (const a of words[0]?.alternatives ?? []) if (a.typo === true) add(exactTerm(a.tokens), NEAR_FIELD | TYPO);
    return out;
  }

  /**
   * `begins` with {@link AS_TYPED_BONUS} added to the bonus of each part whose name begins with
   * the query as typed, not only once separators are dropped (docs/search.md, "Ranking"): `pret`
   * begins `pretty` as typed, `p-retry` and `@pretty/x` only joined. From the name head terms
   * (document.ts nameHeadTerm, NAME_LEAD_TERM): a part is joined only when the query and one of
   * its names disagree on a leading separator, or, for a query of one token, a name's first
   * token is shorter than what was typed and begins it, or, for several tokens, no name of the
   * part has the query's first token as its own.
   */
  private asTypedBonus(begins: NameBonus, words: readonly ExpandedWord[], tier: number): NameBonus {
    const tokens = words.flatMap((w) => w.word.tokens);
    const leading = this.docSet([NAME_LEAD_TERM], tier);
    const typedLeading = words[0]?.word.leadingSeparator === true;
    // Sets a part is joined in (`inside`) and sets it must be in to be as typed (`required`).
    const inside: Int32Array[] = typedLeading ? [] : [leading];
    const required: Int32Array[] = typedLeading ? [leading] : [];
    if (tokens.length === 1) {
      const points = [...(tokens[0] ?? '')];
      for (let j = 1; j < points.length; j++) inside.push(this.docSet([nameHeadTerm(points.slice(0, j).join(''))], tier));
    } else required.push(this.docSet([nameHeadTerm(tokens[0] ?? '')], tier));
    const docs = begins.view.docs;
    const joined = new Uint8Array(docs.length);
    for (const set of inside) membership(docs, set).forEach((held, i) => (joined[i] = (joined[i] ?? 0) | held));
    for (const set of required) membership(docs, set).forEach((held, i) => (joined[i] = (joined[i] ?? 0) | (held ^ 1)));
    const bonus = Float64Array.from(begins.bonus);
    for (let i = 0; i < docs.length; i++) if (joined[i] === 0) bonus[i] = (bonus[i] ?? 0) + AS_TYPED_BONUS;
    return { view: begins.view, bonus };
  }


  /**
   * The proximity rule's lists (topk.ts TopKQuery.pairs) for tier `tier`: for each two words typed
   * next to each other, the parts holding the first's last token right before the second's first
   * token in one name or one value the tier sees (document.ts pairTerm). When the second is the
   * last word typed as a prefix, any of its completions counts (a range of the dictionary, kept
   * while the store answers the same range). A pair with a token holding a digit is not a pair
   * (document.ts isPairToken): nothing indexes it, so it ranks no part apart; nor is a pair with a
   * word not `indexed` (found in a default or a per-organization value, which no pair term holds).
   */
  private pairDocs(words: readonly ExpandedWord[], tier: number, indexed: (i: number) => boolean): Int32Array[] {
    const out: Int32Array[] = [];
    for (let i = 1; i < words.length; i++) {
      if (!indexed(i - 1) || !indexed(i)) continue;
      const left = words[i - 1]?.word.tokens.at(-1);
      const next = words[i]?.word;
      const right = next?.tokens[0];
      if (left === undefined || next === undefined || right === undefined || !isPairToken(left) || !isPairToken(right)) continue;
      const term = pairTerm(left, right);
      if (i === words.length - 1 && next.prefix && next.tokens.length === 1) {
        out.push(this.pairsBeginningWith(term, tier));
        continue;
      }
      const id = this.termId(term);
      out.push(id === undefined ? new Int32Array(0) : this.r.termForTier(id, term, tier).docs);
    }
    return out;
  }

  /** The parts holding any pair term beginning with `term` (its right token a prefix typed), for tier `tier`. */
  private pairsBeginningWith(term: string, tier: number): Int32Array {
    const range = this.r.termsWithPrefix(term);
    return this.keptForRange(this.pairsBeginning, range, tier, () => {
      this.r.prefetch?.(range);
      return unionOf(range.map((t) => this.r.termForTier(t.id, t.term, tier).docs));
    });
  }

  /**
   * What `make` computes from dictionary range `range` for tier `tier`, kept in `kept` while the
   * store answers the same range (EngineReader.termsWithPrefix). Kept only when made of every
   * posting: a reader that fetches what a search missed (PostgreSQL) answers a missing list as
   * empty until then.
   */
  private keptForRange<T>(kept: WeakMap<TermRange, Map<number, T>>, range: TermRange, tier: number, make: () => T): T {
    const byTier = kept.get(range);
    const known = byTier?.get(tier);
    if (known !== undefined) return known;
    const made = make();
    if (this.r.complete?.() ?? true) {
      if (byTier) byTier.set(tier, made);
      else kept.set(range, new Map([[tier, made]]));
    }
    return made;
  }

  /**
   * The parts with a name beginning with `whole` (an exact-name term, document.ts exactTerm) and
   * longer than it, for tier `tier`, as one list with each part's name bonus (topk.ts nameBonus,
   * its shortest such name); undefined when none. With part numbers in names every name is its
   * own term, so these are as many terms as parts: one list (each part's frequencies summed, as
   * materializeWord sums a word's alternatives), kept while the store's range is the same.
   */
  private namesBeginningWith(whole: string, tier: number): NameBonus | undefined {
    const typed = codePointLength(whole) - 1;
    const short = COMPLETIONS_LENGTHS.includes(typed) ? this.namesBeginningShort(whole.slice(EXACT_MARK.length), tier) : null;
    if (short !== null) return short;
    const range = this.r.termsWithPrefix(whole);
    const found = this.keptForRange(this.namesBeginning, range, tier, () => {
      this.r.prefetch?.(range);
      const views: TierView[] = [];
      const bonuses: number[] = [];
      for (const t of range) {
        if (t.term === whole) continue;
        const view = this.r.termForTier(t.id, t.term, tier);
        if (view.docs.length === 0) continue;
        views.push(view);
        bonuses.push(nameBonus(codePointLength(t.term) - 1, typed));
      }
      const union = unionOfViews(views, bonuses);
      return { view: union.view, bonus: union.best };
    });
    return found.view.docs.length > 0 ? found : undefined;
  }

  /**
   * {@link namesBeginningWith} for a query of a completions length (document.ts namesBeginTerm):
   * the parts of the names-begin term, each with the bonus its name-bonus term holds. Null when the
   * two lists do not pair up (a reader that has not fetched one of them yet): the range answers.
   */
  private namesBeginningShort(prefix: string, tier: number): NameBonus | undefined | null {
    const beginTerm = namesBeginTerm(prefix);
    const bonusTerm = namesBonusTerm(prefix);
    const beginId = this.termId(beginTerm);
    const bonusId = this.termId(bonusTerm);
    if (beginId === undefined && bonusId === undefined) return undefined;
    if (beginId === undefined || bonusId === undefined) return null;
    const view = this.r.termForTier(beginId, beginTerm, tier);
    const units = this.r.termForTier(bonusId, bonusTerm, tier);
    if (units.docs.length !== view.docs.length) return null;
    if (view.docs.length === 0) return undefined;
    const bonus = new Float64Array(units.docs.length);
    for (let i = 0; i < bonus.length; i++) bonus[i] = ((units.wtf[i] ?? 1) - 1) * NAME_BONUS_UNIT;
    return { view, bonus };
  }

  /**
   * The resolved words of a query with its multi-word synonyms (QueryWord.synonymSpan):
   * the kept words (`keep`) of a run that a synonym term may replace become ONE word, the parts
   * matching all of them OR any of the term's synonyms (SYNONYM flag). A run whose words are all
   * left out (satisfied otherwise) is left out; with `superset` (candidates checked one by one
   * afterwards), a run missing any word is left out whole, so no part matching a synonym is lost.
   */
  private withSpans(words: readonly ExpandedWord[], resolved: readonly ResolvedWord[], tier: number, data: DocData, keep: (i: number) => boolean, superset: boolean): ResolvedWord[] {
    const out: ResolvedWord[] = [];
    for (let i = 0; i < words.length; ) {
      const span = words[i]?.word.synonymSpan;
      if (!span || span.count < 2 || i + span.count > words.length) {
        if (keep(i)) out.push(resolved[i]);
        i++;
        continue;
      }
      const run = Array.from({ length: span.count }, (_, j) => i + j);
      const kept = run.filter(keep);
      i += span.count;
      if (kept.length === 0 || (superset && kept.length < run.length)) continue;
      const lists = kept.map((j) => resolved[j]);
      const parts: MaterializedWord[] = [];
      if (!lists.some((l) => l === undefined)) parts.push(andWords(lists as (TermList | MaterializedWord)[], data));
      const synonyms = this.resolve({ word: words[kept[0] ?? 0]?.word as QueryWord, alternatives: span.alternatives, idAlternatives: [] }, tier, data, SYNONYM);
      if (synonyms) parts.push(scoredWord(synonyms, data));
      out.push(parts.length === 0 ? undefined : orWords(parts));
    }
    return out;
  }

  /**
   * A word as one scored list for tier `tier` ({@link wordLists}, then {@link scoreWord}).
   * Undefined when no term of it is indexed for this tier.
   */
  private resolve(word: ExpandedWord, tier: number, data: DocData, allFlag = 0, named: readonly { view: TierView; flags: number }[] = []): ResolvedWord {
    return this.scoreWord(this.wordLists(word, tier, allFlag, named), data, undefined, true);
  }

  /**
   * The term lists of a word's alternatives for tier `tier` (names and values, then the id; each
   * distinct term once; the name rule's lists `named` too: their parts are named by every word),
   * split into the word as typed and its typo neighbours (topk.ts preferExact).
   */
  private wordLists(word: ExpandedWord, tier: number, allFlag: number, named: readonly { view: TierView; flags: number }[]): WordLists {
    const lists: WordLists = { exact: [], typo: [] };
    const seen = new Set<string>();
    // Flags on the postings (topk.ts): TYPO for a typo neighbour, SYNONYM for a synonym,
    // COMPLETION for a word the typed prefix begins but is not, EXACT_FIELD, BEGINS_FIELD and
    // NEAR_FIELD for the name rule.
    // A typo neighbour rarer than the word as typed is left out: a misspelling the catalog holds
    // is rarer than the word meant, and a frequent word's rare neighbours would only cost time.
    const token = word.word.tokens.length === 1 ? word.word.tokens[0] : undefined;
    const ownId = token !== undefined && allFlag === 0 ? this.termId(token) : undefined;
    const ownDf = ownId !== undefined && token !== undefined ? this.r.termForTier(ownId, token, tier).docs.length : 0;
    const add = (list: TermList, flags: number) => ((flags & TYPO) !== 0 ? lists.typo : lists.exact).push(list);
    // `word`: a word of the names and values (not the id, not a name-rule term), whose postings
    // get the attribute marks of the attribute order.
    const push = (view: TierView, flags: number, word?: string) => {
      if (view.docs.length === 0) return;
      if ((flags & (TYPO | EXACT_FIELD | NEAR_FIELD)) === TYPO && view.docs.length < ownDf) return;
      const list: TermList = { docs: view.docs, wtf: view.wtf, names: withFlags(view.names, flags), idf: idf(this.r.n, view.docs.length) };
      add(word !== undefined && this.attributeOrder ? this.withMarks(list, word, tier) : list, flags);
    };
    const addTerm = (term: string, flags: number, mark: string) => {
      if (seen.has(term)) return;
      seen.add(term);
      const id = this.termId(term);
      if (id === undefined) return;
      push(this.r.termForTier(id, term, tier), flags, mark === '' ? term : undefined);
    };
    // A word's short prefix as the word itself and its completions term (document.ts
    // completionsTerm): two lists where the dictionary range holds every word it begins. Only
    // while no other alternative of the word begins with the prefix: the range would take such a
    // word once, the completions term counts it already.
    const onlyAlternativeBeginning = (prefix: string) => [...word.alternatives, ...(word.synonyms ?? [])].filter((a) => a.tokens.length === 1 && (a.tokens[0] ?? '').startsWith(prefix)).length === 1;
    const addPrefix = (prefix: string, flags: number, mark: string) => {
      if (mark === '' && COMPLETIONS_LENGTHS.includes(codePointLength(prefix)) && onlyAlternativeBeginning(prefix)) {
        addTerm(prefix, flags, mark);
        const completions = completionsTerm(prefix);
        const id = this.termId(completions);
        if (id !== undefined && !seen.has(completions)) {
          seen.add(completions);
          push(this.r.termForTier(id, completions, tier), flags | COMPLETION, completions);
        }
        return;
      }
      const range = this.r.termsWithPrefix(prefix);
      this.r.prefetch?.(range);
      for (const t of range) {
        if (seen.has(t.term)) continue;
        seen.add(t.term);
        push(this.r.termForTier(t.id, t.term, tier), t.term === prefix ? flags : flags | COMPLETION, mark === '' ? t.term : undefined);
      }
    };
    const addAlternative = (alternative: Alternative, mark: string, flags: number) => {
      if (alternative.tokens.length > 1) {
        const key = `${mark}\u0000${alternative.tokens.join(' ')}`;
        if (seen.has(key)) return;
        seen.add(key);
        const phrase = this.phrase(alternative, mark, tier);
        if (phrase) add({ ...phrase, names: withFlags(phrase.names, flags) }, flags);
      } else {
        const token = alternative.tokens[0] ?? '';
        if (alternative.prefix) addPrefix(mark + token, flags, mark);
        else addTerm(mark + token, flags, mark);
        if (mark !== ID_MARK) return;
        // In the id, also the id's runs joined that it spells, begun only while their range is
        // narrow enough (document.ts idJoinedKeys, ID_RUN_COMPLETIONS_MAX).
        for (const key of idJoinedKeys(token)) {
          if (alternative.prefix && !this.r.prefixWiderThan(key, ID_RUN_COMPLETIONS_MAX)) addPrefix(key, flags, mark);
          else addTerm(key, flags, mark);
        }
      }
    };
    for (const a of word.alternatives) addAlternative(a, '', allFlag !== 0 ? allFlag : a.typo === true ? TYPO : 0);
    for (const a of word.synonyms ?? []) addAlternative(a, '', SYNONYM);
    for (const a of word.idAlternatives) addAlternative(a, ID_MARK, 0);
    for (const e of named) push(e.view, e.flags);
    return lists;
  }

  /**
   * `list` (the postings of `word` for tier `tier`) with each posting's attribute marks: those of
   * the word's attribute-order term as the tier sees it (document.ts ATTR_MARK; doc-chunks.ts
   * tierView), 0 where no listed attribute the tier may read holds the word.
   */
  private withMarks(list: TermList, word: string, tier: number): TermList {
    const term = ATTR_MARK + word;
    const id = this.termId(term);
    const marks = id === undefined ? undefined : this.r.termForTier(id, term, tier);
    const attr = new Uint8Array(list.docs.length);
    if (marks) {
      let j = 0;
      for (let i = 0; i < list.docs.length && j < marks.docs.length; i++) {
        const doc = list.docs[i] ?? 0;
        while (j < marks.docs.length && (marks.docs[j] ?? 0) < doc) j++;
        if (marks.docs[j] === doc) attr[i] = marks.names[j] ?? 0;
      }
    }
    return { ...list, attr };
  }

  /**
   * A word's lists as one scored list (topk.ts materializeWord: the word as typed and its typo
   * neighbours each as one term, joined by preferExact); without `withTypos`, the word as typed
   * alone. The name bonus once per part: on the query's first word.
   */
  private scoreWord(lists: WordLists, data: DocData, bonus: NameBonus | undefined, withTypos: boolean): ResolvedWord {
    const word = this.asOneTerm(withTypos ? [...lists.exact, ...lists.typo] : lists.exact, data, bonus !== undefined);
    if (!word || !bonus || 'wtf' in word) return word;
    // Both ascending: one pass.
    const named = bonus.view.docs;
    for (let i = 0, j = 0; i < word.docs.length && j < named.length; i++) {
      const doc = word.docs[i] ?? 0;
      while (j < named.length && (named[j] ?? 0) < doc) j++;
      if (named[j] === doc) word.score[i] = (word.score[i] ?? 0) + (bonus.bonus[j] ?? 0);
    }
    return word;
  }

  /** Term lists as one: a single list as is (unless `materialize`), several materialized as one term (topk.ts materializeWord). */
  private asOneTerm(lists: readonly TermList[], data: DocData, materialize = false): TermList | MaterializedWord | undefined {
    if (lists.length === 0) return undefined;
    if (lists.length === 1 && !materialize) return lists[0];
    return materializeWord(lists, data);
  }

  /** The working memory, grown to hold doc ids below `capacity` (zeroed, and left so by its users). */
  private markFor(capacity: number): Uint8Array {
    if (this.mark.length < capacity) this.mark = new Uint8Array(capacity);
    return this.mark;
  }

  /**
   * A phrase (a punctuated word: its tokens in sequence, the last a prefix if so marked) as one term
   * list: candidates hold every token (the index has no positions), then each candidate's text is
   * checked; its frequency per field is the number of occurrences. `mark` ID_MARK: in the part id.
   */
  private phrase(alternative: Alternative, mark: string, tier: number): TermList | undefined {
    const sets: Int32Array[] = [];
    alternative.tokens.forEach((token, i) => {
      const last = i === alternative.tokens.length - 1;
      const terms = last && alternative.prefix ? this.r.termsWithPrefix(mark + token).map((t) => t.term) : [mark + token];
      // The tier's postings: a phrase in a value only a wider tier sees is a candidate there.
      sets.push(this.docSet(terms, tier));
    });
    sets.sort((x, y) => x.length - y.length);
    const docs: number[] = [];
    const wtf: number[] = [];
    const names: number[] = [];
    const attr: number[] = [];
    const matches = (tokens: readonly string[]): number => {
      let n = 0;
      const phrase = alternative.tokens;
      for (let i = 0; i + phrase.length <= tokens.length; i++) {
        let ok = true;
        for (let j = 0; j < phrase.length && ok; j++) {
          const want = phrase[j] ?? '';
          const got = tokens[i + j] ?? '';
          ok = j === phrase.length - 1 && alternative.prefix ? got.startsWith(want) : got === want;
        }
        if (ok) n++;
      }
      return n;
    };
    for (const doc of intersect(sets)) {
      const part = this.r.part(doc);
      if (!part) continue;
      let w = 0;
      let inNames = 0;
      let marks = 0;
      if (mark === ID_MARK) {
        const n = matches(tokenize(part.part_id));
        w = n * ID_WEIGHT;
        inNames = n > 0 ? 1 : 0;
      } else {
        let n = 0;
        for (const text of langTexts(part.name)) n += matches(tokenize(text));
        w = n * NAME_WEIGHT;
        inNames = n > 0 ? 1 : 0;
        for (const entry of part.attributes) {
          const attribute = this.phraseAttributes?.get(entry.attribute_id);
          if (!attribute || !attribute.searchable || attribute.per_org_values || VISIBILITY_ORDER.indexOf(attribute.visibility) > tier) continue;
          let found = 0;
          for (const value of entry.values) for (const text of langTexts(value.value)) found += matches(tokenize(text));
          w += found;
          const position = this.attributeOrder?.get(entry.attribute_id);
          if (found > 0 && position !== undefined) marks |= attributeMarks(position);
        }
      }
      if (w > 0) {
        docs.push(doc);
        wtf.push(w);
        names.push(inNames);
        attr.push(marks);
      }
    }
    if (docs.length === 0) return undefined;
    return { docs: Int32Array.from(docs), wtf: Float64Array.from(wtf), names: Uint8Array.from(names), idf: idf(this.r.n, docs.length), ...(this.attributeOrder && mark !== ID_MARK ? { attr: Uint8Array.from(attr) } : {}) };
  }
}

/** The stored text of a part's value of `attributeId` that folds to `folded` (any language). */
function storedValue(part: StoredPart | undefined, attributeId: string, folded: string): string | undefined {
  for (const entry of part?.attributes ?? []) {
    if (entry.attribute_id !== attributeId) continue;
    for (const value of entry.values) for (const text of langTexts(value.value)) if (foldFilterValue(text) === folded) return text;
  }
  return undefined;
}

/**
 * The union of term views as one view: a part in several has their weighted frequencies summed
 * and their flags OR-ed, as materializeWord sums a word's alternatives (so scoring the union as
 * one alternative gives the same bits as scoring each); `best`, aligned with the union's docs,
 * the largest of `values` (one per view) of the views holding each part.
 */
export function unionOfViews(views: readonly TierView[], values: readonly number[]): { view: TierView; best: Float64Array } {
  let total = 0;
  for (const v of views) total += v.docs.length;
  // Sort keys: doc × 2^21 + position (exact in a double while doc < 2^31 and total < 2^21),
  // else positions sorted by doc.
  const order = new Int32Array(total);
  const docs = new Int32Array(total);
  const wtf = new Float64Array(total);
  const names = new Uint8Array(total);
  const value = new Float64Array(total);
  let j = 0;
  views.forEach((v, i) => {
    docs.set(v.docs, j);
    wtf.set(v.wtf, j);
    names.set(v.names, j);
    value.fill(values[i] ?? 0, j, j + v.docs.length);
    j += v.docs.length;
  });
  if (total < 2 ** 21) {
    const keys = new Float64Array(total);
    for (let i = 0; i < total; i++) keys[i] = (docs[i] ?? 0) * 2 ** 21 + i;
    keys.sort();
    for (let i = 0; i < total; i++) order[i] = (keys[i] ?? 0) % 2 ** 21;
  } else {
    for (let i = 0; i < total; i++) order[i] = i;
    order.sort((a, b) => (docs[a] ?? 0) - (docs[b] ?? 0));
  }
  const out: TierView = { docs: new Int32Array(total), wtf: new Float64Array(total), names: new Uint8Array(total) };
  const best = new Float64Array(total);
  let u = -1;
  for (let i = 0; i < total; i++) {
    const at = order[i] ?? 0;
    const doc = docs[at] ?? 0;
    if (u >= 0 && out.docs[u] === doc) {
      out.wtf[u] = (out.wtf[u] ?? 0) + (wtf[at] ?? 0);
      out.names[u] = (out.names[u] ?? 0) | (names[at] ?? 0);
      best[u] = Math.max(best[u] ?? 0, value[at] ?? 0);
    } else {
      u++;
      out.docs[u] = doc;
      out.wtf[u] = wtf[at] ?? 0;
      out.names[u] = names[at] ?? 0;
      best[u] = value[at] ?? 0;
    }
  }
  const n = u + 1;
  return { view: { docs: out.docs.subarray(0, n), wtf: out.wtf.subarray(0, n), names: out.names.subarray(0, n) }, best: best.subarray(0, n) };
}
