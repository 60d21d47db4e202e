/**
 * The search index of a SQLite catalog (decisions §8; docs/search.md), kept in sync INSIDE the
 * catalog store's write transactions (it is a CatalogWriteListener of SqliteCatalogStore), so a
 * committed part is searchable and a rolled-back one never is.
 *
 * Text is answered by the search engine (src/core/search/engine: exact top-k BM25)
 * over its own tables (./engine-store.ts, migration 5); this class resolves a query's words
 * into index terms (prefixes, typo neighbours, phrases), applies the organization rules, and maps
 * hits to result cards.
 *
 * Other tables (migration 4):
 * - Result cards (a part's id, serviceId, names, timestamps as of one write) are copied on write
 *   (migration 8): the current version's card is the `parts` row itself, under the card
 *   id `cardId(base, version, rowid)`; `search_cards` holds only copies of superseded versions,
 *   written when a part is replaced or deleted, kept 25 hours (sessions live 24). Sessions store
 *   card ids, so a session shows every hit as it was at search time; storing N new parts writes no
 *   card row at all.
 * - `search_current`: part rowid -> current card id, and whether the part has per-organization values.
 * - `search_org_docs` (FTS5, rowid = card id): per-organization searchable values of every
 *   organization, only to learn whether a word occurs in any of them (see `planFor`).
 * - `search_term_levels`: the typo vocabulary, the letter words of names and values
 *   (core/search/typo.ts isVocabularyTerm), in levels (leveled-terms.ts), for two-typo candidates;
 *   `search_term_keys`: its words' one-deletion neighbourhood, for one-typo matching.
 */
import type { Attribute, LangMap, SearchFacets } from '../../../api/schemas.js';
import type { Clock, SearchIndex } from '../../../core/ports.js';
import { buildOrgDocument, ORG_VALUE_COLUMNS } from './org-document.js';
import { ftsClause } from './fts-query.js';
import { isVocabularyTerm, lookupKeys } from '../../../core/search/typo.js';
import { LRUCache } from 'lru-cache';
import type { SqliteDatabase } from '../database.js';
import type { CatalogWriteListener } from '../write-listeners.js';
import { decodeServiceId, partFromRow, uuidFromHex, type PartRow } from '../part-rows.js';
import type { RankedHits, StoredPart, TextSearchQuery, ResultCard } from '../../../core/model.js';
import { buildEngineDocument, DOCUMENT_FORMAT, type EngineDocument } from '../../../core/search/engine/document.js';
import { preparedOrgDocument, type PreparedPartDocuments } from '../../../core/search/engine/prepared-documents.js';
import { EngineSearcher, type EngineReader } from '../../../core/search/engine/searcher.js';
import { attributeOrderChanges, attributeOrderOf, RANKING_SETTINGS_KEY } from '../../../core/search/ranking-settings.js';
import { CHUNK } from '../../../core/search/engine/doc-chunks.js';
import { EngineStore, WARM_POSTINGS } from './engine-store.js';
import { evenlySpreadIds } from '../../../core/search/evenly-spread-ids.js';
import { frequentTerms, WARM_MAX_TERMS, WARM_MIN_SHARE, WARM_SAMPLE_PARTS } from './warm-terms.js';
import type { TypoKeyRow } from './term-id-cache.js';
import type { TermRow } from '../../../core/search/engine/term-range.js';
import { LeveledTerms } from './leveled-terms.js';
import { CardCache } from './card-cache.js';
import { PART_READ_POSTINGS, ReadLimitExceeded, ReadMeter, VOCABULARY_WORD_POSTINGS } from './read-budget.js';

export { visibilityTier } from '../../../core/search/engine/searcher.js';


/** Rowids below this fit a card id (card ids stay below 2^53: exact in a double, as the engine keeps them). */
export const CARD_ROWID_SPAN = 2 ** 32;
/** Result cards a connection keeps in memory (readCards; ~0.3 KB each). */
const CARD_CACHE_SIZE = 20_000;
/** Cards one readCardsNow call reads at most (the rest in further calls), so none of a call's cards is evicted before it returns. */
const CARD_BATCH = CARD_CACHE_SIZE / 2;
/** Versions of one rowid's card before the numbering wraps (a copy that old is long expired but for >1M writes of one part in 25 h). */
export const CARD_VERSIONS = 2 ** 20;

/**
 * The card id of version `version` (0 ≤ version < CARD_VERSIONS) of the part with `parts.rowid_`
 * `rowid` (1 ≤ rowid < CARD_ROWID_SPAN): `base + version · 2^32 + rowid`. `base` (search_state
 * 'card_base', migration 8) is above every card id of the old layout, so the two never meet. A
 * part never updated has card id base + rowid: the ids of a session's hits stay small and close
 * (its blocks store varint deltas). Throws when the rowid does not fit.
 */
export function cardId(base: number, version: number, rowid: number): number {
  if (!Number.isSafeInteger(rowid) || rowid < 1 || rowid >= CARD_ROWID_SPAN) throw new Error(`part rowid ${rowid} is outside the search index's card ids (1..2^32-1)`);
  return base + version * CARD_ROWID_SPAN + rowid;
}

/** The rowid and version of a card id of the current layout (`id` ≥ base). */
export function cardParts(base: number, id: number): { rowid: number; version: number } {
  const offset = id - base;
  return { rowid: cardRowid(base, id), version: Math.floor(offset / CARD_ROWID_SPAN) };
}

/** The parts rowid of card `id` of the current layout (cardParts' rowid, without the object: readCards' loop). */
function cardRowid(base: number, id: number): number {
  return (id - base) % CARD_ROWID_SPAN;
}

/** A superseded card is kept this long (sessions live 24 h; one hour of margin for clock skew). */
export const CARD_RETENTION_MICROS = 25 * 3600 * 1_000_000;
/** How often (at most) a writer deletes expired cards. */
const GC_INTERVAL_MICROS = 10 * 60 * 1_000_000;
/** Expired cards deleted per collection. */
const GC_BATCH = 5000;
/**
 * Terms remembered as already in the vocabulary, per generation (a cache; forgetting only costs
 * lookups): the words of the last ~KNOWN_TERMS_GENERATION distinct ones written are kept, the
 * older ones while they recur. A single set of 20,000 cleared whole when full held too few: an
 * import of 1,000,000 parts of real device names has 23,623 vocabulary words, so it was cleared
 * again and again and most words went back to an INSERT OR IGNORE.
 */
