/**
 * The one interface the CLI depends on (docs/architecture.md): every API operation, implemented by
 * the local client (in-process core over a data directory) and the HTTP client (undici, remote
 * server). Both return the same shapes and throw the same CatalogError for the same input; the
 * contract suite under test/contract proves it.
 *
 * Request bodies are typed `unknown` on purpose: both implementations validate them with the same
 * src/api schemas (the local one in-process, the remote one on the server), so bad input from a
 * file reaches the user as the same 400 / per-item error in either mode.
 */
import type {
  Attribute, BulkDeleteResult, BulkWriteResult, MaintenanceState, Organization, Page, Part, SynonymSet,
} from '../api/schemas.js';
import type { CatalogInfo, PartBatch, PartInput, Relation, RelationCreateResult, RelationRecord, CurrentToken, CreatedToken, TokenInfo } from '../api/schemas.js';
import type { FacetValuesResponse, RankingSettings, SearchResponse, SearchStateOptions } from '../api/schemas.js';
import type { ChangesPage, Webhook, WebhookCreated, WebhookDelivery } from '../api/change-schemas.js';
import type { DisplayImages, ImageAuditResult, ImageDescription, ImageDownload, ImageView, UploadFile, UploadOptions } from '../api/image-schemas.js';

/** An attribute as listed or selected: attribute_id plus the projected fields. */
export type AttributeView = Partial<Attribute> & { attribute_id: string; creation_order?: number };
/** A part as listed or selected: part_id plus the projected fields. */
export type PartView = Partial<Part> & { part_id: string };

/** The query image of an image search: its bytes and a file name (the format is detected from the bytes). */
export interface SearchImageUpload {
  image: Uint8Array;
  filename: string;
}

export interface CatalogClient {
  /** 'local' (data directory) or 'remote' (HTTP server). */
  readonly mode: 'local' | 'remote';

  /** POST /1/catalog/attributes (spec 4.1). */
  upsertAttributes(items: unknown[]): Promise<BulkWriteResult>;
  /** DELETE /1/catalog/attributes (spec 4.1). */
  deleteAttributes(ids: unknown[]): Promise<BulkDeleteResult>;
  /** POST /1/catalog/attributes/list (spec 4.1, 2.4). */
  listAttributes(request: unknown): Promise<Page<AttributeView>>;
  /** POST /1/catalog/attributes/select (spec 4.1). */
  selectAttributes(request: unknown): Promise<AttributeView[]>;

  /** POST /1/catalog/parts (decisions §5). */
  upsertParts(items: unknown[]): Promise<BulkWriteResult>;
  /**
   * POST /1/catalog/parts of items the caller validated already with
   * `validateBulkItem(PartInputSchema, item, 'part_id')` (src/core/validation.ts): the local
   * client skips its own schema pass (CatalogService.upsertValidatedParts); over HTTP the server
   * validates as always. Same result as {@link upsertParts} for such items.
   */
  upsertValidatedParts(items: PartInput[]): Promise<BulkWriteResult>;
  /**
   * Consecutive batches of parts (each what one {@link upsertParts} call, or with `validated` one
   * {@link upsertValidatedParts} call, would send), each with the result its own call would get.
   * Locally all batches are written in ONE transaction (CatalogService.upsertPartBatches: all
   * stored or none; a local import writes several batches per transaction). Over HTTP
   * one request per batch, in order, each committed by the server on its own; a failing request
   * throws, and the batches before it stay stored.
   */
  upsertPartBatches(batches: PartBatch[]): Promise<BulkWriteResult[]>;
  /** DELETE /1/catalog/parts (decisions §5). */
  deleteParts(ids: unknown[]): Promise<BulkDeleteResult>;
  /** POST /1/catalog/parts/list. */
  listParts(request: unknown): Promise<Page<PartView>>;
  /** POST /1/catalog/parts/select. */
  selectParts(request: unknown): Promise<PartView[]>;
  /** GET /1/catalog/parts/{part_id}[?organization=]; 404 when unknown. */
  getPart(partId: string, options?: { organization?: string }): Promise<Part>;

  /** POST /1/catalog/organizations (decisions §5). */
  upsertOrganizations(items: unknown[]): Promise<BulkWriteResult>;
  /** POST /1/catalog/organizations/list. */
  listOrganizations(request: unknown): Promise<Page<Organization>>;

  /** POST /1/catalog/synonyms: create or replace synonym sets. */
  upsertSynonyms(items: unknown[]): Promise<BulkWriteResult>;
  /** DELETE /1/catalog/synonyms. */
  deleteSynonyms(ids: unknown[]): Promise<BulkDeleteResult>;
  /** POST /1/catalog/synonyms/list. */
  listSynonyms(request: unknown): Promise<Page<SynonymSet>>;

  /** GET /1/catalog/maintenance (decisions §7). */
  getMaintenance(): Promise<MaintenanceState>;
  /** PUT /1/catalog/maintenance (decisions §7; catalogAdmin). */
  setMaintenance(enabled: boolean): Promise<MaintenanceState>;

  /**
   * POST /v1/parts/relations (spec 4.3, decisions §6): all or nothing; any bad item is one 400
   * naming every bad item (`items[3].related_part_id`). Returns how many relations were written.
   */
  createRelations(items: unknown[]): Promise<RelationCreateResult>;
  /**
   * GET /v1/parts/{part_id}/relations/{type}, or every type (GET /v1/parts/{part_id}/relations)
   * when `type` is omitted. 400 for an unknown type, 404 for an unknown part.
   */
  getRelations(partId: string, type?: string): Promise<Relation[]>;
  /**
   * POST /v1/parts/relations/list (docs/api.md): every relation of the catalog in its import shape
   * (plus `user_id`, `created`), paged (`{paging?: {limit, last_object_id}}`) in
   * (anchor_part_id, related_part_id) order; 400 for a bad request or cursor.
   */
  listRelations(request: unknown): Promise<Page<RelationRecord>>;

