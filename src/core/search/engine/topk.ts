/**
 * Exact top-k retrieval (docs/search.md, "Answering a query"): every word must match (AND; a word
 * matches through any of its alternatives), every filter must hold, and the k best hits by
 * (tier, score, key) come back with the exact number of hits:
 * - tier ({@link finishTier}): the ranking rules (name, typos, synonyms, proximity, attribute,
 *   exactness);
 * - score: bm25.ts, higher first, plus the custom ranking attribute's boost when the query has
 *   one (DocData.boost, order-keys.ts: larger than any BM25 sum, so it decides first) and, for a
 *   part with a name that begins with the query, the as-typed and name bonuses ({@link
 *   AS_TYPED_BONUS} above the boost, {@link NAME_BONUS_UNIT} below it);
 * - key: the part's place in part id order (ties by part id), lower first; a `sort` puts its own
 *   keys here and every hit in one tier with score 0 (DocData.byKey).
 *
 * Document-at-a-time over sorted doc ids, led by the shortest list. Every candidate is counted
 * (the total is exact) and offered to a TopCollector, whose threshold refuses, without scoring, a
 * candidate of a worse tier than the k-th best; with one word and no filter, the total is the
 * list's length and the postings are scored in one loop. Pure: the store prepares the lists
 * (termList, materializeWord) and the per-doc arrays.
 */
import { idf as idfOf, tfPart } from './bm25.js';
import { TIER_COUNT, TopCollector, type RankedDoc } from './top-collector.js';
import { selectTopScored } from './top-select.js';

/** One index term's postings as one visibility tier sees them (postings with wtf 0 left out). */
export interface TermList {
  docs: Int32Array;
  /** Weighted term frequency per posting (bm25.ts wtf), > 0. */
  wtf: Float64Array;
  /**
   * Per posting, bit 1 ({@link NAMES}): the term is in the id or a name of that part; bit 2
   * ({@link TYPO}): the term is a typo neighbour of the query word, not the word itself; bit 4
   * ({@link SYNONYM}): the term is a synonym of the query word (exact matches rank above
   * synonym matches, and those above typo matches, see {@link postingTier}).
   */
  names: Uint8Array;
  /** The term's idf for this tier. */
  idf: number;
  /**
   * With an attribute order (DocData.attributeOrder): per posting, the {@link attributeMarks} of
   * the best listed attribute holding the term that this tier sees (0: none). Absent: none.
   */
  attr?: Uint8Array | undefined;
}

/**
 * The mark bits of position `position` (0-based, below 8: api/schemas.ts MAX_ATTRIBUTE_ORDER) of
 * the attribute order: that bit and every higher one, so OR-ing marks keeps the best (lowest)
 * position.
 */
export function attributeMarks(position: number): number {
  return (0xff << position) & 0xff;
}

/**
 * What a word found outside the id and names adds to the attribute rule's sum: the position of
 * the best listed attribute holding it (its lowest mark bit), `listed` when none does.
 */
export function attributeCost(marks: number, listed: number): number {
  if (marks === 0) return listed;
  return 31 - Math.clz32(marks & -marks);
}

/** Posting flag: the term is in the id or a name. */
export const NAMES = 1;
/** Posting flag: the term is a typo neighbour of the query word. */
export const TYPO = 2;
/** Posting flag: the term (or phrase) is a synonym of the query word or of a run of query words. */
export const SYNONYM = 4;
/** Posting flag: the part's id or one of its names equals the whole query, separators aside (document.ts EXACT_MARK). */
export const EXACT_FIELD = 8;
/** Posting flag: the term is a completion of the typed prefix, not the typed word itself. */
export const COMPLETION = 16;
/** Posting flag: one of the part's names equals a typo neighbour of the (one-word) query. */
export const NEAR_FIELD = 64;
/** Posting flag: one of the part's names begins with the whole query, separators aside (the last word typed as a prefix). */
export const BEGINS_FIELD = 128;

/*
 * The ranking rules (docs/search.md, "Ranking rules"), in order, each deciding only among the
 * parts the rules before it tie: 1. the name: the id or a name equals the query, else a name
 * begins with it (the last word a prefix), else a name equals a typo neighbour of it; 2. typos:
 * fewer words matched only through a typo neighbour; 3. synonyms: fewer words matched only
 * through a synonym; 4. proximity: fewer pairs of words typed next to each other that the part
 * does not hold next to each other (TopKQuery.pairs); 5. attribute: fewer words found only outside
 * the id and names, then (with an attribute order, DocData.attributeOrder) the smaller sum of their
 * best listed positions; 6. exactness: the typed last word itself before only a completion of it;
 * then the score (the custom ranking boost, the name bonus, BM25), then part id. Every word must
 * match (AND), so the "words" rule of engines with optional words is constant. A part's rules are
 * summed word by word ({@link wordRank}: a count per rule in 6-bit fields, so 32 words cannot
 * carry over; the sum is a double, exact below 2^53) and packed into the 15-bit tier by
 * {@link finishTier} with the part's count of pairs apart.
 */
const EXACT_UNIT = 2 ** 42;
const BEGINS_UNIT = 2 ** 36;
const NEAR_UNIT = 2 ** 30;
const TYPO_UNIT = 1 << 18;
const SYNONYM_UNIT = 1 << 12;
const FIELD_UNIT = 1 << 6;
const COMPLETION_UNIT = 1;
const LOW_FIELDS = 2 ** 30;