const KNOWN_TERMS_GENERATION = 32_768;
/** A full rebuild or a re-index writes the engine's gathered changes every this many parts (bounded memory). */
const REBUILD_FLUSH = 2000;
/** Parts a rebuild or a re-index (an attribute or the attribute order changed) reads at a time. */
const REINDEX_PAGE = 1000;
/**
 * The layout of the index this code writes and reads; a catalog indexed with another layout is
 * re-indexed on open. 3: the search engine (migration 5); after the slash, what a part contributes
 * (core document.ts DOCUMENT_FORMAT).
 */
const INDEX_LAYOUT = `3/${DOCUMENT_FORMAT}`;

/** Tuning of search (see docs/search.md). */
export interface SearchIndexOptions {
  clock: Clock;
  /**
   * Ranked hits of this many recent queries are kept until the catalog changes (any write by this
   * connection or another: `total_changes()`, `PRAGMA data_version`). Default 256 (Solr's query
   * result cache keeps 512); 0 turns it off. At most {@link CACHE_MAX_HITS} hits are kept in all,
   * so the cache's memory is bounded (~8 MB a connection) whatever the queries.
   */
  cacheSize?: number;
  /** Hits the cache holds at most over all its entries (default {@link CACHE_MAX_HITS}). */
  cacheMaxHits?: number;
  /**
   * Decoded postings the engine keeps in memory (default 6,000,000: ~80 MB). `catalog serve`'s
   * main thread, which runs only cheap searches, keeps fewer.
   */
  postingCache?: number;
  /**
   * Sizes of the term dictionaries' levels (leveled-terms.ts; default 16,384 terms in level 0,
   * each level 8 times the one before): smaller in tests, so that levels move with few terms.
   */
  termLevels?: { firstLevel?: number; fanout?: number };
}

/**
 * Hits the result cache of one connection holds at most, over all its entries (8 bytes each).
 * Why the cache is that large: a server's searches repeat (the same words from many clients,
 * pages of one query), and a least-recently-used cache smaller than the set of queries in
 * rotation misses every time (64 entries against the 67 queries of the load test did).
 */
export const CACHE_MAX_HITS = 1_000_000;

/**
 * How long a limited search (searchTextWithin) remembers giving up on a query, or on a word whose
 * own list passed its limit, and gives up at once on them. A list shrinks below the limit only
 * through removals; after this long the word is tried again.
 */
export const GIVEN_UP_MEMORY_MS = 60_000;
/** Queries, and words, a limited search remembers giving up on (each; least recently asked for out). */
const GIVEN_UP_ENTRIES = 4096;

interface CardRow {
  id: number;
  part_id: string;
  service_id: string | Buffer;          // a part row's may be its UUID's bytes (part-rows.ts)
  names: string;
  created_at: number;
  modified_at: number;
}

/**
 * A part row as its current card, one element of `partCards`' JSON array: card id, part id, the
 * serviceId's 32 hex digits when stored as a UUID's bytes (else null), the serviceId when stored
 * as text (else null), names, created_at, modified_at.
 */
type PartCardJson = [number, ...StoredCardJson];
/** A card's JSON tuple without its id (the card store's entries): part id, service id as hex or text, names, created and modified (µs). */
type StoredCardJson = [string, string | null, string | null, LangMap, number, number];


/** The SQLite implementation of the SearchIndex port and the write-side index maintenance. */
export class SqliteSearchIndex implements SearchIndex, CatalogWriteListener {
  private readonly db: SqliteDatabase;
  private readonly clock: Clock;
  /**
   * Vocabulary words known to be stored or pending in the running write transaction: the current
   * generation and the one before (addTerms). Emptied when a write transaction rolls back.
   */
  private knownTerms = new Set<string>();
  private olderTerms = new Set<string>();
  /** Words of the running write transaction not known to be stored: looked up and added together (writeVocabulary). */
  private readonly pendingTerms = new Set<string>();
  /** Query key -> hits, least recently used evicted first; valid for `cacheGeneration` only; undefined when turned off. */
  private readonly cache: LRUCache<string, RankedHits> | undefined;
  private cacheGeneration = '';
  private lastGc = 0;
  /**
   * The greatest part_rowid of search_cards, read once per write transaction (undefined: not read
   * in this one) and raised by this transaction's copies: a new part at a greater rowid has no
   * copy, so its card id needs no query.
   */
  private copiedRowids: number | undefined;
  /** The attribute order the running write transaction builds documents with (attributeOrder), read once per transaction. */
  private writeOrder: { order: ReadonlyMap<string, number> | undefined } | undefined;
  /** Cards read, by id, valid while the engine version is {@link cardCacheVersion} (readCards). */
  private readonly cardCache: CardCache;
  private cardCacheVersion = -1;
  /**
   * This connection's write transaction has changed parts the engine has not written yet (set by
   * partWritten/partDeleted/attributeWritten, cleared at beforeCommit and rolledBack): until then
   * the engine's per-doc card ids lag `search_current`, so readCards must not trust them.
   */
  private unflushedWrites = false;
  /** Card ids below this are copies of the layout before migration 8 (search_state 'card_base'). */
  private readonly cardBase: number;
  private readonly stmt;
  /** The engine's tables (postings, docs, statistics). */
  readonly engine: EngineStore;
  /** The typo vocabulary (search_term_levels): two-typo candidates, and which words have their keys stored. */
  private readonly vocabulary: LeveledTerms;
  /** The shared engine's query code over this connection (core/search/engine/searcher.ts). */
  private readonly searcher: EngineSearcher;
  /** The read limit of the search running now, if it has one (searchTextWithin): the reader charges its reads to it. */
  private meter: ReadMeter | undefined;
  /**
   * Terms whose own list passed a limited search's whole limit: the bound it was charged
   * (EngineStore.postingsBound), and when (clock µs). A query holding one as a word reads that list
   * whole (EngineSearcher.wordLists), so a limited search of it gives up before reading anything
   * (typo keys, names, blocks' sizes).
   */
  private readonly heavyTerms = new LRUCache<string, { postings: number; micros: number }>({ max: GIVEN_UP_ENTRIES });
  /**
   * Queries (queryKey) a limited search gave up on: the postings it was limited to, and when (clock
   * µs). A repeat within a limit no larger gives up at once (a word's typo neighbour or names may be
   * what passed the limit, which {@link heavyTerms} does not see from the query).
   */
  private readonly heavyQueries = new LRUCache<string, { maxPostings: number; micros: number }>({ max: GIVEN_UP_ENTRIES });

