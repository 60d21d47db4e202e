/**
 * CatalogService: one method per API operation (api-spec.md §4 with api-decisions.md), used by the
 * HTTP server (per request, with the token's principal) and by the local client (as the directory's
 * owner). Every request body is validated here with the src/api schemas, so both ways in share
 * validation, permissions and maintenance checks.
 */
import { errors } from '../../api/errors.js';
import { CATALOG_VERSION, normalizeId, type CatalogInfo, type CurrentToken } from '../../api/schemas.js';
import {
  AttributeInputSchema, AttributeListRequestSchema, AttributeSelectRequestSchema, MaintenanceSchema,
  OrganizationInputSchema, OrganizationListRequestSchema, PartInputSchema, PartListRequestSchema, PartSelectRequestSchema,
  SynonymInputSchema, SynonymListRequestSchema, type SynonymSet, type Attribute, type BulkDeleteResult, type BulkWriteResult, type MaintenanceState, type Organization, type Page,
  type Part, type PartBatch, type PartInput, type Principal, type TokenInfo, type CreatedToken, TokenCreateSchema, TokenRotateSchema,
} from '../../api/schemas.js';
import { decideAttributeDelete, decideAttributeUpsert, withVisibleDefault } from './attributes.js';
import { decideOrganizationUpsert } from './organizations.js';
import { decideSynonymDelete, decideSynonymUpsert } from '../search/synonyms.js';
import { keysetFor, project, toPage } from '../paging.js';
import { decidePartDelete, decidePartUpsert, viewPart } from './parts.js';
import { assertCatalogAdmin, assertScope, canSetPosition, canWriteCatalog, hasScope } from '../permissions.js';
import { MAINTENANCE_KEY, type CatalogLimits, type ServiceContext } from '../context.js';
import type { CatalogStore, Clock, Ids } from '../ports.js';
import { assertNotExpired, bearerToken, hashSecret, principalOf, tokenInfo, TokenUsage, validateNewToken } from './tokens.js';
import { formatMicros } from '../time.js';
import { bulkDeleteResult, bulkWriteResult } from '../bulk-results.js';
import { parseBody, parseBulk, parseIdList, type BulkItem } from '../validation.js';
import type { PartViewContext, StoredToken } from '../model.js';

/** Settings key of the catalog's identity (a UUID). */
const CATALOG_ID_KEY = 'catalog_id';

/** What a CatalogService is built with: the shared context and the catalog's own store. */
export interface CatalogServiceDeps {
  context: ServiceContext;
  store: CatalogStore;
}

function validItems<T>(items: readonly BulkItem<T>[]): T[] {
  return items.flatMap((i) => ('item' in i ? [i.item] : []));
}

/** The catalog's use cases. Construct one per data directory (local) or per server. */
export class CatalogService {
  /** The catalog's store; exposed for the composition root and benchmarks, not for other services. */
  readonly store: CatalogStore;
  private readonly context: ServiceContext;

  /** Last-used times of tokens, written at most once a minute each (authenticate). */
  private readonly usage: TokenUsage;

  constructor(deps: CatalogServiceDeps) {
    this.store = deps.store;
    this.context = deps.context;
    this.usage = new TokenUsage((hash, at, notBefore) => this.store.touchToken(hash, at, notBefore));
  }

  private get clock(): Clock {
    return this.context.clock;
  }

  private get ids(): Ids {
    return this.context.ids;
  }

  private get limits(): CatalogLimits {
    return this.context.limits;
  }

  // -- authentication and tokens (decisions §2) ------------------------------------------------