/** What one word adds to its part's rule counts, from the word's flags (its best name rule only). */
export function wordRank(flags: number): number {
  return ((flags & EXACT_FIELD) !== 0 ? EXACT_UNIT : (flags & BEGINS_FIELD) !== 0 ? BEGINS_UNIT : (flags & NEAR_FIELD) !== 0 ? NEAR_UNIT : 0)
    + ((flags & TYPO) !== 0 ? TYPO_UNIT : 0)
    + ((flags & SYNONYM) !== 0 ? SYNONYM_UNIT : 0)
    + ((flags & NAMES) === 0 ? FIELD_UNIT : 0)
    + ((flags & COMPLETION) !== 0 ? COMPLETION_UNIT : 0);
}

/**
 * The tier (below TIER_COUNT, lower first) of a part from the sum of its words' {@link wordRank}s:
 * 9 bits of rules, then 5 bits of `attributes` (the attribute order's sum, capped at 31; 0
 * without an order), then exactness. A part named by the query (levels exact, begins, near: below
 * 48 × 64) has every word in a name (the name's term is in every word's list and in a name), so
 * the attribute and proximity rules are moot there (the name holds the query's words in order) and
 * their bits hold the level; the others are 256 × 64 and above. `apart`: the part's pairs of
 * adjacent query words not adjacent in it (TopKQuery.pairs). Counts are capped at 3, exactness at 1.
 *
 * `customRanking`: the query has a custom ranking attribute (DocData.boost). Among the names that
 * begin with what was typed (level "begins"), it then decides before exactness, which is left out
 * of their tier: the first letters of a name are a prefix whatever they spell, and which of
 * `mini-lr`, `minimatch`, `minimist` a person typing `mini` means is popularity, not text.
 */
export function finishTier(sum: number, customRanking = false, attributes = 0, apart = 0): number {
  const high = Math.floor(sum / LOW_FIELDS);
  const low = sum - high * LOW_FIELDS;
  const typos = Math.min((low >>> 18) & 63, 3);
  const synonyms = Math.min((low >>> 12) & 63, 3);
  const completions = Math.min(low & 63, 1);
  const level = high >= 4096 ? 0 : high >= 64 ? 1 : high > 0 ? 2 : 3;
  if (level === 1 && customRanking) return ((level << 4) | (typos << 2) | synonyms) << 6;
  if (level === 3) return (((256 | (typos << 6) | (synonyms << 4) | (Math.min(apart, 3) << 2) | Math.min((low >>> 6) & 63, 3)) << 6) | (Math.min(attributes, ATTRIBUTE_SUM_CAP) << 1) | completions);
  return (((level << 4) | (typos << 2) | synonyms) << 6) | completions;
}

/**
 * Largest attribute-order sum a tier tells apart ({@link finishTier} `attributes`: the sum over
 * the words found outside the id and names of {@link attributeCost}).
 */
const ATTRIBUTE_SUM_CAP = 31;

/** The rank sum of a part the rules know only as flags of the whole query (match.ts evaluatePart). */
export function evaluatedRank(typo: boolean, synonym: boolean, namesTier: boolean): number {
  return (typo ? TYPO_UNIT : 0) + (synonym ? SYNONYM_UNIT : 0) + (namesTier ? 0 : FIELD_UNIT);
}

/** Tier of a query without words (filters only): one tier, ordered by part id. */
export const NO_WORDS_TIER = finishTier(FIELD_UNIT);

const WORD_RANK = Array.from({ length: 256 }, (_, flags) => wordRank(flags));
const ONE_WORD_TIER = Uint16Array.from(WORD_RANK, (sum) => finishTier(sum));
const ONE_WORD_TIER_CUSTOM = Uint16Array.from(WORD_RANK, (sum) => finishTier(sum, true));

/** The tier of a one-word query's posting from its flags. */
export function postingTier(flags: number): number {
  return ONE_WORD_TIER[flags & 255] ?? TIER_COUNT - 1;
}

/** The tier of a one-word query's posting from its flags when the query has a custom ranking attribute (see {@link finishTier}). */
export function customPostingTier(flags: number): number {
  return ONE_WORD_TIER_CUSTOM[flags & 255] ?? TIER_COUNT - 1;
}

/** The tier of a one-word query's posting with an attribute order of `listed` attributes (`marks`: the posting's {@link attributeMarks}). */
function orderedPostingTier(flags: number, marks: number, listed: number, customRanking: boolean): number {
  return finishTier(WORD_RANK[flags & 255] ?? 0, customRanking, (flags & NAMES) !== 0 ? 0 : attributeCost(marks, listed));
}

/**
 * Score added once per part (to the query's first word) for a name that begins with the query:
 * (NAME_BONUS_LETTERS − letters the name has beyond those typed, at least 0) units, so the
 * shortest name that begins with what was typed comes first within its tie; a unit is more than
 * any query's BM25 sum, and the custom ranking boost's unit (order-keys.ts) more than the largest
 * bonus, so the bonus decides after the custom ranking and before BM25.
 */