  /** SearchIndex.indexedParts: the engine's document count (metrics). */
  async indexedParts(): Promise<number> {
    return (this.db.prepare('SELECT n FROM engine_stats WHERE id = 0').pluck().get() as number | undefined) ?? 0;
  }

  constructor(db: SqliteDatabase, options: SearchIndexOptions) {
    this.db = db;
    this.clock = options.clock;
    const cacheSize = options.cacheSize ?? 256;
    // Sized by hits (8 bytes each), so the cache's memory is bounded whatever the queries.
    this.cache = cacheSize > 0
      ? new LRUCache<string, RankedHits>({ max: cacheSize, maxSize: options.cacheMaxHits ?? CACHE_MAX_HITS, sizeCalculation: (hits) => Math.max(1, hits.cardIds.length) })
      : undefined;
    this.engine = new EngineStore(db, options.postingCache, options.termLevels);
    this.vocabulary = new LeveledTerms(db, { ...options.termLevels, table: 'search_term_levels' });
    this.stmt = {
      current: db.prepare<[number], { card_id: number; org_doc: number }>('SELECT card_id, org_doc FROM search_current WHERE part_rowid = ?'),
      setCurrent: db.prepare<[number, number, number, number]>(
        'INSERT INTO search_current (part_rowid, card_id, holder, org_doc) VALUES (?, ?, ?, ?) ON CONFLICT(part_rowid) DO UPDATE SET card_id = excluded.card_id, holder = excluded.holder, org_doc = excluded.org_doc',
      ),
      insertCurrent: db.prepare<[number, number, number, number]>('INSERT INTO search_current (part_rowid, card_id, holder, org_doc) VALUES (?, ?, ?, ?)'),
      deleteCurrent: db.prepare<[number]>('DELETE FROM search_current WHERE part_rowid = ?'),
      // OR REPLACE: only after CARD_VERSIONS writes of one rowid within 25 h can an id be taken.
      copyCard: db.prepare<[number, number, string, string, string, number, number, number]>(
        'INSERT OR REPLACE INTO search_cards (id, part_rowid, part_id, service_id, names, created_at, modified_at, superseded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      newestCopy: db.prepare<[number, number], number | null>('SELECT max(id) FROM search_cards WHERE part_rowid = ? AND id >= ?').pluck(),
      maxCopiedRowid: db.prepare<[], number | null>('SELECT max(part_rowid) FROM search_cards').pluck(),
      gc: db.prepare<[number]>(`DELETE FROM search_cards WHERE id IN (SELECT id FROM search_cards WHERE superseded_at IS NOT NULL AND superseded_at < ? LIMIT ${GC_BATCH})`),
      insertOrgDoc: db.prepare<[number, string, string, string, string]>('INSERT INTO search_org_docs (rowid, o0, o1, o2, o3) VALUES (?, ?, ?, ?, ?)'),
      deleteOrgDoc: db.prepare<[number]>('DELETE FROM search_org_docs WHERE rowid = ?'),
      insertTermKey: db.prepare<[string, string]>('INSERT OR IGNORE INTO search_term_keys (key, term) VALUES (?, ?)'),
      deleteTermKey: db.prepare<[string, string]>('DELETE FROM search_term_keys WHERE key = ? AND term = ?'),
      // Not DISTINCT (the caller drops repeats): SQLite makes each DISTINCT a temporary B-tree in a
      // file of its own, ~10 times the cost of the lookups themselves.
      typoKeyRows: db.prepare<[string], TypoKeyRow>('SELECT key, term FROM search_term_keys WHERE key IN (SELECT value FROM json_each(?))'),
      orgProbe: db.prepare<[string], number>('SELECT rowid FROM search_org_docs WHERE search_org_docs MATCH ? LIMIT 1').pluck(),
      partByRowid: db.prepare<[number], PartRow>('SELECT * FROM parts WHERE rowid_ = ?'),
      partsOfRowids: db.prepare<[string], PartRow>('SELECT * FROM parts WHERE rowid_ IN (SELECT value FROM json_each(?))'),
      maxPartRowid: db.prepare<[], number | null>('SELECT max(rowid_) FROM parts').pluck(),
      // The parts rows of these card ids (of the current layout, `card_base` given) as one JSON array
      // of PartCardJson, whatever version each id names (readCards asks only for the current cards
      // the engine names). One text parsed once costs less than better-sqlite3's row objects (an
      // object, a Buffer and strings per row): 25 cards 43 µs instead of 54, names included. The
      // ids come back from JSON.parse as small integers, as SQLite's rows give them: a card cache
      // keyed by the engine's float64 values instead was slower to walk (heap numbers).
      partCards: db.prepare<[string, number], string>(
        `SELECT json_group_array(json_array(j.value, p.part_id,
           CASE WHEN typeof(p.service_id) = 'blob' THEN lower(hex(p.service_id)) END, CASE WHEN typeof(p.service_id) = 'text' THEN p.service_id END,
           json(p.name), p.created_at, p.modified_at))
         FROM json_each(?) AS j JOIN parts AS p ON p.rowid_ = (j.value - ?) % ${CARD_ROWID_SPAN}`,
      ).pluck(),
      copiedCards: db.prepare<[string], CardRow>('SELECT id, part_id, service_id, names, created_at, modified_at FROM search_cards WHERE id IN (SELECT value FROM json_each(?))'),
      // The current cards among the ids: the part rows whose current card id is one of them.
      currentCardRows: db.prepare<[string, number, number], CardRow>(
        `SELECT cur.card_id AS id, p.part_id AS part_id, p.service_id AS service_id, p.name AS names, p.created_at AS created_at, p.modified_at AS modified_at
         FROM json_each(?) AS j JOIN search_current AS cur ON cur.part_rowid = (j.value - ?) % ${CARD_ROWID_SPAN} AND cur.card_id = j.value
         JOIN parts AS p ON p.rowid_ = cur.part_rowid WHERE j.value >= ?`,
      ),
      cardBase: db.prepare<[], string>("SELECT value FROM search_state WHERE key = 'card_base'").pluck(),
      currentCards: db.prepare<[string], { part_id: string; card_id: number }>(
        'SELECT p.part_id AS part_id, cur.card_id AS card_id FROM parts AS p JOIN search_current AS cur ON cur.part_rowid = p.rowid_ WHERE p.part_id IN (SELECT value FROM json_each(?))',
      ),
      // The parts holding an attribute after a rowid, but not those holding one of the attributes
      // of a JSON array (read with those), in rowid order.
      partsWithAttributePage: db.prepare<[string, number, string, number], PartRow>(
        `SELECT p.* FROM part_attributes AS pa JOIN parts AS p ON p.rowid_ = pa.part_rowid
         WHERE pa.attribute_id = ? AND pa.part_rowid > ?
           AND NOT EXISTS (SELECT 1 FROM json_each(?) AS e JOIN part_attributes AS q ON q.attribute_id = e.value AND q.part_rowid = pa.part_rowid)
         ORDER BY pa.part_rowid LIMIT +?`,
      ),
      partsPage: db.prepare<[number, number], PartRow & { card_id: number | null }>(
        'SELECT p.*, cur.card_id AS card_id FROM parts AS p LEFT JOIN search_current AS cur ON cur.part_rowid = p.rowid_ WHERE p.rowid_ > ? ORDER BY p.rowid_ LIMIT +?',
      ),
      attributes: db.prepare<[], string>('SELECT body FROM attributes').pluck(),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      totalChanges: db.prepare<[], number>('SELECT total_changes()').pluck(),
      getState: db.prepare<[string], string>('SELECT value FROM search_state WHERE key = ?').pluck(),
      rankingSettings: db.prepare<[], string>(`SELECT value FROM settings WHERE key = '${RANKING_SETTINGS_KEY}'`).pluck(),
      setState: db.prepare<[string, string]>('INSERT INTO search_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    };
    this.cardBase = Number(this.stmt.cardBase.get() ?? 0);
    const cardBase = this.cardBase;
    // Ids below the base are copies of the layout before migration 8: never given out again.
    this.cardCache = new CardCache(CARD_CACHE_SIZE, (id) => (id >= cardBase ? Math.floor(cardParts(cardBase, id).rowid / CHUNK) : undefined));
    this.searcher = new EngineSearcher(this.makeReader());
    this.rebuildIfPending();
  }

  // -- write side (CatalogWriteListener): runs inside the store's transaction ----------------

  partWritten(rowid: number, part: StoredPart, attributes: ReadonlyMap<string, Attribute>, created: boolean, previous?: StoredPart, prepared?: PreparedPartDocuments): void {
    this.unflushedWrites = true;
    // A new parts row has no card yet (a reused rowid's card was retired when its part was deleted).
    const current = created ? undefined : this.stmt.current.get(rowid);
    if (current) this.retire(rowid, current.card_id, current.org_doc === 1, part.modifiedAt, previous);
    const before = current && previous ? buildEngineDocument(previous, attributes, this.attributeOrder()) : undefined;
    this.addCard(rowid, part, attributes, current === undefined, before, this.nextCardId(rowid, current?.card_id), prepared);
    this.collectGarbage(part.modifiedAt);
  }

  partDeleted(rowid: number, previous: StoredPart): void {
    this.unflushedWrites = true;
    const current = this.stmt.current.get(rowid);
    if (!current) return;
    const now = this.clock.nowMicros();
    this.retire(rowid, current.card_id, current.org_doc === 1, now, previous);
    this.stmt.deleteCurrent.run(rowid);
    this.engine.remove(rowid, buildEngineDocument(previous, this.loadAttributes(), this.attributeOrder()));
    this.collectGarbage(now);
  }

  beforeCommit(): void {
    this.copiedRowids = undefined;
    this.writeOrder = undefined;
    this.engine.flush();
    this.writeVocabulary();
    this.dropVocabulary(this.engine.droppedTerms());
    this.vocabulary.settle();
    this.vocabulary.unfixLevels();
    this.unflushedWrites = false;
  }

  committed(): void {
    this.engine.committed();
  }

  rolledBack(): void {
    this.copiedRowids = undefined;
    this.writeOrder = undefined;
    this.engine.discard();
    this.forgetVocabulary();
    this.vocabulary.rolledBack();
    this.unflushedWrites = false;
  }

  /**
   * What a part's index entry holds depends on searchable, filterable, visibility and
   * per_org_values: a change of any of them re-indexes every part with a value for the attribute,
   * in this same transaction (cost: about one part write per such part; memory bounded, see
   * reindexPartsHolding). default_value and
   * org_visibility are applied at query time and need nothing here.
   */
  attributeWritten(before: Attribute | undefined, after: Attribute): void {
    if (!before) return;
    const changed = before.searchable !== after.searchable || before.filterable !== after.filterable
      || before.visibility !== after.visibility || before.per_org_values !== after.per_org_values;
    if (!changed) return;
    this.unflushedWrites = true;
    const attributes = this.loadAttributes();
    const old = new Map(attributes);
    old.set(before.attribute_id, before);
    const order = this.attributeOrder();
    this.reindexPartsHolding([after.attribute_id], (row) => {
      const current = this.stmt.current.get(row.rowid_);
      if (!current) return;
      if (current.org_doc === 1) this.stmt.deleteOrgDoc.run(current.card_id);
      const part = partFromRow(row);
      const doc = buildOrgDocument(part, attributes);
      this.stmt.setCurrent.run(row.rowid_, current.card_id, doc.holder ? 1 : 0, doc.orgValues ? 1 : 0);
      if (doc.orgValues) this.stmt.insertOrgDoc.run(current.card_id, ...doc.orgValues);
      this.addTerms(doc.terms);
      this.engine.put(row.rowid_, part.part_id, current.card_id, buildEngineDocument(part, attributes, order), buildEngineDocument(part, old, order));
    });
  }


  /**
   * The ranking settings row changed: every part with a value for an attribute whose place in the
   * attribute order changed is re-indexed with the new order (document.ts ATTR_MARK), keeping its
   * card, in the row's own transaction (cost: about one part write per such part).
   */
  settingWritten(key: string, before: string | undefined, after: string): void {
    if (key !== RANKING_SETTINGS_KEY) return;
    const old = attributeOrderOf(before);
    const next = attributeOrderOf(after);
    this.writeOrder = { order: next };
    const changed = attributeOrderChanges(old, next);
    if (changed.length === 0) return;
    this.unflushedWrites = true;
    const attributes = this.loadAttributes();
    this.reindexPartsHolding(changed, (row) => {
      const current = this.stmt.current.get(row.rowid_);
      if (!current) return;
      const part = partFromRow(row);
      this.engine.put(row.rowid_, part.part_id, current.card_id, buildEngineDocument(part, attributes, next), buildEngineDocument(part, attributes, old));
    });
  }

  /**
   * Calls `visit` for every part holding one of `attributeIds`, once each, page by page in rowid
   * order, inside the running write transaction; the engine's and the vocabulary's gathered changes
   * are written every REBUILD_FLUSH parts, so memory stays bounded whatever the catalog's size (a
   * setting or an attribute change on 1,000,000 parts).
   */
  private reindexPartsHolding(attributeIds: readonly string[], visit: (row: PartRow) => void): void {
    const gathered = { rows: 0 };
    attributeIds.forEach((attributeId, i) => {
      // A part holding several of them is visited with the first.
      const earlier = JSON.stringify(attributeIds.slice(0, i));
      this.visitInPages((after) => this.stmt.partsWithAttributePage.all(attributeId, after, earlier, REINDEX_PAGE), visit, gathered);
    });
  }

  /**
   * Visits the rows `page(after)` returns (those after a rowid, in rowid order, a page at a time)
   * until a page is empty, writing the engine's and the vocabulary's gathered changes each time
   * `gathered.rows` reaches REBUILD_FLUSH: inside one write transaction, memory stays bounded.
   */
  private visitInPages<R extends { rowid_: number }>(page: (after: number) => R[], visit: (row: R) => void, gathered: { rows: number }): void {
    for (let after = 0; ;) {
      const rows = page(after);
      for (const row of rows) visit(row);
      gathered.rows += rows.length;
      if (gathered.rows >= REBUILD_FLUSH) {
        this.engine.flush();
        this.writeVocabulary();
        gathered.rows = 0;
      }
      const last = rows[rows.length - 1];
      if (!last) return;
      after = last.rowid_;
    }
  }


  /** The attribute order of the ranking settings row as this write transaction sees it, read once per transaction. */
  private attributeOrder(): ReadonlyMap<string, number> | undefined {
    this.writeOrder ??= { order: attributeOrderOf(this.stmt.rankingSettings.get()) };
    return this.writeOrder.order;
  }

  /** Marks the index for a full rebuild and rebuilds it now (one immediate transaction). */
  rebuild(): void {
    this.stmt.setState.run('rebuild', 'pending');
    this.rebuildIfPending();
  }

  /**
   * The card id of a new version of the part at `rowid`: the version after `previous` (its current
   * card id), or, for a part new at this rowid, the version after the newest kept copy of the
   * rowid (a deleted part's, whose sessions still read it), else version 0.
   */
  private nextCardId(rowid: number, previous: number | undefined): number {
    if (previous !== undefined && previous >= this.cardBase) {
      const last = cardParts(this.cardBase, previous);
      if (last.rowid === rowid) return cardId(this.cardBase, (last.version + 1) % CARD_VERSIONS, rowid);
    }
    // A rowid above every copied card's has no copy: no query (an import's new parts).
    this.copiedRowids ??= this.stmt.maxCopiedRowid.get() ?? 0;
    if (rowid > this.copiedRowids) return cardId(this.cardBase, 0, rowid);
    const newest = this.stmt.newestCopy.get(rowid, this.cardBase);
    return cardId(this.cardBase, newest == null ? 0 : (cardParts(this.cardBase, newest).version + 1) % CARD_VERSIONS, rowid);
  }

  /** `prepared`: the part's documents, built already (CatalogWriteListener.partWritten). */
  private addCard(rowid: number, part: StoredPart, attributes: ReadonlyMap<string, Attribute>, fresh: boolean, before: EngineDocument | undefined, cardId: number, prepared?: PreparedPartDocuments): void {
    // With documents an import's reader thread built: the same statements, in the same order.
    const doc = prepared ? preparedOrgDocument(prepared) : buildOrgDocument(part, attributes);
    (fresh ? this.stmt.insertCurrent : this.stmt.setCurrent).run(rowid, cardId, doc.holder ? 1 : 0, doc.orgValues ? 1 : 0);
    if (doc.orgValues) this.stmt.insertOrgDoc.run(cardId, ...doc.orgValues);
    this.addTerms(doc.terms);
    // Documents built ahead know no attribute order: with one, the engine document is built here.
    const order = this.attributeOrder();
    if (prepared && !order) this.engine.putPrepared(rowid, part.part_id, cardId, prepared);
    else this.engine.put(rowid, part.part_id, cardId, buildEngineDocument(part, attributes, order), before);
  }

  /**
   * The part at `rowid` is replaced or deleted: its current card (`previous`, as it was stored)
   * is copied into search_cards under its id, for the sessions that may reference it. A card id
   * of the old layout (below card_base) already has its row there.
   */
  private retire(rowid: number, cardId: number, hasOrgDoc: boolean, now: number, previous: StoredPart | undefined): void {
    if (previous && cardId >= this.cardBase) {
      if (this.copiedRowids !== undefined) this.copiedRowids = Math.max(this.copiedRowids, rowid);
      this.stmt.copyCard.run(cardId, rowid, previous.part_id, previous.serviceId, JSON.stringify(previous.name), previous.createdAt, previous.modifiedAt, now);
    }
    if (hasOrgDoc) this.stmt.deleteOrgDoc.run(cardId);
  }

  /** Adds new words to the typo vocabulary when the transaction writes (writeVocabulary). */
  private addTerms(terms: readonly string[]): void {
    for (const term of terms) {
      if (this.knownTerms.has(term)) continue;
      // A word of the previous generation is carried over (no statement): recurring words stay known.
      if (!this.olderTerms.has(term)) this.pendingTerms.add(term);
      if (this.knownTerms.size >= KNOWN_TERMS_GENERATION) {
        this.olderTerms = this.knownTerms;
        this.knownTerms = new Set();
      }
      this.knownTerms.add(term);
    }
  }

  /**
   * Stores the pending words the vocabulary lacks: each under itself and, for typo matching,
   * under each one-letter deletion. One lookup per level for all of them (most words of an
   * import are stored already); runs inside the write transaction, before it commits.
   */
  private writeVocabulary(): void {
    if (this.pendingTerms.size === 0) return;
    const terms = [...this.pendingTerms].sort();
    this.pendingTerms.clear();
    // Inside the write transaction: its level count read once (unfixed at beforeCommit, rolledBack, the rebuild's end).
    this.vocabulary.fixLevels();
    const stored = this.vocabulary.getMany(terms);
    for (const term of terms) {
      if (stored.has(term)) continue;
      this.vocabulary.add(term);
      for (const key of lookupKeys(term)) this.stmt.insertTermKey.run(key, term);
    }
  }

  /**
   * Takes out of the vocabulary the words of `terms` (terms the engine's flush emptied: no part
   * holds them any more; its marked terms, of names, ids, filters and pairs, are no words) and
   * their typo keys, so that neither grows with the words renames and updates leave behind.
   */
  private dropVocabulary(terms: readonly TermRow[]): void {
    for (const { term } of terms) {
      if (!isVocabularyTerm(term) || !this.vocabulary.remove(term)) continue;
      this.knownTerms.delete(term);
      this.olderTerms.delete(term);
      for (const key of lookupKeys(term)) this.stmt.deleteTermKey.run(key, term);
    }
  }

  /** The write transaction rolled back: what it added is not stored, so nothing is known to be. */
  private forgetVocabulary(): void {
    this.pendingTerms.clear();
    this.knownTerms.clear();
    this.olderTerms.clear();
    this.vocabulary.unfixLevels();
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
        // A part's card (its parts row) does not change with the index: a part keeps its current
        // card id, so sessions made before the rebuild still find it; a card id of the layout
        // before migration 8 (already a copy in search_cards) gives way to a new one.
        this.db.prepare("INSERT INTO search_org_docs (search_org_docs) VALUES ('delete-all')").run();
        this.db.prepare('DELETE FROM search_current WHERE part_rowid NOT IN (SELECT rowid_ FROM parts)').run();
        this.engine.clearAll();
        const attributes = this.loadAttributes();
        this.visitInPages((after) => this.stmt.partsPage.all(after, REINDEX_PAGE), (row) => {
          const kept = row.card_id !== null && row.card_id >= this.cardBase && cardParts(this.cardBase, row.card_id).rowid === row.rowid_;
          this.addCard(row.rowid_, partFromRow(row), attributes, false, undefined, kept && row.card_id !== null ? row.card_id : this.nextCardId(row.rowid_, undefined));
        }, { rows: 0 });
        this.engine.flush();
        this.writeVocabulary();
        this.copiedRowids = undefined;
        this.stmt.setState.run('rebuild', 'done');
        this.stmt.setState.run('layout', INDEX_LAYOUT);
      } catch (error) {
        this.copiedRowids = undefined;
        this.engine.discard();
        this.forgetVocabulary();
        throw error;
      } finally {
        this.writeOrder = undefined;
        this.vocabulary.unfixLevels();
      }
    }).immediate();
  }

