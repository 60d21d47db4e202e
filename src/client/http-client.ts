/**
 * The remote CatalogClient: the HTTP API of api-spec.md over undici. Errors come back as the same
 * CatalogError the core throws (rebuilt from the problem+json body). Idempotent failures of the
 * transport (429/502/503/504 other than maintenance, connection refused) are retried with backoff
 * honouring Retry-After, a bounded number of times (design/cli.md); a 4xx never is.
 */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { Pool, type Dispatcher } from 'undici';
import { CatalogError, fromProblem } from '../api/errors.js';
import { ROUTES } from '../api/routes.js';
import type { BulkDeleteResult, BulkWriteResult, MaintenanceState, Organization, Page, Part } from '../api/schemas.js';
import type { AttributeView, CatalogClient, PartView, SearchImageUpload } from './types.js';
import type { Relation, RelationCreateResult } from '../api/schemas.js';
import type { SearchResponse, SearchStateOptions } from '../api/schemas.js';
import type { DisplayImages, ImageDescription, ImageDownload, ImageView, UploadFile } from '../api/image-schemas.js';
import { uploadOverHttp } from './multipart-upload.js';
import { RETRY_ERRORS, RETRY_STATUSES, retryAfterMs, sleep } from './retry.js';

export interface HttpClientOptions {
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Bearer token; requests without one get 401 from the server. */
  token: string | undefined;
  /** Retries of 429/502/503/504 and connection failures (default 4). */
  retries?: number;
  /** First backoff in ms, doubled each retry (default 200). */
  backoffMs?: number;
  /** Connections in the pool (default 16). */
  connections?: number;
}


/** A low-level request description. */
export interface HttpRequest {
  method: Dispatcher.HttpMethod;
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Raw body with its own content type (multipart); bypasses JSON encoding. */
  raw?: { body: Dispatcher.DispatchOptions['body']; contentType: string };
  headers?: Record<string, string>;
  /** Retry on 429/5xx even for a non-idempotent body (safe for upserts by id). Default true. */
  retry?: boolean;
}

/** CatalogClient over HTTP. */
export class HttpCatalogClient implements CatalogClient {
  readonly mode = 'remote' as const;
  readonly url: URL;
  private readonly pool: Pool;
  private readonly token: string | undefined;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(options: HttpClientOptions) {
    this.url = new URL(options.url);
    this.token = options.token;
    this.retries = options.retries ?? 4;
    this.backoffMs = options.backoffMs ?? 200;
    this.pool = new Pool(this.url.origin, { connections: options.connections ?? 16, pipelining: 1 });
  }

