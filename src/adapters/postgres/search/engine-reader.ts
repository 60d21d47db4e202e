/**
 * The search engine's block store on PostgreSQL, read side (docs/search.md, "Index"):
 * the core's synchronous EngineReader (core/search/engine/searcher.ts) over a read-through cache.
 *
 * The core runs a search against the cache; whatever the cache lacks (a term's id, its posting
 * blocks, a prefix's terms, typo candidates, a part row, ...) is answered as absent and noted. When
 * a run noted anything, its answer is discarded, everything noted is fetched (one statement per
 * kind, in the search's REPEATABLE READ snapshot) and the search runs again, until a run misses
 * nothing: a one-word query takes 1 to 2 fetch rounds when cold, 0 when warm. So PostgreSQL runs
 * exactly the code SQLite runs, and ranks alike.
 *
 * What stays between searches (per process): the doc arrays and statistics (refreshed from
 * `engine_docs` chunks and `engine_stats` when the version moves: only chunks and terms with a newer
 * version are re-read, so a write through another server is seen at once), term ids, decoded
 * posting lists (least recently used, bounded), and the other answers (absent terms, prefixes,
 * typo candidates, vocabulary ranges, part rows; bounded), brought up to date with the terms and
 * chunks a write changed (keepAnswersThrough) rather than fetched again after every write.
 * Searches through one reader run one at a time (the cache is one snapshot); see PgSearchIndex.
 */
import type { Visibility } from '../../../api/schemas.js';
import type { Alternative, StoredPart } from '../../../core/model.js';
import { CHUNK, DocColumns, groupZeroWeight, tierView } from '../../../core/search/engine/doc-chunks.js';
import { decodeTermBlocks } from '../../../core/search/engine/postings.js';
import { visibilityTier, type EngineReader, type TierView } from '../../../core/search/engine/searcher.js';
import { takeIntoRanges, type TermRow } from '../../../core/search/engine/term-range.js';
import { compareBinary } from '../../../core/search/rank.js';
import { isVocabularyTerm, lookupKeys } from '../../../core/search/typo.js';
import type { PgClient } from '../database.js';
import { partFromPgRow, type PgPartRow } from '../part-rows.js';
import { EMPTIED_TERMS_KEPT_VERSIONS, fromPgTerm, pgTerm, type EngineStatsRow } from './engine-store.js';
import { orgWeights, tsAny } from './tsvector.js';

/** Decoded posting lists kept per process, in postings (as on SQLite). */
const CACHE_POSTINGS = 6_000_000;
/** Fetch rounds one search may take before giving up (a bug guard: a search needs a handful). */
const MAX_ROUNDS = 32;
/** A batch lets the event loop turn after this much ranking, in milliseconds (runAll). */
export const YIELD_AFTER_MS = 2;
/** Answers other than postings kept between searches (part rows, probes, prefixes...), then forgotten. */
const MAX_ANSWERS = 50_000;
/** Terms a write may name for the kept answers to be brought up to date one by one; past it they are forgotten. */
const MAX_NAMED_TERMS = 4096;
const MAX_CHAR = '\u{10FFFF}';

/**
 * A reader's refresh in one statement ($1: the loaded version): kind 0, the statistics row; kind
 * 1, the terms written since (id, term): those added since (engine_terms.version) and the stored
 * ones whose postings changed (engine_term_changes), each once; kind 2, the doc chunks written
 * since (id: the chunk, data). A reader that has loaded nothing ($1 = -1) gets no terms.
 */
const REFRESH = `
  SELECT 0 AS kind, version, rebuilt, n, len0, len1, len2, len3, 0 AS id, NULL::text AS term, NULL::bytea AS data FROM engine_stats WHERE id = 0
  UNION ALL SELECT 1, 0, 0, 0, 0, 0, 0, 0, id, term, NULL FROM (
    SELECT id, term FROM engine_terms WHERE version > $1 AND $1 >= 0
    UNION SELECT t.id, t.term FROM engine_term_changes l CROSS JOIN LATERAL unnest(l.ids) AS u(id) JOIN engine_terms t ON t.id = u.id
    WHERE l.version > $1 AND $1 >= 0) AS written
  UNION ALL SELECT 2, 0, 0, 0, 0, 0, 0, 0, chunk, NULL, data FROM engine_docs WHERE version > $1`;