  // -- read side (SearchIndex) -------------------------------------------------------------

  /** SearchIndex.searchText, in one read transaction: every statement reads the same snapshot. */
  async searchText(query: TextSearchQuery, maxHits: number): Promise<RankedHits> {
    return this.db.transaction(() => this.rankedHits(query, maxHits, undefined))();
  }

  /**
   * SearchIndex.searchTextWithCards: searchText and readCards of the first `cards` hits in one
   * read transaction (BEGIN ... COMMIT once, one WAL read lock: ~10 µs less than two).
   * Synchronous inside, so the snapshot lasts only the search itself (no WAL read mark is held
   * across an await). The hits are current in that snapshot, so readCards reads every one from its
   * parts row.
   */
  async searchTextWithCards(query: TextSearchQuery, maxHits: number, cards: number): Promise<{ hits: RankedHits; cards: ResultCard[] }> {
    return this.db.transaction(() => this.hitsWithCards(query, maxHits, cards, undefined))();
  }

  /**
   * SearchIndex.searchTextWithin: searchTextWithCards, charging the engine's reads to a
   * {@link ReadMeter} of `maxPostings` before they are made (read-budget.ts); undefined as soon as
   * they would pass it. A cached answer costs nothing.
   */
  async searchTextWithin(query: TextSearchQuery, maxHits: number, cards: number, maxPostings: number): Promise<{ hits: RankedHits; cards: ResultCard[] } | undefined> {
    const key = this.queryKey(query, maxHits);
    if (this.gaveUpBefore(query, key, maxPostings)) return undefined;
    try {
      return this.db.transaction(() => this.hitsWithCards(query, maxHits, cards, new ReadMeter(maxPostings), key))();
    } catch (error) {
      if (!(error instanceof ReadLimitExceeded)) throw error;
      this.heavyQueries.set(key, { maxPostings, micros: this.clock.nowMicros() });
      return undefined;
    }
  }

