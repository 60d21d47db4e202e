/**
 * The SearchIndex port on PostgreSQL (docs/search.md, docs/deploy.md "Search"): the
 * search engine (src/core/search/engine: posting blocks with per-field-group counts,
 * BM25 with names above values, typo tiers, ties by part id, exact top-k,
 * exact counts), its blocks in PostgreSQL tables (./engine-store.ts, migration 4) written INSIDE
 * the catalog store's write transactions (a committed part is searchable at once, a rolled-back one
 * never), and read by the same core code as on SQLite (core/search/engine/searcher.ts through
 * ./engine-reader.ts), so both stores return the same ranking, bit for bit.
 *
 * Other tables (migration 1): search_cards (immutable result cards, kept 25 h after being
 * superseded), search_current (part -> card, holder flags), search_org_docs (per-organization value
 * texts as tsvector + GIN, only to learn whether a word occurs in any: tsvector.ts), search_terms /
 * search_term_keys (the typo vocabulary, core/search/typo.ts).
 */
import { Batches } from '../../../core/batches.js';
import type { Attribute, LangMap, SearchFacets } from '../../../api/schemas.js';
import type { Clock, SearchIndex } from '../../../core/ports.js';
import type { RankedHits, ResultCard, StoredPart, TextSearchQuery } from '../../../core/model.js';
import { buildEngineDocument, DOCUMENT_FORMAT } from '../../../core/search/engine/document.js';
import { attributeOrderChanges, attributeOrderOf, RANKING_SETTINGS_KEY } from '../../../core/search/ranking-settings.js';
import { buildOrgDocument } from '../../../core/search/engine/org-document.js';
import { preparedOrgDocument, type PreparedPartDocuments } from '../../../core/search/engine/prepared-documents.js';
import { EngineSearcher } from '../../../core/search/engine/searcher.js';
import { evenlySpreadIds } from '../../../core/search/evenly-spread-ids.js';
import { typoKeyColumns } from '../../../core/search/typo.js';
import type { PgClient, PgDatabase } from '../database.js';
import { partFromPgRow, type PgPartRow } from '../part-rows.js';
import { PgEngineWrite } from './engine-store.js';
import { PgEngineTails } from './engine-tails.js';
import { PgEngineReader, YIELD_AFTER_MS, type RefreshRow } from './engine-reader.js';
import { orgVector } from './tsvector.js';

/** A superseded card is kept this long (sessions live 24 h; one hour of margin). */
export const CARD_RETENTION_MICROS = 25 * 3600 * 1_000_000;
const GC_INTERVAL_MICROS = 10 * 60 * 1_000_000;
const GC_BATCH = 5000;
/** A full rebuild writes the engine's gathered changes every this many parts (bounded memory). */
const REBUILD_FLUSH = 2000;
/** Parts a re-index (an attribute or the attribute order changed) reads at a time. */
const REINDEX_PAGE = 1000;

/** A part written in the current transaction, as the index needs it. */
export interface WrittenPart {
  pk: number;
  part: StoredPart;
  created: boolean;
  /** The part as stored before this write (updates): what the engine indexed for it. */
  previous?: StoredPart | undefined;
  /** A new part's documents, built by an import's reader thread with this transaction's definitions (prepared-documents.ts). */
  prepared?: PreparedPartDocuments;
}

/** Most searches one batch runs (a bound on one snapshot's fetch statements and the answers it gathers). */
const MAX_BATCH = 64;

/** A search waiting for its batch (PgSearchIndex.withReader). */
interface WaitingSearch {
  search: () => unknown;
  resolve: (answer: unknown) => void;
  reject: (error: unknown) => void;
}

interface CardRow {
  id: number;
  part_id: string;
  service_id: string;
  names: string;
  created_at: number;
  modified_at: number;
}

async function loadAttributes(c: Pick<PgClient, 'query'>): Promise<Map<string, Attribute>> {
  const rows = await c.query<{ body: string }>('SELECT body FROM attributes');
  return new Map(rows.rows.map((r) => {
    const a = JSON.parse(r.body) as Attribute;
    return [a.attribute_id, a];
  }));
}

/** The attribute order of the ranking settings row as `c`'s transaction sees it (document.ts buildEngineDocument `order`). */
async function loadAttributeOrder(c: Pick<PgClient, 'query'>): Promise<Map<string, number> | undefined> {
  const rows = await c.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [RANKING_SETTINGS_KEY]);
  return attributeOrderOf(rows.rows[0]?.value);
}

