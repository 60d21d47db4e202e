/**
 * CatalogService: one method per API operation (api-spec.md §4 with api-decisions.md), used by the
 * HTTP server (per request, with the token's principal) and by the local client (as the directory's
 * owner). Every request body is validated here with the src/api schemas, so both ways in share
 * validation, permissions and maintenance checks.
 */
import { errors } from '../../api/errors.js';
import {
  AttributeInputSchema, AttributeListRequestSchema, AttributeSelectRequestSchema, MAX_BULK_ITEMS, MaintenanceSchema,
  OrganizationInputSchema, OrganizationListRequestSchema, PartInputSchema, PartListRequestSchema, PartSelectRequestSchema,
  type Attribute, type BulkDeleteResult, type BulkWriteResult, type MaintenanceState, type Organization, type Page,
  type Part, type Principal, type TokenInfo,
} from '../../api/schemas.js';
import { decideAttributeDelete, decideAttributeUpsert } from './attributes.js';
import { decideOrganizationUpsert } from './organizations.js';
import { keysetFor, project, toPage } from '../paging.js';
import { decidePartDelete, decidePartUpsert, viewPart, type PartViewContext } from './parts.js';
import { assertCatalogAdmin, assertCatalogWriter } from '../permissions.js';
import type { CatalogStore, Clock, Ids, StoredPart } from '../ports.js';
import { bearerToken, hashesEqual, hashSecret, principalOf, tokenInfo, validateNewToken } from './tokens.js';
import { bulkDeleteResult, bulkWriteResult } from '../bulk-results.js';
import { parseBody, parseBulk, parseIdList, type BulkItem } from '../validation.js';

/** Tunable limits (decisions §9). */
export interface CatalogLimits {
  /** Items per bulk call; more is a 413. */
  maxBulkItems: number;
}

export const DEFAULT_LIMITS: CatalogLimits = { maxBulkItems: MAX_BULK_ITEMS };

export interface CatalogServiceDeps {
  store: CatalogStore;
  clock: Clock;
  ids: Ids;
  limits?: Partial<CatalogLimits>;
}

const MAINTENANCE_KEY = 'maintenance';

function validItems<T>(items: readonly BulkItem<T>[]): T[] {
  return items.flatMap((i) => ('item' in i ? [i.item] : []));
}

/** The catalog's use cases. Construct one per data directory (local) or per server. */
export class CatalogService {
  readonly store: CatalogStore;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly limits: CatalogLimits;

  constructor(deps: CatalogServiceDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.ids = deps.ids;
    this.limits = { ...DEFAULT_LIMITS, ...deps.limits };
  }

  // -- authentication and tokens (decisions §2) ------------------------------------------------

  /** Resolves an `Authorization` header to its principal; throws 401 for a missing or unknown token. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const secret = bearerToken(authorization);
    const hash = hashSecret(secret);
    const token = await this.store.findTokenByHash(hash);
    if (!token || !hashesEqual(token.secretHash, hash)) throw errors.unauthorized('unknown or revoked token');
    return principalOf(token);
  }

  /** Creates a token; returns its secret (shown once) and description. Throws 400 on bad input or a taken name. */
  async createToken(principal: Principal, input: { name: string; roles: readonly string[]; organization?: string | undefined }): Promise<{ secret: string; token: TokenInfo }> {
    assertCatalogAdmin(principal);
    const { roles } = validateNewToken(input.name, input.roles, input.organization);
    const existing = await this.store.listTokens();
    if (existing.some((t) => t.name === input.name)) throw errors.badRequest(`a token named '${input.name}' already exists; revoke it first or pick another name`);
    const secret = this.ids.secret();
    const stored = { name: input.name, secretHash: hashSecret(secret), roles, organization: input.organization ?? null, createdAt: this.clock.nowMicros() };
    if (input.organization !== undefined) await this.store.ensureOrganizations([input.organization]);
    await this.store.createToken(stored);
    return { secret, token: tokenInfo(stored) };
  }

  /** Every token's description (never a secret or hash). */
  async listTokens(principal: Principal): Promise<TokenInfo[]> {
    assertCatalogAdmin(principal);
    return (await this.store.listTokens()).map(tokenInfo);
  }

  /** Revokes a token by name; throws 404 when there is none. */
  async revokeToken(principal: Principal, name: string): Promise<void> {
    assertCatalogAdmin(principal);
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
    assertCatalogAdmin(principal);
    const { enabled } = parseBody(MaintenanceSchema, body, 'maintenance request');
    await this.store.setSetting(MAINTENANCE_KEY, enabled ? 'on' : 'off');
    return { enabled };
  }

  /**
   * The check every write makes: 403 unless a catalog writer, then 503 with the exact maintenance
   * detail while maintenance mode is on (read from the store each time, so a CLI in another process
   * switching it on is seen at once).
   */
  async assertWritable(principal: Principal): Promise<void> {
    assertCatalogWriter(principal);
    if ((await this.store.getSetting(MAINTENANCE_KEY)) === 'on') throw errors.maintenance();
  }

  // -- attributes (spec 2.1, 4.1; decisions §3) ------------------------------------------------

  /** POST /1/catalog/attributes: create or merge-update; per-item errors. */
  async upsertAttributes(principal: Principal, body: unknown): Promise<BulkWriteResult> {
    await this.assertWritable(principal);
    const items = parseBulk(AttributeInputSchema, body, 'attribute_id', this.limits.maxBulkItems);
    const decisions = await this.store.upsertAttributes(validItems(items), decideAttributeUpsert);
    return bulkWriteResult(items, decisions);
  }