  /**
   * Whether a limited search of `query` (keyed `key`) would give up within `maxPostings`, as
   * remembered: the same query gave up within a limit as large, or one of its words is a term whose
   * list passed the limit ({@link heavyTerms}), within the last GIVEN_UP_MEMORY_MS.
   */
  private gaveUpBefore(query: TextSearchQuery, key: string, maxPostings: number): boolean {
    if (this.heavyTerms.size === 0 && this.heavyQueries.size === 0) return false;
    const forgetBefore = this.clock.nowMicros() - GIVEN_UP_MEMORY_MS * 1000;
    const fresh = <K extends string, V extends { micros: number }>(memory: LRUCache<K, V>, k: K): V | undefined => {
      const seen = memory.get(k);
      if (seen === undefined || seen.micros >= forgetBefore) return seen;
      memory.delete(k);
      return undefined;
    };
    if ((fresh(this.heavyQueries, key)?.maxPostings ?? -1) >= maxPostings) return true;
    return query.words.some((word) => word.tokens.length === 1 && (fresh(this.heavyTerms, word.tokens[0] ?? '')?.postings ?? 0) > maxPostings);
  }

  /** The ranked hits and the cards of the first `cards`, inside the caller's read transaction (`key`: see {@link rankedHits}). */
  private hitsWithCards(query: TextSearchQuery, maxHits: number, cards: number, meter: ReadMeter | undefined, key?: string): { hits: RankedHits; cards: ResultCard[] } {
    const hits = this.rankedHits(query, maxHits, meter, key);
    const first = cards >= hits.cardIds.length ? hits.cardIds : hits.cardIds.slice(0, cards);
    return { hits, cards: first.length === 0 ? [] : this.readCardsNow(first) };
  }

