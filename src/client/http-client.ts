/**
 * The remote CatalogClient: the HTTP API of api-spec.md over undici. Every request goes through the
 * one transport (src/client/http/transport.ts: retries of 429/502/503/504 other than maintenance and
 * of connection failures, backoff honouring Retry-After, problem+json errors rebuilt as the same
 * CatalogError the core throws); multipart bodies come from the one encoder (src/client/http/multipart.ts).
 */
import { basename } from 'node:path';
import type { Dispatcher } from 'undici';
import { ROUTES } from '../api/routes.js';
import type { ChangesPage, Webhook, WebhookCreated, WebhookDelivery } from '../api/change-schemas.js';
import type { BulkDeleteResult, BulkWriteResult, MaintenanceState, Organization, Page, Part, PartBatch, PartInput, SynonymSet } from '../api/schemas.js';
import type { AttributeView, CatalogClient, PartView, SearchImageUpload } from './types.js';
import type { CatalogInfo, CreatedToken, CurrentToken, Relation, RelationCreateResult, RelationRecord, TokenInfo } from '../api/schemas.js';
import type { FacetValuesResponse, RankingSettings, SearchResponse, SearchStateOptions } from '../api/schemas.js';
import type { DisplayImages, ImageAuditResult, ImageDescription, ImageDownload, ImageView, UploadFile, UploadOptions } from '../api/image-schemas.js';
import { encodeMultipart } from './http/multipart.js';
import { HttpTransport, type TransportOptions, type TransportRequest } from './http/transport.js';

/** Options of the remote client: the transport's (url, token, retries, backoff, pool size, ...). */
export type HttpClientOptions = TransportOptions;

/** CatalogClient over HTTP. */
export class HttpCatalogClient implements CatalogClient {
  readonly mode = 'remote' as const;
  readonly url: URL;
  private readonly transport: HttpTransport;

  constructor(options: HttpClientOptions) {
    this.transport = new HttpTransport(options);
    this.url = this.transport.url;
  }

  /**
   * Sends one request and returns the raw undici response (status < 400, body unread). Throws the
   * CatalogError of a problem+json answer; `unavailable` when the server stays unreachable.
   */
  send(request: TransportRequest): Promise<Dispatcher.ResponseData> {
    return this.transport.send(request);
  }

  /** Sends a request and parses its JSON response. */
  json<T>(request: TransportRequest): Promise<T> {
    return this.transport.json<T>(request);
  }

  upsertAttributes(items: unknown[]) { return this.json<BulkWriteResult>({ method: 'POST', path: ROUTES.attributes, json: items }); }
  deleteAttributes(ids: unknown[]) { return this.json<BulkDeleteResult>({ method: 'DELETE', path: ROUTES.attributes, json: ids }); }
  listAttributes(request: unknown) { return this.json<Page<AttributeView>>({ method: 'POST', path: ROUTES.attributesList, json: request ?? {} }); }
  selectAttributes(request: unknown) { return this.json<AttributeView[]>({ method: 'POST', path: ROUTES.attributesSelect, json: request }); }

  upsertParts(items: unknown[]) { return this.json<BulkWriteResult>({ method: 'POST', path: ROUTES.parts, json: items }); }
  upsertValidatedParts(items: PartInput[]) { return this.upsertParts(items); }
  async upsertPartBatches(batches: PartBatch[]) {
    // One request per batch, in order: the server commits each on its own (no transaction spans requests).
    const results: BulkWriteResult[] = [];
    for (const batch of batches) results.push(await this.upsertParts(batch.items as unknown[]));
    return results;
  }
  deleteParts(ids: unknown[]) { return this.json<BulkDeleteResult>({ method: 'DELETE', path: ROUTES.parts, json: ids }); }
  listParts(request: unknown) { return this.json<Page<PartView>>({ method: 'POST', path: ROUTES.partsList, json: request ?? {} }); }
  selectParts(request: unknown) { return this.json<PartView[]>({ method: 'POST', path: ROUTES.partsSelect, json: request }); }
  getPart(partId: string, options?: { organization?: string }) {
    return this.json<Part>({ method: 'GET', path: ROUTES.part(partId), query: { organization: options?.organization } });
  }

  upsertOrganizations(items: unknown[]) { return this.json<BulkWriteResult>({ method: 'POST', path: ROUTES.organizations, json: items }); }
  upsertSynonyms(items: unknown[]) { return this.json<BulkWriteResult>({ method: 'POST', path: ROUTES.synonyms, json: items }); }
  deleteSynonyms(ids: unknown[]) { return this.json<BulkDeleteResult>({ method: 'DELETE', path: ROUTES.synonyms, json: ids }); }
  listSynonyms(request: unknown) { return this.json<Page<SynonymSet>>({ method: 'POST', path: ROUTES.synonymsList, json: request ?? {} }); }
  listOrganizations(request: unknown) { return this.json<Page<Organization>>({ method: 'POST', path: ROUTES.organizationsList, json: request ?? {} }); }

  getMaintenance() { return this.json<MaintenanceState>({ method: 'GET', path: ROUTES.maintenance }); }
  setMaintenance(enabled: boolean) { return this.json<MaintenanceState>({ method: 'PUT', path: ROUTES.maintenance, json: { enabled } }); }