/** A row of {@link REFRESH}. */
export interface RefreshRow extends EngineStatsRow {
  kind: number;
  id: number;
  term: string | null;
  data: Buffer | null;
}

interface CachedTerm {
  docs: Int32Array;
  tf: Uint16Array;
  weight: number;
  tiers: (TierView | undefined)[];
}

const EMPTY_VIEW: TierView = { docs: new Int32Array(0), wtf: new Float64Array(0), names: new Uint8Array(0) };

/** What a run missed, by kind (each kind fetched with one statement). */
interface Misses {
  terms: Set<string>;
  postings: Map<number, string>;
  prefixes: Set<string>;
  hasPrefix: Set<string>;
  /** Prefixes whose width is asked for, each with the most terms it may hold (prefixWiderThan). */
  widths: Map<string, number>;
  typoKeys: Map<string, readonly string[]>;
  ranges: Map<string, [string, string]>;
  probes: Map<string, { alternatives: readonly Alternative[]; visible: readonly Visibility[] }>;
  parts: Set<number>;
}

/** What one search of a batch came to: its answer, or what it threw. */
export type SearchOutcome<T> = { answer: T } | { error: unknown };

function noMisses(): Misses {
  return { terms: new Set(), postings: new Map(), prefixes: new Set(), hasPrefix: new Set(), widths: new Map(), typoKeys: new Map(), ranges: new Map(), probes: new Map(), parts: new Set() };
}

/** Adds the misses of `from` to `into`. */
function mergeMisses(into: Misses, from: Misses): void {
  for (const t of from.terms) into.terms.add(t);
  for (const [id, term] of from.postings) into.postings.set(id, term);
  for (const p of from.prefixes) into.prefixes.add(p);
  for (const p of from.hasPrefix) into.hasPrefix.add(p);
  for (const [p, max] of from.widths) into.widths.set(p, max);
  for (const [k, keys] of from.typoKeys) into.typoKeys.set(k, keys);
  for (const [k, range] of from.ranges) into.ranges.set(k, range);
  for (const [k, probe] of from.probes) into.probes.set(k, probe);
  for (const doc of from.parts) into.parts.add(doc);
}

/** The PostgreSQL EngineReader: a cache that learns, per search, what the core asked for. */
export class PgEngineReader implements EngineReader {
  // -- kept between searches --
  private loadedVersion = -1;
  private loadedRebuild = -1;
  /** Per-doc arrays (core doc-chunks.ts). */
  private readonly docs = new DocColumns();
  n = 0;
  sumLength = [0, 0, 0, 0];
  private readonly termIds = new Map<string, number>();
  private readonly postings = new Map<number, CachedTerm>();
  private cachedPostings = 0;
  // -- one search --
  private misses = noMisses();
  private readonly absentTerms = new Set<string>();
  private readonly prefixTerms = new Map<string, { id: number; term: string }[]>();
  /** No kept prefix range or prefix answer (prefixKnown) has a longer prefix (characters): the longest ever kept. */
  private longestPrefix = 0;
  private readonly prefixKnown = new Map<string, boolean>();
  /** Prefixes found to begin more terms than a bound, with that bound (prefixWiderThan; a narrower range is kept in prefixTerms). Terms are never removed here, so a range found wide stays wide. */
  private readonly widerThan = new Map<string, number>();
  private readonly typo = new Map<string, string[]>();
  /** The entries of `typo` that looked up each key (a word a write stores under the key makes them stale). */
  private readonly typoByKey = new Map<string, Set<string>>();
  private readonly ranges = new Map<string, string[]>();
  private readonly probes = new Map<string, boolean>();
  private readonly parts = new Map<number, StoredPart | undefined>();
  /** Answers kept (entries of the maps above; part rows count once each). */
  private answers = 0;
  /** Fetch rounds taken by searches (for the benchmark). */
  rounds = 0;

  get docCapacity(): number {
    return this.docs.capacity;
  }

  /** Current card id by doc. */
  get card(): Float64Array {
    return this.docs.card;
  }

  /** The engine version the arrays and cached answers show (EngineReader). */
  get version(): number {
    return this.loadedVersion;
  }