/** The PostgreSQL SearchIndex and its write-side maintenance (called by the catalog store inside its transactions). */
export class PgSearchIndex implements SearchIndex {
  private readonly db: PgDatabase;
  private readonly clock: Clock;
  /** Where recently written posting lists end, kept across this process's writes (engine-tails.ts). */
  private readonly tails = new PgEngineTails();
  private lastGc = 0;
  /** The engine's reads (a cache kept between searches) and the core code that runs queries over them. */
  readonly reader = new PgEngineReader();
  private readonly searcher = new EngineSearcher(this.reader);
  /** Searches waiting for the next batch through the reader (withReader). */
  private readonly searches = new Batches<WaitingSearch>(MAX_BATCH, (batch) => this.runBatch(batch));
  /** Whether the last batch found the committed version where the reader had left it (runBatch). */
  private versionHeld = true;

  /** SearchIndex.indexedParts: the engine's document count (metrics). */
  async indexedParts(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT n FROM engine_stats WHERE id = 0'))[0]?.n ?? 0;
  }

  /** SearchIndex.sampleNames: the names of up to `count` parts spread evenly over the parts' keys. */
  async sampleNames(count: number): Promise<string[]> {
    const max = (await this.db.query<{ max: string | null }>('SELECT max(pk) AS max FROM parts'))[0]?.max;
    const pks = evenlySpreadIds(Number(max ?? 0), count);
    if (pks.length === 0) return [];
    const rows = await this.db.query<{ name: string }>('SELECT name FROM parts WHERE pk = ANY($1::bigint[])', [pks]);
    return rows.flatMap((row) => Object.values(JSON.parse(row.name) as LangMap));
  }

