/**
 * The search index of a SQLite catalog (decisions §8; docs/search.md), kept in sync INSIDE the
 * catalog store's write transactions (it is a CatalogWriteListener of SqliteCatalogStore), so a
 * committed part is searchable and a rolled-back one never is.
 *
 * Text is answered by the search engine (src/core/search/engine: exact top-k BM25 with block-max
 * bounds) over its own tables (./engine-store.ts, migration 5); this class resolves a query's words
 * into index terms (prefixes, typo neighbours, phrases), applies the organization rules, and maps
 * hits to result cards.
 *
 * Other tables (migration 4):
 * - `search_cards`: the result fields of a part (id, serviceId, names, timestamps) as one immutable
 *   version per write. Sessions store card ids, so a session shows every hit as it was at search
 *   time; a superseded card is kept 25 hours (sessions live 24).
 * - `search_current`: part rowid -> current card id, and whether the part has per-organization values.
 * - `search_org_docs` (FTS5, rowid = card id): per-organization searchable values of every
 *   organization, only to learn whether a word occurs in any of them (see `planFor`).
 * - `search_terms`, `search_term_keys`: the letter-only vocabulary of names and values and its
 *   one-deletion neighbourhood, for one-typo matching (core/search/typo.ts).
 */
import type { Attribute, LangMap, SearchFacets } from '../../../api/schemas.js';
import { viewPart } from '../../../core/catalog/parts.js';
import { compareBinary } from '../../../core/search/rank.js';
import type { Clock, SearchIndex } from '../../../core/ports.js';
import { buildOrgDocument, ORG_VALUE_COLUMNS } from './org-document.js';
import { canSeeVisibility, VISIBILITY_ORDER } from '../../../core/permissions.js';
import { evaluatePart, valuePasses, wordsInDefaults } from '../../../core/search/match.js';
import { ftsClause } from './fts-query.js';
import { deletionVariants, hasTypoKeys, lookupKeys, lookupKeys2, typoNeighbours } from '../../../core/search/typo.js';
import { filterValueMatches, foldFilterValue, langTexts, tokenize } from '../../../core/search/text.js';
import type { SqliteDatabase } from '../database.js';
import type { CatalogWriteListener } from '../write-listeners.js';
import { partFromRow, type PartRow } from '../part-rows.js';
import type { RankedHits, StoredPart, TextSearchQuery, Alternative, ExpandedWord, QueryWord, ResultCard, SearchFilter } from '../../../core/model.js';
import type { Visibility } from '../../../api/schemas.js';
import { averageLength, ID_WEIGHT, idf, NAME_WEIGHT } from '../../../core/search/engine/bm25.js';
import { buildEngineDocument, filterTerm, HOLDER_TERM, ID_MARK, type EngineDocument } from '../../../core/search/engine/document.js';
import { andWords, compareRanked, materializeWord, orWords, scoredWord, SYNONYM, topK, TYPO, type DocData, type MaterializedWord, type RankedDoc, type TermList } from '../../../core/search/engine/topk.js';
import { EngineStore } from './engine-store.js';

/** Per-organization value columns of search_org_docs, by visibility. */

/** The ascending doc ids in every one of `sets` (galloping from the shortest). */
function intersect(sets: readonly Int32Array[]): number[] {
  const sorted = [...sets].sort((x, y) => x.length - y.length);
  const first = sorted[0];
  if (!first) return [];
  const out: number[] = [];
  const pos = sorted.map(() => 0);
  outer: for (let i = 0; i < first.length; i++) {
    const doc = first[i] ?? 0;
    for (let s = 1; s < sorted.length; s++) {
      const set = sorted[s] as Int32Array;
      let p = pos[s] ?? 0;
      while (p < set.length && (set[p] ?? 0) < doc) p++;
      pos[s] = p;
      if (p >= set.length) break outer;
      if (set[p] !== doc) continue outer;
    }
    out.push(doc);
  }
  return out;
}

