/**
 * SearchService: POST /1/find/search and GET /1/find/search/state/{sessionId} (spec 2.5, 4.4;
 * decisions §8), used by the HTTP server and the local client alike.
 *
 * A search is: validate the request, rank (a rank step producing ordered hits: the text index
 * today; an image ranker plugs in beside it), store the hits as a session, answer the first page.
 * Hits are result-card ids (immutable snapshots of a part's result fields), so a session shows
 * every page as it was at search time, and any page is one indexed range read.
 */
import { CatalogError, errors, type FieldProblem } from '../../api/errors.js';
import {
  DEFAULT_FACET_VALUES, DEFAULT_SEARCH_LIMIT, FacetValuesRequestSchema, MAX_PAGE_LIMIT, RankingSettingsSchema, ROLES, type Attribute, type RankingSettings, type SearchSort, type FacetValuesResponse, type SearchFacets, SearchRequestSchema, type Principal, type SearchProjection, type SearchRequest,
  type SearchResponse, type SearchResult, type SynonymSet,
} from '../../api/schemas.js';
import { createHash } from 'node:crypto';
import { SessionPurge } from './session-purge.js';
import { sessionScore, type Clock, type Ids, type ImageSimilaritySearch, type NewSession, type SearchIndex, type SessionBudget, type SessionSink, type SessionStore } from '../ports.js';
import type { ServiceContext } from '../context.js';

import { MAX_QUERY_WORDS, parseQueryText } from './query.js';
import { DEFAULT_TYPO_RULES, type TypoRules } from './typo.js';
import { checkProjection, projectionInForce, toSearchResult, type HitDetails } from './result.js';
import { viewPart } from '../catalog/parts.js';
import { highlight, highlightFields } from './highlight.js';
import { parseBody } from '../validation.js';
import { applySynonyms, compileSynonyms, type SynonymIndex } from './synonyms.js';
import { assertCatalogAdmin, assertScope, canSeeVisibility, visibleLevels } from '../permissions.js';
import { parseNumberValue } from './engine/order-keys.js';
import { notIdentifier, notOrderable, parseRankingSettings, searchIdentifiers, searchOrder, unorderable } from './ranking-settings.js';
import type { RankedHits, ResultCard, SearchFilter, SessionHits, StoredPart, StoredSession, TextSearchQuery } from '../model.js';

/**
 * The `imageId` of an image search: `query-` and the first 32 hex digits of the query image's
 * SHA-256, so the same photo gives the same id (the query image itself is not kept).
 */
export function queryImageId(bytes: Uint8Array): string {
  return `query-${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}`;
}