  /** GET /1/catalog/info (docs/api.md): the catalog's identity `{catalogId, version}`. */
  getCatalogInfo(): Promise<CatalogInfo>;
  /** GET /1/auth/token (docs/api.md): the calling token's name, roles, organization and permissions. */
  getTokenInfo(): Promise<CurrentToken>;
  /** GET /1/auth/tokens (docs/api.md "Tokens"; catalogAdmin, scope `tokens`): every token, never a secret. */
  listTokens(): Promise<TokenInfo[]>;
  /**
   * POST /1/auth/tokens `{name, roles, organization?, scopes?, expiresInSeconds?}`: a new token; its
   * secret is in the answer only. 400 for bad input or a name in use.
   */
  createToken(request: unknown): Promise<CreatedToken>;
  /** POST /1/auth/tokens/{name}/rotate `{expiresInSeconds?}`: a new secret (the old one stops at once); 404 when unknown. */
  rotateToken(name: string, request?: unknown): Promise<CreatedToken>;
  /** DELETE /1/auth/tokens/{name}; 404 when unknown. */
  revokeToken(name: string): Promise<void>;

  /**
   * POST /1/catalog/images (spec 4.2, decisions §4): multipart with the definitions
   * `[{image_id, part_id, info, position?}]` and the files; a file belongs to the definition whose
   * image_id is its filename (or its filename without the extension). Files given by `path` are
   * streamed from disk. Per-item errors in the result. `options.mode` `create` changes no existing
   * image (`?mode=create`, docs/api.md "Part images"); default `upsert`.
   */
  uploadImages(definitions: unknown[], files: UploadFile[], options?: UploadOptions): Promise<BulkWriteResult>;
  /** DELETE /1/catalog/images: a blob goes with its last image. */
  deleteImages(ids: unknown[]): Promise<BulkDeleteResult>;
  /** POST /1/catalog/images/list: `{query?: {part_ids?}, paging?, projection?}`. */
  listImages(request: unknown): Promise<Page<ImageView>>;
  /** POST /1/catalog/images/select: `{image_ids, projection?}`. */
  selectImages(request: unknown): Promise<ImageView[]>;
  /**
   * POST /1/catalog/images/audit (docs/api.md "Image audit"): `{query?: {part_ids?, image_ids?},
   * conditions?, paging?}` → a page of how findable each searchable reference is.
   */
  auditImages(request: unknown): Promise<Page<ImageAuditResult>>;
  /** GET /1/catalog/images/{image_id}; 404 when unknown. */
  getImage(imageId: string): Promise<ImageDescription>;
  /** GET /1/catalog/images/{image_id}/original: the exact bytes, streamed; 404 when unknown. */
  downloadImage(imageId: string): Promise<ImageDownload>;
  /** GET /1/catalog/parts/{part_id}/display-images (decisions §4); 404 for an unknown part. */
  displayImages(partId: string): Promise<DisplayImages>;

  /**
   * POST /1/find/search (spec 4.4, decisions §8): `{language?, projection?, matches?: {organization?,
   * text?, filters?: [{label, values}]}, resultOptions?: {limit?}}`; starts a session and answers
   * its first page.
   */
  search(request: unknown, image?: SearchImageUpload): Promise<SearchResponse>;
  /** GET /1/find/search/state/{sessionId}: a page of a session; 404 when unknown, expired or another token's. */
  searchState(sessionId: string, options?: SearchStateOptions): Promise<SearchResponse>;
  /**
   * POST /1/find/facet-values: `{attribute_id, prefix?, matches?: {organization?, text?,
   * filters?}, maxValues?}` → the attribute's values beginning with `prefix`, counted over the hits.
   */
  facetValues(request: unknown): Promise<FacetValuesResponse>;
  /** GET /1/catalog/ranking (our addition, docs/api.md "Ranking settings"). */
  getRanking(): Promise<RankingSettings>;
  /** PUT /1/catalog/ranking: replaces the ranking settings (catalogAdmin); answers them as stored. */
  setRanking(settings: unknown): Promise<RankingSettings>;

  /**
   * POST /1/catalog/changes (docs/api.md "Changes"): `{since?, limit?, types?}` → the changes
   * numbered above `since`, oldest first; 410 (gone) once they were pruned.
   */
  changes(request: unknown): Promise<ChangesPage>;
  /** POST /1/catalog/webhooks (catalogAdmin): `{webhook_id, url, secret?, types?}` → the webhook and its secret, shown once. */
  addWebhook(input: unknown): Promise<WebhookCreated>;
  /** POST /1/catalog/webhooks/list (catalogAdmin). */
  listWebhooks(): Promise<Webhook[]>;
  /** DELETE /1/catalog/webhooks/{webhook_id} (catalogAdmin); 404 when unknown. */
  removeWebhook(webhookId: string): Promise<void>;
  /** GET /1/catalog/webhooks/deliveries (catalogAdmin): the delivery log, newest first. */
  webhookDeliveries(options?: { webhookId?: string | undefined; limit?: number | undefined }): Promise<WebhookDelivery[]>;

  /** Releases the database or the connection pool. */
  close(): Promise<void>;
}
