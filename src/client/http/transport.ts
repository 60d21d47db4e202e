/**
 * The one HTTP transport of the remote client (design/cli.md "Remote mode"): every
 * request of HttpCatalogClient, JSON and multipart alike, goes through {@link HttpTransport.send}.
 *
 * - Retried: 429, 502, 504, a 503 other than maintenance, and connection failures (refused, reset,
 *   socket closed). Every write of the API is an upsert or a delete by id, so sending it again is
 *   safe; `retry: false` opts a request out.
 * - Never retried: any other status, and a maintenance 503 (decisions §7: reported at once).
 * - Delay: the server's Retry-After (seconds or an HTTP date) when given, else exponential backoff
 *   with full jitter (a random delay in [0, base·2^attempt]), each capped at `maxDelayMs`; bounded
 *   by `retries` and by `maxTotalMs` of waiting in all (a retry that would wait past it is not made).
 * - The body is a factory called once per attempt, so a multipart body re-opens its files rather
 *   than re-sending a half-consumed stream.
 * - A 4xx/5xx answer becomes the CatalogError of its problem+json body (fromProblem); a server that
 *   stays unreachable becomes `unavailable`. Errors of the body itself (a file that vanished) are
 *   thrown unchanged.
 */
import { Pool, type Dispatcher } from 'undici';
import { CatalogError, fromProblem } from '../../api/errors.js';

/** A request body ready to send: bytes (a string, a buffer or an async iterable), type, and length when known. */
export interface RequestBody {
  body: string | Uint8Array | AsyncIterable<Uint8Array>;
  contentType: string;
  /** Bytes; sent as Content-Length (required for an async iterable body to avoid chunked encoding). */
  length?: number;
}

/** Makes the body of one attempt (called again for each retry). */
export type BodyFactory = () => RequestBody | Promise<RequestBody>;

/** One request of the transport. */
export interface TransportRequest {
  method: Dispatcher.HttpMethod;
  /** Path below the base URL, e.g. `/1/catalog/parts`. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** A JSON body (encoded once; the same string is sent on a retry). */
  json?: unknown;
  /** Any other body, made afresh per attempt (multipart). */
  body?: BodyFactory;
  /** Retry on the retryable failures above. Default true. */
  retry?: boolean;
}

/** Options of the transport; the defaults suit an interactive CLI. */
export interface TransportOptions {
  /** Base URL, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  url: string;
  /** Bearer token; requests without one get 401 from the server. */
  token: string | undefined;
  /** Retries after the first attempt (default 4). */
  retries?: number;
  /** Backoff base in ms, doubled each retry (default 200). */
  backoffMs?: number;
  /** Longest single wait in ms, Retry-After included (default 30,000). */
  maxDelayMs?: number;
  /** Longest total wait over all retries of one request, in ms (default 60,000). */
  maxTotalMs?: number;
  /** Connections in the pool (default 16). */
  connections?: number;
  /** Waits `ms` milliseconds (tests inject a recorder). */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for jitter (tests inject a fixed one). */
  random?: () => number;
  /** The current time in ms since the epoch, for an HTTP-date Retry-After. */
  now?: () => number;
}

/** Statuses worth retrying (a maintenance 503 is told apart by its code). */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Connection-level failures worth retrying. */
export const RETRY_ERRORS: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);

/**
 * Retry-After (RFC 9110 §10.2.3: delay-seconds or an HTTP date) in ms, at least 0; undefined when
 * absent or unreadable.
 */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(date - now, 0) : undefined;
}

function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** HTTP with retries and problem+json errors over one undici Pool. */
export class HttpTransport {
  readonly url: URL;
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly token: string | undefined;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxDelayMs: number;
  private readonly maxTotalMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(options: TransportOptions) {
    this.url = new URL(options.url);
    this.basePath = this.url.pathname.replace(/\/$/, '');
    this.token = options.token;
    this.retries = options.retries ?? 4;
    this.backoffMs = options.backoffMs ?? 200;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.maxTotalMs = options.maxTotalMs ?? 60_000;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.pool = new Pool(this.url.origin, { connections: options.connections ?? 16, pipelining: 1 });
  }