  /**
   * The ranked hits from the result cache or ranked now (searchText), inside the caller's read
   * transaction; `known`: the query's {@link queryKey}, when the caller made it already.
   */
  private rankedHits(query: TextSearchQuery, maxHits: number, meter: ReadMeter | undefined, known?: string): RankedHits {
    if (!this.cache) return this.searchTextNow(query, maxHits, meter);
    const generation = `${this.stmt.dataVersion.get() ?? 0}:${this.stmt.totalChanges.get() ?? 0}`;
    if (generation !== this.cacheGeneration) {
      this.forgetResults();
      this.cacheGeneration = generation;
    }
    const key = known ?? this.queryKey(query, maxHits);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const hits = this.searchTextNow(query, maxHits, meter);
    // A list larger than the whole cache is not kept (lru-cache refuses it).
    this.cache.set(key, hits);
    return hits;
  }

  /** Everything the answer to `query` depends on besides the catalog itself (the result cache's generation covers that). */
  private queryKey(query: TextSearchQuery, maxHits: number): string {
    return JSON.stringify([
      query.words, query.visibleValues, query.filters.map((f) => [f.attribute.attribute_id, f.values]), query.ctx.organization ?? null, [...query.ctx.principal.roles].sort(), maxHits,
      query.order ?? null,
    ]);
  }