export const NAME_BONUS_UNIT = 2048;
export const NAME_BONUS_LETTERS = 32;

/**
 * Score added, besides the name bonus, to a part whose name begins with the query as typed, not
 * only once separators are dropped (searcher.ts asTypedBonus): more than the custom ranking boost
 * of 8,000,000 distinct values (order-keys.ts RANK_BOOST_UNIT), so among the names that begin
 * with what was typed those that begin with it letter for letter come first, then popularity:
 * `pret` gives `prettier` and `pretty-format` before the more downloaded `p-retry`. A whole
 * number below 2⁵³ with every bonus, so the sums are exact.
 */
export const AS_TYPED_BONUS = 2 ** 40;

/** The name bonus of a name of `nameLength` letters that begins with the `typedLength` letters typed. */
export function nameBonus(nameLength: number, typedLength: number): number {
  return Math.max(0, NAME_BONUS_LETTERS - (nameLength - typedLength)) * NAME_BONUS_UNIT;
}

/** Per-doc data the scorer reads, indexed by doc id. */
export interface DocData {
  /** Length of each part for the query's tier (bm25.ts dl). */
  dl: ArrayLike<number>;
  /** Order key of each part: ascending key = ascending part id. */
  key: ArrayLike<number>;
  avgdl: number;
  /** Number of parts (idf of a word's alternatives taken as one term). */
  n: number;
  /**
   * The custom ranking attribute's boost by doc (order-keys.ts rankBoost), added to the score: it
   * decides after the tier, BM25 within one boost. Absent: none (nothing more is read).
   */
  boost?: ArrayLike<number> | undefined;
  /** Order by `key` alone (a request's `sort`: `key` then holds its sort keys): one tier, score 0. */
  byKey?: boolean | undefined;
  /**
   * The number of attributes of the attribute order (1..8): the
   * attribute rule then also sums, over the words found outside the id and names, the position
   * of the best listed attribute holding each (`listed` for none; words' `attr` marks). Absent:
   * no order.
   */
  attributeOrder?: number | undefined;
}

export type { RankedDoc } from './top-collector.js';

/** Tier, then score (higher first), then key. */
export function compareRanked(a: RankedDoc, b: RankedDoc): number {
  return a.tier - b.tier || b.score - a.score || a.key - b.key;
}

const END = 2 ** 31 - 1;

/** A word's postings, ready for the scorer: doc ids with a score and flags per posting. */
interface WordCursor {
  length: number;
  pos: number;
  docs: Int32Array;
  /** The word's score at the current posting, for a part of length `dl`. */
  score(dl: number): number;
  /** The current posting's flags ({@link NAMES}, {@link TYPO}, {@link SYNONYM}). */
  flags(): number;
  /** The current posting's attribute marks ({@link attributeMarks}; 0 without). */
  marks(): number;
}

/** Builds a TermList from per-posting weighted frequencies, dropping postings with wtf 0; df = the rest. */
export function termList(docs: ArrayLike<number>, wtf: ArrayLike<number>, names: ArrayLike<number>, n: number): TermList {
  let count = 0;
  for (let i = 0; i < docs.length; i++) if ((wtf[i] ?? 0) > 0) count++;
  const out: TermList = { docs: new Int32Array(count), wtf: new Float64Array(count), names: new Uint8Array(count), idf: idfOf(n, count) };
  let j = 0;
  for (let i = 0; i < docs.length; i++) {
    const w = wtf[i] ?? 0;
    if (w <= 0) continue;
    out.docs[j] = docs[i] ?? 0;
    out.wtf[j] = w;
    out.names[j] = names[i] ?? 0;
    j++;
  }
  return out;
}

/** Cursor over one term list, scored at the posting (idf · tfPart). */
class TermCursor implements WordCursor {
  readonly docs: Int32Array;
  readonly length: number;
  pos = 0;
  constructor(private readonly list: TermList, private readonly avgdl: number) {
    this.docs = list.docs;
    this.length = list.docs.length;
  }
  score(dl: number): number {
    return this.list.idf * tfPart(this.list.wtf[this.pos] ?? 0, dl, this.avgdl);
  }
  flags(): number {
    return this.list.names[this.pos] ?? 0;
  }
  marks(): number {
    return this.list.attr?.[this.pos] ?? 0;
  }
}

/** A word with several alternatives, scored once per posting (materializeWord). */
export interface MaterializedWord {
  docs: Int32Array;
  score: Float64Array;
  names: Uint8Array;
  /** Per posting, the attribute marks (TermList.attr); absent: none. */
  attr?: Uint8Array | undefined;
}

class MaterializedCursor implements WordCursor {
  readonly docs: Int32Array;
  readonly length: number;
  pos = 0;
  constructor(private readonly word: MaterializedWord) {
    this.docs = word.docs;
    this.length = word.docs.length;
  }
  score(): number {
    return this.word.score[this.pos] ?? 0;
  }
  flags(): number {
    return this.word.names[this.pos] ?? 0;
  }
  marks(): number {
    return this.word.attr?.[this.pos] ?? 0;
  }
}

/*
 * Mark bits of materializeWord, per part: 1 NAMES (some posting in the id or a name), 2 some posting
 * of the word as typed (neither typo nor synonym), 4 some synonym posting, 8 EXACT_FIELD, 16 some
 * posting of a whole word (not only a completion), 32 present, 64 NEAR_FIELD, 128 BEGINS_FIELD.
 */
