/**
 * The SearchIndex port over PostgreSQL full-text search (issue 15; docs/deploy.md, "Search"):
 * tsvector rows with a GIN index, written INSIDE the catalog store's write transactions (a
 * committed part is searchable at once, a rolled-back one never), the same plan as the SQLite
 * FTS5 index had (its plan.ts: `exact` when per-organization values cannot matter,
 * otherwise non-holders through the index and holders evaluated one by one with the core's
 * evaluatePart), and the same vocabulary tables for prefix expansion and one-typo neighbours.
 *
 * Tables (migrations.ts): search_cards (immutable result cards, kept 25 h after being superseded),
 * search_current (part -> card, holder flags), search_docs (one row per card and distinct
 * visibility view: tsvector + filter tokens), search_org_docs (per-organization value texts, to
 * learn whether a word occurs in any), search_terms / search_term_keys (vocabulary).
 *
 * Ranking: tier (every word in the id or a name) first, then ts_rank of the caller's view row
 * (weights: id and names 1.0, values 0.1), ties by part id in code point order. ts_rank is not
 * FTS5's BM25, so the order WITHIN a tier may differ from SQLite's; everything the contract
 * defines (which parts match, the total, the tiers, ties by id, hidden values never changing a
 * rank) is the same.
 */
import type { Attribute, LangMap, SearchFacets } from '../../../api/schemas.js';
import type { Clock, SearchIndex } from '../../../core/ports.js';
import type { Alternative, ExpandedWord, PartViewContext, QueryWord, RankedHits, ResultCard, SearchFilter, StoredPart, TextSearchQuery } from '../../../core/model.js';
import { canSeeVisibility, VISIBILITY_ORDER } from '../../../core/permissions.js';
import type { Visibility } from '../../../api/schemas.js';
import { evaluatePart, valuePasses, wordMatches } from '../../../core/search/match.js';
import { compareBinary, orderHits, type ScoredHit } from '../../../core/search/rank.js';
import { viewPart } from '../../../core/catalog/parts.js';
import { foldFilterValue, langTexts, tokenize } from '../../../core/search/text.js';
import { deletionVariants, hasTypoKeys, isVocabularyTerm, lookupKeys, lookupKeys2, typoNeighbours } from '../../../core/search/typo.js';
import { filterToken } from './document.js';
import type { PgClient, PgDatabase } from '../database.js';
import { partFromPgRow, type PgPartRow } from '../part-rows.js';
import { buildPgDocument, orgWeights, tsAnd, tsAny, tsClauses, tsWord, type PgSearchDocument } from './tsvector.js';

/** The visibility tier of a caller: the narrowest level it sees (visibility is nested, core/permissions.ts). */
function visibilityTier(visible: readonly Visibility[]): number {
  let tier = 0;
  for (const v of visible) tier = Math.max(tier, VISIBILITY_ORDER.indexOf(v));
  return tier;
}

/** A superseded card is kept this long (sessions live 24 h; one hour of margin). */
export const CARD_RETENTION_MICROS = 25 * 3600 * 1_000_000;
const GC_INTERVAL_MICROS = 10 * 60 * 1_000_000;
const GC_BATCH = 5000;
const PREFIX_EXPANSION_LIMIT = 64;
const MAX_CHAR = '\u{10FFFF}';
/** ts_rank weights {D, C, B, A}: values 0.1, id and names 1.0. */
const RANK_WEIGHTS = '{0.1, 0.1, 0.1, 1.0}';

/** Something that runs a query: the pool or a client inside a transaction. */
type Queryable = Pick<PgClient, 'query'>;

/**
 * An index query: words (tsquery; undefined = none), names-tier tsquery, exact-tier tsquery (the
 * words without their synonyms; issue 13), filters (each: any of these tokens), holder restriction.
 */
interface PgQuery {
  match: string | undefined;
  names: string | undefined;
  exact?: string | undefined;
  filters: string[][];
  holder: 'only' | 'exclude' | 'any';
}