  /**
   * Sends one request and returns the raw undici response data (status 2xx/3xx). Throws the
   * CatalogError of a problem+json body for 4xx/5xx; `unavailable` when the server stays unreachable.
   */
  async send(request: HttpRequest): Promise<Dispatcher.ResponseData> {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(request.query ?? {})) if (v !== undefined) search.set(k, String(v));
    const qs = search.toString();
    const path = `${this.url.pathname.replace(/\/$/, '')}${request.path}${qs ? `?${qs}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: Dispatcher.DispatchOptions['body'];
    if (request.raw) {
      body = request.raw.body;
      headers['content-type'] = request.raw.contentType;
    } else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const canRetry = request.retry !== false && (typeof body === 'string' || body === undefined || Buffer.isBuffer(body));
    for (let attempt = 0; ; attempt++) {
      let response: Dispatcher.ResponseData;
      try {
        response = await this.pool.request({ method: request.method, path, headers, body });
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (canRetry && RETRY_ERRORS.has(code) && attempt < this.retries) {
          await sleep(this.backoffMs * 2 ** attempt);
          continue;
        }
        throw new CatalogError('unavailable', `cannot reach ${this.url.origin}: ${(error as Error).message}`);
      }
      if (response.statusCode < 400) return response;
      const text = await response.body.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { detail: text.slice(0, 500) || `HTTP ${response.statusCode}` };
      }
      const error = fromProblem(response.statusCode, parsed);
      if (canRetry && RETRY_STATUSES.has(response.statusCode) && error.code !== 'maintenance' && attempt < this.retries) {
        await sleep(retryAfterMs(response.headers['retry-after']) ?? this.backoffMs * 2 ** attempt);
        continue;
      }
      throw error;
    }
  }

  /** Sends a request and parses its JSON response. */
  async json<T>(request: HttpRequest): Promise<T> {
    const response = await this.send(request);
    return (await response.body.json()) as T;
  }

  upsertAttributes(items: unknown[]) { return this.json<BulkWriteResult>({ method: 'POST', path: ROUTES.attributes, body: items }); }
  deleteAttributes(ids: unknown[]) { return this.json<BulkDeleteResult>({ method: 'DELETE', path: ROUTES.attributes, body: ids }); }
  listAttributes(request: unknown) { return this.json<Page<AttributeView>>({ method: 'POST', path: ROUTES.attributesList, body: request ?? {} }); }
  selectAttributes(request: unknown) { return this.json<AttributeView[]>({ method: 'POST', path: ROUTES.attributesSelect, body: request }); }

  upsertParts(items: unknown[]) { return this.json<BulkWriteResult>({ method: 'POST', path: ROUTES.parts, body: items }); }
  deleteParts(ids: unknown[]) { return this.json<BulkDeleteResult>({ method: 'DELETE', path: ROUTES.parts, body: ids }); }
  listParts(request: unknown) { return this.json<Page<PartView>>({ method: 'POST', path: ROUTES.partsList, body: request ?? {} }); }
  selectParts(request: unknown) { return this.json<PartView[]>({ method: 'POST', path: ROUTES.partsSelect, body: request }); }
  getPart(partId: string, options?: { organization?: string }) {
    return this.json<Part>({ method: 'GET', path: ROUTES.part(partId), query: { organization: options?.organization } });
  }

  upsertOrganizations(items: unknown[]) { return this.json<BulkWriteResult>({ method: 'POST', path: ROUTES.organizations, body: items }); }
  listOrganizations(request: unknown) { return this.json<Page<Organization>>({ method: 'POST', path: ROUTES.organizationsList, body: request ?? {} }); }

  getMaintenance() { return this.json<MaintenanceState>({ method: 'GET', path: ROUTES.maintenance }); }
  setMaintenance(enabled: boolean) { return this.json<MaintenanceState>({ method: 'PUT', path: ROUTES.maintenance, body: { enabled } }); }

  // Relations: a retried write is safe, it writes the same pairs again (the latest write wins).
  createRelations(items: unknown[]) { return this.json<RelationCreateResult>({ method: 'POST', path: ROUTES.relations, body: items }); }
  getRelations(partId: string, type?: string) {
    return this.json<Relation[]>({ method: 'GET', path: type === undefined ? ROUTES.partRelations(partId) : ROUTES.partRelationsOfType(partId, type) });
  }

  // Images (spec 4.2): the upload streams a hand-built multipart body from disk (src/client/multipart-upload.ts).
  uploadImages(definitions: unknown[], files: UploadFile[]) {
    return uploadOverHttp(
      { pool: this.pool, origin: this.url.origin, basePath: this.url.pathname.replace(/\/$/, ''), token: this.token, retries: this.retries, backoffMs: this.backoffMs },
      definitions,
      files,
    );
  }
  deleteImages(ids: unknown[]) { return this.json<BulkDeleteResult>({ method: 'DELETE', path: ROUTES.images, body: ids }); }
  listImages(request: unknown) { return this.json<Page<ImageView>>({ method: 'POST', path: ROUTES.imagesList, body: request ?? {} }); }
  selectImages(request: unknown) { return this.json<ImageView[]>({ method: 'POST', path: ROUTES.imagesSelect, body: request }); }
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
    if (!image) return this.json<SearchResponse>({ method: 'POST', path: ROUTES.search, body: request ?? {} });
    // decisions §8: multipart with the JSON request in part `input` and the raw image in part `image`.
    const boundary = `----catalog${randomUUID()}`;
    const head = (name: string, type: string, filename?: string) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename.replace(/["\r\n]/g, '_')}"` : ''}\r\nContent-Type: ${type}\r\n\r\n`);
    const body = Buffer.concat([
      head('input', 'application/json'), Buffer.from(JSON.stringify(request ?? {})), Buffer.from('\r\n'),
      head('image', 'application/octet-stream', basename(image.filename)), Buffer.from(image.image), Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return this.json<SearchResponse>({ method: 'POST', path: ROUTES.search, raw: { body, contentType: `multipart/form-data; boundary=${boundary}` } });
  }
  searchState(sessionId: string, options: SearchStateOptions = {}) {
    return this.json<SearchResponse>({
      method: 'GET',
      path: ROUTES.searchState(sessionId),
      query: { skip: options.skip, limit: options.limit, projection: options.projection?.join(',') },
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