/** A superseded card is kept this long (sessions live 24 h; one hour of margin for clock skew). */
export const CARD_RETENTION_MICROS = 25 * 3600 * 1_000_000;
/** How often (at most) a writer deletes expired cards. */
const GC_INTERVAL_MICROS = 10 * 60 * 1_000_000;
/** Expired cards deleted per collection. */
const GC_BATCH = 5000;
/** Terms remembered as already in the vocabulary (a cache; clearing it only costs lookups). */
const KNOWN_TERMS_CAP = 20_000;
/** A full rebuild writes the engine's gathered changes every this many parts (bounded memory). */
const REBUILD_FLUSH = 2000;
/**
 * The layout of the index this code writes and reads; a catalog indexed with another layout is
 * re-indexed on open. 3: the search engine (migration 5).
 */
const INDEX_LAYOUT = '3';

/**
 * The visibility tier of a caller: the narrowest level it sees. Visibility is nested (every level
 * sees the wider ones, core/permissions.ts), so the visible levels are tiers 0..tier.
 */
export function visibilityTier(visible: readonly Visibility[]): number {
  let tier = 0;
  for (const v of visible) tier = Math.max(tier, VISIBILITY_ORDER.indexOf(v));
  return tier;
}

/** Tuning of search (see docs/search.md). */
export interface SearchIndexOptions {
  clock: Clock;
  /**
   * Ranked hits of this many recent queries are kept until the catalog changes (any write by this
   * connection or another: `total_changes()`, `PRAGMA data_version`). Default 64; 0 turns it off.
   */
  cacheSize?: number;
}

interface CardRow {
  id: number;
  part_id: string;
  service_id: string;
  names: string;
  created_at: number;
  modified_at: number;
}

interface ScoredRow {
  id: number;
  doc: number;
}

/** A word resolved into index term lists for one tier; `undefined` when nothing can match it. */
type ResolvedWord = TermList | MaterializedWord | undefined;

/** The SQLite implementation of the SearchIndex port and the write-side index maintenance. */
export class SqliteSearchIndex implements SearchIndex, CatalogWriteListener {
  private readonly db: SqliteDatabase;
  private readonly clock: Clock;
  private readonly knownTerms = new Set<string>();
  private readonly cacheSize: number;
  /** Query key -> hits, oldest first; valid for `cacheGeneration` only. */
  private readonly cache = new Map<string, RankedHits>();
  private cacheGeneration = '';
  private lastGc = 0;
  private readonly stmt;
  /** The engine's tables (postings, docs, statistics). */
  readonly engine: EngineStore;
  /** Working memory of materializeWord, sized to the doc ids. */
  private scratch = { score: new Float64Array(0), mark: new Uint8Array(0) };