  /** Whether the running search has missed nothing so far (EngineReader). */
  complete(): boolean {
    return !this.lacksData();
  }

  /** Order key by doc (EngineReader). */
  get key(): Float64Array {
    return this.docs.key;
  }

  /** Part length per tier, by doc (EngineReader). */
  get dl(): readonly Float64Array[] {
    return this.docs.dl;
  }

  /**
   * The answer of `search` (a pure run of the core against this reader) when everything it needs is
   * cached for `version` (the committed engine_stats.version, read just before): no snapshot is
   * needed, since every cached answer belongs to that version. Undefined when it missed anything.
   */
  tryCached<T>(version: number, search: () => T): T | undefined {
    if (version !== this.loadedVersion) return undefined;
    this.misses = noMisses();
    const answer = search();
    return this.lacksData() ? undefined : answer;
  }

  /**
   * Runs `search` in `c`'s snapshot until it misses nothing, and returns its answer. Throws when it
   * still misses after MAX_ROUNDS fetches.
   */
  async run<T>(c: PgClient, search: () => T): Promise<T> {
    const [outcome] = await this.runAll(c, [search]);
    if (!outcome || 'error' in outcome) throw outcome?.error;
    return outcome.answer;
  }

  /**
   * Runs every search of `searches` in `c`'s snapshot until none misses anything: each round runs
   * the searches still missing, and what they all missed is fetched together (one statement per
   * kind for the whole batch), so searches queued at the same time share one snapshot, one
   * refresh and their fetch round trips. Each outcome is its search's answer, or its error (a
   * search still missing after MAX_ROUNDS fetches gets one). `refreshed`: the rows of
   * {@link refreshStatement} read in `c`'s snapshot, when the caller read them already.
   */
  async runAll<T>(c: PgClient, searches: readonly (() => T)[], refreshed?: readonly RefreshRow[]): Promise<SearchOutcome<T>[]> {
    await this.refresh(c, refreshed ?? (await c.query<RefreshRow>(REFRESH, [this.loadedVersion])).rows);
    const outcomes: (SearchOutcome<T> | undefined)[] = searches.map(() => undefined);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const batch = noMisses();
      let ranSince = performance.now();
      for (let i = 0; i < searches.length; i++) {
        if (outcomes[i] !== undefined) continue;
        if (performance.now() - ranSince > YIELD_AFTER_MS) {
          // Other work of the event loop runs between searches: a transaction holding the catalog
          // or session lock must not wait for a whole batch of rankings to reach its next statement.
          await new Promise((resolve) => setImmediate(resolve));
          ranSince = performance.now();
        }
        this.misses = noMisses();
        try {
          const answer = (searches[i] as () => T)();
          if (!this.lacksData()) outcomes[i] = { answer };
          else mergeMisses(batch, this.misses);
        } catch (error) {
          outcomes[i] = { error };
        }
      }
      if (outcomes.every((o) => o !== undefined)) return outcomes as SearchOutcome<T>[];
      this.rounds++;
      this.misses = batch;
      await this.fetch(c);
    }
    const stuck = new Error(`search engine: a search still missed data after ${MAX_ROUNDS} fetch rounds`);
    return outcomes.map((o) => o ?? { error: stuck });
  }

  /**
   * Forgets the answers that are not posting lists or doc data (absent terms, prefixes, typo
   * candidates, probes, part rows, part lists): when they grow too many, or the index was rebuilt.
   */
  private forgetAnswers(): void {
    this.misses = noMisses();
    this.absentTerms.clear();
    this.prefixTerms.clear();
    this.prefixKnown.clear();
    this.widerThan.clear();
    this.typo.clear();
    this.typoByKey.clear();
    this.ranges.clear();
    this.probes.clear();
    this.parts.clear();
    this.answers = 0;
  }

  /** Forgets every term's id and list besides the other answers (forgetAnswers); the doc arrays stay. */
  private forgetTerms(): void {
    this.forgetAnswers();
    this.termIds.clear();
    this.postings.clear();
    this.cachedPostings = 0;
  }

  /** Whether the running search has missed something, so its answer is discarded (runAll, tryCached). */
  private lacksData(): boolean {
    const m = this.misses;
    return m.terms.size + m.postings.size + m.prefixes.size + m.hasPrefix.size + m.widths.size + m.typoKeys.size + m.ranges.size + m.probes.size + m.parts.size > 0;
  }

  // -- EngineReader ----------------------------------------------------------------------------

  termId(term: string): number | undefined {
    const id = this.termIds.get(term);
    if (id !== undefined || this.absentTerms.has(term)) return id;
    this.misses.terms.add(term);
    return undefined;
  }

  termsWithPrefix(prefix: string): { id: number; term: string }[] {
    const terms = this.prefixTerms.get(prefix);
    if (terms) return terms;
    this.misses.prefixes.add(prefix);
    return [];
  }

  hasPrefix(prefix: string): boolean {
    const known = this.prefixKnown.get(prefix) ?? (this.prefixTerms.has(prefix) ? (this.prefixTerms.get(prefix)?.length ?? 0) > 0 : undefined);
    if (known !== undefined) return known;
    this.misses.hasPrefix.add(prefix);
    return true; // "known": no typo lookups for this run
  }

  prefixWiderThan(prefix: string, max: number): boolean {
    const range = this.prefixTerms.get(prefix);
    if (range) return range.length > max;
    const bound = this.widerThan.get(prefix);
    if (bound !== undefined && bound >= max) return true;
    this.misses.widths.set(prefix, max);
    return true; // "wide": the range is not asked for in this run
  }

  termForTier(id: number, term: string, tier: number): TierView {
    const cached = this.postings.get(id);
    if (!cached) {
      this.misses.postings.set(id, term);
      return EMPTY_VIEW;
    }
    // Most recently used last.
    this.postings.delete(id);
    this.postings.set(id, cached);
    let view = cached.tiers[tier];
    if (!view) {
      view = tierView(cached.docs, cached.tf, cached.weight, tier);
      cached.tiers[tier] = view;
    }
    return view;
  }

  typoCandidates(keys: readonly string[]): string[] {
    const k = JSON.stringify(keys);
    const found = this.typo.get(k);
    if (found) return [...found];
    this.misses.typoKeys.set(k, keys);
    return [];
  }

  vocabularyRange(lo: string, hi: string): string[] {
    const k = `${lo}\u0000${hi}`;
    const found = this.ranges.get(k);
    if (found) return [...found];
    this.misses.ranges.set(k, [lo, hi]);
    return [];
  }

  inOrgValues(alternatives: readonly Alternative[], visible: readonly Visibility[]): boolean {
    const k = JSON.stringify([alternatives, visibilityTier(visible)]);
    const found = this.probes.get(k);
    if (found !== undefined) return found;
    this.misses.probes.set(k, { alternatives, visible });
    return false;
  }

  part(doc: number): StoredPart | undefined {
    if (this.parts.has(doc)) return this.parts.get(doc);
    this.misses.parts.add(doc);
    return undefined;
  }

  /** Every part's doc in part id order, the first `limit` (EngineReader): from the doc arrays, as on SQLite. */
  allParts(nonHoldersOnly: boolean, limit: number): { total: number; docs: number[] } {
    return this.docs.allDocs(nonHoldersOnly, limit);
  }

  /** Every part's doc, unsorted (EngineReader): from the doc arrays. */
  everyPart(): Int32Array {
    return this.docs.everyDoc(false);
  }

  // -- fetching --------------------------------------------------------------------------------

  private async fetch(c: PgClient): Promise<void> {
    const m = this.misses;
    this.answers += m.terms.size + m.prefixes.size + m.hasPrefix.size + m.widths.size + m.typoKeys.size + m.ranges.size + m.probes.size + m.parts.size;
    if (m.terms.size > 0) {
      const wanted = [...m.terms];
      const rows = (await c.query<{ id: number; term: string }>('SELECT id, term FROM engine_terms WHERE term = ANY($1::text[])', [wanted.map(pgTerm)])).rows;
      for (const r of rows) {
        const term = fromPgTerm(r.term);
        this.termIds.set(term, r.id);
        m.postings.set(r.id, term); // a known term's postings are about to be asked for
      }
      for (const t of wanted) if (!this.termIds.has(t)) this.absentTerms.add(t);
    }
    if (m.prefixes.size > 0) {
      const wanted = [...m.prefixes];
      for (const prefix of wanted) {
        this.prefixTerms.set(prefix, []);
        this.longestPrefix = Math.max(this.longestPrefix, prefix.length);
      }
      const rows = (await c.query<{ i: number; id: number; term: string }>(
        // One index range scan per prefix (LATERAL): as a join, the ranges were planned as millions of rows.
        `SELECT u.i, t.id, t.term FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(lo, hi, i)
         CROSS JOIN LATERAL (SELECT e.id, e.term FROM engine_terms e WHERE e.term >= u.lo AND e.term < u.hi ORDER BY e.term) t ORDER BY u.i, t.term`,
        [wanted.map(pgTerm), wanted.map((p) => pgTerm(p) + MAX_CHAR)],
      )).rows;
      for (const r of rows) {
        const term = fromPgTerm(r.term);
        this.prefixTerms.get(wanted[r.i - 1] ?? '')?.push({ id: r.id, term });
        // Every term of a prefix is about to be asked for (resolve, facets, filter values).
        this.termIds.set(term, r.id);
        m.postings.set(r.id, term);
      }
    }
    if (m.widths.size > 0) {
      const wanted = [...m.widths];
      const rows = (await c.query<{ i: number; id: number; term: string }>(
        // Each range read up to its bound + 1 terms: a wide one is never read whole, a narrow one is
        // kept as the prefix's range, its postings loaded with this fetch, for the search that asked.
        `SELECT u.i, t.id, t.term FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS u(lo, hi, n, i)
         CROSS JOIN LATERAL (SELECT e.id, e.term FROM engine_terms e WHERE e.term >= u.lo AND e.term < u.hi ORDER BY e.term LIMIT u.n) t ORDER BY u.i, t.term`,
        [wanted.map(([p]) => pgTerm(p)), wanted.map(([p]) => pgTerm(p) + MAX_CHAR), wanted.map(([, max]) => max + 1)],
      )).rows;
      const ranges = wanted.map((): TermRow[] => []);
      for (const r of rows) ranges[r.i - 1]?.push({ id: r.id, term: fromPgTerm(r.term) });
      wanted.forEach(([prefix, max], i) => {
        const range = ranges[i] ?? [];
        this.longestPrefix = Math.max(this.longestPrefix, prefix.length);
        if (range.length > max) {
          this.widerThan.set(prefix, max);
          return;
        }
        this.prefixTerms.set(prefix, range);
        for (const { id, term } of range) {
          this.termIds.set(term, id);
          m.postings.set(id, term);
        }
      });
    }
    const unknownPrefixes = [...m.hasPrefix].filter((p) => !this.prefixTerms.has(p));
    if (unknownPrefixes.length > 0) {
      const found = new Set((await c.query<{ i: number }>(
        `SELECT u.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(lo, hi, i)
         WHERE EXISTS (SELECT 1 FROM engine_terms t WHERE t.term >= u.lo AND t.term < u.hi)`,
        [unknownPrefixes.map(pgTerm), unknownPrefixes.map((p) => pgTerm(p) + MAX_CHAR)],
      )).rows.map((r) => r.i));
      unknownPrefixes.forEach((prefix, i) => {
        this.prefixKnown.set(prefix, found.has(i + 1));
        this.longestPrefix = Math.max(this.longestPrefix, prefix.length);
      });
    }
    if (m.postings.size > 0) await this.loadPostings(c, m.postings);
    if (m.typoKeys.size > 0) {
      const wanted = [...m.typoKeys];
      const groups: number[] = [];
      const keys: string[] = [];
      wanted.forEach(([, list], i) => {
        for (const key of list) {
          groups.push(i + 1);
          keys.push(key);
        }
      });
      const found = wanted.map(() => new Set<string>());
      const rows = (await c.query<{ g: number; term: string }>(
        'SELECT u.g, s.term FROM unnest($1::int[], $2::text[]) AS u(g, key) JOIN search_term_keys s ON s.key = u.key ORDER BY u.g, s.term',
        [groups, keys],
      )).rows;
      for (const r of rows) found[r.g - 1]?.add(r.term);
      wanted.forEach(([k, list], i) => {
        this.typo.set(k, [...(found[i] ?? [])]);
        for (const key of list) {
          let entries = this.typoByKey.get(key);
          if (!entries) this.typoByKey.set(key, (entries = new Set()));
          entries.add(k);
        }
      });
    }
    if (m.ranges.size > 0) {
      const wanted = [...m.ranges];
      const found: string[][] = wanted.map(() => []);
      const rows = (await c.query<{ i: number; term: string }>(
        `SELECT u.i, s.term FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(lo, hi, i)
         CROSS JOIN LATERAL (SELECT v.term FROM search_terms v WHERE v.term >= u.lo AND v.term < u.hi ORDER BY v.term) s ORDER BY u.i, s.term`,
        [wanted.map(([, [lo]]) => lo), wanted.map(([, [, hi]]) => hi)],
      )).rows;
      // Migration 16 left the words with another character than a letter or a digit: never typo neighbours.
      for (const r of rows) if (isVocabularyTerm(r.term)) found[r.i - 1]?.push(r.term);
      wanted.forEach(([k], i) => this.ranges.set(k, found[i] ?? []));
    }
    if (m.probes.size > 0) {
      const wanted = [...m.probes];
      const found = new Set((await c.query<{ i: number }>(
        `SELECT u.i FROM unnest($1::text[]) WITH ORDINALITY AS u(q, i)
         WHERE EXISTS (SELECT 1 FROM search_org_docs WHERE doc @@ u.q::tsquery)`,
        [wanted.map(([, probe]) => tsAny(probe.alternatives, orgWeights(visibilityTier(probe.visible))))],
      )).rows.map((r) => r.i));
      wanted.forEach(([k], i) => this.probes.set(k, found.has(i + 1)));
    }
    if (m.parts.size > 0) {
      const wanted = [...m.parts];
      const rows = (await c.query<PgPartRow>('SELECT * FROM parts WHERE pk = ANY($1::bigint[])', [wanted])).rows;
      for (const doc of wanted) this.parts.set(doc, undefined);
      for (const r of rows) this.parts.set(r.pk, partFromPgRow(r));
    }
  }

  private async loadPostings(c: PgClient, wanted: ReadonlyMap<number, string>): Promise<void> {
    const ids = [...wanted.keys()].filter((id) => !this.postings.has(id));
    if (ids.length === 0) return;
    const byTerm = new Map<number, { data: Uint8Array; firstDoc: number }[]>();
    for (const id of ids) byTerm.set(id, []);
    const rows = await c.query<{ term_id: number; first_doc: number; data: Buffer }>(
      'SELECT term_id, first_doc, data FROM engine_postings WHERE term_id = ANY($1::int[]) ORDER BY term_id, first_doc', [ids],
    );
    for (const r of rows.rows) byTerm.get(r.term_id)?.push({ data: r.data, firstDoc: r.first_doc });
    for (const [id, blocks] of byTerm) {
      const { docs, tf } = decodeTermBlocks(blocks);
      const entry: CachedTerm = { docs, tf, weight: groupZeroWeight(wanted.get(id) ?? ''), tiers: [] };
      this.postings.set(id, entry);
      this.cachedPostings += entry.docs.length;
    }
    // Least recently used first; never the lists this search is about to use.
    for (const [old] of this.postings) {
      if (this.cachedPostings <= CACHE_POSTINGS) break;
      if (wanted.has(old)) continue;
      this.evict(old);
    }
  }

  private evict(id: number): void {
    const entry = this.postings.get(id);
    if (!entry) return;
    this.cachedPostings -= entry.docs.length;
    this.postings.delete(id);
  }

  /** The committed engine version (one autocommit statement). */
  async committedVersion(db: { query<R extends object>(text: string): Promise<R[]> }): Promise<number> {
    return (await db.query<{ version: number }>('SELECT version FROM engine_stats WHERE id = 0'))[0]?.version ?? -1;
  }

  /**
   * Brings the kept answers up to a version whose writes added `terms` or changed their postings
   * ({@link REFRESH}): a term is no longer absent; a kept prefix range it begins takes it in
   * (core term-range.ts withTerm: a new array, so what the engine made of the old one is made
   * again), and a prefix found empty is not; the typo candidates looked up under its typo keys
   * and the vocabulary ranges holding it are forgotten. The per-organization probes are forgotten
   * (those values are not engine terms); part rows go with their chunks (refresh). Too many terms
   * named: everything is forgotten.
   */
  private keepAnswersThrough(terms: readonly TermRow[]): void {
    this.probes.clear();
    if (terms.length > MAX_NAMED_TERMS) {
      this.forgetAnswers();
      return;
    }
    for (const row of terms) {
      const { term } = row;
      this.absentTerms.delete(term);
      takeIntoRanges(row, (prefix) => this.prefixTerms.get(prefix), (prefix, range) => this.prefixTerms.set(prefix, range), this.longestPrefix);
      // A prefix found empty begins a term now (the answer for a prefix whose range is kept is that range's).
      for (let end = 0; end <= Math.min(term.length, this.longestPrefix); end++) {
        const prefix = term.slice(0, end);
        if (this.prefixKnown.get(prefix) === false) this.prefixKnown.set(prefix, true);
      }
      if (isVocabularyTerm(term)) {
        for (const key of lookupKeys(term)) {
          for (const entry of this.typoByKey.get(key) ?? []) this.typo.delete(entry);
          this.typoByKey.delete(key);
        }
      }
      for (const k of this.ranges.keys()) {
        const [lo = '', hi = ''] = k.split('\u0000');
        if (compareBinary(lo, term) <= 0 && compareBinary(term, hi) < 0) this.ranges.delete(k);
      }
    }
  }

  /**
   * The refresh of this reader's loaded version ({@link REFRESH}) as a text without parameters,
   * for a caller that sends it with BEGIN in one round trip (PgSearchIndex.runBatch), then hands
   * its rows to {@link runAll}.
   */
  refreshStatement(): string {
    return REFRESH.replaceAll('$1', String(Math.trunc(this.loadedVersion)));
  }

  /**
   * Brings the doc arrays, statistics and caches up to the snapshot's committed version, from
   * `rows`: {@link REFRESH} of the loaded version, read in `c`'s snapshot (one statement: the
   * statistics, and what moved since the loaded version; nothing when it has not, no term list
   * for a reader that has loaded nothing yet).
   */
  private async refresh(c: PgClient, rows: readonly RefreshRow[]): Promise<void> {
    const stats = rows.find((r) => r.kind === 0);
    if (!stats) throw new Error('engine_stats is missing (PostgreSQL migration 4)');
    if (this.answers > MAX_ANSWERS) this.forgetAnswers();
    if (stats.version === this.loadedVersion) return;
    this.misses = noMisses();
    let chunks = rows.filter((r) => r.kind === 2);
    if (stats.rebuilt !== this.loadedRebuild || stats.version < this.loadedVersion) {
      // Rebuilt (or an older snapshot): nothing cached holds, and every chunk is read (already,
      // by a reader that had loaded nothing).
      if (this.loadedVersion >= 0) chunks = (await c.query<RefreshRow>('SELECT 2 AS kind, chunk AS id, data FROM engine_docs')).rows;
      this.forgetTerms();
      this.loadedVersion = -1;
      this.docs.clear();
    } else {
      if (this.loadedVersion >= 0 && stats.version - this.loadedVersion > EMPTIED_TERMS_KEPT_VERSIONS) {
        // A term emptied after the loaded version may have left engine_terms since: nothing shows
        // this reader that the list it kept is gone, so it forgets every term it kept.
        this.forgetTerms();
      }
      const changed = rows.filter((r) => r.kind === 1).map((r) => ({ id: r.id, term: fromPgTerm(r.term ?? '') }));
      for (const r of changed) {
        this.evict(r.id);
        // A term that left the dictionary and came back has a new id.
        const known = this.termIds.get(r.term);
        if (known !== undefined && known !== r.id) {
          this.evict(known);
          this.termIds.set(r.term, r.id);
        }
      }
      this.keepAnswersThrough(changed);
    }
    for (const r of chunks) {
      if (!r.data) continue;
      this.docs.loadChunk(r.id, r.data);
      // The parts of a changed chunk may have changed (every part write writes its doc's chunk).
      if (this.parts.size > 0) for (let doc = r.id * CHUNK; doc < (r.id + 1) * CHUNK; doc++) this.parts.delete(doc);
    }
    this.n = stats.n;
    this.sumLength = [stats.len0, stats.len1, stats.len2, stats.len3];
    this.loadedVersion = stats.version;
    this.loadedRebuild = stats.rebuilt;
  }
}