  // Relations: a retried write is safe, it writes the same pairs again (the latest write wins).
  createRelations(items: unknown[]) { return this.json<RelationCreateResult>({ method: 'POST', path: ROUTES.relations, json: items }); }
  listRelations(request: unknown) { return this.json<Page<RelationRecord>>({ method: 'POST', path: ROUTES.relationsList, json: request ?? {} }); }
  changes(request: unknown) { return this.json<ChangesPage>({ method: 'POST', path: ROUTES.changes, json: request ?? {} }); }
  addWebhook(input: unknown) { return this.json<WebhookCreated>({ method: 'POST', path: ROUTES.webhooks, json: input }); }
  listWebhooks() { return this.json<Webhook[]>({ method: 'POST', path: ROUTES.webhooksList, json: {} }); }
  async removeWebhook(webhookId: string): Promise<void> {
    const response = await this.send({ method: 'DELETE', path: ROUTES.webhook(webhookId) });
    await response.body.dump();
  }
  webhookDeliveries(options: { webhookId?: string | undefined; limit?: number | undefined } = {}) {
    return this.json<WebhookDelivery[]>({ method: 'GET', path: ROUTES.webhookDeliveries, query: { webhook_id: options.webhookId, limit: options.limit } });
  }
  getCatalogInfo() { return this.json<CatalogInfo>({ method: 'GET', path: ROUTES.catalogInfo }); }
  getTokenInfo() { return this.json<CurrentToken>({ method: 'GET', path: ROUTES.tokenInfo }); }
  listTokens() { return this.json<TokenInfo[]>({ method: 'GET', path: ROUTES.tokens }); }
  // Creating and rotating are not retried: a lost answer would lose the only copy of the secret,
  // and a second create of the name is a 400, a second rotation another secret.
  createToken(request: unknown) { return this.json<CreatedToken>({ method: 'POST', path: ROUTES.tokens, json: request ?? {}, retry: false }); }
  rotateToken(name: string, request?: unknown) { return this.json<CreatedToken>({ method: 'POST', path: ROUTES.tokenRotate(name), json: request ?? {}, retry: false }); }
  async revokeToken(name: string) {
    const response = await this.send({ method: 'DELETE', path: ROUTES.token(name) });
    await response.body.dump();
  }
  getRelations(partId: string, type?: string) {
    return this.json<Relation[]>({ method: 'GET', path: type === undefined ? ROUTES.partRelations(partId) : ROUTES.partRelationsOfType(partId, type) });
  }

  // Images (spec 4.2): the definitions, then the files, streamed from disk; a retry re-opens them.
  uploadImages(definitions: unknown[], files: UploadFile[], options: UploadOptions = {}) {
    return this.json<BulkWriteResult>({
      method: 'POST',
      path: options.mode === undefined ? ROUTES.images : `${ROUTES.images}?mode=${encodeURIComponent(options.mode)}`,
      body: () => encodeMultipart([
        { name: 'images', contentType: 'application/json', data: JSON.stringify(definitions) },
        ...files.map((file) => ({ name: 'files', contentType: 'application/octet-stream', filename: file.filename, ...(file.path !== undefined ? { path: file.path } : {}), ...(file.data !== undefined ? { data: file.data } : {}) })),
      ]),
    });
  }
  deleteImages(ids: unknown[]) { return this.json<BulkDeleteResult>({ method: 'DELETE', path: ROUTES.images, json: ids }); }
  listImages(request: unknown) { return this.json<Page<ImageView>>({ method: 'POST', path: ROUTES.imagesList, json: request ?? {} }); }
  selectImages(request: unknown) { return this.json<ImageView[]>({ method: 'POST', path: ROUTES.imagesSelect, json: request }); }
  auditImages(request: unknown) { return this.json<Page<ImageAuditResult>>({ method: 'POST', path: ROUTES.imagesAudit, json: request ?? {} }); }
  getImage(imageId: string) { return this.json<ImageDescription>({ method: 'GET', path: ROUTES.image(imageId) }); }
  async downloadImage(imageId: string): Promise<ImageDownload> {
    const response = await this.send({ method: 'GET', path: ROUTES.imageOriginal(imageId), headers: { accept: '*/*' } });
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    return { contentType: header('content-type') ?? 'application/octet-stream', size: Number(header('content-length') ?? Number.NaN), etag: header('etag') ?? '', stream: response.body };
  }
  displayImages(partId: string) { return this.json<DisplayImages>({ method: 'GET', path: ROUTES.partDisplayImages(partId) }); }

  search(request: unknown, image?: SearchImageUpload) {
    if (!image) return this.json<SearchResponse>({ method: 'POST', path: ROUTES.search, json: request ?? {} });
    // decisions §8: multipart with the JSON request in part `input` and the raw image in part `image`.
    return this.json<SearchResponse>({
      method: 'POST',
      path: ROUTES.search,
      body: () => encodeMultipart([
        { name: 'input', contentType: 'application/json', data: JSON.stringify(request ?? {}) },
        { name: 'image', contentType: 'application/octet-stream', filename: basename(image.filename), data: image.image },
      ]),
    });
  }
  searchState(sessionId: string, options: SearchStateOptions = {}) {
    return this.json<SearchResponse>({
      method: 'GET',
      path: ROUTES.searchState(sessionId),
      query: { skip: options.skip, limit: options.limit, projection: options.projection?.join(',') },
    });
  }

  facetValues(request: unknown) {
    return this.json<FacetValuesResponse>({ method: 'POST', path: ROUTES.facetValues, json: request ?? {} });
  }
  getRanking() { return this.json<RankingSettings>({ method: 'GET', path: ROUTES.ranking }); }
  setRanking(settings: unknown) { return this.json<RankingSettings>({ method: 'PUT', path: ROUTES.ranking, json: settings ?? {} }); }


  async close(): Promise<void> {
    await this.transport.close();
  }
}