  /** The ranked hits as card ids; runs inside the read transaction of searchText (rankedHits). */
  private searchTextNow(query: TextSearchQuery, maxHits: number, meter: ReadMeter | undefined): RankedHits {
    this.engine.refresh();
    this.meter = meter;
    try {
      const { total, docs } = this.searcher.matchingDocs(query, maxHits);
      return { total, cardIds: docs.map((doc) => this.engine.card[doc] ?? 0) };
    } finally {
      this.meter = undefined;
    }
  }

  /** Empties the result cache. */
  private forgetResults(): void {
    this.cache?.clear();
  }

  /**
   * SearchIndex.warm: the engine's per-part arrays, read in slices between which this thread's
   * event loop runs (EngineStore.loadDocsInSlices), then the posting lists of the terms most
   * widely held in a sample of the parts (warm-terms.ts), up to `postings` (default
   * {@link WARM_POSTINGS}), in one read transaction (EngineStore.warm), so that a fresh
   * connection's first searches cost what later ones do. The sample's size, not the catalog's,
   * sets the cost of choosing them.
   */
  async warm(options: { postings?: number } = {}): Promise<void> {
    await this.engine.loadDocsInSlices(() => new Promise((resolve) => setImmediate(resolve)));
    const postings = options.postings ?? WARM_POSTINGS;
    this.db.transaction(() => {
      this.engine.warm(postings > 0 ? this.widelyHeldTerms() : [], postings);
    })();
  }

  /** SearchIndex.sampleNames: the names of up to `count` parts spread evenly over the parts' rowids. */
  async sampleNames(count: number): Promise<string[]> {
    const rowids = evenlySpreadIds(this.stmt.maxPartRowid.get() ?? 0, count);
    if (rowids.length === 0) return [];
    return this.stmt.partsOfRowids.all(JSON.stringify(rowids)).flatMap((row) => Object.values(partFromRow(row).name ?? {}));
  }

  /** The terms most widely held in a sample of the parts, most first (warm-terms.ts). */
  private widelyHeldTerms(): string[] {
    const rowids = evenlySpreadIds(this.stmt.maxPartRowid.get() ?? 0, WARM_SAMPLE_PARTS);
    if (rowids.length === 0) return [];
    const attributes = this.loadAttributes();
    const order = attributeOrderOf(this.stmt.rankingSettings.get());
    const rows = this.stmt.partsOfRowids.all(JSON.stringify(rowids));
    return frequentTerms(rows.map((row) => buildEngineDocument(partFromRow(row), attributes, order)), WARM_MIN_SHARE, WARM_MAX_TERMS);
  }

  /**
   * SearchIndex.readSnapshot: one read transaction (BEGIN, then the first read fixes the WAL
   * snapshot) around `work`; the reads inside run their own transactions as savepoints of it.
   * Inside an open transaction, `work` simply runs in it.
   */
  async readSnapshot<T>(work: () => Promise<T>): Promise<T> {
    if (this.db.inTransaction) return work();
    this.db.exec('BEGIN');
    try {
      return await work();
    } finally {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    }
  }

  /** Facet counts (SearchIndex.facets; core/search/engine/searcher.ts), in one read transaction. */
  async facets(query: TextSearchQuery, attributes: readonly Attribute[], maxValues: number, valuePrefix = ''): Promise<SearchFacets> {
    return this.db.transaction(() => {
      this.engine.refresh();
      return this.searcher.facets(query, attributes, maxValues, valuePrefix);
    })();
  }

  /**
   * The engine's reads (core EngineReader) over this connection: the engine store plus the
   * vocabulary, the FTS5 probe and the parts. A limited search (searchTextWithin) is charged for a
   * term's postings before they are read, and for every part and vocabulary word read.
   */
  private makeReader(): EngineReader {
    const engine = this.engine;
    const stmt = this.stmt;
    const vocabulary = this.vocabulary;
    const charge = (postings: number) => this.meter?.charge(postings);
    const chargeWords = <T>(words: T[]): T[] => {
      charge(words.length * VOCABULARY_WORD_POSTINGS);
      return words;
    };
    return {
      get n() {
        return engine.n;
      },
      get sumLength() {
        return engine.sumLength;
      },
      get dl() {
        return engine.dl;
      },
      get key() {
        return engine.key;
      },
      get docCapacity() {
        return engine.docCapacity;
      },
      get version() {
        return engine.loadedDocsVersion;
      },
      termId: (term) => engine.termId(term),
      termsWithPrefix: (prefix) => engine.termsWithPrefix(prefix),
      hasPrefix: (prefix) => engine.hasPrefix(prefix),
      prefixWiderThan: (prefix, max) => engine.prefixWiderThan(prefix, max),
      // A limited search is charged list by list, before each is read; it reads a range's lists
      // together only when their blocks' sizes keep them within what it has left.
      prefetch: (terms) => {
        if (!this.meter || engine.fitsWithin(terms, this.meter.left)) engine.prefetch(terms);
      },
      termForTier: (id, term, tier) => {
        // A list is charged once a search: the engine asks for a word's own list for more than
        // one rule (its frequency, its postings), and the second read costs nothing new.
        if (this.meter && !this.meter.charged(id)) {
          const bound = engine.postingsBound(id, this.meter.left);
          if (bound > this.meter.maxPostings) this.heavyTerms.set(term, { postings: bound, micros: this.clock.nowMicros() });
          charge(bound);
        }
        return engine.termForTier(id, term, tier);
      },
      typoCandidates: (keys) => chargeWords(engine.typoCandidates(keys, (missing) => stmt.typoKeyRows.all(JSON.stringify(missing)))),
      vocabularyRange: (lo, hi) => chargeWords(vocabulary.range(lo, hi).map((t) => t.term)),
      inOrgValues: (alternatives, visible) => stmt.orgProbe.get(ftsClause(alternatives, visible.map((v) => ORG_VALUE_COLUMNS[v]))) !== undefined,
      part: (doc) => {
        charge(PART_READ_POSTINGS);
        const row = stmt.partByRowid.get(doc);
        return row ? partFromRow(row) : undefined;
      },
      allParts: (nonHoldersOnly, limit) => {
        charge(engine.n);
        return engine.allDocs(nonHoldersOnly, limit);
      },
      everyPart: () => {
        charge(engine.n);
        return engine.everyDoc();
      },
    };
  }