/** Tunable limits of search (decisions §8, §9 for the session budget; docs/api.md). */
export interface SearchLimits {
  /** Hits stored per session; resultsTotalCount still counts all. */
  maxSessionHits: number;
  /** How long a session can be read, in microseconds. */
  sessionTtlMicros: number;
  /** Live sessions per token; a new search evicts that token's oldest session beyond it (default 1,000). */
  maxSessionsPerToken: number;
  /**
   * Bytes all sessions may take in sessions.db, as the store counts them (default 128 MiB; the
   * file stays within about this plus a 4 MiB WAL). A new search evicts the oldest sessions of
   * any token beyond it.
   */
  maxSessionBytes: number;
  /** Milliseconds between purges of expired sessions (default 60,000); 0 = no timer (a purge then runs only after searches). */
  sessionPurgeIntervalMs: number;
  /** Values per facet when the request does not say (`resultOptions.maxValuesPerFacet`; default 10). */
  facetValues: number;
  /** Word lengths from which one and two typos are tolerated (default 5 and 9 letters). */
  typoRules: TypoRules;
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = {
  maxSessionHits: 10_000,
  sessionTtlMicros: 24 * 3600 * 1_000_000,
  maxSessionsPerToken: 1000,
  maxSessionBytes: 128 * 1024 * 1024,
  sessionPurgeIntervalMs: 60_000,
  facetValues: DEFAULT_FACET_VALUES,
  typoRules: DEFAULT_TYPO_RULES,
};

/**
 * Who owns a session: the stable identity of the token (Principal.sessionOwner, derived from its
 * secret's hash), never its name, so a revoked token's name re-created, or a token named `local`,
 * cannot read sessions it did not start. A principal without one (built in-process) is keyed by
 * name in a namespace of its own.
 */
export function sessionOwner(principal: Principal): string {
  return principal.sessionOwner ?? `name:${principal.name}`;
}

const MAX_SKIP = 1_000_000_000;

const MIN_SCORE_WITHOUT_IMAGE = 'resultOptions.minScore: only an image search has scores; send the photo as the multipart part image, or drop minScore';

/**
 * A text search request (POST /1/find/search without an image or facets), validated as
 * {@link SearchService.search} validates it, with the index query it ranks: for a caller that
 * ranks and answers it in steps ({@link SearchService.planTextSearch}).
 */
export interface TextSearchPlan {
  readonly request: SearchRequest;
  readonly projection: readonly SearchProjection[] | undefined;
  /** The first page's size: `resultOptions.limit`, default DEFAULT_SEARCH_LIMIT. */
  readonly limit: number;
  readonly query: TextSearchQuery;
}

/** Ranked hits of a {@link TextSearchPlan} and, when the index read them with the hits, the first hits' cards. */
export interface RankedPlan {
  hits: RankedHits;
  cards: ResultCard[] | undefined;
}

/** The query image of an image search (the multipart part `image`), for the image follow-up. */
export interface SearchImage {
  bytes: Uint8Array;
  /** Content type the client declared, if any (the format is detected from the bytes). */
  contentType?: string | undefined;
}

/** Options of GET /1/find/search/state/{sessionId}. */
export interface SearchStateRequest {
  skip?: number | undefined;
  limit?: number | undefined;
  /** Projection values; a string is the comma-separated query parameter form. */
  projection?: readonly string[] | string | undefined;
}

/**
 * Where richer hits are read from (`results.attributes`, `results.images`), wired by the
 * composition root to the catalog store and the image service, so no new storage is needed.
 */
export interface HitSources {
  /** Stored parts by id (CatalogStore.getParts); unknown ids are left out. */
  parts(partIds: readonly string[]): Promise<StoredPart[]>;
  /** Part id -> its shown display images in UI order (ImageService.shownImagesOf). */
  shownImages(partIds: readonly string[]): Promise<Map<string, string[]>>;
}

export interface SearchServiceDeps {
  context: ServiceContext;
  /** Sources of `results.attributes` and `results.images`; without them those fields are empty. */
  hitSources?: HitSources;
  index: SearchIndex;
  sessions: SessionStore;
  limits?: Partial<SearchLimits>;
  /** Image similarity ranking; without it an image search is a 415. */
  images?: ImageSimilaritySearch;
  /**
   * The catalog's synonym sets (CatalogStore.allSynonyms: the same array while unchanged), applied
   * to every search's words at query time; without it no synonyms.
   */
  synonyms?: () => Promise<readonly SynonymSet[]>;
  /**
   * Where new sessions go instead of being stored at once (core/ports.ts SessionSink): every read
   * of a session first waits for its `flush`, so a session is always found by this service.
   */
  sessionSink?: SessionSink;
  /**
   * The catalog's ranking settings row (ranking-settings.ts RANKING_SETTINGS_KEY in the catalog
   * store's settings): read at every search, written by {@link SearchService.setRanking}. Without
   * it the defaults, and settings cannot be changed.
   */
  rankingSettings?: { get(): Promise<string | undefined>; set(value: string): Promise<void> };
}

/** The filterable attribute ids, sorted and comma-separated, for error details ('none' when there are none). */
function filterableIds(attributes: ReadonlyMap<string, Attribute>): string {
  const ids = [...attributes.values()].filter((a) => a.filterable).map((a) => a.attribute_id).sort();
  return ids.length > 0 ? ids.join(', ') : 'none';
}

function integerIn(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw errors.badRequest(`${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * `entry` with the fields of `patch` set: every field listed, so that all details share one hidden
 * class (V8 gives each `{ ...entry, field }` a map of its own; docs/search.md).
 */
function detailsWith(entry: HitDetails | undefined, patch: HitDetails): HitDetails {
  return {
    images: patch.images ?? entry?.images, attributes: patch.attributes ?? entry?.attributes,
    highlights: patch.highlights ?? entry?.highlights, score: patch.score ?? entry?.score,
  };
}

/** Search and search sessions. One per catalog. */
export class SearchService {
  readonly limits: SearchLimits;
  private readonly context: ServiceContext;
  private readonly index: SearchIndex;
  private readonly sessions: SessionStore;
  private readonly clock: Clock;
  private readonly ids: Ids;
  private readonly images: ImageSimilaritySearch | undefined;
  private readonly hitSources: HitSources | undefined;
  private readonly synonymSets: (() => Promise<readonly SynonymSet[]>) | undefined;
  /** The compiled synonyms of the last sets read (the store hands out the same array until they change). */
  private synonymIndex: { sets: readonly SynonymSet[]; index: SynonymIndex } | undefined;
  private purgeTimer: ReturnType<typeof setInterval> | undefined;
  private readonly purge: SessionPurge;
  private readonly sessionSink: SessionSink | undefined;
  private readonly rankingRow: SearchServiceDeps['rankingSettings'];
  /** The parsed ranking settings of the last row read. */
  private rankingParsed: { row: string | undefined; settings: RankingSettings } | undefined;

  constructor(deps: SearchServiceDeps) {
    this.context = deps.context;
    this.index = deps.index;
    this.sessions = deps.sessions;
    this.clock = deps.context.clock;
    this.purge = new SessionPurge(deps.sessions, deps.context.clock);
    this.ids = deps.context.ids;
    this.limits = { ...DEFAULT_SEARCH_LIMITS, ...deps.limits };
    this.images = deps.images;
    this.hitSources = deps.hitSources;
    this.synonymSets = deps.synonyms;
    this.sessionSink = deps.sessionSink;
    this.rankingRow = deps.rankingSettings;
    if (this.limits.sessionPurgeIntervalMs > 0) {
      // Expired sessions go even when nobody searches; unref'd, so it never keeps a process alive.
      this.purgeTimer = setInterval(() => void this.purgeExpired(), this.limits.sessionPurgeIntervalMs);
      this.purgeTimer.unref();
    }
  }

  /**
   * POST /1/find/search. `body` is the JSON request (or the multipart part `input`); `image` the
   * multipart part `image`. Throws 400 for a bad request (unknown fields, projection values,
   * filters on unknown or non-filterable attributes), 403 when a token bound to an organization
   * names another, 415 when image search is not configured.
   */
  async search(principal: Principal, body: unknown, image?: SearchImage): Promise<SearchResponse> {
    assertScope(principal, 'search');
    const request = parseBody(SearchRequestSchema, body ?? {}, 'search request');
    const projection = request.projection ? checkProjection(request.projection, 'projection') : undefined;
    const limit = request.resultOptions?.limit ?? DEFAULT_SEARCH_LIMIT;
    if (image !== undefined && (request.matches?.facets?.length ?? 0) > 0) throw errors.badRequest('matches.facets: facets are counted for text and filter searches only, not with an image');
    if (image === undefined && request.resultOptions?.minScore !== undefined) throw errors.badRequest(MIN_SCORE_WITHOUT_IMAGE);
    if (image !== undefined && (request.sort?.length ?? 0) > 0) throw errors.badRequest('sort: an image search is ordered by similarity; drop sort, or search without the photo');
    const text = image === undefined ? await this.rankText(principal, request, limit) : undefined;
    const hits = text?.hits ?? (await this.rankImage(principal, request, image?.bytes ?? new Uint8Array(0)));
    const facets = text?.facets;
    const imageId = image !== undefined ? queryImageId(image.bytes) : null;
    const session = this.newSession(principal, request, imageId, hits.total, hits.cardIds.length, facets);
    // The first page is read while the session is stored: neither needs the other.
    const [, results] = await Promise.all([
      this.keepSession({ session, hits }),
      this.results(
        principal, { organization: session.organization, text: session.text }, { cardIds: hits.cardIds.slice(0, limit), ...(hits.scores ? { scores: hits.scores.slice(0, limit) } : {}) }, request.language, projection, text?.cards,
      ),
    ]);
    return {
      sessionId: session.sessionId, imageId, results,
      resultsTotalCount: hits.total, resultsPageableCount: hits.cardIds.length,
      ...(facets !== undefined ? { facets } : {}),
    };
  }

  /**
   * The steps of a text search, for a caller that ranks and answers it itself (`catalog serve`'s
   * pool): `body` validated exactly as {@link search} validates it (the same errors, thrown), and
   * its index query. Undefined for a request with facets, which are counted over every hit
   * ({@link search} answers it). Then {@link rankPlan} (or {@link rankPlanWithin}), {@link answerPlan}
   * and {@link storeSessions} do what {@link search} does.
   */
  async planTextSearch(principal: Principal, body: unknown): Promise<TextSearchPlan | undefined> {
    assertScope(principal, 'search');
    const request = parseBody(SearchRequestSchema, body ?? {}, 'search request');
    if ((request.matches?.facets?.length ?? 0) > 0) return undefined;
    const projection = request.projection ? checkProjection(request.projection, 'projection') : undefined;
    if (request.resultOptions?.minScore !== undefined) throw errors.badRequest(MIN_SCORE_WITHOUT_IMAGE);
    const { query } = await this.textQuery(principal, request.matches, [], 'matches.facets', request.sort ?? []);
    return { request, projection, limit: request.resultOptions?.limit ?? DEFAULT_SEARCH_LIMIT, query };
  }

  /**
   * A plan's hits, at most `maxHits` (SearchIndex.searchText), and with `pageCards` the cards of
   * the first that many when the index reads them in the same snapshot (else `cards` is undefined).
   */
  async rankPlan(plan: TextSearchPlan, maxHits: number, pageCards?: number): Promise<RankedPlan> {
    return this.searchWithPageCards(plan.query, maxHits, pageCards);
  }

  /**
   * {@link rankPlan} with the cards of the first `pageCards`, if ranking reads at most
   * `maxPostings` postings (SearchIndex.searchTextWithin); undefined when it would read more, or
   * the index cannot count. Nothing is stored either way.
   */
  async rankPlanWithin(plan: TextSearchPlan, maxHits: number, pageCards: number, maxPostings: number): Promise<RankedPlan | undefined> {
    return this.index.searchTextWithin?.(plan.query, maxHits, pageCards, maxPostings);
  }

  /**
   * The answer to a plan, as {@link search} gives it, with its session's record (owned by
   * `principal`, not stored): `ranked.hits` from the first, the page being the first `plan.limit`;
   * the session counts `pageable` hits to page (default: every hit ranked). Store it with its
   * hits ({@link storeSessions}) before its pages are read.
   */
  async answerPlan(principal: Principal, plan: TextSearchPlan, ranked: RankedPlan, pageable = ranked.hits.cardIds.length): Promise<{ response: SearchResponse; session: StoredSession }> {
    const { hits, cards } = ranked;
    const session = this.newSession(principal, plan.request, null, hits.total, pageable, undefined);
    const page = hits.cardIds.length > plan.limit ? hits.cardIds.slice(0, plan.limit) : hits.cardIds;
    const results = await this.results(principal, { organization: session.organization, text: session.text }, { cardIds: page }, plan.request.language, plan.projection, cards);
    return { session, response: { sessionId: session.sessionId, imageId: null, results, resultsTotalCount: hits.total, resultsPageableCount: pageable } };
  }

  /**
   * Runs `work` in one read snapshot of the index (SearchIndex.readSnapshot): every read inside
   * sees the same committed catalog. Only where nothing writes on this connection meanwhile.
   * Undefined, without running `work`, when the index has no read snapshots.
   */
  async readSnapshot<T>(work: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (!this.index.readSnapshot) return undefined;
    return { value: await this.index.readSnapshot(work) };
  }

  /** A new session's record (stored hits: `stored`), owned by the caller, expiring after sessionTtlMicros. */
  private newSession(principal: Principal, request: SearchRequest, imageId: string | null, total: number, stored: number, facets: SearchFacets | undefined): StoredSession {
    const now = this.clock.nowMicros();
    const organization = request.matches?.organization;
    const text = request.matches?.text;
    return {
      sessionId: this.ids.uuid(), principal: sessionOwner(principal), createdAt: now, expiresAt: now + this.limits.sessionTtlMicros, imageId, language: request.language, total, stored,
      ...(organization !== undefined ? { organization } : {}),
      ...(text !== undefined && text.trim() !== '' ? { text } : {}),
      ...(facets !== undefined ? { facets } : {}),
    };
  }

  /**
   * GET /1/find/search/state/{sessionId}: hits [skip, skip + limit) of the session, as they were
   * at search time. 404 when the session does not exist, expired, or belongs to another token.
   * `skip` at or past the stored hits: a 400 naming resultsPageableCount when the session keeps
   * fewer hits than the total (honest paging), else (past the last hit) empty results.
   */
  async searchState(principal: Principal, sessionId: string, options: SearchStateRequest = {}): Promise<SearchResponse> {
    assertScope(principal, 'search');
    const skip = integerIn(options.skip, 'skip', 0, 0, MAX_SKIP);
    const limit = integerIn(options.limit, 'limit', DEFAULT_SEARCH_LIMIT, 1, MAX_PAGE_LIMIT);
    const raw = typeof options.projection === 'string' ? options.projection.split(',').map((v) => v.trim()).filter((v) => v !== '') : options.projection;
    const projection = raw && raw.length > 0 ? checkProjection(raw, 'projection') : undefined;
    await this.flushSessions();
    const session = await this.sessions.get(sessionId);
    if (!session || session.principal !== sessionOwner(principal) || session.expiresAt <= this.clock.nowMicros()) {
      throw errors.notFound(`search session '${sessionId}' does not exist or has expired; start a new search`);
    }
    if (skip >= session.stored && session.stored < session.total) {
      throw errors.badRequest(
        `skip ${skip} is past the pageable hits of this search: it found ${session.total} hits and keeps the first ${session.stored} (resultsPageableCount) in rank order; page with skip below ${session.stored}, or narrow the search with more words or filters`,
      );
    }
    const hits = skip < session.stored ? await this.sessions.readHits(sessionId, skip, limit) : { cardIds: [] };
    return {
      sessionId, imageId: session.imageId, results: await this.results(principal, session, hits, session.language, projection), resultsTotalCount: session.total, resultsPageableCount: session.stored,
      ...(session.facets !== undefined ? { facets: session.facets } : {}),
    };
  }

  /**
   * The text rank step: words, filters and the caller's view to ordered hits, and the facet counts
   * of `matches.facets` over every hit (each must name a filterable attribute, else 400). With
   * `pageCards`, also the cards of the first that many hits when the index reads them in the same
   * snapshot (SearchIndex.searchTextWithCards; else `cards` is left out and the caller reads them).
   */
  private async rankText(
    principal: Principal, request: SearchRequest, pageCards?: number,
  ): Promise<{ hits: RankedHits; facets?: SearchFacets; cards?: ResultCard[] }> {
    const { query, facetAttributes } = await this.textQuery(principal, request.matches, request.matches?.facets ?? [], 'matches.facets', request.sort ?? []);
    const { hits, cards } = await this.searchWithPageCards(query, this.limits.maxSessionHits, pageCards);
    if (facetAttributes.length === 0) return { hits, cards, facets: undefined };
    const maxValues = request.resultOptions?.maxValuesPerFacet ?? this.limits.facetValues;
    // Counts do not depend on the order.
    const { order: _order, ...unordered } = query;
    return { hits, cards, facets: hits.total === 0 ? Object.fromEntries(facetAttributes.map((a) => [a.attribute_id, []])) : await this.index.facets(unordered, facetAttributes, maxValues) };
  }

  /**
   * The hits of `query` (up to `maxHits`) and, when the index reads them in the same snapshot
   * (SearchIndex.searchTextWithCards), the cards of the first `pageCards`; else `cards` is
   * undefined and the caller reads them (readCards).
   */
  private async searchWithPageCards(query: TextSearchQuery, maxHits: number, pageCards: number | undefined): Promise<RankedPlan> {
    if (pageCards !== undefined && this.index.searchTextWithCards) return this.index.searchTextWithCards(query, maxHits, pageCards);
    return { hits: await this.index.searchText(query, maxHits), cards: undefined };
  }

  /**
   * POST /1/find/facet-values: the values of one filterable attribute that begin with
   * `prefix` (folded, as filter values compare), counted over the hits of `matches` (every part
   * when none), most frequent first, at most `maxValues` (default searchLimits.facetValues).
   * 400 for an unknown or non-filterable attribute or a bad body; `[]` for an attribute the
   * caller may not see.
   */
  async facetValues(principal: Principal, body: unknown): Promise<FacetValuesResponse> {
    assertScope(principal, 'search');
    const request = parseBody(FacetValuesRequestSchema, body ?? {}, 'facet-values request');
    const { query, facetAttributes } = await this.textQuery(principal, request.matches, [request.attribute_id], 'attribute_id');
    const attribute = facetAttributes[0] as Attribute;
    const facets = await this.index.facets(query, [attribute], request.maxValues ?? this.limits.facetValues, request.prefix ?? '');
    return { attribute_id: attribute.attribute_id, values: facets[attribute.attribute_id] ?? [] };
  }

  /**
   * Checks a ranking settings list of attribute_ids (`field`): a 400 naming every entry
   * (`field[i]`) that names no attribute, names one a second time, or fails `check` (its reason).
   */
  private async assertAttributeList(principal: Principal, field: string, ids: readonly string[], check: (attribute: Attribute) => string | undefined): Promise<void> {
    if (ids.length === 0) return;
    const ctx = await this.context.viewContext(principal, undefined);
    const problems: FieldProblem[] = [];
    ids.forEach((id, i) => {
      const attribute = ctx.attributes.get(id);
      const why = !attribute ? `attribute '${id}' does not exist` : ids.indexOf(id) !== i ? `attribute '${id}' is named twice` : check(attribute);
      if (why) problems.push({ path: `${field}[${i}]`, message: why });
    });
    if (problems.length > 0) throw errors.badRequest(`invalid ranking settings: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, problems);
  }