  /** DELETE /1/catalog/attributes: unknown and still-referenced ids are item errors. */
  async deleteAttributes(principal: Principal, body: unknown): Promise<BulkDeleteResult> {
    await this.assertWritable(principal);
    const items = parseIdList(body, this.limits.maxBulkItems);
    const decisions = await this.store.deleteAttributes(validItems(items), decideAttributeDelete);
    return bulkDeleteResult(items, decisions);
  }

  /** POST /1/catalog/attributes/list: keyset paging by attribute_id with projection. */
  async listAttributes(_principal: Principal, body: unknown): Promise<Page<Partial<Attribute>>> {
    const request = parseBody(AttributeListRequestSchema, body ?? {}, 'list request');
    const keyset = keysetFor(request.paging);
    const rows = await this.store.listAttributes(keyset);
    return toPage(rows, keyset.pageSize, (a) => a.attribute_id, (a) => project(a, 'attribute_id', request.projection), keyset.after);
  }

  /** POST /1/catalog/attributes/select: the known ids, in request order; unknown ids are left out. */
  async selectAttributes(_principal: Principal, body: unknown): Promise<Partial<Attribute>[]> {
    const request = parseBody(AttributeSelectRequestSchema, body, 'select request');
    const found = new Map((await this.store.getAttributes(request.attribute_ids)).map((a) => [a.attribute_id, a]));
    return [...new Set(request.attribute_ids)].flatMap((id) => {
      const a = found.get(id);
      return a ? [project(a, 'attribute_id', request.projection)] : [];
    });
  }

  // -- parts (decisions §5) --------------------------------------------------------------------

  /** POST /1/catalog/parts: create or merge-update part types with attribute values; per-item errors. */
  async upsertParts(principal: Principal, body: unknown): Promise<BulkWriteResult> {
    await this.assertWritable(principal);
    const items = parseBulk(PartInputSchema, body, 'part_id', this.limits.maxBulkItems);
    const now = this.clock.nowMicros();
    const decisions = await this.store.upsertParts(validItems(items), (input, existing, attributes) =>
      decidePartUpsert(input, existing, attributes, now, () => this.ids.uuid()),
    );
    return bulkWriteResult(items, decisions);
  }

  /** DELETE /1/catalog/parts: removes parts and their relations; a part with images is an item error. */
  async deleteParts(principal: Principal, body: unknown): Promise<BulkDeleteResult> {
    await this.assertWritable(principal);
    const items = parseIdList(body, this.limits.maxBulkItems);
    const decisions = await this.store.deleteParts(validItems(items), decidePartDelete);
    return bulkDeleteResult(items, decisions);
  }

  /** POST /1/catalog/parts/list: keyset paging by part_id; values as the caller may see them. */
  async listParts(principal: Principal, body: unknown): Promise<Page<Partial<Part>>> {
    const request = parseBody(PartListRequestSchema, body ?? {}, 'list request');
    const keyset = keysetFor(request.paging);
    const rows = await this.store.listParts(keyset);
    const ctx = await this.viewContext(principal, request.organization);
    return toPage(rows, keyset.pageSize, (p) => p.part_id, (p) => project(viewPart(p, ctx), 'part_id', request.projection), keyset.after);
  }

  /** POST /1/catalog/parts/select: the known ids in request order. */
  async selectParts(principal: Principal, body: unknown): Promise<Partial<Part>[]> {
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
    const [part] = await this.store.getParts([partId]);
    if (!part) throw errors.notFound(`part '${partId}' does not exist`);
    return viewPart(part, await this.viewContext(principal, organization));
  }

  /** The stored parts for the given ids (for other use cases: images, relations, search). */
  async storedParts(ids: readonly string[]): Promise<StoredPart[]> {
    return this.store.getParts(ids);
  }

  /**
   * Who sees what: a token bound to an organization always reads as that organization and may
   * not ask for another (403); others read raw values unless they name an organization.
   */
  async viewContext(principal: Principal, organization: string | undefined): Promise<PartViewContext> {
    if (principal.organization !== null && organization !== undefined && organization !== principal.organization) {
      throw errors.forbidden(`token '${principal.name}' belongs to organization '${principal.organization}' and may not read values as '${organization}'`);
    }
    const [attributes, organizations] = await Promise.all([this.store.allAttributes(), this.store.allOrganizations()]);
    return {
      principal,
      attributes: new Map(attributes.map((a) => [a.attribute_id, a])),
      organizations,
      organization: principal.organization ?? (organization === '' ? undefined : organization),
    };
  }

  // -- organizations (decisions §5) ----------------------------------------------------------

  /** POST /1/catalog/organizations: `[{org_id, parent_id?}]`; parents must exist, no cycles. */
  async upsertOrganizations(principal: Principal, body: unknown): Promise<BulkWriteResult> {
    await this.assertWritable(principal);
    const items = parseBulk(OrganizationInputSchema, body, 'org_id', this.limits.maxBulkItems);
    const inputs = validItems(items).map((o) => ({ org_id: o.org_id, parent_id: o.parent_id ?? null }));
    const decisions = await this.store.upsertOrganizations(inputs, decideOrganizationUpsert);
    return bulkWriteResult(items, decisions);
  }

  /** POST /1/catalog/organizations/list. */
  async listOrganizations(_principal: Principal, body: unknown): Promise<Page<Organization>> {
    const request = parseBody(OrganizationListRequestSchema, body ?? {}, 'list request');
    const keyset = keysetFor(request.paging);
    const rows = await this.store.listOrganizations(keyset);
    return toPage(rows, keyset.pageSize, (o) => o.org_id, (o) => o, keyset.after);
  }

  /** Closes the store. */
  async close(): Promise<void> {
    await this.store.close();
  }
}