  /**
   * The cards of these ids, in their order (unknown ids left out), in one read transaction (a
   * write in between cannot move a card from one table to the other unseen):
   *
   * - An id that is its part's current card in this snapshot is read from the `parts` row alone
   *   (one primary-key lookup). The engine's per-doc card ids, brought up to the snapshot first
   *   (EngineStore.refresh; only when this connection has read them already, so a process that
   *   only pages never loads them), say which ids those are: `engine.card[rowid] === id`. They are
   *   written in the same transactions as `search_current`, so they agree in every committed
   *   snapshot; not while this connection's own write transaction has changes the engine has not
   *   flushed yet ({@link unflushedWrites}), when every id takes the next path. A fresh search's
   *   hits are all current: its page costs 1 lookup a card instead of 3.
   * - Any other id: its copy in `search_cards` (a superseded version), else the part whose
   *   `search_current.card_id` it is (a current card the engine could not vouch for).
   *
   * Cards read are kept per connection (at most {@link CARD_CACHE_SIZE}). A card id names one
   * version of a part, so its card never changes; but ids are reused (versions wrap at
   * CARD_VERSIONS, rowids of deleted parts come back), and every such reuse writes the part's doc
   * in the engine. So when the engine version moves, the cards of the docs in the chunks written
   * since are dropped, and only those: a write of one part no longer empties the cache of every
   * connection. The objects are shared: callers must not change them.
   */
  async readCards(cardIds: readonly number[]): Promise<ResultCard[]> {
    if (cardIds.length === 0) return [];
    return this.db.transaction(() => this.readCardsNow(cardIds))();
  }

  /** {@link readCards} inside the caller's read transaction. */
  private readCardsNow(cardIds: readonly number[]): ResultCard[] {
    // Every card of a call stays cached until the call returns them: a call reading more than half
    // the cache reads in batches that do.
    if (cardIds.length > CARD_BATCH) return this.readCardsInBatches(cardIds);
    const cache = this.cardCache;
    const engineVouches = this.engine.loadedDocsVersion >= 0 && !this.unflushedWrites;
    if (engineVouches) this.engine.refresh();
    const version = engineVouches ? this.engine.loadedDocsVersion : this.engine.storedVersion();
    this.bringCardsTo(version);
    const missing = cardIds.filter((id) => !cache.has(id));
    if (missing.length > 0) {
      const currentCard = this.engine.card;
      const current: number[] = [];
      const others: number[] = [];
      for (const id of missing) {
        const rowid = id >= this.cardBase ? cardRowid(this.cardBase, id) : 0;
        if (engineVouches && rowid > 0 && rowid < currentCard.length && currentCard[rowid] === id) current.push(id);
        else others.push(id);
      }
      const keep = (id: number, r: CardRow) => cache.set(id, {
        cardId: id, partId: r.part_id, serviceId: decodeServiceId(r.service_id), names: JSON.parse(r.names) as LangMap, createdAt: r.created_at, modifiedAt: r.modified_at,
      });
      if (current.length > 0) {
        for (const [id, ...card] of JSON.parse(this.stmt.partCards.get(JSON.stringify(current), this.cardBase) ?? '[]') as PartCardJson[]) this.keepCardJson(id, card);
      }
      if (others.length > 0) {
        const ids = JSON.stringify(others);
        for (const r of this.stmt.copiedCards.all(ids)) keep(r.id, r);
        // The current version wins over a copy of the same id (only after CARD_VERSIONS writes): set last.
        for (const r of this.stmt.currentCardRows.all(ids, this.cardBase, this.cardBase)) keep(r.id, r);
      }
    }
    return cardIds.flatMap((id) => {
      const card = cache.get(id);
      return card ? [card] : [];
    });
  }

  /** {@link readCardsNow} in batches that each fit the card cache. */
  private readCardsInBatches(cardIds: readonly number[]): ResultCard[] {
    const cards: ResultCard[] = [];
    for (let i = 0; i < cardIds.length; i += CARD_BATCH) cards.push(...this.readCardsNow(cardIds.slice(i, i + CARD_BATCH)));
    return cards;
  }

  /** Keeps card `id`, from its JSON tuple (partCards), in the card cache. */
  private keepCardJson(id: number, [partId, serviceIdHex, serviceIdText, names, createdAt, modifiedAt]: StoredCardJson): void {
    this.cardCache.set(id, { cardId: id, partId, serviceId: serviceIdHex !== null ? uuidFromHex(serviceIdHex) : serviceIdText ?? '', names, createdAt, modifiedAt });
  }

  /**
   * Brings the card cache to engine version `version`: it drops its cards of the doc chunks written
   * since it was last brought up to date (their card ids may have come back as other cards). A lower
   * version (the index rebuilt by another process): nothing kept is known to hold, so it is emptied.
   */
  private bringCardsTo(version: number): void {
    // Every readCards asks; only the first after a write has anything to do.
    if (version === this.cardCacheVersion) return;
    if (version < this.cardCacheVersion || this.cardCacheVersion < 0) this.cardCache.clear();
    else if (this.cardCache.size > 0) this.cardCache.dropChunks(this.engine.chunksChangedSince(this.cardCacheVersion));
    this.cardCacheVersion = version;
  }

  async currentCards(partIds: readonly string[]): Promise<Map<string, number>> {
    if (partIds.length === 0) return new Map();
    return new Map(this.stmt.currentCards.all(JSON.stringify(partIds)).map((r) => [r.part_id, r.card_id]));
  }
}
