/**
 * The search index over SQLite FTS5 (decisions §8; docs/search.md), kept in sync INSIDE the
 * catalog store's write transactions (it is a CatalogWriteListener of SqliteCatalogStore), so a
 * committed part is searchable and a rolled-back one never is.
 *
 * Tables (migration 4):
 * - `search_cards`: the result fields of a part (id, serviceId, names, timestamps) as one immutable
 *   version per write. Sessions store card ids, so a session shows every hit as it was at search
 *   time for the price of 8 bytes per hit; a superseded card is kept 25 hours (sessions live 24).
 * - `search_current`: part rowid -> current card id, and whether the part has per-organization values.
 * - `search_docs` (FTS5, contentless): id, names, value columns by visibility, filter tokens,
 *   holder marker (see ./document.ts), one row per distinct view of a card, rowid =
 *   `card id × 16 + lo × 4 + hi` for the visibility tiers lo..hi the row serves (docRowid). A query
 *   reads only the rows of its caller's tier, so BM25's length normalisation counts only what the
 *   caller may see. The rowid order is the "static order" (most recently written first) used to
 *   bound ranking work for very frequent words.
 * - `search_org_docs` (FTS5, rowid = card id): per-organization searchable values of every
 *   organization, only to learn whether a word occurs in any of them (plan.ts).
 * - `search_terms`, `search_term_keys`: the letter-only vocabulary of names and values and its
 *   one-deletion neighbourhood, for one-typo matching (core/search/typo.ts).
 */
import type { Attribute, LangMap } from '../../../api/schemas.js';
import type { Clock, SearchIndex } from '../../../core/ports.js';
import { buildSearchDocument, ORG_VALUE_COLUMNS, type SearchDocument } from './document.js';
import type { Visibility } from '../../../api/schemas.js';
import { VISIBILITY_ORDER } from '../../../core/permissions.js';
import { evaluatePart } from '../../../core/search/match.js';
import { planTextSearch, type FtsQuery } from './plan.js';
import { ftsClause } from './fts-query.js';
import { orderHits, type ScoredHit } from '../../../core/search/rank.js';
import { deletionVariants, hasTypoKeys, isVocabularyTerm, lookupKeys, typoNeighbours } from '../../../core/search/typo.js';
import type { SqliteDatabase } from '../database.js';
import type { CatalogWriteListener } from '../write-listeners.js';
import { partFromRow, type PartRow } from '../part-rows.js';
import type { RankedHits, StoredPart, TextSearchQuery, Alternative, ExpandedWord, QueryWord, ResultCard } from '../../../core/model.js';

/** A superseded card is kept this long (sessions live 24 h; one hour of margin for clock skew). */
export const CARD_RETENTION_MICROS = 25 * 3600 * 1_000_000;
/** How often (at most) a writer deletes expired cards. */
const GC_INTERVAL_MICROS = 10 * 60 * 1_000_000;
/** Expired cards deleted per collection. */
const GC_BATCH = 5000;
/** Terms remembered as already in the vocabulary (a cache; clearing it only costs lookups). */
const KNOWN_TERMS_CAP = 20_000;
/** A last word expanding to at most this many vocabulary words is matched as those words. */
const PREFIX_EXPANSION_LIMIT = 64;
/** Above every string this program stores (U+10FFFF), for prefix ranges. */
const MAX_CHAR = '\u{10FFFF}';
/**
 * The layout of `search_docs` this code writes and reads; a catalog indexed with another layout is
 * re-indexed on open. 2: one row per view (docRowid), `meta` always one token.
 */
const DOC_LAYOUT = '2';

/**
 * The search_docs rowid of a card's row serving visibility tiers lo..hi (0 = factoryWorker ..
 * 3 = superAdmin): the card id in the high bits keeps the rowid order the write order.
 */