  /**
   * Sends a request (see the module comment) and returns the response of status < 400, its body
   * unread. Throws the CatalogError of an error answer, `unavailable` when the server stays
   * unreachable, and a body factory's own error unchanged.
   */
  async send(request: TransportRequest): Promise<Dispatcher.ResponseData> {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(request.query ?? {})) if (v !== undefined) search.set(k, String(v));
    const qs = search.toString();
    const path = `${this.basePath}${request.path}${qs ? `?${qs}` : ''}`;
    const baseHeaders: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (this.token) baseHeaders.authorization = `Bearer ${this.token}`;
    const json = request.json === undefined ? undefined : JSON.stringify(request.json);
    const canRetry = request.retry !== false;
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const headers = { ...baseHeaders };
      let body: Dispatcher.DispatchOptions['body'];
      if (json !== undefined) {
        body = json;
        headers['content-type'] = 'application/json';
      } else if (request.body) {
        const made = await request.body();
        // undici accepts an AsyncIterable body (documented; its typings lag).
        body = made.body as Dispatcher.DispatchOptions['body'];
        headers['content-type'] = made.contentType;
        if (made.length !== undefined) headers['content-length'] = String(made.length);
      }
      let failure: CatalogError;
      let delay: number;
      try {
        const response = await this.pool.request({ method: request.method, path, headers, body });
        if (response.statusCode < 400) return response;
        failure = await problemOf(response, this.describe(path));
        const retryable = RETRY_STATUSES.has(response.statusCode) && failure.code !== 'maintenance';
        if (!canRetry || !retryable) throw failure;
        delay = retryAfterMs(response.headers['retry-after'], this.now()) ?? this.backoff(attempt);
      } catch (error) {
        if (error instanceof CatalogError) throw error;
        const code = (error as { code?: string }).code ?? '';
        const unreachable = connectionFailure(this.url, code);
        if (unreachable !== undefined) throw new CatalogError('unavailable', `cannot reach ${this.url.origin}: ${unreachable}`);
        if (!RETRY_ERRORS.has(code) && !code.startsWith('UND_ERR')) throw error;
        failure = new CatalogError('unavailable', `cannot reach ${this.url.origin}: ${(error as Error).message}`);
        if (!canRetry || !RETRY_ERRORS.has(code)) throw failure;
        delay = this.backoff(attempt);
      }
      delay = Math.min(delay, this.maxDelayMs);
      if (attempt >= this.retries || waited + delay > this.maxTotalMs) throw failure;
      waited += delay;
      await this.sleep(delay);
    }
  }

  /** Sends a request and parses its JSON answer. */
  async json<T>(request: TransportRequest): Promise<T> {
    const response = await this.send(request);
    if (!isJson(response)) {
      await response.body.dump();
      throw notCatalog(this.describe(request.path), response);
    }
    return (await response.body.json()) as T;
  }

  /** The URL of a request path, for messages (no query string: it may hold values the user did not type). */
  private describe(path: string): string {
    return `${this.url.origin}${path.split('?')[0] ?? path}`;
  }

  /** Closes the connection pool. */
  close(): Promise<void> {
    return this.pool.close();
  }

  /** Full-jitter exponential backoff for retry number `attempt` (0-based), in ms. */
  private backoff(attempt: number): number {
    return Math.round(this.random() * Math.min(this.maxDelayMs, this.backoffMs * 2 ** attempt));
  }
}

/** TLS certificate failures (OpenSSL's names, as Node reports them), which retrying cannot cure. */
const CERTIFICATE_ERRORS = /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT|VERIFY_LEAF_SIGNATURE)|ERR_TLS_CERT_ALTNAME_INVALID)/;

/**
 * The reason, in one line, of a connection failure that retrying cannot cure: a host name that does
 * not resolve (a typo in --remote), https:// against a server that speaks plain HTTP, a certificate
 * not trusted. Undefined for anything else.
 */
function connectionFailure(url: URL, code: string): string | undefined {
  if (code === 'ENOTFOUND') return `host '${url.hostname}' not found (ENOTFOUND); check the --remote / CATALOG_URL address`;
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' || code === 'EPROTO') {
    return `the server does not speak TLS (${code}); use http:// instead of https://, or put it behind a TLS proxy`;
  }
  if (CERTIFICATE_ERRORS.test(code)) return `the server's TLS certificate is not trusted (${code}); give Node the CA with NODE_EXTRA_CA_CERTS=<file>`;
  return undefined;
}

/** Whether an answer says it is JSON (application/json, application/problem+json). */
function isJson(response: Dispatcher.ResponseData): boolean {
  const type = response.headers['content-type'];
  return /\bjson\b/i.test(Array.isArray(type) ? type.join(',') : (type ?? ''));
}

/**
 * The error of an answer that is not the catalog API's (an HTML page, a proxy's error): ONE line
 * naming the URL and what came back, as `unavailable` (exit 5): no catalog answers there.
 */
function notCatalog(url: string, response: Dispatcher.ResponseData): CatalogError {
  const type = response.headers['content-type'];
  const contentType = (Array.isArray(type) ? type[0] : type)?.split(';')[0]?.trim() || 'no content type';
  return new CatalogError('unavailable', `${url} answered HTTP ${response.statusCode} with ${contentType}, not the catalog API (is the --remote / CATALOG_URL address a catalog server?)`);
}

/** The CatalogError of an error answer: its problem+json body; any other body is {@link notCatalog}. */
async function problemOf(response: Dispatcher.ResponseData, url: string): Promise<CatalogError> {
  if (!isJson(response)) {
    await response.body.dump();
    return notCatalog(url, response);
  }
  const text = await response.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { detail: text.slice(0, 500) || `HTTP ${response.statusCode}` };
  }
  return fromProblem(response.statusCode, parsed);
}