type Plan =
  | { kind: 'nothing' }
  | { kind: 'everything' }
  | { kind: 'exact'; query: PgQuery }
  | { kind: 'split'; nonHolders: PgQuery | 'all' | 'none'; holders: PgQuery };

/** A part written in the current transaction, as the index needs it. */
export interface WrittenPart {
  pk: number;
  part: StoredPart;
  created: boolean;
}

interface CardRow {
  id: number;
  part_id: string;
  service_id: string;
  names: string;
  created_at: number;
  modified_at: number;
}

/** The PostgreSQL SearchIndex and its write-side maintenance (called by the catalog store inside its transactions). */
export class PgSearchIndex implements SearchIndex {
  private readonly db: PgDatabase;
  private readonly clock: Clock;
  private lastGc = 0;

  constructor(db: PgDatabase, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  // -- write side ------------------------------------------------------------------------------

  /** Indexes parts written in `client`'s transaction: a new card each, the old one superseded. */
  async partsWritten(client: PgClient, parts: readonly WrittenPart[], attributes: ReadonlyMap<string, Attribute>, now: number): Promise<void> {
    if (parts.length === 0) return;
    const updated = parts.filter((p) => !p.created).map((p) => p.pk);
    if (updated.length > 0) await this.retire(client, updated, now);
    const cards = await client.query<{ id: number; part_pk: number }>(
      `INSERT INTO search_cards (part_pk, part_id, service_id, names, created_at, modified_at)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) RETURNING id, part_pk`,
      [parts.map((p) => p.pk), parts.map((p) => p.part.part_id), parts.map((p) => p.part.serviceId), parts.map((p) => JSON.stringify(p.part.name)),
        parts.map((p) => p.part.createdAt), parts.map((p) => p.part.modifiedAt)],
    );
    const cardOf = new Map(cards.rows.map((r) => [r.part_pk, r.id]));
    const docs = parts.map((p) => ({ pk: p.pk, cardId: cardOf.get(p.pk) ?? 0, partId: p.part.part_id, doc: buildPgDocument(p.part, attributes) }));
    await client.query(
      `INSERT INTO search_current (part_pk, card_id, holder, org_doc) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::boolean[], $4::boolean[])
       ON CONFLICT (part_pk) DO UPDATE SET card_id = excluded.card_id, holder = excluded.holder, org_doc = excluded.org_doc`,
      [docs.map((d) => d.pk), docs.map((d) => d.cardId), docs.map((d) => d.doc.holder), docs.map((d) => d.doc.orgDoc !== null)],
    );
    await this.writeDocs(client, docs);
    await this.collectGarbage(client, now);
  }

  /** Retires the cards of parts deleted in `client`'s transaction. */
  async partsDeleted(client: PgClient, pks: readonly number[], now: number): Promise<void> {
    if (pks.length === 0) return;
    await this.retire(client, pks, now);
    await client.query('DELETE FROM search_current WHERE part_pk = ANY($1::bigint[])', [pks]);
    await this.collectGarbage(client, now);
  }

  /**
   * Re-indexes, keeping their cards, every part with a value for an attribute whose searchable,
   * filterable, visibility or per_org_values changed (the column a value lands in depends on them).
   */
  async attributesChanged(client: PgClient, attributeIds: readonly string[], attributes: ReadonlyMap<string, Attribute>): Promise<void> {
    if (attributeIds.length === 0) return;
    const rows = await client.query<PgPartRow & { card_id: number }>(
      `SELECT p.*, cur.card_id FROM parts p JOIN search_current cur ON cur.part_pk = p.pk
       WHERE p.pk IN (SELECT part_pk FROM part_attributes WHERE attribute_id = ANY($1::text[]))`,
      [attributeIds],
    );
    if (rows.rows.length === 0) return;
    const cardIds = rows.rows.map((r) => r.card_id);
    await client.query('DELETE FROM search_docs WHERE card_id = ANY($1::bigint[])', [cardIds]);
    await client.query('DELETE FROM search_org_docs WHERE card_id = ANY($1::bigint[])', [cardIds]);
    const docs = rows.rows.map((r) => {
      const part = partFromPgRow(r);
      return { pk: r.pk, cardId: r.card_id, partId: part.part_id, doc: buildPgDocument(part, attributes) };
    });
    await client.query(
      'UPDATE search_current cur SET holder = u.holder, org_doc = u.org_doc FROM unnest($1::bigint[], $2::boolean[], $3::boolean[]) AS u(pk, holder, org_doc) WHERE cur.part_pk = u.pk',
      [docs.map((d) => d.pk), docs.map((d) => d.doc.holder), docs.map((d) => d.doc.orgDoc !== null)],
    );
    await this.writeDocs(client, docs);
  }

  private async retire(client: PgClient, pks: readonly number[], now: number): Promise<void> {
    const retired = await client.query<{ card_id: number }>(
      `UPDATE search_cards c SET superseded_at = $2 FROM search_current cur WHERE cur.part_pk = ANY($1::bigint[]) AND c.id = cur.card_id RETURNING cur.card_id`,
      [pks, now],
    );
    const cardIds = retired.rows.map((r) => r.card_id);
    if (cardIds.length === 0) return;
    await client.query('DELETE FROM search_docs WHERE card_id = ANY($1::bigint[])', [cardIds]);
    await client.query('DELETE FROM search_org_docs WHERE card_id = ANY($1::bigint[])', [cardIds]);
  }

  private async writeDocs(client: PgClient, docs: readonly { cardId: number; partId: string; doc: PgSearchDocument }[]): Promise<void> {
    const cardIds: number[] = [];
    const los: number[] = [];
    const his: number[] = [];
    const partIds: string[] = [];
    const holders: boolean[] = [];
    const vectors: string[] = [];
    const filters: string[] = [];
    const orgCards: number[] = [];
    const orgVectors: string[] = [];
    const terms = new Set<string>();
    for (const { cardId, partId, doc } of docs) {
      for (const row of doc.rows) {
        cardIds.push(cardId);
        los.push(row.lo);
        his.push(row.hi);
        partIds.push(partId);
        holders.push(doc.holder);
        vectors.push(row.doc);
        // text[] literals cannot nest in unnest; filter tokens are hex words, joined by spaces.
        filters.push(row.flt.join(' '));
      }
      if (doc.orgDoc !== null) {
        orgCards.push(cardId);
        orgVectors.push(doc.orgDoc);
      }
      for (const t of doc.terms) terms.add(t);
    }
    await client.query(
      `INSERT INTO search_docs (card_id, lo, hi, part_id, holder, doc, flt)
       SELECT c, lo, hi, pid, h, v::tsvector, CASE WHEN f = '' THEN '{}'::text[] ELSE string_to_array(f, ' ') END
       FROM unnest($1::bigint[], $2::smallint[], $3::smallint[], $4::text[], $5::boolean[], $6::text[], $7::text[]) AS u(c, lo, hi, pid, h, v, f)`,
      [cardIds, los, his, partIds, holders, vectors, filters],
    );
    if (orgCards.length > 0) {
      await client.query('INSERT INTO search_org_docs (card_id, doc) SELECT c, v::tsvector FROM unnest($1::bigint[], $2::text[]) AS u(c, v)', [orgCards, orgVectors]);
    }
    await this.addTerms(client, [...terms]);
  }

  /** Adds new words to the vocabulary, each under itself and its one-letter deletions (core/search/typo.ts). */
  private async addTerms(client: PgClient, terms: readonly string[]): Promise<void> {
    if (terms.length === 0) return;
    const added = await client.query<{ term: string }>(
      'INSERT INTO search_terms (term) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING RETURNING term',
      [terms],
    );
    const keys: string[] = [];
    const keyTerms: string[] = [];
    for (const { term } of added.rows) {
      if (!hasTypoKeys(term)) continue;
      for (const key of [term, ...deletionVariants(term)]) {
        keys.push(key);
        keyTerms.push(term);
      }
    }
    if (keys.length > 0) {
      await client.query('INSERT INTO search_term_keys (key, term) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING', [keys, keyTerms]);
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

  async searchText(query: TextSearchQuery, maxHits: number): Promise<RankedHits> {
    // One snapshot: the vocabulary, the count and the hits agree.
    return this.db.read(async (c) => {
      const hits = await this.searchTextOnce(c, query, maxHits, false);
      if (hits.total > 0 || query.words.length === 0) return hits;
      // A known word may be someone's typo: with nothing found, try neighbours of every eligible word.
      return this.searchTextOnce(c, query, maxHits, true);
    });
  }

  private async searchTextOnce(c: Queryable, query: TextSearchQuery, maxHits: number, typosForKnownWords: boolean): Promise<RankedHits> {
    const words: ExpandedWord[] = [];
    for (const w of query.words) words.push(await this.expand(c, w, typosForKnownWords));
    const tier = visibilityTier(query.visibleValues);
    const inOrgText: boolean[] = [];
    for (const w of words) {
      if (query.visibleValues.length === 0) {
        inOrgText.push(false);
        continue;
      }
      const probe = await c.query('SELECT 1 FROM search_org_docs WHERE doc @@ $1::tsquery LIMIT 1', [tsAny([...w.alternatives, ...(w.synonyms ?? [])], orgWeights(tier))]);
      inOrgText.push(probe.rows.length > 0);
    }
    // A multi-word synonym in some organization's value: the run's parts are evaluated one by one too.
    for (let i = 0; i < words.length; i++) {
      const span = words[i]?.word.synonymSpan;
      if (!span || query.visibleValues.length === 0) continue;
      const probe = await c.query('SELECT 1 FROM search_org_docs WHERE doc @@ $1::tsquery LIMIT 1', [tsAny(span.alternatives, orgWeights(tier))]);
      if (probe.rows.length > 0) for (let j = i; j < i + span.count && j < words.length; j++) inOrgText[j] = true;
    }
    const plan = planPg(words, inOrgText, query);
    const limit = Math.max(0, maxHits);
    let total = 0;
    let scored: ScoredHit[] = [];
    switch (plan.kind) {
      case 'nothing':
        break;
      case 'everything':
        ({ total, scored } = await this.allParts(c, false, limit));
        break;
      case 'exact':
        ({ total, scored } = await this.rank(c, tier, plan.query, limit));
        break;
      case 'split': {
        if (plan.nonHolders === 'all') ({ total, scored } = await this.allParts(c, true, limit));
        else if (plan.nonHolders !== 'none') ({ total, scored } = await this.rank(c, tier, plan.nonHolders, limit));
        const holders = await this.verifyHolders(c, tier, plan.holders, words, query);
        total += holders.length;
        scored = [...scored, ...holders];
        break;
      }
    }
    return { total, cardIds: orderHits(scored, [], [], limit) };
  }

  /** A word's ways to match: itself, a prefix's vocabulary words (≤ 64), typo neighbours of unknown (or all) words. */
  private async expand(c: Queryable, word: QueryWord, typosForKnownWords: boolean): Promise<ExpandedWord> {
    let alternatives: Alternative[] = [{ tokens: word.tokens, prefix: word.prefix }];
    const token = word.tokens[0];
    let knownPrefix: boolean | undefined;
    if (word.prefix && word.tokens.length === 1 && token !== undefined && isVocabularyTerm(token)) {
      const terms = (await c.query<{ term: string }>('SELECT term FROM search_terms WHERE term >= $1 AND term < $2 ORDER BY term LIMIT $3', [token, `${token}${MAX_CHAR}`, PREFIX_EXPANSION_LIMIT + 1])).rows.map((r) => r.term);
      knownPrefix = terms.length > 0;
      if (terms.length <= PREFIX_EXPANSION_LIMIT) {
        alternatives = [{ tokens: [token], prefix: false }, ...terms.filter((t) => t !== token).map((t) => ({ tokens: [t], prefix: false }))];
      }
    }
    if (word.typo && token !== undefined) {
      let known: boolean;
      if (word.prefix) {
        known = knownPrefix ?? (await c.query('SELECT 1 FROM search_terms WHERE term >= $1 AND term < $2 LIMIT 1', [token, `${token}${MAX_CHAR}`])).rows.length > 0;
      } else {
        known = (await c.query('SELECT 1 FROM search_terms WHERE term = $1', [token])).rows.length > 0;
      }
      if (!known || typosForKnownWords) {
        // Two typos (issue 13): the vocabulary keeps one-deletion keys only, so besides them the
        // words beginning with the same letter are checked, as the SQLite index does.
        const maxTypos = word.maxTypos ?? 1;
        const candidates = (await c.query<{ term: string }>('SELECT DISTINCT term FROM search_term_keys WHERE key = ANY($1::text[])', [maxTypos === 2 ? lookupKeys2(token) : lookupKeys(token)])).rows.map((r) => r.term);
        if (maxTypos === 2) {
          const first = String.fromCodePoint(token.codePointAt(0) ?? 0);
          candidates.push(...(await c.query<{ term: string }>('SELECT term FROM search_terms WHERE term >= $1 AND term < $2', [first, `${first}${MAX_CHAR}`])).rows.map((r) => r.term));
        }
        for (const neighbour of typoNeighbours(token, candidates, maxTypos)) alternatives.push({ tokens: [neighbour], prefix: word.prefix });
      }
    }
    return { word, alternatives, idAlternatives: [{ tokens: word.tokens, prefix: word.prefix }], ...(word.synonyms ? { synonyms: word.synonyms } : {}) };
  }

  /** Every current part (`nonHoldersOnly`: without per-organization values) by part id. */
  private async allParts(c: Queryable, nonHoldersOnly: boolean, limit: number): Promise<{ total: number; scored: ScoredHit[] }> {
    const where = nonHoldersOnly ? 'WHERE NOT cur.holder' : '';
    const total = (await c.query<{ n: number }>(`SELECT count(*) AS n FROM search_current cur ${where}`)).rows[0]?.n ?? 0;
    if (limit === 0 || total === 0) return { total, scored: [] };
    const rows = await c.query<{ id: number; part_id: string }>(
      `SELECT cur.card_id AS id, p.part_id FROM parts p JOIN search_current cur ON cur.part_pk = p.pk ${where} ORDER BY p.part_id LIMIT $1`,
      [limit],
    );
    return { total, scored: rows.rows.map((r) => ({ id: r.id, score: 0, partId: r.part_id, tier: 1 })) };
  }

  /** The WHERE clause of a query on the rows of `tier`, with its parameters. */
  private conditions(tier: number, q: PgQuery, params: unknown[], alias = ''): string {
    const p = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const conditions = [`${alias}lo <= ${p(tier)}`, `${alias}hi >= ${p(tier)}`];
    if (q.match !== undefined) conditions.push(`${alias}doc @@ ${p(q.match)}::tsquery`);
    for (const tokens of q.filters) conditions.push(`${alias}flt && ${p(tokens)}::text[]`);
    if (q.holder === 'only') conditions.push(`${alias}holder`);
    if (q.holder === 'exclude') conditions.push(`NOT ${alias}holder`);
    return conditions.join(' AND ');
  }

  /** Ranks the hits of one index query: tier, ts_rank, part id; the total counts every hit. */
  private async rank(c: Queryable, tier: number, q: PgQuery, limit: number): Promise<{ total: number; scored: ScoredHit[] }> {
    const params: unknown[] = [];
    const where = this.conditions(tier, q, params);
    const score = q.match !== undefined ? `ts_rank('${RANK_WEIGHTS}', doc, $${params.indexOf(q.match) + 1}::tsquery)` : '0::real';
    let names = 'false';
    if (q.names !== undefined) {
      params.push(q.names);
      names = `doc @@ $${params.length}::tsquery`;
    }
    // Exact before synonym matches (issue 13): a part the words match without their synonyms.
    let exact = 'true';
    if (q.exact !== undefined && q.exact !== q.match) {
      params.push(q.exact);
      exact = `doc @@ $${params.length}::tsquery`;
    }
    params.push(Math.max(1, limit));
    const rows = await c.query<{ id: number; part_id: string; r: number; t0: boolean; ex: boolean; total: number }>(
      `SELECT card_id AS id, part_id, ${score} AS r, ${names} AS t0, ${exact} AS ex, count(*) OVER () AS total
       FROM search_docs WHERE ${where} ORDER BY ex DESC, t0 DESC, r DESC, part_id LIMIT $${params.length}`,
      params,
    );
    const total = rows.rows[0]?.total ?? 0;
    if (limit === 0) return { total, scored: [] };
    return { total, scored: rows.rows.map((r) => ({ id: r.id, score: -r.r, partId: r.part_id, tier: (r.t0 ? 0 : 1) | (r.ex ? 0 : 2) })) };
  }

  /** Holders the index cannot decide: candidates from the index, each evaluated as the caller's organization sees it. */
  private async verifyHolders(c: Queryable, tier: number, q: PgQuery, words: readonly ExpandedWord[], query: TextSearchQuery): Promise<ScoredHit[]> {
    const params: unknown[] = [];
    const where = this.conditions(tier, q, params, 'd.');
    const score = q.match !== undefined ? `ts_rank('${RANK_WEIGHTS}', d.doc, $${params.indexOf(q.match) + 1}::tsquery)` : '0::real';
    const rows = await c.query<PgPartRow & { card_id: number; r: number }>(
      `SELECT d.card_id, ${score} AS r, p.* FROM search_docs d JOIN search_cards sc ON sc.id = d.card_id JOIN parts p ON p.pk = sc.part_pk WHERE ${where}`,
      params,
    );
    const hits: ScoredHit[] = [];
    for (const row of rows.rows) {
      const result = evaluatePart(partFromPgRow(row), words, query.filters, query.ctx);
      if (result.matches) hits.push({ id: row.card_id, score: -row.r, partId: row.part_id, tier: (result.namesTier ? 0 : 1) | (result.synonym ? 2 : 0) });
    }
    return hits;
  }

  /**
   * Facet counts over every hit (SearchIndex.facets; issue 13): the hits' parts are read and each
   * filterable attribute the caller sees is counted from them (stored values; per-organization
   * values as the caller's organization sees them), in part creation order so the value shown for
   * a folded value is the earliest part's text, as on SQLite.
   */
  async facets(query: TextSearchQuery, attributes: readonly Attribute[], maxValues: number, valuePrefix = ''): Promise<SearchFacets> {
    const foldedPrefix = foldFilterValue(valuePrefix);
    const hits = await this.searchText(query, Number.MAX_SAFE_INTEGER);
    const rows = hits.cardIds.length === 0 ? [] : await this.db.query<PgPartRow>(
      'SELECT p.* FROM parts p JOIN search_current cur ON cur.part_pk = p.pk WHERE cur.card_id = ANY($1::bigint[]) ORDER BY p.pk',
      [hits.cardIds],
    );
    const parts = rows.map(partFromPgRow);
    const out: SearchFacets = {};
    for (const attribute of attributes) {
      const id = attribute.attribute_id;
      if (!attribute.filterable || !canSeeVisibility(query.ctx.principal, attribute.visibility)) {
        out[id] = [];
        continue;
      }
      const counts = new Map<string, { count: number; shown: string }>();
      for (const part of parts) {
        const entry = (attribute.per_org_values ? viewPart(part, query.ctx).attributes : part.attributes).find((a) => a.attribute_id === id);
        const seen = new Set<string>();
        for (const value of entry?.values ?? []) {
          if (!attribute.per_org_values && value.organization !== '') continue;
          for (const text of langTexts(value.value)) {
            const folded = foldFilterValue(text);
            if (seen.has(folded) || !folded.startsWith(foldedPrefix)) continue;
            seen.add(folded);
            const c = counts.get(folded);
            if (c) c.count++;
            else counts.set(folded, { count: 1, shown: text });
          }
        }
      }
      out[id] = [...counts].sort((x, y) => y[1].count - x[1].count || compareBinary(x[0], y[0])).slice(0, maxValues).map(([, c]) => ({ value: c.shown, count: c.count }));
    }
    return out;
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

/** Per word: satisfied by the default_value of a searchable per-organization attribute the caller sees (organization views only). */
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

/**
 * The SQLite index's plan (adapters/sqlite/search/plan.ts planTextSearch before the search engine replaced it), in tsquery terms: the
 * same decisions on the same inputs, so both stores answer every query alike.
 */
function planPg(words: readonly ExpandedWord[], inOrgText: readonly boolean[], query: TextSearchQuery): Plan {
  const { filters, ctx } = query;
  if (words.length === 0 && filters.length === 0) return { kind: 'everything' };
  const wordClauses = tsClauses(words, () => true, false, false);
  const nameClauses = tsClauses(words, () => true, false, true);
  // The words without synonyms: a part they match ranks above one matched only through a synonym (issue 13).
  const exact = tsAnd(words.map((w) => tsWord({ word: w.word, alternatives: w.alternatives, idAlternatives: w.idAlternatives }, false)));
  const inDefaults = wordsInDefaults(words, ctx);
  const shared: string[][] = [];
  const orgFilters: SearchFilter[] = [];
  for (const filter of filters) {
    if (!canSeeVisibility(ctx.principal, filter.attribute.visibility) || filter.values.length === 0) return { kind: 'nothing' };
    if (filter.attribute.per_org_values) orgFilters.push(filter);
    else shared.push([...new Set(filter.values.map((v) => filterToken(filter.attribute.attribute_id, v)))]);
  }
  const names = words.length > 0 ? tsAnd(nameClauses) : undefined;
  const orgSensitive = orgFilters.length > 0 || words.some((_, i) => inDefaults[i] === true || inOrgText[i] === true);
  if (!orgSensitive) {
    const match = tsAnd(wordClauses);
    if (match === undefined && shared.length === 0) return { kind: 'everything' };
    return { kind: 'exact', query: { match, names, exact, filters: shared, holder: 'any' } };
  }
  const defaultsPass = orgFilters.every((f) => {
    const fallback = ctx.organization !== undefined ? f.attribute.default_value : undefined;
    return fallback !== undefined && fallback !== null && valuePasses(fallback, new Set(f.values.map(foldFilterValue)));
  });
  let nonHolders: PgQuery | 'all' | 'none' = 'none';
  if (defaultsPass) {
    const positive = tsAnd(tsClauses(words, (i) => inDefaults[i] !== true, false, false));
    nonHolders = positive === undefined && shared.length === 0 ? 'all' : { match: positive, names, exact: tsAnd(words.filter((_, i) => inDefaults[i] !== true).map((w) => tsWord({ word: w.word, alternatives: w.alternatives, idAlternatives: w.idAlternatives }, false))), filters: shared, holder: 'exclude' };
  }
  const holderWords = tsAnd(tsClauses(words, (i) => inDefaults[i] !== true && inOrgText[i] !== true, true, false));
  return { kind: 'split', nonHolders, holders: { match: holderWords, names: undefined, filters: shared, holder: 'only' } };
}