  constructor(db: PgDatabase, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  // -- write side ------------------------------------------------------------------------------

  /**
   * Indexes parts written in `client`'s transaction: a new card each, the old one superseded. The
   * cards, the current card of each part, the per-organization value rows and the new words of the
   * vocabulary are one statement (data-modifying CTEs on disjoint rows): each round trip of a
   * write holds the catalog write lock while it waits for this process's event loop.
   */
  async partsWritten(client: PgClient, parts: readonly WrittenPart[], attributes: ReadonlyMap<string, Attribute>, now: number): Promise<void> {
    if (parts.length === 0) return;
    // With documents an import's reader thread built: the same statements, with the same values.
    const docs = parts.map((p) => (p.prepared ? preparedOrgDocument(p.prepared) : buildOrgDocument(p.part, attributes)));
    const orgPks: number[] = [];
    const orgVectors: string[] = [];
    const terms = new Set<string>();
    docs.forEach((doc, i) => {
      const vector = orgVector(doc.orgValues);
      if (vector !== null) {
        orgPks.push(parts[i]?.pk ?? 0);
        orgVectors.push(vector);
      }
      for (const t of doc.terms) terms.add(t);
    });
    // The ranking settings row comes with the same statement (the attribute order the documents are built with).
    const rows = await client.query<{ id: number | null; part_pk: number | null; term: string | null; ranking: string | null }>(
      `WITH retired AS (
         UPDATE search_cards c SET superseded_at = $7 FROM search_current cur
         WHERE cur.part_pk = ANY($8::bigint[]) AND c.id = cur.card_id RETURNING cur.card_id),
       unlinked AS (DELETE FROM search_org_docs WHERE card_id IN (SELECT card_id FROM retired)),
       cards AS (
         INSERT INTO search_cards (part_pk, part_id, service_id, names, created_at, modified_at)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) RETURNING id, part_pk),
       current AS (
         INSERT INTO search_current (part_pk, card_id, holder, org_doc)
         SELECT c.part_pk, c.id, u.holder, u.org_doc FROM cards c JOIN unnest($1::bigint[], $9::boolean[], $10::boolean[]) AS u(pk, holder, org_doc) ON u.pk = c.part_pk
         ON CONFLICT (part_pk) DO UPDATE SET card_id = excluded.card_id, holder = excluded.holder, org_doc = excluded.org_doc),
       org AS (
         INSERT INTO search_org_docs (card_id, doc) SELECT c.id, u.v::tsvector FROM cards c JOIN unnest($11::bigint[], $12::text[]) AS u(pk, v) ON u.pk = c.part_pk),
       added AS (INSERT INTO search_terms (term) SELECT unnest($13::text[]) ON CONFLICT DO NOTHING RETURNING term)
       SELECT id, part_pk, NULL::text AS term, NULL::text AS ranking FROM cards UNION ALL SELECT NULL, NULL, term, NULL FROM added
       UNION ALL SELECT NULL, NULL, NULL, value FROM settings WHERE key = $14`,
      [parts.map((p) => p.pk), parts.map((p) => p.part.part_id), parts.map((p) => p.part.serviceId), parts.map((p) => JSON.stringify(p.part.name)),
        parts.map((p) => p.part.createdAt), parts.map((p) => p.part.modifiedAt), now, parts.filter((p) => !p.created).map((p) => p.pk),
        docs.map((d) => d.holder), docs.map((d) => d.orgValues !== null), orgPks, orgVectors, [...terms], RANKING_SETTINGS_KEY],
    );
    const cardOf = new Map<number, number>();
    const added: string[] = [];
    let ranking: string | undefined;
    for (const r of rows.rows) {
      if (r.ranking !== null) ranking = r.ranking;
      else if (r.term !== null) added.push(r.term);
      else if (r.id !== null && r.part_pk !== null) cardOf.set(r.part_pk, r.id);
    }
    await this.addTermKeys(client, added);
    const engine = new PgEngineWrite(this.tails);
    const order = attributeOrderOf(ranking);
    for (const p of parts) {
      // Documents built ahead know no attribute order: with one, the engine document is built here.
      if (p.prepared && !order) {
        engine.putPrepared(p.pk, p.part.part_id, cardOf.get(p.pk) ?? 0, p.prepared);
        continue;
      }
      const previous = !p.created && p.previous ? buildEngineDocument(p.previous, attributes, order) : undefined;
      engine.put(p.pk, p.part.part_id, cardOf.get(p.pk) ?? 0, buildEngineDocument(p.part, attributes, order), previous);
    }
    await engine.flush(client);
    await this.collectGarbage(client, now);
  }

  /** Retires the cards of parts deleted in `client`'s transaction (called before their rows go). */
  async partsDeleted(client: PgClient, pks: readonly number[], now: number): Promise<void> {
    if (pks.length === 0) return;
    const rows = (await client.query<PgPartRow & { ranking: string | null }>(
      'SELECT p.*, (SELECT value FROM settings WHERE key = $2) AS ranking FROM parts p JOIN search_current cur ON cur.part_pk = p.pk WHERE p.pk = ANY($1::bigint[])', [pks, RANKING_SETTINGS_KEY],
    )).rows;
    const attributes = await loadAttributes(client);
    const order = attributeOrderOf(rows[0]?.ranking ?? undefined);
    const engine = new PgEngineWrite(this.tails);
    for (const row of rows) engine.remove(row.pk, buildEngineDocument(partFromPgRow(row), attributes, order));
    await this.retire(client, pks, now);
    await client.query('DELETE FROM search_current WHERE part_pk = ANY($1::bigint[])', [pks]);
    await engine.flush(client);
    await this.collectGarbage(client, now);
  }

  /**
   * Re-indexes, keeping their cards, every part with a value for an attribute whose searchable,
   * filterable, visibility or per_org_values changed (what a value contributes depends on them);
   * `before`: the definitions before this write.
   */
  async attributesChanged(client: PgClient, attributeIds: readonly string[], attributes: ReadonlyMap<string, Attribute>, before: ReadonlyMap<string, Attribute>): Promise<void> {
    if (attributeIds.length === 0) return;
    const old = new Map(attributes);
    for (const id of attributeIds) {
      const b = before.get(id);
      if (b) old.set(id, b);
    }
    const order = await loadAttributeOrder(client);
    await this.reindexPartsHolding(client, attributeIds, async (rows, engine) => {
      await client.query('DELETE FROM search_org_docs WHERE card_id = ANY($1::bigint[])', [rows.map((r) => r.card_id)]);
      const written = rows.map((r) => {
        const part = partFromPgRow(r);
        engine.put(r.pk, part.part_id, r.card_id, buildEngineDocument(part, attributes, order), buildEngineDocument(part, old, order));
        return { pk: r.pk, cardId: r.card_id, part };
      });
      await this.writeCurrent(client, written, attributes);
    });
  }

  /**
   * The ranking settings row changed from `before` to `after` in `client`'s transaction: every part
   * with a value for an attribute whose place in the attribute order changed is re-indexed with
   * the new order (document.ts ATTR_MARK), keeping its card.
   */
  async settingWritten(client: PgClient, before: string | undefined, after: string): Promise<void> {
    const old = attributeOrderOf(before);
    const next = attributeOrderOf(after);
    const changed = attributeOrderChanges(old, next);
    if (changed.length === 0) return;
    const attributes = await loadAttributes(client);
    await this.reindexPartsHolding(client, changed, (rows, engine) => {
      for (const r of rows) {
        const part = partFromPgRow(r);
        engine.put(r.pk, part.part_id, r.card_id, buildEngineDocument(part, attributes, next), buildEngineDocument(part, attributes, old));
      }
      return Promise.resolve();
    });
  }

  /**
   * Calls `visit` with every part holding one of `attributeIds` (each once, with its current card),
   * a page at a time in pk order, inside `client`'s write transaction; the engine's changes are
   * written every REBUILD_FLUSH parts, so memory stays bounded whatever the catalog's size.
   */
  private async reindexPartsHolding(client: PgClient, attributeIds: readonly string[], visit: (rows: (PgPartRow & { card_id: number })[], engine: PgEngineWrite) => Promise<void>): Promise<void> {
    let engine = new PgEngineWrite(this.tails);
    for (let after = 0; ;) {
      const rows = (await client.query<PgPartRow & { card_id: number }>(
        `SELECT p.*, cur.card_id FROM parts p JOIN search_current cur ON cur.part_pk = p.pk
         WHERE p.pk > $2 AND EXISTS (SELECT 1 FROM part_attributes pa WHERE pa.part_pk = p.pk AND pa.attribute_id = ANY($1::text[]))
         ORDER BY p.pk LIMIT ${REINDEX_PAGE}`,
        [attributeIds, after],
      )).rows;
      if (rows.length > 0) await visit(rows, engine);
      if (engine.size >= REBUILD_FLUSH) {
        await engine.flush(client);
        engine = new PgEngineWrite(this.tails);
      }
      const last = rows[rows.length - 1];
      if (!last || rows.length < REINDEX_PAGE) break;
      after = last.pk;
    }
    await engine.flush(client);
  }

  /**
   * Indexes every part when migration 4 asked for it (settings search_engine = 'rebuild') or the
   * index was built with another document format (settings search_document, core document.ts
   * DOCUMENT_FORMAT), in one write transaction; another server may have done it already. Called
   * when the stores open.
   */
  async rebuildIfPending(): Promise<void> {
    const pending = async (c: Pick<PgClient, 'query'>) => {
      const rows = (await c.query<{ key: string; value: string }>("SELECT key, value FROM settings WHERE key IN ('search_engine', 'search_document')")).rows;
      const value = (key: string) => rows.find((r) => r.key === key)?.value;
      return value('search_engine') === 'rebuild' || value('search_document') !== String(DOCUMENT_FORMAT);
    };
    if (!(await pending(this.db.pool))) return;
    await this.db.write(async (c) => {
      if (!(await pending(c))) return;
      const attributes = await loadAttributes(c);
      const order = await loadAttributeOrder(c);
      let engine = new PgEngineWrite(this.tails);
      engine.clearAll();
      for (let after = 0; ;) {
        const rows = (await c.query<PgPartRow & { card_id: number }>(
          'SELECT p.*, cur.card_id FROM parts p JOIN search_current cur ON cur.part_pk = p.pk WHERE p.pk > $1 ORDER BY p.pk LIMIT 1000', [after],
        )).rows;
        for (const r of rows) engine.put(r.pk, r.part_id, r.card_id, buildEngineDocument(partFromPgRow(r), attributes, order), undefined);
        if (engine.size >= REBUILD_FLUSH) {
          await engine.flush(c);
          engine = new PgEngineWrite(this.tails);
        }
        const last = rows[rows.length - 1];
        if (!last) break;
        after = last.pk;
      }
      await engine.flush(c);
      await c.query("UPDATE settings SET value = 'ready' WHERE key = 'search_engine'");
      await c.query("INSERT INTO settings (key, value) VALUES ('search_document', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(DOCUMENT_FORMAT)]);
    });
  }

  /** search_current, the per-organization value rows and the typo vocabulary of written parts. */
  private async writeCurrent(client: PgClient, parts: readonly { pk: number; cardId: number; part: StoredPart }[], attributes: ReadonlyMap<string, Attribute>): Promise<void> {
    const docs = parts.map((p) => ({ pk: p.pk, cardId: p.cardId, part: p.part, doc: buildOrgDocument(p.part, attributes) }));
    await client.query(
      `INSERT INTO search_current (part_pk, card_id, holder, org_doc) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::boolean[], $4::boolean[])
       ON CONFLICT (part_pk) DO UPDATE SET card_id = excluded.card_id, holder = excluded.holder, org_doc = excluded.org_doc`,
      [docs.map((d) => d.pk), docs.map((d) => d.cardId), docs.map((d) => d.doc.holder), docs.map((d) => d.doc.orgValues !== null)],
    );
    const orgCards: number[] = [];
    const orgVectors: string[] = [];
    const terms = new Set<string>();
    for (const d of docs) {
      const vector = orgVector(d.doc.orgValues);
      if (vector !== null) {
        orgCards.push(d.cardId);
        orgVectors.push(vector);
      }
      for (const t of d.doc.terms) terms.add(t);
    }
    if (orgCards.length > 0) {
      await client.query('INSERT INTO search_org_docs (card_id, doc) SELECT c, v::tsvector FROM unnest($1::bigint[], $2::text[]) AS u(c, v)', [orgCards, orgVectors]);
    }
    await this.addTerms(client, [...terms]);
  }

  private async retire(client: PgClient, pks: readonly number[], now: number): Promise<void> {
    const retired = await client.query<{ card_id: number }>(
      `UPDATE search_cards c SET superseded_at = $2 FROM search_current cur WHERE cur.part_pk = ANY($1::bigint[]) AND c.id = cur.card_id RETURNING cur.card_id`,
      [pks, now],
    );
    const cardIds = retired.rows.map((r) => r.card_id);
    if (cardIds.length === 0) return;
    await client.query('DELETE FROM search_org_docs WHERE card_id = ANY($1::bigint[])', [cardIds]);
  }

  /** Adds new words to the vocabulary, each under itself and its one-letter deletions (core/search/typo.ts). */
  private async addTerms(client: PgClient, terms: readonly string[]): Promise<void> {
    if (terms.length === 0) return;
    const added = await client.query<{ term: string }>(
      'INSERT INTO search_terms (term) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING RETURNING term',
      [terms],
    );
    await this.addTermKeys(client, added.rows.map((r) => r.term));
  }

  /** Stores the typo keys of words just added to the vocabulary: each under itself and its one-letter deletions. */
  private async addTermKeys(client: PgClient, added: readonly string[]): Promise<void> {
    const { keys, words } = typoKeyColumns(added);
    if (keys.length > 0) {
      await client.query('INSERT INTO search_term_keys (key, term) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING', [keys, words]);
    }
  }

  private async collectGarbage(client: PgClient, now: number): Promise<void> {
    if (now - this.lastGc < GC_INTERVAL_MICROS) return;
    this.lastGc = now;
    await client.query(
      `DELETE FROM search_cards WHERE id IN (SELECT id FROM search_cards WHERE superseded_at IS NOT NULL AND superseded_at < $1 LIMIT ${GC_BATCH})`,
      [now - CARD_RETENTION_MICROS],
    );
  }

  // -- read side ---------------------------------------------------------------------------------

  /**
   * Runs `search` through the reader. Searches run in batches, one batch at a time (the reader's
   * cache is one snapshot at a time; the CPU work is serial anyway): every search that arrives
   * while a batch runs joins the next one. A batch reads the committed version once and answers
   * from the cache what it can; the rest share one REPEATABLE READ snapshot, one refresh and their
   * fetch rounds (engine-reader.ts runAll). One at a time, each search paid those round trips
   * alone and the searches behind it waited through them: under 50 connections the reader's queue
   * was most of a search's time while the process sat idle.
   */
  private withReader<T>(search: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.searches.add({ search, resolve: resolve as (answer: unknown) => void, reject });
    });
  }