export function docRowid(cardId: number, lo: number, hi: number): number {
  return cardId * 16 + lo * 4 + hi;
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

/** SQL true for the search_docs rows serving `tier` (the low 4 bits of the rowid encode lo, hi). */
function tierCondition(tier: number): string {
  const nibbles: number[] = [];
  for (let lo = 0; lo <= tier; lo++) for (let hi = tier; hi <= 3; hi++) nibbles.push(lo * 4 + hi);
  return `(rowid & 15) IN (${nibbles.join(', ')})`;
}

/** The statements that read search_docs, for the rows of one visibility tier. */
function tierStatements(db: SqliteDatabase, tier: number) {
  const rows = `search_docs MATCH ? AND ${tierCondition(tier)}`;
  return {
    count: db.prepare<[string], number>(`SELECT count(*) FROM search_docs WHERE ${rows}`).pluck(),
    scored: db.prepare<[string], ScoredRow>(
      `SELECT t.id AS id, t.score AS score, c.part_id AS partId FROM (SELECT rowid >> 4 AS id, rank AS score FROM search_docs WHERE ${rows}) AS t JOIN search_cards AS c ON c.id = t.id`,
    ),
    // FTS5 walks a doclist cheaply newest-first with a LIMIT; a rowid lower bound is not cheaper than all of it.
    scoredNewest: db.prepare<[string, number], ScoredRow>(
      `SELECT t.id AS id, t.score AS score, c.part_id AS partId FROM (SELECT rowid >> 4 AS id, rank AS score FROM search_docs WHERE ${rows} ORDER BY rowid DESC LIMIT ?) AS t JOIN search_cards AS c ON c.id = t.id`,
    ),
    ids: db.prepare<[string], number>(`SELECT rowid >> 4 FROM search_docs WHERE ${rows}`).pluck(),
    newestIds: db.prepare<[string, number], number>(`SELECT rowid >> 4 FROM search_docs WHERE ${rows} ORDER BY rowid DESC LIMIT ?`).pluck(),
    sortedByPartId: db.prepare<[string, number], ScoredRow>(
      `SELECT t.id AS id, 0 AS score, c.part_id AS partId FROM (SELECT rowid >> 4 AS id FROM search_docs WHERE ${rows}) AS t JOIN search_cards AS c ON c.id = t.id ORDER BY c.part_id LIMIT ?`,
    ),
    scanByPartId: db.prepare<[string, number], ScoredRow>(
      `SELECT cur.card_id AS id, 0 AS score, p.part_id AS partId FROM parts AS p JOIN search_current AS cur ON cur.part_rowid = p.rowid_ WHERE cur.card_id IN (SELECT rowid >> 4 FROM search_docs WHERE ${rows}) ORDER BY p.part_id LIMIT ?`,
    ),
    holderCandidates: db.prepare<[string], HolderRow>(
      `SELECT t.id AS id, t.score AS score, p.* FROM (SELECT rowid >> 4 AS id, rank AS score FROM search_docs WHERE ${rows}) AS t JOIN search_cards AS c ON c.id = t.id JOIN parts AS p ON p.rowid_ = c.part_rowid`,
    ),
  };
}
type TierStatements = ReturnType<typeof tierStatements>;

/** Tuning of the ranking work per search (see docs/search.md, "Ranking cost"). */
export interface SearchIndexOptions {
  clock: Clock;
  /** Up to this many hits, every hit is scored with BM25 (about 1 µs each). Default 2,000. */
  fullRankLimit?: number;
  /** Above fullRankLimit, only this many hits (the most recently written) are scored. Default 500. */
  rankWindow?: number;
  /** Filter-only searches sort up to this many hits by part id; more are read in part id order. Default 50,000. */
  sortLimit?: number;
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
  score: number;
  partId: string;
}

interface HolderRow extends PartRow {
  id: number;
  score: number;
}

interface Ranked {
  total: number;
  scored: ScoredHit[];
  unscored0: number[];
  unscored1: number[];
}

const NO_HITS: Ranked = { total: 0, scored: [], unscored0: [], unscored1: [] };

/** The SQLite implementation of the SearchIndex port and the write-side index maintenance. */
export class SqliteSearchIndex implements SearchIndex, CatalogWriteListener {
  private readonly db: SqliteDatabase;
  private readonly clock: Clock;
  private readonly fullRankLimit: number;
  private readonly rankWindow: number;
  private readonly sortLimit: number;
  private readonly knownTerms = new Set<string>();
  private readonly cacheSize: number;
  /** Query key -> hits, oldest first; valid for `cacheGeneration` only. */
  private readonly cache = new Map<string, RankedHits>();
  private cacheGeneration = '';
  private lastGc = 0;
  private readonly stmt;
  /** Read statements by visibility tier, prepared on first use. */
  private readonly tierStmts: (TierStatements | undefined)[] = [];

  constructor(db: SqliteDatabase, options: SearchIndexOptions) {
    this.db = db;
    this.clock = options.clock;
    this.fullRankLimit = options.fullRankLimit ?? 2000;
    this.rankWindow = Math.min(options.rankWindow ?? 500, this.fullRankLimit);
    this.sortLimit = options.sortLimit ?? 50_000;
    this.cacheSize = options.cacheSize ?? 64;
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
      insertDoc: db.prepare<[number, string, string, string, string, string, string, string, string]>(
        'INSERT INTO search_docs (rowid, pid, names, v0, v1, v2, v3, flt, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      // Every row of a card: rowids card × 16 .. card × 16 + 15.
      deleteDoc: db.prepare<[number, number]>('DELETE FROM search_docs WHERE rowid BETWEEN ? AND ?'),
      insertOrgDoc: db.prepare<[number, string, string, string, string]>('INSERT INTO search_org_docs (rowid, o0, o1, o2, o3) VALUES (?, ?, ?, ?, ?)'),
      deleteOrgDoc: db.prepare<[number]>('DELETE FROM search_org_docs WHERE rowid = ?'),
      insertTerm: db.prepare<[string]>('INSERT OR IGNORE INTO search_terms (term) VALUES (?)'),
      insertTermKey: db.prepare<[string, string]>('INSERT OR IGNORE INTO search_term_keys (key, term) VALUES (?, ?)'),
      term: db.prepare<[string], { term: string }>('SELECT term FROM search_terms WHERE term = ?'),
      termWithPrefix: db.prepare<[string, string], { term: string }>('SELECT term FROM search_terms WHERE term >= ? AND term < ? LIMIT 1'),
      termsWithPrefix: db.prepare<[string, string, number], string>('SELECT term FROM search_terms WHERE term >= ? AND term < ? ORDER BY term LIMIT ?').pluck(),
      typoCandidates: db.prepare<[string], string>('SELECT DISTINCT term FROM search_term_keys WHERE key IN (SELECT value FROM json_each(?))').pluck(),
      orgProbe: db.prepare<[string], number>('SELECT rowid FROM search_org_docs WHERE search_org_docs MATCH ? LIMIT 1').pluck(),
      everything: db.prepare<[number], ScoredRow>(
        'SELECT cur.card_id AS id, 0 AS score, p.part_id AS partId FROM parts AS p JOIN search_current AS cur ON cur.part_rowid = p.rowid_ ORDER BY p.part_id LIMIT ?',
      ),
      countEverything: db.prepare<[], number>('SELECT count(*) FROM search_current').pluck(),
      nonHolders: db.prepare<[number], ScoredRow>(
        'SELECT cur.card_id AS id, 0 AS score, p.part_id AS partId FROM parts AS p JOIN search_current AS cur ON cur.part_rowid = p.rowid_ WHERE cur.holder = 0 ORDER BY p.part_id LIMIT ?',
      ),
      countNonHolders: db.prepare<[], number>('SELECT count(*) FROM search_current WHERE holder = 0').pluck(),
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

  partWritten(rowid: number, part: StoredPart, attributes: ReadonlyMap<string, Attribute>, created: boolean): void {
    // A new parts row has no card yet (a reused rowid's card was retired when its part was deleted).
    const current = created ? undefined : this.stmt.current.get(rowid);
    if (current) this.retire(current.card_id, current.org_doc === 1, part.modifiedAt);
    this.addCard(rowid, part, attributes, current === undefined);
    this.collectGarbage(part.modifiedAt);
  }

  partDeleted(rowid: number): void {
    const current = this.stmt.current.get(rowid);
    if (!current) return;
    const now = this.clock.nowMicros();
    this.retire(current.card_id, current.org_doc === 1, now);
    this.stmt.deleteCurrent.run(rowid);
    this.collectGarbage(now);
  }

  /**
   * Which column a value lands in depends on searchable, filterable, visibility and
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
    for (const row of this.stmt.partsWithAttribute.all(after.attribute_id)) {
      const current = this.stmt.current.get(row.rowid_);
      if (!current) continue;
      this.deleteDocs(current.card_id);
      if (current.org_doc === 1) this.stmt.deleteOrgDoc.run(current.card_id);
      const doc = buildSearchDocument(partFromRow(row), attributes);
      this.stmt.setCurrent.run(row.rowid_, current.card_id, doc.holder ? 1 : 0, doc.orgValues ? 1 : 0);
      this.writeDocs(current.card_id, doc);
    }
  }

  /** Marks the index for a full rebuild and rebuilds it now (one immediate transaction). */
  rebuild(): void {
    this.stmt.setState.run('rebuild', 'pending');
    this.rebuildIfPending();
  }

  private addCard(rowid: number, part: StoredPart, attributes: ReadonlyMap<string, Attribute>, fresh: boolean): void {
    const cardId = Number(this.stmt.insertCard.run(rowid, part.part_id, part.serviceId, JSON.stringify(part.name), part.createdAt, part.modifiedAt).lastInsertRowid);
    const doc = buildSearchDocument(part, attributes);
    (fresh ? this.stmt.insertCurrent : this.stmt.setCurrent).run(rowid, cardId, doc.holder ? 1 : 0, doc.orgValues ? 1 : 0);
    this.writeDocs(cardId, doc);
  }

  private deleteDocs(cardId: number): void {
    this.stmt.deleteDoc.run(docRowid(cardId, 0, 0), docRowid(cardId, 3, 3));
  }

  private retire(cardId: number, hasOrgDoc: boolean, now: number): void {
    this.stmt.supersede.run(now, cardId);
    this.deleteDocs(cardId);
    if (hasOrgDoc) this.stmt.deleteOrgDoc.run(cardId);
  }

  private writeDocs(cardId: number, doc: SearchDocument): void {
    for (const row of doc.rows) {
      const [v0, v1, v2, v3] = row.values;
      this.stmt.insertDoc.run(docRowid(cardId, row.lo, row.hi), doc.pid, doc.names, v0, v1, v2, v3, row.flt, doc.meta);
    }
    if (doc.orgValues) this.stmt.insertOrgDoc.run(cardId, ...doc.orgValues);
    this.addTerms(doc.terms);
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

  /** Indexes every part when migration 4 (or rebuild()) asked for it; another process may have done it already. */
  private rebuildIfPending(): void {
    const pending = () => this.stmt.getState.get('rebuild') === 'pending' || this.stmt.getState.get('layout') !== DOC_LAYOUT;
    if (!pending()) return;
    this.db.transaction(() => {
      if (!pending()) return;
      const now = this.clock.nowMicros();
      this.db.prepare("INSERT INTO search_docs (search_docs) VALUES ('delete-all')").run();
      this.db.prepare("INSERT INTO search_org_docs (search_org_docs) VALUES ('delete-all')").run();
      this.db.prepare('UPDATE search_cards SET superseded_at = ? WHERE superseded_at IS NULL').run(now);
      this.db.prepare('DELETE FROM search_current').run();
      const attributes = this.loadAttributes();
      for (let after = 0; ;) {
        const rows = this.stmt.partsPage.all(after, 1000);
        for (const row of rows) this.addCard(row.rowid_, partFromRow(row), attributes, true);
        const last = rows[rows.length - 1];
        if (!last) break;
        after = last.rowid_;
      }
      this.stmt.setState.run('rebuild', 'done');
      this.stmt.setState.run('layout', DOC_LAYOUT);
    }).immediate();
  }

  // -- read side (SearchIndex) -------------------------------------------------------------

  async searchText(query: TextSearchQuery, maxHits: number): Promise<RankedHits> {
    // One read transaction: the count and the hit lists come from the same snapshot.
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
    const hits = this.searchTextOnce(query, maxHits, false);
    if (hits.total > 0 || query.words.length === 0) return hits;
    return this.searchTextOnce(query, maxHits, true);
  }

  private searchTextOnce(query: TextSearchQuery, maxHits: number, typosForKnownWords: boolean): RankedHits {
    const words = query.words.map((w) => this.expand(w, typosForKnownWords));
    const orgColumns = query.visibleValues.map((v) => ORG_VALUE_COLUMNS[v]);
    const inOrgText = words.map((w) => orgColumns.length > 0 && this.stmt.orgProbe.get(ftsClause(w.alternatives, orgColumns)) !== undefined);
    const plan = planTextSearch({ words, inOrgText, visibleValues: query.visibleValues, filters: query.filters, ctx: query.ctx });
    const t = this.tierStatements(visibilityTier(query.visibleValues));
    let ranked: Ranked;
    switch (plan.kind) {
      case 'nothing':
        ranked = NO_HITS;
        break;
      case 'everything':
        ranked = { total: this.stmt.countEverything.get() ?? 0, scored: this.asHits(this.stmt.everything.all(maxHits)), unscored0: [], unscored1: [] };
        break;
      case 'exact':
        ranked = this.rank(t, plan.query, maxHits);
        break;
      case 'split': {
        let nonHolders = NO_HITS;
        if (plan.nonHolders === 'all') {
          nonHolders = { total: this.stmt.countNonHolders.get() ?? 0, scored: this.asHits(this.stmt.nonHolders.all(maxHits)), unscored0: [], unscored1: [] };
        } else if (plan.nonHolders !== 'none') {
          nonHolders = this.rank(t, plan.nonHolders, maxHits);
        }
        const holders = this.verifyHolders(t, plan.holders, words, query);
        ranked = { ...nonHolders, total: nonHolders.total + holders.length, scored: [...nonHolders.scored, ...holders] };
        break;
      }
    }
    return { total: ranked.total, cardIds: orderHits(ranked.scored, ranked.unscored0, ranked.unscored1, maxHits) };
  }

  /**
   * A word's ways to match: itself; for a last word (a prefix) with a letter, the vocabulary words
   * it begins, when there are at most 64 (exact terms are far cheaper for FTS5 than a prefix, which
   * it merges into one doclist per statement); and, when it is a word of ≥ 5 letters that the
   * vocabulary does not know (as a prefix, for the last word), its neighbours within one edit
   * (with `typosForKnownWords`, for known words too).
   */
  private expand(word: QueryWord, typosForKnownWords = false): ExpandedWord {
    let alternatives: Alternative[] = [{ tokens: word.tokens, prefix: word.prefix }];
    const token = word.tokens[0];
    let knownPrefix: boolean | undefined;
    if (word.prefix && word.tokens.length === 1 && token !== undefined && isVocabularyTerm(token)) {
      const terms = this.stmt.termsWithPrefix.all(token, `${token}${MAX_CHAR}`, PREFIX_EXPANSION_LIMIT + 1);
      knownPrefix = terms.length > 0;
      if (terms.length <= PREFIX_EXPANSION_LIMIT) {
        alternatives = [{ tokens: [token], prefix: false }, ...terms.filter((t) => t !== token).map((t) => ({ tokens: [t], prefix: false }))];
      }
    }
    if (word.typo && token !== undefined) {
      const known = word.prefix ? (knownPrefix ?? this.stmt.termWithPrefix.get(token, `${token}${MAX_CHAR}`) !== undefined) : this.stmt.term.get(token) !== undefined;
      if (!known || typosForKnownWords) {
        for (const neighbour of typoNeighbours(token, this.stmt.typoCandidates.all(JSON.stringify(lookupKeys(token))))) {
          alternatives.push({ tokens: [neighbour], prefix: word.prefix });
        }
      }
    }
    return { word, alternatives, idAlternatives: [{ tokens: word.tokens, prefix: word.prefix }] };
  }

  /** The read statements for the rows of one visibility tier (prepared once per tier). */
  private tierStatements(tier: number): TierStatements {
    let statements = this.tierStmts[tier];
    if (!statements) {
      statements = tierStatements(this.db, tier);
      this.tierStmts[tier] = statements;
    }
    return statements;
  }

  private asHits(rows: readonly ScoredRow[]): ScoredHit[] {
    return rows.map((r) => ({ id: r.id, score: r.score, partId: r.partId, tier: 1 }));
  }

  /**
   * Ranks the hits of one full-text query. Up to fullRankLimit hits: every hit scored. Above:
   * the rankWindow most recently written hits are scored and the rest (up to maxHits) follow
   * unscored, newest first: BM25 costs about 1 µs per hit, so scoring every hit of a word in 10 %
   * of a million parts would cost 100 ms. Four statements; only the count reads every hit, the
   * others walk newest-first and stop at their LIMIT.
   * Without words (filters only) hits are ordered by part id.
   */
  private rank(t: TierStatements, query: FtsQuery, maxHits: number): Ranked {
    const total = t.count.get(query.match) ?? 0;
    if (total === 0 || maxHits <= 0) return { ...NO_HITS, total };
    if (query.names === undefined) {
      const rows = total <= this.sortLimit ? t.sortedByPartId.all(query.match, maxHits) : t.scanByPartId.all(query.match, maxHits);
      return { total, scored: this.asHits(rows), unscored0: [], unscored1: [] };
    }
    const tiered = (rows: readonly ScoredRow[], names: ReadonlySet<number>): ScoredHit[] =>
      rows.map((r) => ({ id: r.id, score: r.score, partId: r.partId, tier: names.has(r.id) ? 0 : 1 }));
    if (total <= this.fullRankLimit) {
      return { total, scored: tiered(t.scored.all(query.match), new Set(t.ids.all(query.names))), unscored0: [], unscored1: [] };
    }
    const window = t.scoredNewest.all(query.match, this.rankWindow);
    let floor = Number.MAX_SAFE_INTEGER;
    for (const r of window) if (r.id < floor) floor = r.id;
    // Both lists are newest first; the tier-0 hits among the newest maxHits hits are among the
    // newest maxHits tier-0 hits, so one merge walk splits the hits by tier.
    const names = t.newestIds.all(query.names, maxHits);
    const windowNames = new Set<number>();
    const unscored0: number[] = [];
    const unscored1: number[] = [];
    let n = 0;
    for (const id of t.newestIds.all(query.match, maxHits)) {
      while (n < names.length && (names[n] ?? 0) > id) n++;
      const tier0 = names[n] === id;
      if (id >= floor) {
        if (tier0) windowNames.add(id);
      } else (tier0 ? unscored0 : unscored1).push(id);
    }
    return { total, scored: tiered(window, windowNames), unscored0, unscored1 };
  }

  /** Evaluates each candidate holder exactly, as the caller's organization sees it. */
  private verifyHolders(t: TierStatements, match: string, words: readonly ExpandedWord[], query: TextSearchQuery): ScoredHit[] {
    const hits: ScoredHit[] = [];
    for (const row of t.holderCandidates.all(match)) {
      const result = evaluatePart(partFromRow(row), words, query.filters, query.ctx);
      if (result.matches) hits.push({ id: row.id, score: row.score, partId: row.part_id, tier: result.namesTier ? 0 : 1 });
    }
    return hits;
  }

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