const FIELD_FLAGS = NAMES | EXACT_FIELD | NEAR_FIELD | BEGINS_FIELD;

/** The flags of a part's word from its mark bits: the best way it matched (see markOf). */
function matchFlags(mark: number): number {
  return (mark & FIELD_FLAGS) | ((mark & 2) !== 0 ? 0 : (mark & 4) !== 0 ? SYNONYM : TYPO) | ((mark & 16) !== 0 ? 0 : COMPLETION);
}

/** The mark bits of one posting's flags (see matchFlags). */
function markOf(flags: number): number {
  return 32 | (flags & FIELD_FLAGS) | ((flags & (TYPO | SYNONYM)) === 0 ? 2 : 0) | ((flags & SYNONYM) !== 0 ? 4 : 0) | ((flags & COMPLETION) === 0 ? 16 : 0);
}

/** Turns the first `count` summed weighted frequencies into scores of one term of idf `weight` (default: found in `count` parts). */
function scoreAsOneTerm(docs: Int32Array, wtf: Float64Array, count: number, data: DocData, weight = idfOf(data.n, count)): void {
  const { dl, avgdl } = data;
  for (let i = 0; i < count; i++) wtf[i] = weight * tfPart(wtf[i] ?? 0, dl[docs[i] ?? 0] ?? 0, avgdl);
}

/**
 * Scores a word with several alternatives (the typed word and its completions, typo neighbours,
 * a punctuated word's phrase and joined form, synonyms, the id) into one list. Its typo
 * neighbours and its other alternatives are two classes joined by {@link preferExact}; each class
 * is ONE term: per part, the sum of its alternatives' weighted frequencies, scored with the idf of
 * the parts any of them matches (so a rare completion cannot outscore the word typed, and a word
 * with many completions does not score more than one that has none). Weighted frequencies are
 * whole numbers, so the sums are exact in any order.
 */
export function materializeWord(alternatives: readonly TermList[], data: DocData): MaterializedWord {
  const typo = alternatives.filter(isTypoList);
  if (typo.length === 0 || typo.length === alternatives.length) return materializeClass(alternatives, data);
  return preferExact(materializeClass(alternatives.filter((a) => !isTypoList(a)), data), materializeClass(typo, data));
}

/**
 * materializeWord of alternatives of one class (all typo neighbours, or none): merged two by two,
 * level by level, until one run is left. Each posting is copied about log2(k) times, in doc
 * order (a frequent word's lists at 1,000,000 parts stay in cache, where a pass over every doc id
 * between their ends did not), and a short prefix's thousands of completions cost no more than
 * their postings. A single list with postings keeps its own idf, as a term list is scored.
 */
function materializeClass(alternatives: readonly TermList[], data: DocData): MaterializedWord {
  const withAttr = alternatives.some((a) => a.attr);
  let runs: Run[] = alternatives.map((a) => ({ docs: a.docs, sum: a.wtf, mark: a.names.map(markOf), attr: a.attr }));
  while (runs.length > 1) {
    const next: Run[] = [];
    for (let i = 0; i < runs.length; i += 2) next.push(i + 1 < runs.length ? mergeRuns(runs[i] as Run, runs[i + 1] as Run, withAttr) : (runs[i] as Run));
    runs = next;
  }
  const run = runs[0] ?? { docs: new Int32Array(0), sum: new Float64Array(0), mark: new Uint8Array(0) };
  const listed = alternatives.filter((a) => a.docs.length > 0);
  const single = listed.length === 1 ? listed[0] : undefined;
  // Scoring writes the sums over: a list that merged with nothing is copied first.
  const out: MaterializedWord = { docs: run.docs, score: alternatives.length === 1 ? Float64Array.from(run.sum) : run.sum, names: run.mark.map(matchFlags) };
  if (withAttr) out.attr = run.attr ?? new Uint8Array(run.docs.length);
  scoreAsOneTerm(out.docs, out.score, out.docs.length, data, single ? single.idf : idfOf(data.n, out.docs.length));
  return out;
}

/** Postings of some of a word's alternatives merged: per doc the weighted frequencies summed, the mark bits (markOf) and attribute marks OR-ed. */
interface Run {
  docs: Int32Array;
  sum: Float64Array;
  mark: Uint8Array;
  attr?: Uint8Array | undefined;
}

function mergeRuns(a: Run, b: Run, withAttr: boolean): Run {
  const na = a.docs.length;
  const nb = b.docs.length;
  const docs = new Int32Array(na + nb);
  const sum = new Float64Array(na + nb);
  const mark = new Uint8Array(na + nb);
  const attr = withAttr ? new Uint8Array(na + nb) : undefined;
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < na || j < nb) {
    const x = i < na ? (a.docs[i] ?? END) : END;
    const y = j < nb ? (b.docs[j] ?? END) : END;
    const doc = x < y ? x : y;
    let s = 0;
    let m = 0;
    let t = 0;
    if (x === doc) {
      s += a.sum[i] ?? 0;
      m |= a.mark[i] ?? 0;
      if (attr) t |= a.attr?.[i] ?? 0;
      i++;
    }
    if (y === doc) {
      s += b.sum[j] ?? 0;
      m |= b.mark[j] ?? 0;
      if (attr) t |= b.attr?.[j] ?? 0;
      j++;
    }
    docs[n] = doc;
    sum[n] = s;
    mark[n] = m;
    if (attr) attr[n] = t;
    n++;
  }
  return { docs: docs.subarray(0, n), sum: sum.subarray(0, n), mark: mark.subarray(0, n), attr: attr?.subarray(0, n) };
}

