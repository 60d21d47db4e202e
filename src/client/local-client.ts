/**
 * The local CatalogClient: the core in-process over a data directory, acting as its owner
 * (decisions §2). Requests go to the service as they are (it validates them with the same zod
 * schemas as the server, and zod's output is a fresh object); results pass through a JSON round trip
 * so they have exactly the shape the HTTP client receives (no undefined fields, no shared references),
 * and a CatalogError through problem+json, so it is the error the HTTP client would throw.
 */
import { CatalogError, throughProblem } from '../api/errors.js';
import type { PartBatch, PartInput, Principal } from '../api/schemas.js';
import type { SearchStateOptions } from '../api/schemas.js';
import { LOCAL_OWNER } from '../core/permissions.js';
import type { Catalog } from '../core/services.js';
import type { CatalogService } from '../core/catalog/service.js';
import type { CatalogClient, SearchImageUpload } from './types.js';
import type { UploadFile, UploadOptions } from '../api/image-schemas.js';
import { downloadLocal, uploadLocal } from './local-images.js';

function wire<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * Wraps a CatalogService as a CatalogClient. Acts as the directory's owner by default; with
 * `{token}` every call authenticates that token exactly as the server would (401 when unknown).
 */
export class LocalCatalogClient implements CatalogClient {
  readonly mode = 'local' as const;
  readonly catalog: Catalog;
  readonly service: CatalogService;
  private readonly identity: Principal | { token: string | undefined };

  constructor(catalog: Catalog, identity: Principal | { token: string | undefined } = LOCAL_OWNER) {
    this.catalog = catalog;
    this.service = catalog.service;
    this.identity = identity;
  }

  /** The principal of the next call. */
  async principal(): Promise<Principal> {
    if ('token' in this.identity) {
      return this.service.authenticate(this.identity.token === undefined ? undefined : `Bearer ${this.identity.token}`);
    }
    return this.identity;
  }

  /**
   * One call of the core as the HTTP server makes it: authenticate, run, hand back the result in its
   * wire shape. A CatalogError comes back rebuilt from its problem+json (throughProblem), so status,
   * code, detail and field problems equal the HTTP client's; anything else (a SqliteError, ENOSPC)
   * passes through unchanged for the CLI to classify. `raw` skips the JSON round trip (streams).
   */
  private async run<T>(operation: (principal: Principal) => Promise<T>, raw = false): Promise<T> {
    try {
      const result = await operation(await this.principal());
      return raw ? result : wire(result);
    } catch (error) {
      throw error instanceof CatalogError ? throughProblem(error) : error;
    }
  }

  upsertAttributes(items: unknown[]) { return this.run((p) => this.service.upsertAttributes(p, items)); }
  deleteAttributes(ids: unknown[]) { return this.run((p) => this.service.deleteAttributes(p, ids)); }
  listAttributes(request: unknown) { return this.run((p) => this.service.listAttributes(p, request)) as ReturnType<CatalogClient['listAttributes']>; }
  selectAttributes(request: unknown) { return this.run((p) => this.service.selectAttributes(p, request)) as ReturnType<CatalogClient['selectAttributes']>; }

  upsertParts(items: unknown[]) { return this.run((p) => this.service.upsertParts(p, items)); }
  upsertValidatedParts(items: PartInput[]) { return this.run((p) => this.service.upsertValidatedParts(p, items)); }
  upsertPartBatches(batches: PartBatch[]) { return this.run((p) => this.service.upsertPartBatches(p, batches)); }
  deleteParts(ids: unknown[]) { return this.run((p) => this.service.deleteParts(p, ids)); }
  listParts(request: unknown) { return this.run((p) => this.service.listParts(p, request)) as ReturnType<CatalogClient['listParts']>; }
  selectParts(request: unknown) { return this.run((p) => this.service.selectParts(p, request)) as ReturnType<CatalogClient['selectParts']>; }
  getPart(partId: string, options?: { organization?: string }) { return this.run((p) => this.service.getPart(p, partId, options?.organization)); }