  /** Answers one batch of searches (withReader), each resolved or rejected. */
  private async runBatch(batch: readonly WaitingSearch[]): Promise<void> {
    try {
      // While nothing is written, a batch answers from the cache after one statement. While
      // writes come, the version has moved by the next batch: that statement would be a round
      // trip for nothing, so the batch goes straight to its snapshot.
      const rest = this.versionHeld ? await this.answerFromCache(batch) : batch;
      if (rest.length === 0) return;
      const before = this.reader.version;
      await this.answerInSnapshot(rest);
      this.versionHeld = this.reader.version === before;
    } catch (error) {
      // The database failed (a statement, the connection): every search of the batch fails alike
      // (those answered already keep their answer).
      for (const w of batch) w.reject(error);
    }
  }

  /** Answers from the cache the searches of `batch` it holds everything for, at the committed version; returns the rest. */
  private async answerFromCache(batch: readonly WaitingSearch[]): Promise<WaitingSearch[]> {
    const version = await this.reader.committedVersion(this.db);
    const rest: WaitingSearch[] = [];
    let ranSince = performance.now();
    for (const w of batch) {
      if (performance.now() - ranSince > YIELD_AFTER_MS) {
        // Other work of the event loop runs between searches (engine-reader.ts runAll).
        await new Promise((resolve) => setImmediate(resolve));
        ranSince = performance.now();
      }
      try {
        const cached = this.reader.tryCached(version, w.search);
        if (cached === undefined) rest.push(w);
        else w.resolve(cached);
      } catch (error) {
        w.reject(error);
      }
    }
    return rest;
  }