/** A query for topK: words (a TermList or a materialized word each), filters (doc sets), an optional exclusion. */
export interface TopKQuery {
  words: readonly (TermList | MaterializedWord)[];
  /** Each filter: the ascending doc ids that pass it. */
  filters: readonly Int32Array[];
  /** Ascending doc ids that never match (e.g. parts answered elsewhere). */
  exclude?: Int32Array | undefined;
  /** Every part (ascending doc ids), used when there is neither a word nor a filter. */
  universe?: Int32Array | undefined;
  /**
   * The proximity rule: for each pair of words typed next to each other, the ascending doc ids of
   * the parts holding them next to each other (searcher.ts pairDocs); a part missing from a list
   * counts one pair apart ({@link finishTier} `apart`). Absent or empty: no proximity rule.
   */
  pairs?: readonly Int32Array[] | undefined;
}

class SetCursor {
  pos = 0;
  readonly length: number;
  constructor(readonly docs: Int32Array) {
    this.length = docs.length;
  }
}

interface Positioned {
  pos: number;
  length: number;
  docs: Int32Array;
}

/** Moves `c` to its first posting with doc ≥ target (galloping); returns that doc or END. */
function advance(c: Positioned, target: number): number {
  const docs = c.docs;
  let pos = c.pos;
  if (pos >= c.length) return END;
  if ((docs[pos] ?? 0) >= target) return docs[pos] ?? 0;
  let step = 1;
  let hi = pos + 1;
  while (hi < c.length && (docs[hi] ?? 0) < target) {
    pos = hi;
    step *= 2;
    hi = pos + step;
  }
  if (hi > c.length) hi = c.length;
  let lo = pos + 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((docs[mid] ?? 0) < target) lo = mid + 1;
    else hi = mid;
  }
  c.pos = lo;
  return lo < c.length ? (docs[lo] ?? 0) : END;
}

/** The exact top `k` hits in order and the exact number of hits. */
export function topK(query: TopKQuery, data: DocData, k: number): { total: number; hits: RankedDoc[] } {
  const top = new TopCollector(Math.max(0, k));
  const words = query.words;
  const pairs = query.pairs ?? [];
  if (words.length === 1 && pairs.length === 0 && query.filters.length === 0 && !query.exclude && !data.byKey) {
    // One word: the total is the list's length; every posting is scored in one tight loop over the
    // list's arrays (cheaper than computing bounds to skip some: bench/results.md).
    const w = words[0] as TermList | MaterializedWord;
    if (k >= SELECT_FROM_K && w.docs.length > k) return { total: w.docs.length, hits: selectOneWord(w, data, k) };
    if (k > 0) scoreOneWord(w, data, top);
    return { total: w.docs.length, hits: top.result() };
  }
  const cursors: WordCursor[] = words.map((w) => ('wtf' in w ? new TermCursor(w, data.avgdl) : new MaterializedCursor(w)));
  const sets = query.filters.map((f) => new SetCursor(f));
  if (cursors.length === 0 && sets.length === 0) sets.push(new SetCursor(query.universe ?? new Int32Array(0)));
  const exclude = query.exclude ? new SetCursor(query.exclude) : undefined;
  const near = pairs.map((p) => new SetCursor(p));
  let total = 0;
  // No words (filters only): one tier, ordered by part id, as an exact evaluation would (match.ts).
  const noWords = cursors.length === 0;
  const { boost, byKey } = data;
  const listed = data.attributeOrder ?? 0;
  const all: Positioned[] = [...cursors, ...sets].sort((a, b) => a.length - b.length);
  const lead = all[0] as Positioned;
  let doc = lead.pos < lead.length ? (lead.docs[lead.pos] ?? 0) : END;
  outer: while (doc !== END) {
    for (let i = 1; i < all.length; i++) {
      const d = advance(all[i] as Positioned, doc);
      if (d !== doc) {
        doc = d === END ? END : advance(lead, d);
        continue outer;
      }
    }
    if (!exclude || advance(exclude, doc) !== doc) {
      total++;
      if (k > 0 && byKey) top.offer(doc, NO_WORDS_TIER, 0, data.key[doc] ?? 0);
      else if (k > 0) {
        let rank = 0;
        let attributes = 0;
        for (const w of cursors) rank += WORD_RANK[w.flags()] ?? 0;
        if (listed > 0) for (const w of cursors) if ((w.flags() & NAMES) === 0) attributes += attributeCost(w.marks(), listed);
        let apart = 0;
        for (const p of near) if (advance(p, doc) !== doc) apart++;
        const tier = noWords ? NO_WORDS_TIER : finishTier(rank, boost !== undefined, attributes, apart);
        if (top.admits(tier, Number.POSITIVE_INFINITY)) {
          const dl = data.dl[doc] ?? 0;
          let score = 0;
          for (const w of cursors) score += w.score(dl);
          if (boost) score += boost[doc] ?? 0;
          top.offer(doc, tier, score, data.key[doc] ?? 0);
        }
      }
    }
    lead.pos++;
    doc = lead.pos < lead.length ? (lead.docs[lead.pos] ?? 0) : END;
  }
  return { total, hits: top.result() };
}