  /**
   * Resolves an `Authorization` header to its principal; throws 401 for a missing, unknown or
   * expired token (the detail says which). Notes the token's use for its last-used time
   * ({@link TokenUsage}: at most one write a minute per token, never awaited).
   */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const secret = bearerToken(authorization);
    const hash = hashSecret(secret);
    // Compared as plain strings: timing can tell only about hashes, and no one can choose a secret
    // for a hash, so a constant-time compare (two Buffers a request) protected nothing.
    const token = await this.store.findTokenByHash(hash);
    if (token?.secretHash !== hash) throw errors.unauthorized('unknown or revoked token');
    const now = this.clock.nowMicros();
    assertNotExpired(token, now);
    this.usage.note(token, now);
    return principalOf(token);
  }

  /**
   * POST /1/auth/tokens (docs/api.md "Tokens"; catalogAdmin with the `tokens` scope): creates a
   * token from `{name, roles, organization?, scopes?, expiresInSeconds?}` and returns its secret
   * (shown this once) and description. Throws 400 on bad input or a taken name.
   */
  async createToken(principal: Principal, body: unknown): Promise<CreatedToken> {
    assertCatalogAdmin(principal);
    assertScope(principal, 'tokens');
    const input = validateNewToken(parseBody(TokenCreateSchema, body, 'token'));
    const existing = await this.store.listTokens();
    if (existing.some((t) => t.name === input.name)) throw errors.badRequest(`a token named '${input.name}' already exists; revoke it first or pick another name`);
    const secret = this.ids.secret();
    const now = this.clock.nowMicros();
    const stored: StoredToken = {
      name: input.name, secretHash: hashSecret(secret), roles: input.roles, organization: input.organization, scopes: input.scopes,
      createdAt: now, expiresAt: input.expiresInSeconds === null ? null : now + input.expiresInSeconds * 1_000_000, lastUsedAt: null,
    };
    if (input.organization !== null) await this.store.ensureOrganizations([input.organization]);
    await this.store.createToken(stored);
    return { secret, token: tokenInfo(stored) };
  }

  /** GET /1/auth/tokens: every token's description, by name (never a secret or hash). */
  async listTokens(principal: Principal): Promise<TokenInfo[]> {
    assertCatalogAdmin(principal);
    assertScope(principal, 'tokens');
    return (await this.store.listTokens()).map(tokenInfo);
  }

  /**
   * POST /1/auth/tokens/{name}/rotate `{expiresInSeconds?}`: a new secret for the token (the old
   * one stops working at once), roles, organization and scopes kept. Without `expiresInSeconds` a
   * token that expired keeps its lifetime (counted from now), one that never expired still never
   * does. Throws 404 when there is no such token.
   */
  async rotateToken(principal: Principal, name: string, body: unknown): Promise<CreatedToken> {
    assertCatalogAdmin(principal);
    assertScope(principal, 'tokens');
    const { expiresInSeconds } = parseBody(TokenRotateSchema, body ?? {}, 'token rotation');
    const current = (await this.store.listTokens()).find((t) => t.name === name);
    if (!current) throw errors.notFound(`no token named '${name}'`);
    const now = this.clock.nowMicros();
    const lifetime = expiresInSeconds != null ? expiresInSeconds * 1_000_000 : current.expiresAt === null ? null : current.expiresAt - current.createdAt;
    const secret = this.ids.secret();
    const rotated = await this.store.rotateToken(name, hashSecret(secret), lifetime === null ? null : now + lifetime);
    if (!rotated) throw errors.notFound(`no token named '${name}'`);
    return { secret, token: tokenInfo(rotated) };
  }

  /** DELETE /1/auth/tokens/{name}: revokes a token; throws 404 when there is none. */
  async revokeToken(principal: Principal, name: string): Promise<void> {
    assertCatalogAdmin(principal);
    assertScope(principal, 'tokens');
    if (!(await this.store.revokeToken(name))) throw errors.notFound(`no token named '${name}'`);
  }

  /** How many tokens exist (the server refuses to start with none). */
  countTokens(): Promise<number> {
    return this.store.countTokens();
  }

  // -- maintenance mode (decisions §7) -------------------------------------------------------

  /** GET /1/catalog/maintenance. */
  async getMaintenance(_principal: Principal): Promise<MaintenanceState> {
    return { enabled: (await this.store.getSetting(MAINTENANCE_KEY)) === 'on' };
  }

  /** PUT /1/catalog/maintenance (catalogAdmin; allowed while maintenance is on). */
  async setMaintenance(principal: Principal, body: unknown): Promise<MaintenanceState> {
    assertScope(principal, 'maintenance');
    assertCatalogAdmin(principal);
    const { enabled } = parseBody(MaintenanceSchema, body, 'maintenance request');
    await this.store.setSetting(MAINTENANCE_KEY, enabled ? 'on' : 'off');
    return { enabled };
  }

  // -- identity (GET /1/catalog/info, docs/api.md) ---------------------------------------------

  /**
   * GET /1/catalog/info: `{catalogId, version}`. The id is a UUID stored in the catalog's settings
   * the first time it is asked for (atomically, so concurrent callers agree) and never changed; a
   * copy of the data directory keeps it. Any valid token may read it, in maintenance mode too. The
   * CLI binds its import checkpoints to it, so `--resume` cannot continue into another catalog.
   */
  async getCatalogInfo(_principal: Principal): Promise<CatalogInfo> {
    const catalogId = (await this.store.getSetting(CATALOG_ID_KEY)) ?? (await this.store.initSetting(CATALOG_ID_KEY, this.ids.uuid()));
    return { catalogId, version: CATALOG_VERSION };
  }

  /**
   * GET /1/auth/token (docs/api.md, "Authentication"): the caller's token as the service sees it,
   * with what its roles allow (decisions §2). Never the secret; any valid token may read its own,
   * in maintenance mode too.
   */
  describeToken(principal: Principal): CurrentToken {
    const scopes = principal.scopes == null ? null : [...principal.scopes];
    const writesSomething = scopes === null || scopes.some((s) => s.endsWith(':write'));
    return {
      name: principal.name,
      roles: [...principal.roles],
      organization: principal.organization,
      scopes,
      expiresAt: principal.expiresAt == null ? null : formatMicros(principal.expiresAt),
      permissions: {
        writeCatalog: canWriteCatalog(principal) && writesSomething,
        setImagePosition: canSetPosition(principal) && hasScope(principal, 'images:write'),
        maintenance: principal.roles.includes('catalogAdmin') && hasScope(principal, 'maintenance'),
      },
    };
  }

  /** See ServiceContext.assertWritable: 403 unless a writer, 503 in maintenance mode. */
  assertWritable(principal: Principal): Promise<void> {
    return this.context.assertWritable(principal);
  }

  // -- attributes (spec 2.1, 4.1; decisions §3) ------------------------------------------------

  /** POST /1/catalog/attributes: create or merge-update; per-item errors. */
  async upsertAttributes(principal: Principal, body: unknown): Promise<BulkWriteResult> {
    assertScope(principal, 'attributes:write');
    await this.assertWritable(principal);
    const items = parseBulk(AttributeInputSchema, body, 'attribute_id', this.limits.maxBulkItems);
    const decisions = await this.store.upsertAttributes(validItems(items), decideAttributeUpsert);
    return bulkWriteResult(items, decisions);
  }

  /** DELETE /1/catalog/attributes: unknown and still-referenced ids are item errors. */
  async deleteAttributes(principal: Principal, body: unknown): Promise<BulkDeleteResult> {
    assertScope(principal, 'attributes:write');
    await this.assertWritable(principal);
    const items = parseIdList(body, this.limits.maxBulkItems);
    const decisions = await this.store.deleteAttributes(validItems(items), decideAttributeDelete);
    return bulkDeleteResult(items, decisions);
  }

  /** POST /1/catalog/attributes/list: keyset paging by attribute_id with projection. */
  async listAttributes(principal: Principal, body: unknown): Promise<Page<Partial<Attribute>>> {
    assertScope(principal, 'attributes:read');
    const request = parseBody(AttributeListRequestSchema, body ?? {}, 'list request');
    const keyset = keysetFor(request.paging);
    const rows = (await this.withCreationOrder(await this.store.listAttributes(keyset), request.projection)).map((a) => withVisibleDefault(principal, a));
    return toPage(rows, keyset.pageSize, (a) => a.attribute_id, (a) => project(a, 'attribute_id', request.projection), keyset.after);
  }

  /**
   * Adds `creation_order` (1 = the oldest existing attribute; docs/api.md "Attributes") to each
   * row when the projection asks for it: the rank in the store's creation order (allAttributes).
   */
  private async withCreationOrder(rows: Attribute[], projection: readonly string[] | undefined): Promise<(Attribute & { creation_order?: number })[]> {
    if (!projection?.includes('creation_order')) return rows;
    const rank = new Map((await this.store.allAttributes()).map((a, i) => [a.attribute_id, i + 1]));
    return rows.map((a) => ({ ...a, creation_order: rank.get(a.attribute_id) ?? 0 }));
  }

  /** POST /1/catalog/attributes/select: the known ids, in request order; unknown ids are left out. */
  async selectAttributes(principal: Principal, body: unknown): Promise<Partial<Attribute>[]> {
    assertScope(principal, 'attributes:read');
    const request = parseBody(AttributeSelectRequestSchema, body, 'select request');
    const rows = await this.withCreationOrder(await this.store.getAttributes(request.attribute_ids), request.projection);
    const found = new Map(rows.map((a) => [a.attribute_id, withVisibleDefault(principal, a)]));
    return [...new Set(request.attribute_ids)].flatMap((id) => {
      const a = found.get(id);
      return a ? [project(a, 'attribute_id', request.projection)] : [];
    });
  }

  // -- parts (decisions §5) --------------------------------------------------------------------

  /** POST /1/catalog/parts: create or merge-update part types with attribute values; per-item errors. */
  async upsertParts(principal: Principal, body: unknown): Promise<BulkWriteResult> {
    assertScope(principal, 'parts:write');
    return (await this.upsertPartBatches(principal, [{ items: body }]))[0] as BulkWriteResult;
  }

  /**
   * {@link upsertParts} for items this process validated already, each one with
   * `validateBulkItem(PartInputSchema, item, 'part_id')` (core/validation.ts; an import's reader
   * thread does it while the main thread writes): the same rules, writes and result,
   * without the schema pass. Not reachable over HTTP, where every body is validated here.
   *
   * @throws CatalogError payload_too_large for more than maxBulkItems items; unavailable in maintenance mode.
   */
  async upsertValidatedParts(principal: Principal, items: readonly PartInput[]): Promise<BulkWriteResult> {
    assertScope(principal, 'parts:write');
    return (await this.upsertPartBatches(principal, [{ items, validated: true }]))[0] as BulkWriteResult;
  }

  /**
   * Consecutive batches of part upserts written in ONE store transaction: all of them are stored or
   * none. Each batch is what one {@link upsertParts} call takes (or, `validated`, one
   * {@link upsertValidatedParts} call), at most maxBulkItems items, and gets the result that call
   * would return; the batches are applied in order (an id in two batches: the later one updates
   * what the earlier one wrote), with one modification time. What it is for: a local import writes
   * several of its batches per transaction (each transaction rewrites the last posting
   * block of every word it touches and commits their pages, so fewer, larger transactions cost
   * less CPU per part; docs/search.md "Bulk writes"). Not an HTTP operation.
   *
   * @throws CatalogError bad_request when an unvalidated batch is not an array; payload_too_large
   *   for a batch of more than maxBulkItems items (nothing is written then); unavailable in
   *   maintenance mode.
   */
  async upsertPartBatches(principal: Principal, batches: readonly PartBatch[]): Promise<BulkWriteResult[]> {
    assertScope(principal, 'parts:write');
    await this.assertWritable(principal);
    const parsed = batches.map((batch): BulkItem<PartInput>[] => {
      if (batch.validated !== true) return parseBulk(PartInputSchema, batch.items, 'part_id', this.limits.maxBulkItems);
      if (batch.items.length > this.limits.maxBulkItems) {
        throw errors.tooLarge(`at most ${this.limits.maxBulkItems} items per call; this one has ${batch.items.length}`);
      }
      return batch.items.map((item, index) => ({ key: item.part_id, index, item }));
    });
    const now = this.clock.nowMicros();
    const decisions = await this.store.upsertParts(parsed.flatMap(validItems), (input, existing, attributes) =>
      decidePartUpsert(input, existing, attributes, now, () => this.ids.uuid()),
    );
    // The store decided the valid items of every batch, in order: each batch takes its own.
    let from = 0;
    return parsed.map((items) => {
      const count = items.reduce((n, item) => n + ('item' in item ? 1 : 0), 0);
      from += count;
      return bulkWriteResult(items, decisions.slice(from - count, from));
    });
  }

  /** DELETE /1/catalog/parts: removes parts and their relations; a part with images is an item error. */
  async deleteParts(principal: Principal, body: unknown): Promise<BulkDeleteResult> {
    assertScope(principal, 'parts:write');
    await this.assertWritable(principal);
    const items = parseIdList(body, this.limits.maxBulkItems);
    const decisions = await this.store.deleteParts(validItems(items), decidePartDelete);
    return bulkDeleteResult(items, decisions);
  }

  /** POST /1/catalog/parts/list: keyset paging by part_id; values as the caller may see them. */
  async listParts(principal: Principal, body: unknown): Promise<Page<Partial<Part>>> {
    assertScope(principal, 'parts:read');
    const request = parseBody(PartListRequestSchema, body ?? {}, 'list request');
    const keyset = keysetFor(request.paging);
    if (request.projection?.length === 0) {
      // The ids alone, from the id index: a sync's prune walks every part so. (The view context
      // still answers a token that may not read as that organization.)
      await this.viewContext(principal, request.organization);
      return toPage(await this.store.listPartIds(keyset), keyset.pageSize, (id) => id, (part_id) => ({ part_id }), keyset.after);
    }
    const rows = await this.store.listParts(keyset);
    const ctx = await this.viewContext(principal, request.organization);
    return toPage(rows, keyset.pageSize, (p) => p.part_id, (p) => project(viewPart(p, ctx), 'part_id', request.projection), keyset.after);
  }

  /** POST /1/catalog/parts/select: the known ids in request order. */
  async selectParts(principal: Principal, body: unknown): Promise<Partial<Part>[]> {
    assertScope(principal, 'parts:read');
    const request = parseBody(PartSelectRequestSchema, body, 'select request');
    const found = new Map((await this.store.getParts(request.part_ids)).map((p) => [p.part_id, p]));
    const ctx = await this.viewContext(principal, request.organization);
    return [...new Set(request.part_ids)].flatMap((id) => {
      const p = found.get(id);
      return p ? [project(viewPart(p, ctx), 'part_id', request.projection)] : [];
    });
  }

  /** GET /1/catalog/parts/{part_id}: 404 when unknown. */
  async getPart(principal: Principal, partId: string, organization?: string): Promise<Part> {
    assertScope(principal, 'parts:read');
    partId = normalizeId(partId);
    const [part] = await this.store.getParts([partId]);
    if (!part) throw errors.notFound(`part '${partId}' does not exist`);
    return viewPart(part, await this.viewContext(principal, organization));
  }

  /** See ServiceContext.viewContext: who sees what (403 for a token reading as another organization). */
  viewContext(principal: Principal, organization: string | undefined): Promise<PartViewContext> {
    return this.context.viewContext(principal, organization);
  }

  // -- organizations (decisions §5) ----------------------------------------------------------

  /** POST /1/catalog/organizations: `[{org_id, parent_id?}]`; parents must exist, no cycles. */
  async upsertOrganizations(principal: Principal, body: unknown): Promise<BulkWriteResult> {
    assertScope(principal, 'organizations:write');
    await this.assertWritable(principal);
    const items = parseBulk(OrganizationInputSchema, body, 'org_id', this.limits.maxBulkItems);
    const inputs = validItems(items).map((o) => ({ org_id: o.org_id, parent_id: o.parent_id ?? null }));
    const decisions = await this.store.upsertOrganizations(inputs, decideOrganizationUpsert);
    return bulkWriteResult(items, decisions);
  }

  /** POST /1/catalog/organizations/list. */
  async listOrganizations(principal: Principal, body: unknown): Promise<Page<Organization>> {
    assertScope(principal, 'organizations:read');
    const request = parseBody(OrganizationListRequestSchema, body ?? {}, 'list request');
    const keyset = keysetFor(request.paging);
    const rows = await this.store.listOrganizations(keyset);
    return toPage(rows, keyset.pageSize, (o) => o.org_id, (o) => o, keyset.after);
  }

  // -- synonyms (docs/api.md "Synonyms") ----------------------------------------------

  /**
   * POST /1/catalog/synonyms: `[{synonym_id, input?, synonyms}]`, each set created or replaced
   * whole (writers, as for attributes; 503 in maintenance mode); per-item errors (core/search/synonyms.ts
   * decideSynonymUpsert: empty or too long terms, fewer than two terms, more than MAX_SYNONYM_SETS).
   * Searches use the new sets at once; nothing is re-indexed.
   */
  async upsertSynonyms(principal: Principal, body: unknown): Promise<BulkWriteResult> {
    assertScope(principal, 'synonyms:write');
    await this.assertWritable(principal);
    const items = parseBulk(SynonymInputSchema, body, 'synonym_id', this.limits.maxBulkItems);
    const decisions = await this.store.upsertSynonyms(validItems(items), decideSynonymUpsert);
    return bulkWriteResult(items, decisions);
  }

  /** DELETE /1/catalog/synonyms: an array of synonym_ids; unknown ids are item errors. */
  async deleteSynonyms(principal: Principal, body: unknown): Promise<BulkDeleteResult> {
    assertScope(principal, 'synonyms:write');
    await this.assertWritable(principal);
    const items = parseIdList(body, this.limits.maxBulkItems);
    const decisions = await this.store.deleteSynonyms(validItems(items), decideSynonymDelete);
    return bulkDeleteResult(items, decisions);
  }

  /** POST /1/catalog/synonyms/list: keyset paging by synonym_id (any valid token may read them). */
  async listSynonyms(principal: Principal, body: unknown): Promise<Page<SynonymSet>> {
    assertScope(principal, 'synonyms:read');
    const request = parseBody(SynonymListRequestSchema, body ?? {}, 'list request');
    const keyset = keysetFor(request.paging);
    const rows = await this.store.listSynonyms(keyset);
    return toPage(rows, keyset.pageSize, (s) => s.synonym_id, (s) => s, keyset.after);
  }

  /** Closes the store. */
  async close(): Promise<void> {
    await this.store.close();
  }
}