  upsertOrganizations(items: unknown[]) { return this.run((p) => this.service.upsertOrganizations(p, items)); }
  changes(request: unknown) { return this.run((p) => this.catalog.changes.changes(p, request)); }
  addWebhook(input: unknown) { return this.run((p) => this.catalog.changes.addWebhook(p, input)); }
  listWebhooks() { return this.run((p) => this.catalog.changes.listWebhooks(p)); }
  removeWebhook(webhookId: string) { return this.run((p) => this.catalog.changes.removeWebhook(p, webhookId)); }
  webhookDeliveries(options: { webhookId?: string | undefined; limit?: number | undefined } = {}) {
    return this.run((p) => this.catalog.changes.deliveries(p, options.webhookId, options.limit));
  }

  upsertSynonyms(items: unknown[]) { return this.run((p) => this.service.upsertSynonyms(p, items)); }
  deleteSynonyms(ids: unknown[]) { return this.run((p) => this.service.deleteSynonyms(p, ids)); }
  listSynonyms(request: unknown) { return this.run((p) => this.service.listSynonyms(p, request)); }
  listOrganizations(request: unknown) { return this.run((p) => this.service.listOrganizations(p, request)); }

  getMaintenance() { return this.run((p) => this.service.getMaintenance(p)); }
  setMaintenance(enabled: boolean) { return this.run((p) => this.service.setMaintenance(p, { enabled })); }

  createRelations(items: unknown[]) { return this.run((p) => this.catalog.relations.createRelations(p, items)); }
  getRelations(partId: string, type?: string) { return this.run((p) => this.catalog.relations.getRelations(p, partId, type)); }
  listRelations(request: unknown) { return this.run((p) => this.catalog.relations.listRelations(p, request)); }
  getCatalogInfo() { return this.run((p) => this.service.getCatalogInfo(p)); }
  getTokenInfo() { return this.run(async (p) => this.service.describeToken(p)); }
  listTokens() { return this.run((p) => this.service.listTokens(p)); }
  createToken(request: unknown) { return this.run((p) => this.service.createToken(p, wire(request))); }
  rotateToken(name: string, request?: unknown) { return this.run((p) => this.service.rotateToken(p, name, wire(request ?? {}))); }
  revokeToken(name: string) { return this.run((p) => this.service.revokeToken(p, name)); }

  uploadImages(definitions: unknown[], files: UploadFile[], options: UploadOptions = {}) { return this.run((p) => uploadLocal(this.catalog.images, p, definitions, files, options)); }
  deleteImages(ids: unknown[]) { return this.run((p) => this.catalog.images.deleteImages(p, ids)); }
  listImages(request: unknown) { return this.run((p) => this.catalog.images.listImages(p, request)); }
  selectImages(request: unknown) { return this.run((p) => this.catalog.images.selectImages(p, request)); }
  auditImages(request: unknown) { return this.run((p) => this.catalog.images.auditImages(p, request)); }
  getImage(imageId: string) { return this.run((p) => this.catalog.images.getImage(p, imageId)); }
  downloadImage(imageId: string) { return this.run((p) => downloadLocal(this.catalog.images, p, imageId), true); }
  displayImages(partId: string) { return this.run((p) => this.catalog.images.displayImages(p, partId)); }

  search(request: unknown, image?: SearchImageUpload) {
    return this.run((p) => this.catalog.search.search(p, wire(request), image ? { bytes: image.image } : undefined));
  }
  searchState(sessionId: string, options: SearchStateOptions = {}) { return this.run((p) => this.catalog.search.searchState(p, sessionId, wire(options))); }
  facetValues(request: unknown) { return this.run((p) => this.catalog.search.facetValues(p, wire(request))); }
  getRanking() { return this.run((p) => this.catalog.search.getRanking(p)); }
  setRanking(settings: unknown) { return this.run((p) => this.catalog.search.setRanking(p, wire(settings))); }

  async close(): Promise<void> {
    await this.catalog.close();
  }
}