/**
 * From this k on, one word's hits are ranked by scoring every posting into an array and one
 * selection (top-select.ts) rather than through the collector: a session's 10,000 hits of a frequent
 * word. A page (k = 25) stays with the collector, whose threshold soon refuses nearly every posting.
 */
const SELECT_FROM_K = 1024;

/** Per-posting scores and tiers of selectOneWord, grown to the longest word seen. */
let oneWordScores = new Float64Array(0);
let oneWordTiers = new Uint16Array(0);

/** The best `k` hits of one word (more postings than k), by scoring all of them, then selectTopScored. */
function selectOneWord(w: TermList | MaterializedWord, data: DocData, k: number): RankedDoc[] {
  const { docs, names } = w;
  const n = docs.length;
  if (oneWordTiers.length < n) {
    oneWordScores = new Float64Array(n);
    oneWordTiers = new Uint16Array(n);
  }
  const tiers = oneWordTiers;
  const { boost } = data;
  const listed = data.attributeOrder ?? 0;
  const tierOf = boost ? ONE_WORD_TIER_CUSTOM : ONE_WORD_TIER;
  if (listed > 0) for (let i = 0; i < n; i++) tiers[i] = orderedPostingTier(names[i] ?? 0, w.attr?.[i] ?? 0, listed, boost !== undefined);
  else for (let i = 0; i < n; i++) tiers[i] = tierOf[(names[i] ?? 0) & 255] ?? TIER_COUNT - 1;
  let scores: Float64Array;
  if ('wtf' in w) {
    const { wtf, idf } = w;
    const { dl, avgdl } = data;
    scores = oneWordScores;
    for (let i = 0; i < n; i++) scores[i] = idf * tfPart(wtf[i] ?? 0, dl[docs[i] ?? 0] ?? 0, avgdl);
  } else if (boost) {
    scores = oneWordScores;
    scores.set(w.score);
  } else scores = w.score;
  if (boost) for (let i = 0; i < n; i++) scores[i] = (scores[i] ?? 0) + (boost[docs[i] ?? 0] ?? 0);
  return selectTopScored(n, docs, tiers, scores, data.key, k);
}

/** Offers every posting of one word to `top` (a term list scored here, a materialized word as scored). */
function scoreOneWord(w: TermList | MaterializedWord, data: DocData, top: TopCollector): void {
  const { docs, names } = w;
  const { dl, key, avgdl, boost } = data;
  const listed = data.attributeOrder ?? 0;
  if (listed > 0) {
    // An attribute order: each posting's tier from its flags and attribute marks (a separate
    // loop, so a search without one pays nothing for it).
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i] ?? 0;
      const tier = orderedPostingTier(names[i] ?? 0, w.attr?.[i] ?? 0, listed, boost !== undefined);
      if (!top.admits(tier, Number.POSITIVE_INFINITY)) continue;
      const s = ('wtf' in w ? w.idf * tfPart(w.wtf[i] ?? 0, dl[doc] ?? 0, avgdl) : (w.score[i] ?? 0)) + (boost ? (boost[doc] ?? 0) : 0);
      if (top.admits(tier, s)) top.offer(doc, tier, s, key[doc] ?? 0);
    }
    return;
  }
  if (boost) {
    // The custom ranking attribute: each posting's score plus its part's boost (a separate loop,
    // so a search without it pays nothing for it).
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i] ?? 0;
      const tier = customPostingTier(names[i] ?? 0);
      if (!top.admits(tier, Number.POSITIVE_INFINITY)) continue;
      const s = ('wtf' in w ? w.idf * tfPart(w.wtf[i] ?? 0, dl[doc] ?? 0, avgdl) : (w.score[i] ?? 0)) + (boost[doc] ?? 0);
      if (top.admits(tier, s)) top.offer(doc, tier, s, key[doc] ?? 0);
    }
    return;
  }
  if ('wtf' in w) {
    const { wtf, idf } = w;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i] ?? 0;
      const tier = postingTier(names[i] ?? 0);
      if (!top.admits(tier, Number.POSITIVE_INFINITY)) continue;
      const s = idf * tfPart(wtf[i] ?? 0, dl[doc] ?? 0, avgdl);
      // The order key (a read far into an array of every part) only for a hit that may enter.
      if (top.admits(tier, s)) top.offer(doc, tier, s, key[doc] ?? 0);
    }
  } else {
    const { score } = w;
    for (let i = 0; i < docs.length; i++) {
      const tier = postingTier(names[i] ?? 0);
      const s = score[i] ?? 0;
      if (top.admits(tier, s)) top.offer(docs[i] ?? 0, tier, s, key[docs[i] ?? 0] ?? 0);
    }
  }
}

