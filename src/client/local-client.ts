/**
 * The local CatalogClient: the core in-process over a data directory, acting as its owner
 * (decisions §2). Requests go to the service as they are (it validates them with the same zod
 * schemas as the server, and zod's output is a fresh object); results pass through a JSON round trip
 * so they have exactly the shape the HTTP client receives (no undefined fields, no shared references).
 */
import type { Principal } from '../api/schemas.js';
import type { SearchStateOptions } from '../api/schemas.js';
import { LOCAL_OWNER } from '../core/permissions.js';
import type { Catalog } from '../core/services.js';
import type { CatalogService } from '../core/catalog/service.js';
import type { CatalogClient, SearchImageUpload } from './types.js';
import type { UploadFile } from '../api/image-schemas.js';
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

  async upsertAttributes(items: unknown[]) { return wire(await this.service.upsertAttributes(await this.principal(), items)); }
  async deleteAttributes(ids: unknown[]) { return wire(await this.service.deleteAttributes(await this.principal(), ids)); }
  async listAttributes(request: unknown) { return wire(await this.service.listAttributes(await this.principal(), request)) as Awaited<ReturnType<CatalogClient['listAttributes']>>; }
  async selectAttributes(request: unknown) { return wire(await this.service.selectAttributes(await this.principal(), request)) as Awaited<ReturnType<CatalogClient['selectAttributes']>>; }

  async upsertParts(items: unknown[]) { return wire(await this.service.upsertParts(await this.principal(), items)); }
  async deleteParts(ids: unknown[]) { return wire(await this.service.deleteParts(await this.principal(), ids)); }
  async listParts(request: unknown) { return wire(await this.service.listParts(await this.principal(), request)) as Awaited<ReturnType<CatalogClient['listParts']>>; }
  async selectParts(request: unknown) { return wire(await this.service.selectParts(await this.principal(), request)) as Awaited<ReturnType<CatalogClient['selectParts']>>; }
  async getPart(partId: string, options?: { organization?: string }) { return wire(await this.service.getPart(await this.principal(), partId, options?.organization)); }

  async upsertOrganizations(items: unknown[]) { return wire(await this.service.upsertOrganizations(await this.principal(), items)); }
  async listOrganizations(request: unknown) { return wire(await this.service.listOrganizations(await this.principal(), request)); }

  async getMaintenance() { return wire(await this.service.getMaintenance(await this.principal())); }
  async setMaintenance(enabled: boolean) { return wire(await this.service.setMaintenance(await this.principal(), { enabled })); }

  async createRelations(items: unknown[]) { return wire(await this.catalog.relations.createRelations(await this.principal(), items)); }
  async getRelations(partId: string, type?: string) { return wire(await this.catalog.relations.getRelations(await this.principal(), partId, type)); }

  async uploadImages(definitions: unknown[], files: UploadFile[]) { return wire(await uploadLocal(this.catalog.images, await this.principal(), definitions, files)); }
  async deleteImages(ids: unknown[]) { return wire(await this.catalog.images.deleteImages(await this.principal(), ids)); }
  async listImages(request: unknown) { return wire(await this.catalog.images.listImages(await this.principal(), request)); }
  async selectImages(request: unknown) { return wire(await this.catalog.images.selectImages(await this.principal(), request)); }
  async getImage(imageId: string) { return wire(await this.catalog.images.getImage(await this.principal(), imageId)); }
  async downloadImage(imageId: string) { return downloadLocal(this.catalog.images, await this.principal(), imageId); }
  async displayImages(partId: string) { return wire(await this.catalog.images.displayImages(await this.principal(), partId)); }

  async search(request: unknown, image?: SearchImageUpload) {
    return wire(await this.catalog.search.search(await this.principal(), wire(request), image ? { bytes: image.image } : undefined));
  }
  async searchState(sessionId: string, options: SearchStateOptions = {}) { return wire(await this.catalog.search.searchState(await this.principal(), sessionId, wire(options))); }

  async close(): Promise<void> {
    await this.catalog.close();
  }
}