  /**
   * A request's matches as the index's query, with the facet attributes validated (400 listing
   * every problem); with `sort` (a search's: absent for facet values), the hits' order
   * (ranking-settings.ts searchOrder: the sort, else the custom ranking attribute).
   */
  private async textQuery(
    principal: Principal, matches: SearchRequest['matches'], facetIds: readonly string[], facetPath: string, sort?: readonly SearchSort[],
  ): Promise<{ query: TextSearchQuery; facetAttributes: Attribute[] }> {
    const request = { matches };
    // Read beside the words and the view (PostgreSQL: its own round trip, run at the same time).
    const settingsRead = sort ? this.rankingSettings() : undefined;
    settingsRead?.catch(() => undefined);
    const words = await this.queryWords(request.matches?.text ?? '');
    if (words.length > MAX_QUERY_WORDS) throw errors.badRequest(`matches.text: at most ${MAX_QUERY_WORDS} words, got ${words.length}`);
    const ctx = await this.context.viewContext(principal, request.matches?.organization);
    const problems: FieldProblem[] = [];
    const filters: SearchFilter[] = [];
    (request.matches?.filters ?? []).forEach((filter, i) => {
      const path = `matches.filters[${i}].label`;
      const attribute = ctx.attributes.get(filter.label);
      if (!attribute) problems.push({ path, message: `attribute '${filter.label}' does not exist` });
      else if (!attribute.filterable) {
        problems.push({ path, message: `attribute '${filter.label}' is not filterable (filterable: ${filterableIds(ctx.attributes)})` });
      } else filters.push({ attribute, values: filter.values });
    });
    const facetAttributes: Attribute[] = [];
    facetIds.forEach((id, i) => {
      const path = facetPath === 'attribute_id' ? facetPath : `${facetPath}[${i}]`;
      const attribute = ctx.attributes.get(id);
      if (!attribute) problems.push({ path, message: `attribute '${id}' does not exist` });
      else if (!attribute.filterable) problems.push({ path, message: `attribute '${id}' is not filterable, so it has no facet (filterable: ${filterableIds(ctx.attributes)})` });
      else if (!facetAttributes.includes(attribute)) facetAttributes.push(attribute);
    });
    if (problems.length > 0) throw errors.badRequest(`invalid search request: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, problems);
    const settings = settingsRead ? await settingsRead : undefined;
    const order = sort && settings ? searchOrder(principal, ctx.attributes, sort, settings) : undefined;
    // Identifier values change only the order of the hits (their tokens match as any value's), so facets need none.
    const identifiers = settings && words.length > 0 ? searchIdentifiers(principal, ctx.attributes, settings) : undefined;
    // The attribute order as the index was built with it (positions are the index's marks; a
    // caller sees only the marks of the values it may read), so facets need none.
    const attributeOrder = settings && words.length > 0 && settings.attributeOrder.length > 0 ? settings.attributeOrder : undefined;
    return { query: { words, visibleValues: visibleLevels(principal), filters, ctx, ...(order ? { order } : {}), ...(identifiers ? { identifiers } : {}), ...(attributeOrder ? { attributeOrder } : {}) }, facetAttributes };
  }

  /** The stored ranking settings, parsed once per stored row. */
  private async rankingSettings(): Promise<RankingSettings> {
    const row = await this.rankingRow?.get();
    if (this.rankingParsed?.row !== row || !this.rankingParsed) this.rankingParsed = { row, settings: parseRankingSettings(row) };
    return this.rankingParsed.settings;
  }

  /**
   * GET /1/catalog/ranking (our addition, docs/api.md "Ranking settings"): the catalog's ranking
   * settings. Any token with the `search` scope may read them.
   */
  async getRanking(principal: Principal): Promise<RankingSettings> {
    assertScope(principal, 'search');
    return this.rankingSettings();
  }

  /**
   * PUT /1/catalog/ranking: replaces the ranking settings (catalogAdmin, scope `attributes:write`;
   * 503 in maintenance mode) and answers them as stored. 400 when `customRanking.attribute_id`
   * names no attribute, one that is not filterable or has per-organization values, or one with a
   * stored value that is not a number (the first such value is named to a caller who may read the
   * attribute); 400 naming `attributeOrder[i]` for an attribute order entry that does not exist,
   * is not searchable, has per-organization values or repeats (zod: at most 8). One settings row;
   * the store re-indexes, in its write, the parts whose attribute order marks change.
   */
  async setRanking(principal: Principal, body: unknown): Promise<RankingSettings> {
    assertScope(principal, 'attributes:write');
    await this.context.assertWritable(principal);
    assertCatalogAdmin(principal);
    if (!this.rankingRow) throw errors.badRequest('this catalog keeps no ranking settings');
    const input = parseBody(RankingSettingsSchema, body ?? {}, 'ranking settings');
    const custom = input.customRanking ? { attribute_id: input.customRanking.attribute_id, order: input.customRanking.order ?? 'desc' } : null;
    if (custom) {
      const path = 'customRanking.attribute_id';
      const ctx = await this.context.viewContext(principal, undefined);
      const attribute = ctx.attributes.get(custom.attribute_id);
      if (!attribute) throw errors.badRequest(`invalid ranking settings: ${path}: attribute '${custom.attribute_id}' does not exist`, [{ path, message: `attribute '${custom.attribute_id}' does not exist` }]);
      const why = unorderable(attribute);
      if (why) throw errors.badRequest(`invalid ranking settings: ${path}: ${why}`, [{ path, message: why }]);
      // Every stored value must be a number: counted over every part as one who sees every visibility.
      const everyone = { ...principal, roles: [...ROLES], organization: null };
      const counted = await this.index.facets({ words: [], visibleValues: visibleLevels(everyone), filters: [], ctx: { ...ctx, principal: everyone } }, [attribute], Number.MAX_SAFE_INTEGER);
      const bad = (counted[attribute.attribute_id] ?? []).find((v) => parseNumberValue(v.value) === undefined);
      if (bad) {
        const shown = canSeeVisibility(principal, attribute.visibility) ? ` (e.g. '${bad.value}', held by ${bad.count} part${bad.count === 1 ? '' : 's'})` : '';
        const message = `attribute '${custom.attribute_id}' is not a number attribute: it holds values that are not numbers${shown}; a custom ranking attribute's values must all be numbers such as 12 or -3.5`;
        throw errors.badRequest(`invalid ranking settings: ${path}: ${message}`, [{ path, message }]);
      }
    }
    const identifierAttributes = input.identifierAttributes ?? [];
    await this.assertAttributeList(principal, 'identifierAttributes', identifierAttributes, notIdentifier);
    const attributeOrder = input.attributeOrder ?? [];
    await this.assertAttributeList(principal, 'attributeOrder', attributeOrder, notOrderable);
    const settings: RankingSettings = { customRanking: custom, identifierAttributes, attributeOrder };
    // The store re-indexes the parts whose attribute order marks change, in the write of the row.
    await this.rankingRow.set(JSON.stringify(settings));
    return settings;
  }

  /**
   * The image rank step: parts by the similarity of their best reference image (info has
   * `searchable`) to the query image, each with its score (ImageMatch.score), those below
   * `resultOptions.minScore` left out. With text or filters as well, only parts that also match
   * them remain, in image order (decisions §8: text and image may be combined).
   */
  private async rankImage(principal: Principal, request: SearchRequest, bytes: Uint8Array): Promise<RankedHits> {
    if (!this.images) throw new CatalogError('unsupported_media_type', 'image search is not configured on this catalog');
    const minScore = request.resultOptions?.minScore ?? 0;
    // Scores as the session stores them, before minScore: the answer and every page show these.
    let matches = (await this.images.rankParts(bytes, this.limits.maxSessionHits)).map((m) => ({ part_id: m.part_id, image_id: m.image_id, score: sessionScore(m.score) })).filter((m) => m.score >= minScore);
    const text = request.matches?.text?.trim() ?? '';
    if (text !== '' || (request.matches?.filters?.length ?? 0) > 0) {
      const { hits: textHits } = await this.rankText(principal, request);
      const allowed = new Set((await this.index.readCards(textHits.cardIds)).map((card) => card.partId));
      matches = matches.filter((m) => allowed.has(m.part_id));
    }
    const cards = await this.index.currentCards(matches.map((m) => m.part_id));
    const cardIds: number[] = [];
    const scores: number[] = [];
    for (const match of matches) {
      const card = cards.get(match.part_id);
      if (card === undefined) continue;
      cardIds.push(card);
      scores.push(match.score);
    }
    return { total: cardIds.length, cardIds, scores };
  }

  /**
   * The result objects of a page. Cards are the snapshot at search time; `results.attributes`,
   * `results.images` and the values of `results.highlights` are read now (current values and
   * images, seen as the caller sees them: its roles and the search's organization), only when
   * projected; a part deleted since has none. Highlights mark the search's words (search.text)
   * in the card's id and names and in those values (core/search/highlight.ts). `pageCards`: the
   * page's cards when the rank step read them already (readCards of `hits.cardIds`).
   */
  private async results(
    principal: Principal, search: { organization?: string | undefined; text?: string | undefined }, hits: SessionHits, language: string | undefined,
    projection: readonly SearchProjection[] | undefined, pageCards?: readonly ResultCard[],
  ): Promise<SearchResult[]> {
    const cards = pageCards ?? await this.index.readCards(hits.cardIds);
    const scoreOf = new Map<number, number>();
    hits.scores?.forEach((score, i) => scoreOf.set(hits.cardIds[i] as number, score));
    const wanted = projectionInForce(projection);
    const details = new Map<string, HitDetails>();
    const words = wanted.has('results.highlights') ? await this.queryWords(search.text ?? '') : [];
    if (this.hitSources && cards.length > 0 && (wanted.has('results.attributes') || wanted.has('results.images') || wanted.has('results.highlights'))) {
      const partIds = cards.map((c) => c.partId);
      if (wanted.has('results.attributes') || words.length > 0) {
        const ctx = await this.context.viewContext(principal, search.organization);
        for (const part of await this.hitSources.parts(partIds)) details.set(part.part_id, { attributes: viewPart(part, ctx).attributes });
        if (words.length > 0) {
          const searchable = (id: string) => ctx.attributes.get(id)?.searchable === true;
          for (const card of cards) {
            const entry = details.get(card.partId);
            details.set(card.partId, detailsWith(entry, { highlights: highlight(highlightFields(card.partId, card.names, entry?.attributes ?? [], searchable), words) }));
          }
        }
      }
      if (wanted.has('results.images')) {
        for (const [partId, images] of await this.hitSources.shownImages(partIds)) details.set(partId, detailsWith(details.get(partId), { images }));
      }
    }
    return cards.map((card) => {
      const score = scoreOf.get(card.cardId);
      return toSearchResult(card, language, projection, score === undefined ? details.get(card.partId) : detailsWith(details.get(card.partId), { score }));
    });
  }

  /** Search text as the index's words, with the catalog's synonyms (core/search/synonyms.ts). */
  private async queryWords(text: string) {
    const words = parseQueryText(text, this.limits.typoRules);
    if (!this.synonymSets || words.length === 0) return words;
    const sets = await this.synonymSets();
    if (this.synonymIndex?.sets !== sets) this.synonymIndex = { sets, index: compileSynonyms(sets) };
    return applySynonyms(words, this.synonymIndex.index);
  }

  /** Stores a new session now, or gives it to the session sink. */
  private async keepSession(entry: NewSession): Promise<void> {
    if (this.sessionSink) {
      this.sessionSink.keep(entry, this.sessionBudget());
    } else {
      await this.sessions.create(entry.session, entry.hits, this.sessionBudget());
      await this.purge.afterWrite(entry.session.createdAt);
    }
  }

  /**
   * Stores sessions ranked in steps ({@link answerPlan}) or elsewhere (`catalog serve`'s reader
   * threads hand theirs to the main thread): given to the session sink, else written now, in
   * order; a read of one here then finds it ({@link flushSessions}).
   */
  async storeSessions(entries: readonly NewSession[]): Promise<void> {
    for (const entry of entries) await this.keepSession(entry);
  }

  /** The session budget of every write (SessionStore.create). */
  private sessionBudget(): SessionBudget {
    return { maxSessionsPerOwner: this.limits.maxSessionsPerToken, maxTotalBytes: this.limits.maxSessionBytes };
  }

  /**
   * Resolves once every session this service ranked or was given is stored (or lost: see
   * SessionSink.flush); at once without a session sink, whose sessions are stored before the answer.
   */
  async flushSessions(): Promise<void> {
    await this.sessionSink?.flush();
  }

  /**
   * Deletes every expired session (in batches of 1,000, one transaction each) and gives the space
   * back; the timer's job, callable directly. Errors (a busy file) wait for the next run.
   */
  purgeExpired(): Promise<void> {
    return this.purge.all();
  }

  /**
   * Loads ahead what every search reads (SearchIndex.warm: the per-part arrays and the largest
   * posting lists), e.g. in a server thread before its first request, so that the first searches
   * cost what later ones do. `postings`: how much of the largest posting lists (0: none, for a
   * connection that ranks only short lists).
   */
  async warm(options: { postings?: number } = {}): Promise<void> {
    await this.index.warm?.(options);
  }

  /** SearchIndex.sampleNames: names of up to `count` parts spread over the catalog ([] when the index cannot sample). */
  async sampleNames(count: number): Promise<string[]> {
    return (await this.index.sampleNames?.(count)) ?? [];
  }

  /**
   * Gets image search ready before the first query photo arrives (ImageSimilaritySearch.prepare:
   * the photo index loaded, the feature threads' decoders loading): `catalog serve` calls it
   * before it listens. Nothing without image search.
   * @throws the store's error when the reference features cannot be read.
   */
  async prepareImageSearch(): Promise<void> {
    await this.images?.prepare?.();
  }

  /** Stores pending sessions, stops the purge timer and closes the session store (the index lives in the catalog's database). */
  async close(): Promise<void> {
    await this.flushSessions();
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    await this.purge.idle();
    await this.sessions.close();
  }
}