/**
 * The reference: the ranking rules and the formula written plainly, every hit scored, no
 * threshold, no selection; for tests and the benchmark's exactness check. Words are their
 * alternatives' term lists, in two classes (see {@link preferExact}): a part holding the word as
 * typed is scored and flagged by the other alternatives alone, a part holding only typo
 * neighbours by the neighbours. A class is scored as one term (its alternatives' weighted
 * frequencies summed, the idf of the parts any of them holds) and its flags are the best way it
 * matched: in the id or a name if any alternative is; typo only if no alternative is the word as
 * typed (a synonym only if no exact one is); a completion only if every alternative is one; its
 * name rule the best of its alternatives' (a neighbour's name rule counts in both classes).
 * `bonus`: the name bonus by doc, added after the first word's score (where the engine adds it).
 * `pairs`: the proximity rule's doc lists (TopKQuery.pairs).
 */
export function exhaustiveTopK(words: readonly (readonly TermList[])[], filters: readonly Int32Array[], data: DocData, k: number, bonus?: ReadonlyMap<number, number>, pairs: readonly Int32Array[] = []): { total: number; hits: RankedDoc[] } {
  let candidates: Set<number> | undefined;
  const intersect = (docs: Iterable<number>) => {
    const next = new Set<number>();
    for (const d of docs) if (!candidates || candidates.has(d)) next.add(d);
    candidates = next;
  };
  const asClass = (lists: readonly TermList[]) => ({ lists, idf: lists.length === 1 ? (lists[0] as TermList).idf : idfOf(data.n, new Set(lists.flatMap((a) => [...a.docs])).size) });
  const classes = words.map((alternatives) => [asClass(alternatives.filter((a) => !isTypoList(a))), asClass(alternatives.filter(isTypoList))] as const);
  /** How a class matched `doc`: its score part and flags, or undefined. */
  const matchOf = (c: { lists: readonly TermList[]; idf: number }, doc: number, dl: number): { score: number; flags: number; marks: number } | undefined => {
    let found = false;
    let marks = 0;
    let wtf = 0;
    let names = false;
    let exact = false;
    let synonym = false;
    let fields = 0;
    let whole = false;
    for (const a of c.lists) {
      const i = a.docs.indexOf(doc);
      if (i < 0) continue;
      found = true;
      wtf += a.wtf[i] ?? 0;
      const flags = a.names[i] ?? 0;
      if ((flags & NAMES) !== 0) names = true;
      if ((flags & (TYPO | SYNONYM)) === 0) exact = true;
      if ((flags & SYNONYM) !== 0) synonym = true;
      fields |= flags & (EXACT_FIELD | NEAR_FIELD | BEGINS_FIELD);
      if ((flags & COMPLETION) === 0) whole = true;
      marks |= a.attr?.[i] ?? 0;
    }
    if (!found) return undefined;
    return { score: c.idf * tfPart(wtf, dl, data.avgdl), flags: (names ? NAMES : 0) | (exact ? 0 : synonym ? SYNONYM : TYPO) | fields | (whole ? 0 : COMPLETION), marks };
  };
  for (const alternatives of words) intersect(alternatives.flatMap((a) => [...a.docs]));
  for (const f of filters) intersect(f);
  const hits: RankedDoc[] = [];
  for (const doc of candidates ?? []) {
    const dl = data.dl[doc] ?? 0;
    let score = 0;
    let rank = 0;
    let attributes = 0;
    classes.forEach(([exactClass, typoClass], w) => {
      const exact = matchOf(exactClass, doc, dl);
      const typo = matchOf(typoClass, doc, dl);
      const match = exact ?? typo;
      if (!match) return;
      score += match.score;
      if (w === 0 && bonus) score += bonus.get(doc) ?? 0;
      rank += wordRank(match.flags | ((typo?.flags ?? 0) & NEAR_FIELD));
      // The attribute order: the class that matched decides, as its flags do.
      if (data.attributeOrder && (match.flags & NAMES) === 0) attributes += attributeCost(match.marks, data.attributeOrder);
    });
    // The custom ranking attribute after the rules, before BM25; a sort: its keys alone.
    if (data.boost) score += data.boost[doc] ?? 0;
    if (data.byKey) hits.push({ doc, tier: NO_WORDS_TIER, score: 0, key: data.key[doc] ?? 0 });
    else hits.push({ doc, tier: words.length === 0 ? NO_WORDS_TIER : finishTier(rank, data.boost !== undefined, attributes, pairs.filter((p) => !p.includes(doc)).length), score, key: data.key[doc] ?? 0 });
  }
  hits.sort(compareRanked);
  return { total: hits.length, hits: hits.slice(0, k) };
}

/** A word's list with a score per posting: a materialized word as is, a term list scored (idf · tfPart). */
export function scoredWord(word: TermList | MaterializedWord, data: DocData): MaterializedWord {
  if (!('wtf' in word)) return word;
  const score = new Float64Array(word.docs.length);
  for (let i = 0; i < word.docs.length; i++) score[i] = word.idf * tfPart(word.wtf[i] ?? 0, data.dl[word.docs[i] ?? 0] ?? 0, data.avgdl);
  return { docs: word.docs, score, names: word.names, ...(word.attr ? { attr: word.attr } : {}) };
}

/** Whether a term list holds typo neighbours of its word (its postings carry {@link TYPO}). */
function isTypoList(list: TermList): boolean {
  return list.docs.length > 0 && ((list.names[0] ?? 0) & TYPO) !== 0;
}