  /**
   * Answers `searches` in one REPEATABLE READ snapshot whose refresh goes with BEGIN in one round
   * trip. Resolves once every search is settled, which is before COMMIT's round trip: a read-only
   * snapshot's COMMIT changes no answer, so the searches and the next batch do not wait for it.
   * Rejects when the snapshot fails before that.
   */
  private answerInSnapshot(searches: readonly WaitingSearch[]): Promise<void> {
    return new Promise<void>((settled, failed) => {
      const snapshot = this.db.readFrom<RefreshRow, void>(this.reader.refreshStatement(), async (c, refreshed) => {
        const outcomes = await this.reader.runAll(c, searches.map((w) => w.search), refreshed);
        searches.forEach((w, i) => {
          const outcome = outcomes[i];
          if (outcome && 'answer' in outcome) w.resolve(outcome.answer);
          else w.reject(outcome?.error);
        });
        settled();
      });
      // After `settled`, a failure (of COMMIT) no longer changes anything.
      snapshot.catch(failed);
    });
  }

  async searchText(query: TextSearchQuery, maxHits: number): Promise<RankedHits> {
    return this.withReader(() => {
      const { total, docs } = this.searcher.matchingDocs(query, maxHits);
      return { total, cardIds: docs.map((doc) => this.reader.card[doc] ?? 0) };
    });
  }