  constructor(db: SqliteDatabase, options: SearchIndexOptions) {
    this.db = db;
    this.clock = options.clock;
    this.cacheSize = options.cacheSize ?? 64;
    this.engine = new EngineStore(db);
    this.stmt = {
      current: db.prepare<[number], { card_id: number; org_doc: number }>('SELECT card_id, org_doc FROM search_current WHERE part_rowid = ?'),
      setCurrent: db.prepare<[number, number, number, number]>(
        'INSERT INTO search_current (part_rowid, card_id, holder, org_doc) VALUES (?, ?, ?, ?) ON CONFLICT(part_rowid) DO UPDATE SET card_id = excluded.card_id, holder = excluded.holder, org_doc = excluded.org_doc',
      ),
      insertCurrent: db.prepare<[number, number, number, number]>('INSERT INTO search_current (part_rowid, card_id, holder, org_doc) VALUES (?, ?, ?, ?)'),
      deleteCurrent: db.prepare<[number]>('DELETE FROM search_current WHERE part_rowid = ?'),
      insertCard: db.prepare<[number, string, string, string, number, number]>(
        'INSERT INTO search_cards (part_rowid, part_id, service_id, names, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      supersede: db.prepare<[number, number]>('UPDATE search_cards SET superseded_at = ? WHERE id = ?'),
      gc: db.prepare<[number]>(`DELETE FROM search_cards WHERE id IN (SELECT id FROM search_cards WHERE superseded_at IS NOT NULL AND superseded_at < ? LIMIT ${GC_BATCH})`),
      insertOrgDoc: db.prepare<[number, string, string, string, string]>('INSERT INTO search_org_docs (rowid, o0, o1, o2, o3) VALUES (?, ?, ?, ?, ?)'),
      deleteOrgDoc: db.prepare<[number]>('DELETE FROM search_org_docs WHERE rowid = ?'),
      insertTerm: db.prepare<[string]>('INSERT OR IGNORE INTO search_terms (term) VALUES (?)'),
      insertTermKey: db.prepare<[string, string]>('INSERT OR IGNORE INTO search_term_keys (key, term) VALUES (?, ?)'),
      typoCandidates: db.prepare<[string], string>('SELECT DISTINCT term FROM search_term_keys WHERE key IN (SELECT value FROM json_each(?))').pluck(),
      termsInRange: db.prepare<[string, string], string>('SELECT term FROM search_terms WHERE term >= ? AND term < ?').pluck(),
      orgProbe: db.prepare<[string], number>('SELECT rowid FROM search_org_docs WHERE search_org_docs MATCH ? LIMIT 1').pluck(),
      everything: db.prepare<[number], ScoredRow>(
        'SELECT cur.card_id AS id, p.rowid_ AS doc FROM parts AS p JOIN search_current AS cur ON cur.part_rowid = p.rowid_ ORDER BY p.part_id LIMIT ?',
      ),
      countEverything: db.prepare<[], number>('SELECT count(*) FROM search_current').pluck(),
      nonHolders: db.prepare<[number], ScoredRow>(
        'SELECT cur.card_id AS id, p.rowid_ AS doc FROM parts AS p JOIN search_current AS cur ON cur.part_rowid = p.rowid_ WHERE cur.holder = 0 ORDER BY p.part_id LIMIT ?',
      ),
      countNonHolders: db.prepare<[], number>('SELECT count(*) FROM search_current WHERE holder = 0').pluck(),
      partByRowid: db.prepare<[number], PartRow>('SELECT * FROM parts WHERE rowid_ = ?'),
      cards: db.prepare<[string], CardRow>('SELECT id, part_id, service_id, names, created_at, modified_at FROM search_cards WHERE id IN (SELECT value FROM json_each(?))'),
      currentCards: db.prepare<[string], { part_id: string; card_id: number }>(
        'SELECT p.part_id AS part_id, cur.card_id AS card_id FROM parts AS p JOIN search_current AS cur ON cur.part_rowid = p.rowid_ WHERE p.part_id IN (SELECT value FROM json_each(?))',
      ),
      partsWithAttribute: db.prepare<[string], PartRow>('SELECT p.* FROM part_attributes AS pa JOIN parts AS p ON p.rowid_ = pa.part_rowid WHERE pa.attribute_id = ?'),
      partsPage: db.prepare<[number, number], PartRow>('SELECT * FROM parts WHERE rowid_ > ? ORDER BY rowid_ LIMIT ?'),
      attributes: db.prepare<[], string>('SELECT body FROM attributes').pluck(),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      totalChanges: db.prepare<[], number>('SELECT total_changes()').pluck(),
      getState: db.prepare<[string], string>('SELECT value FROM search_state WHERE key = ?').pluck(),
      setState: db.prepare<[string, string]>('INSERT INTO search_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    };
    this.rebuildIfPending();
  }

  // -- write side (CatalogWriteListener): runs inside the store's transaction ----------------

  partWritten(rowid: number, part: StoredPart, attributes: ReadonlyMap<string, Attribute>, created: boolean, previous?: StoredPart): void {
    // A new parts row has no card yet (a reused rowid's card was retired when its part was deleted).
    const current = created ? undefined : this.stmt.current.get(rowid);
    if (current) this.retire(current.card_id, current.org_doc === 1, part.modifiedAt);
    const before = current && previous ? buildEngineDocument(previous, attributes) : undefined;
    this.addCard(rowid, part, attributes, current === undefined, before);
    this.collectGarbage(part.modifiedAt);
  }

  partDeleted(rowid: number, previous: StoredPart): void {
    const current = this.stmt.current.get(rowid);
    if (!current) return;
    const now = this.clock.nowMicros();
    this.retire(current.card_id, current.org_doc === 1, now);
    this.stmt.deleteCurrent.run(rowid);
    this.engine.remove(rowid, buildEngineDocument(previous, this.loadAttributes()));
    this.collectGarbage(now);
  }

  beforeCommit(): void {
    this.engine.flush();
  }

  rolledBack(): void {
    this.engine.discard();
  }

  /**
   * What a part's index entry holds depends on searchable, filterable, visibility and
   * per_org_values: a change of any of them re-indexes every part with a value for the attribute,
   * in this same transaction (cost: about one part write per such part). default_value and
   * org_visibility are applied at query time and need nothing here.
   */
  attributeWritten(before: Attribute | undefined, after: Attribute): void {
    if (!before) return;
    const changed = before.searchable !== after.searchable || before.filterable !== after.filterable
      || before.visibility !== after.visibility || before.per_org_values !== after.per_org_values;
    if (!changed) return;
    const attributes = this.loadAttributes();
    const old = new Map(attributes);
    old.set(before.attribute_id, before);
    for (const row of this.stmt.partsWithAttribute.all(after.attribute_id)) {
      const current = this.stmt.current.get(row.rowid_);
      if (!current) continue;
      if (current.org_doc === 1) this.stmt.deleteOrgDoc.run(current.card_id);
      const part = partFromRow(row);
      const doc = buildOrgDocument(part, attributes);
      this.stmt.setCurrent.run(row.rowid_, current.card_id, doc.holder ? 1 : 0, doc.orgValues ? 1 : 0);
      if (doc.orgValues) this.stmt.insertOrgDoc.run(current.card_id, ...doc.orgValues);
      this.addTerms(doc.terms);
      this.engine.put(row.rowid_, part.part_id, current.card_id, buildEngineDocument(part, attributes), buildEngineDocument(part, old));
    }
  }

  /** Marks the index for a full rebuild and rebuilds it now (one immediate transaction). */
  rebuild(): void {
    this.stmt.setState.run('rebuild', 'pending');
    this.rebuildIfPending();
  }

  private addCard(rowid: number, part: StoredPart, attributes: ReadonlyMap<string, Attribute>, fresh: boolean, before: EngineDocument | undefined): void {
    const cardId = Number(this.stmt.insertCard.run(rowid, part.part_id, part.serviceId, JSON.stringify(part.name), part.createdAt, part.modifiedAt).lastInsertRowid);
    const doc = buildOrgDocument(part, attributes);
    (fresh ? this.stmt.insertCurrent : this.stmt.setCurrent).run(rowid, cardId, doc.holder ? 1 : 0, doc.orgValues ? 1 : 0);
    if (doc.orgValues) this.stmt.insertOrgDoc.run(cardId, ...doc.orgValues);
    this.addTerms(doc.terms);
    this.engine.put(rowid, part.part_id, cardId, buildEngineDocument(part, attributes), before);
  }

  private retire(cardId: number, hasOrgDoc: boolean, now: number): void {
    this.stmt.supersede.run(now, cardId);
    if (hasOrgDoc) this.stmt.deleteOrgDoc.run(cardId);
  }

  /** Adds new words to the typo vocabulary: the word under itself and under each one-letter deletion. */
  private addTerms(terms: readonly string[]): void {
    for (const term of terms) {
      if (this.knownTerms.has(term)) continue;
      if (this.stmt.insertTerm.run(term).changes > 0 && hasTypoKeys(term)) {
        this.stmt.insertTermKey.run(term, term);
        for (const key of deletionVariants(term)) this.stmt.insertTermKey.run(key, term);
      }
      // A cache of "already stored"; should this transaction roll back, the only loss is a
      // missing typo neighbour for a word until this process restarts.
      if (this.knownTerms.size >= KNOWN_TERMS_CAP) this.knownTerms.clear();
      this.knownTerms.add(term);
    }
  }

  private collectGarbage(now: number): void {
    if (now - this.lastGc < GC_INTERVAL_MICROS) return;
    this.lastGc = now;
    this.stmt.gc.run(now - CARD_RETENTION_MICROS);
  }

  private loadAttributes(): Map<string, Attribute> {
    return new Map(this.stmt.attributes.all().map((body) => {
      const a = JSON.parse(body) as Attribute;
      return [a.attribute_id, a];
    }));
  }

  /** Indexes every part when a migration (or rebuild()) asked for it; another process may have done it already. */
  private rebuildIfPending(): void {
    const pending = () => this.stmt.getState.get('rebuild') === 'pending' || this.stmt.getState.get('layout') !== INDEX_LAYOUT;
    if (!pending()) return;
    this.db.transaction(() => {
      if (!pending()) return;
      try {
        const now = this.clock.nowMicros();
        this.db.prepare("INSERT INTO search_org_docs (search_org_docs) VALUES ('delete-all')").run();
        this.db.prepare('UPDATE search_cards SET superseded_at = ? WHERE superseded_at IS NULL').run(now);
        this.db.prepare('DELETE FROM search_current').run();
        this.engine.clearAll();
        const attributes = this.loadAttributes();
        let sinceFlush = 0;
        for (let after = 0; ;) {
          const rows = this.stmt.partsPage.all(after, 1000);
          for (const row of rows) this.addCard(row.rowid_, partFromRow(row), attributes, true, undefined);
          sinceFlush += rows.length;
          if (sinceFlush >= REBUILD_FLUSH) {
            this.engine.flush();
            sinceFlush = 0;
          }
          const last = rows[rows.length - 1];
          if (!last) break;
          after = last.rowid_;
        }
        this.engine.flush();
        this.stmt.setState.run('rebuild', 'done');
        this.stmt.setState.run('layout', INDEX_LAYOUT);
      } catch (error) {
        this.engine.discard();
        throw error;
      }
    }).immediate();
  }

  // -- read side (SearchIndex) -------------------------------------------------------------

  async searchText(query: TextSearchQuery, maxHits: number): Promise<RankedHits> {
    // One read transaction: every statement reads the same snapshot.
    return this.db.transaction(() => {
      if (this.cacheSize <= 0) return this.searchTextNow(query, maxHits);
      const generation = `${this.stmt.dataVersion.get() ?? 0}:${this.stmt.totalChanges.get() ?? 0}`;
      if (generation !== this.cacheGeneration) {
        this.cache.clear();
        this.cacheGeneration = generation;
      }
      // Everything the answer depends on besides the catalog itself (covered by the generation).
      const key = JSON.stringify([
        query.words, query.visibleValues, query.filters.map((f) => [f.attribute.attribute_id, f.values]), query.ctx.organization ?? null, [...query.ctx.principal.roles].sort(), maxHits,
      ]);
      const cached = this.cache.get(key);
      if (cached) {
        this.cache.delete(key);
        this.cache.set(key, cached);
        return cached;
      }
      const hits = this.searchTextNow(query, maxHits);
      this.cache.set(key, hits);
      if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value ?? '');
      return hits;
    })();
  }

  /**
   * A word the catalog knows is taken as typed; but when that finds nothing at all, the search is
   * run once more with typo neighbours for every eligible word, known or not (a real word can be
   * someone's typo: pci.ids spells "Contoller" once, so "ethernet contoller" would otherwise find
   * nothing).
   */
  private searchTextNow(query: TextSearchQuery, maxHits: number): RankedHits {
    const { total, docs } = this.matchingDocs(query, maxHits);
    return { total, cardIds: docs.map((doc) => this.engine.card[doc] ?? 0) };
  }

  /** The ranked doc ids (at most `maxHits`) and the total, with the typo retry of searchTextNow. */
  private matchingDocs(query: TextSearchQuery, maxHits: number): { total: number; docs: number[] } {
    this.engine.refresh();
    const hits = this.searchTextOnce(query, maxHits, false);
    if (hits.total > 0 || query.words.length === 0) return hits;
    return this.searchTextOnce(query, maxHits, true);
  }

  private searchTextOnce(query: TextSearchQuery, maxHits: number, typosForKnownWords: boolean): { total: number; docs: number[] } {
    const { ctx } = query;
    const words = query.words.map((w) => this.expand(w, typosForKnownWords));
    const tier = visibilityTier(query.visibleValues);
    this.phraseAttributes = ctx.attributes;
    if (words.length === 0 && query.filters.length === 0) {
      return { total: this.stmt.countEverything.get() ?? 0, docs: this.stmt.everything.all(Math.min(maxHits, Number.MAX_SAFE_INTEGER)).map((r) => r.doc) };
    }
    // Filters: one doc set per filter (values OR-ed); per-organization ones are decided per part below.
    const shared: Int32Array[] = [];
    const orgFilters: SearchFilter[] = [];
    for (const filter of query.filters) {
      if (!canSeeVisibility(ctx.principal, filter.attribute.visibility) || filter.values.length === 0) return { total: 0, docs: [] };
      if (filter.attribute.per_org_values) orgFilters.push(filter);
      else shared.push(this.docSet(filter.values.flatMap((v) => this.filterTerms(filter.attribute.attribute_id, v))));
    }
    const orgColumns = query.visibleValues.map((v) => ORG_VALUE_COLUMNS[v]);
    const inOrgText = words.map((w) => orgColumns.length > 0 && this.stmt.orgProbe.get(ftsClause([...w.alternatives, ...(w.synonyms ?? [])], orgColumns)) !== undefined);
    // A multi-word synonym in some organization's value: the run's parts must be evaluated one by one too.
    words.forEach((w, i) => {
      const span = w.word.synonymSpan;
      if (!span || orgColumns.length === 0 || this.stmt.orgProbe.get(ftsClause(span.alternatives, orgColumns)) === undefined) return;
      for (let j = i; j < i + span.count && j < words.length; j++) inOrgText[j] = true;
    });
    const inDefaults = wordsInDefaults(words, ctx);
    const orgSensitive = orgFilters.length > 0 || words.some((_, i) => inDefaults[i] === true || inOrgText[i] === true);
    const data = this.docData(tier);
    const resolvedWords = words.map((w) => this.resolve(w, tier, data));
    const resolved = this.withSpans(words, resolvedWords, tier, data, () => true, false);

    if (!orgSensitive) {
      if (resolved.some((r) => r === undefined)) return { total: 0, docs: [] };
      const { total, hits } = topK({ words: resolved as (TermList | MaterializedWord)[], filters: shared }, data, maxHits);
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
        total = this.stmt.countNonHolders.get() ?? 0;
        ranked = this.stmt.nonHolders.all(maxHits).map((r) => ({ doc: r.doc, tier: 1, score: 0, key: this.engine.key[r.doc] ?? 0 }));
      } else if (!positive.some((r) => r === undefined)) {
        const found = topK({ words: positive as (TermList | MaterializedWord)[], filters: shared, exclude: holders }, data, maxHits);
        total = found.total;
        ranked = found.hits;
      }
    }
    const narrowed = this.withSpans(words, resolvedWords, tier, data, (i) => inDefaults[i] !== true && inOrgText[i] !== true, true);
    if (!narrowed.some((r) => r === undefined)) {
      const candidates = topK({ words: narrowed as (TermList | MaterializedWord)[], filters: [...shared, holders] }, data, Number.MAX_SAFE_INTEGER);
      for (const hit of candidates.hits) {
        const row = this.stmt.partByRowid.get(hit.doc);
        if (!row) continue;
        const result = evaluatePart(partFromRow(row), words, query.filters, ctx);
        if (!result.matches) continue;
        total++;
        ranked.push({ ...hit, tier: (result.namesTier ? 0 : 1) | (result.synonym ? 2 : 0) | (result.typo ? 4 : 0) });
      }
    }
    ranked.sort(compareRanked);
    return { total, docs: ranked.slice(0, maxHits).map((h) => h.doc) };
  }

  /**
   * Facet counts (issue 13; docs/search.md, Facets): for each attribute, how many of ALL the hits
   * of `query` hold each value (folded as filters fold, shown as first stored), most frequent first,
   * ties by folded value in binary order, at most `maxValues`. An attribute the caller may not see,
   * or not filterable, counts nothing. Shared attributes are counted from their filter terms'
   * posting lists against the hit set (cost: the attribute's distinct values × their postings);
   * per-organization ones from each hit's view (`viewPart`: own, inherited, default), one part read
   * per hit.
   */
  async facets(query: TextSearchQuery, attributes: readonly Attribute[], maxValues: number, valuePrefix = ''): Promise<SearchFacets> {
    const foldedPrefix = foldFilterValue(valuePrefix);
    return this.db.transaction(() => {
      const { docs } = this.matchingDocs(query, Number.MAX_SAFE_INTEGER);
      const hit = new Uint8Array(this.engine.docCapacity + 1);
      for (const doc of docs) hit[doc] = 1;
      const out: SearchFacets = {};
      const parts = new Map<number, StoredPart | undefined>();
      const partOf = (doc: number): StoredPart | undefined => {
        if (!parts.has(doc)) {
          const row = this.stmt.partByRowid.get(doc);
          parts.set(doc, row ? partFromRow(row) : undefined);
        }
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
          for (const t of this.engine.termsWithPrefix(prefix + foldedPrefix)) {
            let count = 0;
            let first = -1;
            for (const doc of this.engine.termForTier(t.id, t.term, 0).docs) {
              if (hit[doc] !== 1) continue;
              if (count++ === 0) first = doc;
            }
            if (count > 0) counts.set(t.term.slice(prefix.length), { count, doc: first });
          }
        } else {
          for (const doc of docs) {
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
        out[id] = top.map(([folded, c]) => ({ value: c.shown ?? this.storedValue(partOf(c.doc), id, folded) ?? folded, count: c.count }));
      }
      return out;
    })();
  }

  /** The stored text of a part's value of `attributeId` that folds to `folded` (any language). */
  private storedValue(part: StoredPart | undefined, attributeId: string, folded: string): string | undefined {
    for (const entry of part?.attributes ?? []) {
      if (entry.attribute_id !== attributeId) continue;
      for (const value of entry.values) for (const text of langTexts(value.value)) if (foldFilterValue(text) === folded) return text;
    }
    return undefined;
  }

  /**
   * The filter terms a filter value selects (issue 13): the value itself and every stored value it
   * begins as whole words (`intel` → `intel corporation`), both folded (text.ts filterValueMatches).
   */
  private filterTerms(attributeId: string, value: string): string[] {
    const exact = filterTerm(attributeId, value);
    const prefix = filterTerm(attributeId, '');
    const out = [exact];
    for (const t of this.engine.termsWithPrefix(exact)) {
      if (t.term !== exact && filterValueMatches(t.term.slice(prefix.length), exact.slice(prefix.length))) out.push(t.term);
    }
    return out;
  }

  /** The per-doc arrays of tier `tier` for the scorer. */
  private docData(tier: number): DocData {
    return { dl: this.engine.dl[tier] ?? new Float64Array(0), key: this.engine.key, avgdl: averageLength({ n: this.engine.n, sumLength: this.engine.sumLength[tier] ?? 0 }) };
  }

  /** The ascending doc ids holding any of `terms` (filter and marker terms). */
  private docSet(terms: readonly string[]): Int32Array {
    const lists: Int32Array[] = [];
    for (const term of new Set(terms)) {
      const id = this.engine.termId(term);
      if (id !== undefined) lists.push(this.engine.termForTier(id, term, 0).docs);
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
   * A word's ways to match: itself (the last word as a prefix: every indexed word it begins); and,
   * when it is a word of ≥ 5 letters that the index does not know (as a prefix, for the last word),
   * its neighbours within one edit (with `typosForKnownWords`, for known words too). In the part id:
   * itself (a prefix for the last word).
   */
  private expand(word: QueryWord, typosForKnownWords = false): ExpandedWord {
    const alternatives: Alternative[] = [{ tokens: word.tokens, prefix: word.prefix }];
    const token = word.tokens[0];
    if (word.typo && token !== undefined) {
      const known = word.prefix ? this.engine.hasPrefix(token) : this.engine.termId(token) !== undefined;
      if (!known || typosForKnownWords) {
        // Two typos (issue 13): the vocabulary keeps one-deletion keys only, so besides them the
        // words beginning with the same letter are checked (docs/search.md, Typos).
        const maxTypos = word.maxTypos ?? 1;
        const candidates = this.stmt.typoCandidates.all(JSON.stringify(maxTypos === 2 ? lookupKeys2(token) : lookupKeys(token)));
        if (maxTypos === 2) {
          const first = String.fromCodePoint(token.codePointAt(0) ?? 0);
          candidates.push(...this.stmt.termsInRange.all(first, `${first}\u{10FFFF}`));
        }
        for (const neighbour of typoNeighbours(token, candidates, maxTypos)) {
          alternatives.push({ tokens: [neighbour], prefix: word.prefix });
        }
      }
    }
    return { word, alternatives, idAlternatives: [{ tokens: word.tokens, prefix: word.prefix }], ...(word.synonyms ? { synonyms: word.synonyms } : {}) };
  }

  /**
   * The resolved words of a query with its multi-word synonyms (issue 13; QueryWord.synonymSpan):
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
   * A word as one scored list for tier `tier`: the term lists of its alternatives (names and values,
   * then the id; each distinct term once), materialized when there are several. Undefined when no
   * term of it is indexed for this tier.
   */
  private resolve(word: ExpandedWord, tier: number, data: DocData, allFlag = 0): ResolvedWord {
    const lists: TermList[] = [];
    const seen = new Set<string>();
    // A typo neighbour's postings carry the TYPO flag, a synonym's the SYNONYM flag: exact matches rank above them (issue 13).
    const push = (view: { docs: Int32Array; wtf: Float64Array; names: Uint8Array }, typo: number) => {
      if (view.docs.length === 0) return;
      lists.push({ ...view, names: typo !== 0 ? view.names.map((f) => f | typo) : view.names, idf: idf(this.engine.n, view.docs.length) });
    };
    const addTerm = (term: string, typo: number) => {
      if (seen.has(term)) return;
      seen.add(term);
      const id = this.engine.termId(term);
      if (id === undefined) return;
      push(this.engine.termForTier(id, term, tier), typo);
    };
    const addPrefix = (prefix: string, typo: number) => {
      for (const t of this.engine.termsWithPrefix(prefix)) {
        if (seen.has(t.term)) continue;
        seen.add(t.term);
        push(this.engine.termForTier(t.id, t.term, tier), typo);
      }
    };
    const add = (alternative: Alternative, mark: string, typo: number) => {
      if (alternative.tokens.length > 1) {
        const key = `${mark}\u0000${alternative.tokens.join(' ')}`;
        if (seen.has(key)) return;
        seen.add(key);
        const phrase = this.phrase(alternative, mark, tier);
        if (phrase) lists.push(typo !== 0 ? { ...phrase, names: phrase.names.map((f) => f | typo) } : phrase);
      } else if (alternative.prefix) addPrefix(mark + (alternative.tokens[0] ?? ''), typo);
      else addTerm(mark + (alternative.tokens[0] ?? ''), typo);
    };
    // alternatives[0] is the word itself, the others its typo neighbours (expand); then its synonyms.
    word.alternatives.forEach((a, i) => add(a, '', allFlag !== 0 ? allFlag : i > 0 ? TYPO : 0));
    for (const a of word.synonyms ?? []) add(a, '', SYNONYM);
    for (const a of word.idAlternatives) add(a, ID_MARK, 0);
    if (lists.length === 0) return undefined;
    if (lists.length === 1) return lists[0];
    if (this.scratch.score.length < this.engine.docCapacity) {
      this.scratch = { score: new Float64Array(this.engine.docCapacity), mark: new Uint8Array(this.engine.docCapacity) };
    }
    return materializeWord(lists, data, this.scratch);
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
      const terms = last && alternative.prefix ? this.engine.termsWithPrefix(mark + token).map((t) => t.term) : [mark + token];
      sets.push(this.docSet(terms));
    });
    sets.sort((x, y) => x.length - y.length);
    const docs: number[] = [];
    const wtf: number[] = [];
    const names: number[] = [];
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
      const row = this.stmt.partByRowid.get(doc);
      if (!row) continue;
      const part = partFromRow(row);
      let w = 0;
      let inNames = 0;
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
          for (const value of entry.values) for (const text of langTexts(value.value)) w += matches(tokenize(text));
        }
      }
      if (w > 0) {
        docs.push(doc);
        wtf.push(w);
        names.push(inNames);
      }
    }
    if (docs.length === 0) return undefined;
    return { docs: Int32Array.from(docs), wtf: Float64Array.from(wtf), names: Uint8Array.from(names), idf: idf(this.engine.n, docs.length) };
  }

  /** Attribute definitions for phrase checks (the query's view context). */
  private phraseAttributes: ReadonlyMap<string, Attribute> | undefined;

  async readCards(cardIds: readonly number[]): Promise<ResultCard[]> {
    if (cardIds.length === 0) return [];
    const byId = new Map(this.stmt.cards.all(JSON.stringify(cardIds)).map((r) => [r.id, r]));
    return cardIds.flatMap((id) => {
      const r = byId.get(id);
      return r ? [{ cardId: r.id, partId: r.part_id, serviceId: r.service_id, names: JSON.parse(r.names) as LangMap, createdAt: r.created_at, modifiedAt: r.modified_at }] : [];
    });
  }

  async currentCards(partIds: readonly string[]): Promise<Map<string, number>> {
    if (partIds.length === 0) return new Map();
    return new Map(this.stmt.currentCards.all(JSON.stringify(partIds)).map((r) => [r.part_id, r.card_id]));
  }
}