/**
 * A word's two classes as one list (docs/search.md, "Typos"): a part the word matches as typed
 * (itself, a completion, its joined form, a synonym, the id, the name rule) is scored and flagged
 * by those alternatives alone; a part it matches only through typo neighbours, by the neighbours
 * scored as one term. So a neighbour never changes the score or rules of a part that holds the
 * word itself, and when the word as typed fills a page the neighbours need only be counted
 * (searcher.ts). A neighbour's name rule ({@link NEAR_FIELD}) is kept in both classes.
 */
export function preferExact(exact: MaterializedWord, typo: MaterializedWord): MaterializedWord {
  const n = exact.docs.length + typo.docs.length;
  const docs = new Int32Array(n);
  const score = new Float64Array(n);
  const names = new Uint8Array(n);
  // The attribute marks follow the class that decides a part, as its flags do.
  const attr = exact.attr || typo.attr ? new Uint8Array(n) : undefined;
  let i = 0;
  let j = 0;
  let out = 0;
  while (i < exact.docs.length || j < typo.docs.length) {
    const x = i < exact.docs.length ? (exact.docs[i] ?? END) : END;
    const y = j < typo.docs.length ? (typo.docs[j] ?? END) : END;
    if (x <= y) {
      docs[out] = x;
      score[out] = exact.score[i] ?? 0;
      names[out] = (exact.names[i] ?? 0) | (x === y ? (typo.names[j] ?? 0) & NEAR_FIELD : 0);
      if (attr) attr[out] = exact.attr?.[i] ?? 0;
      i++;
      if (x === y) j++;
    } else {
      docs[out] = y;
      score[out] = typo.score[j] ?? 0;
      names[out] = typo.names[j] ?? 0;
      if (attr) attr[out] = typo.attr?.[j] ?? 0;
      j++;
    }
    out++;
  }
  return { docs: docs.subarray(0, out), score: score.subarray(0, out), names: names.subarray(0, out), ...(attr ? { attr: attr.subarray(0, out) } : {}) };
}

/**
 * The parts every one of `words` matches (a run of query words that a multi-word synonym may
 * replace), as one word: score the sum of the words' scores; flags NAMES when every word
 * matched in the id or a name, TYPO or SYNONYM when any word matched only so.
 */
export function andWords(words: readonly (TermList | MaterializedWord)[], data: DocData): MaterializedWord {
  const lists = words.map((w) => scoredWord(w, data)).sort((a, b) => a.docs.length - b.docs.length);
  const first = lists[0];
  if (!first) return { docs: new Int32Array(0), score: new Float64Array(0), names: new Uint8Array(0) };
  const docs: number[] = [];
  const score: number[] = [];
  const names: number[] = [];
  const cursors = lists.map((l) => ({ pos: 0, length: l.docs.length, docs: l.docs }));
  outer: for (let i = 0; i < first.docs.length; i++) {
    const doc = first.docs[i] ?? 0;
    let sum = first.score[i] ?? 0;
    let flags = first.names[i] ?? 0;
    for (let w = 1; w < lists.length; w++) {
      const c = cursors[w] as Positioned;
      if (advance(c, doc) !== doc) continue outer;
      const l = lists[w] as MaterializedWord;
      sum += l.score[c.pos] ?? 0;
      const f = l.names[c.pos] ?? 0;
      flags = (flags & f & NAMES) | ((flags | f) & (TYPO | SYNONYM));
    }
    docs.push(doc);
    score.push(sum);
    names.push(flags);
  }
  return { docs: Int32Array.from(docs), score: Float64Array.from(score), names: Uint8Array.from(names) };
}

/**
 * The parts any of `words` matches, as one word (a run of query words OR its multi-word synonyms):
 * per part the sum of the scores of the words that match it, NAMES when any matched in
 * the id or a name, and the best way it matched (exact, else synonym, else typo).
 */
export function orWords(words: readonly MaterializedWord[]): MaterializedWord {
  const rank = (flags: number) => ((flags & TYPO) !== 0 ? 2 : 0) | ((flags & SYNONYM) !== 0 ? 1 : 0);
  const byDoc = new Map<number, { score: number; names: number; best: number }>();
  for (const w of words) {
    for (let i = 0; i < w.docs.length; i++) {
      const doc = w.docs[i] ?? 0;
      const flags = w.names[i] ?? 0;
      const seen = byDoc.get(doc);
      if (!seen) byDoc.set(doc, { score: w.score[i] ?? 0, names: flags & NAMES, best: flags & (TYPO | SYNONYM) });
      else {
        seen.score += w.score[i] ?? 0;
        seen.names |= flags & NAMES;
        if (rank(flags) < rank(seen.best)) seen.best = flags & (TYPO | SYNONYM);
      }
    }
  }
  const docs = Int32Array.from([...byDoc.keys()].sort((a, b) => a - b));
  const out: MaterializedWord = { docs, score: new Float64Array(docs.length), names: new Uint8Array(docs.length) };
  docs.forEach((doc, i) => {
    const v = byDoc.get(doc) as { score: number; names: number; best: number };
    out.score[i] = v.score;
    out.names[i] = v.names | v.best;
  });
  return out;
}