  /** Facet counts over every hit (SearchIndex.facets; core/search/engine/searcher.ts). */
  async facets(query: TextSearchQuery, attributes: readonly Attribute[], maxValues: number, valuePrefix = ''): Promise<SearchFacets> {
    return this.withReader(() => this.searcher.facets(query, attributes, maxValues, valuePrefix));
  }

  async readCards(cardIds: readonly number[]): Promise<ResultCard[]> {
    if (cardIds.length === 0) return [];
    const rows = await this.db.query<CardRow>('SELECT id, part_id, service_id, names, created_at, modified_at FROM search_cards WHERE id = ANY($1::bigint[])', [cardIds]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return cardIds.flatMap((id) => {
      const r = byId.get(id);
      return r ? [{ cardId: r.id, partId: r.part_id, serviceId: r.service_id, names: JSON.parse(r.names) as LangMap, createdAt: r.created_at, modifiedAt: r.modified_at }] : [];
    });
  }

  async currentCards(partIds: readonly string[]): Promise<Map<string, number>> {
    if (partIds.length === 0) return new Map();
    const rows = await this.db.query<{ part_id: string; card_id: number }>(
      'SELECT p.part_id, cur.card_id FROM parts p JOIN search_current cur ON cur.part_pk = p.pk WHERE p.part_id = ANY($1::text[])',
      [partIds],
    );
    return new Map(rows.map((r) => [r.part_id, r.card_id]));
  }
}
