/**
 * The error vocabulary shared by the core, the HTTP server, both clients and the CLI
 * (api-decisions §1). The core throws {@link CatalogError}; one table maps each code to an HTTP
 * status and a CLI exit code; the HTTP client rebuilds the same error from a problem+json body.
 */

/** Every error code the catalog can raise. */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'maintenance'
  | 'unavailable'
  | 'internal'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'headers_too_large'
  | 'storage_full'
  | 'gone'

  | 'too_many_requests';

/** One problem with one field of a request, e.g. `{path: "items[3].name", message: "Required"}`. */
export interface FieldProblem {
  path: string;
  message: string;
}

interface ErrorCodeInfo {
  status: number;
  title: string;
  /** CLI exit code (design/cli.md, "Exit codes"). */
  exitCode: number;
}

/** The single table from error code to HTTP status, reason phrase and CLI exit code. */
export const ERROR_CODES: Readonly<Record<ErrorCode, ErrorCodeInfo>> = {
  bad_request: { status: 400, title: 'Bad Request', exitCode: 2 },
  unauthorized: { status: 401, title: 'Unauthorized', exitCode: 4 },
  forbidden: { status: 403, title: 'Forbidden', exitCode: 4 },
  not_found: { status: 404, title: 'Not Found', exitCode: 6 },
  payload_too_large: { status: 413, title: 'Content Too Large', exitCode: 2 },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type', exitCode: 2 },
  maintenance: { status: 503, title: 'Service Unavailable', exitCode: 5 },
  unavailable: { status: 503, title: 'Service Unavailable', exitCode: 5 },
  internal: { status: 500, title: 'Internal Server Error', exitCode: 1 },
  // every answer in the contract (405 with Allow; the HTTP parser's 408 and 431).
  method_not_allowed: { status: 405, title: 'Method Not Allowed', exitCode: 2 },
  request_timeout: { status: 408, title: 'Request Timeout', exitCode: 5 },
  headers_too_large: { status: 431, title: 'Request Header Fields Too Large', exitCode: 2 },
  // The disk (SQLite SQLITE_FULL, the file system ENOSPC) is full: nothing of the request was stored.
  storage_full: { status: 507, title: 'Insufficient Storage', exitCode: 5 },
  // The change feed no longer keeps the changes a reader asked for (retention): it must start over.
  gone: { status: 410, title: 'Gone', exitCode: 1 },
  // Too many failed authentications from one address (src/http/abuse-limits.ts): wait Retry-After.
  too_many_requests: { status: 429, title: 'Too Many Requests', exitCode: 4 },
};

/** The exact 503 detail of maintenance mode (api-decisions §7, taken from the original service). */
export const MAINTENANCE_DETAIL =
  'Catalog manager is in maintenance mode - all processing is suspended and changes are currently not possible';

/** A typed, expected failure. Anything thrown that is not a CatalogError is a bug. */
export class CatalogError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly errors: FieldProblem[] | undefined;
  /**
   * For a 503: how many seconds a client should wait before retrying (the HTTP `Retry-After`
   * header; default 60). Not part of the problem+json body.
   */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, detail: string, errors?: FieldProblem[], options: { retryAfterSeconds?: number } = {}) {
    super(detail);
    this.name = 'CatalogError';
    this.code = code;
    this.detail = detail;
    this.errors = errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

/** RFC 9457 problem details body, as sent on every HTTP error (api-decisions §1). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code?: ErrorCode;
  errors?: FieldProblem[];
}

/** Builds the problem+json body for an error. */
export function toProblem(error: CatalogError): ProblemBody {
  const info = ERROR_CODES[error.code];
  const body: ProblemBody = { type: 'about:blank', title: info.title, status: info.status, detail: error.detail, code: error.code };
  if (error.errors && error.errors.length > 0) body.errors = error.errors;
  return body;
}

/** Maps an HTTP status back to an error code, for bodies that carry no `code` (e.g. a proxy's 502). */
export function codeForStatus(status: number, detail = ''): ErrorCode {
  if (status === 503 && detail === MAINTENANCE_DETAIL) return 'maintenance';
  for (const [code, info] of Object.entries(ERROR_CODES) as [ErrorCode, ErrorCodeInfo][]) {
    if (info.status === status && code !== 'unavailable' && code !== 'maintenance') return code;
  }
  if (status >= 500) return status === 503 || status === 502 || status === 504 ? 'unavailable' : 'internal';
  return 'bad_request';
}

/** Rebuilds a CatalogError from a problem+json body received over HTTP. */
export function fromProblem(status: number, body: unknown): CatalogError {
  const problem = (typeof body === 'object' && body !== null ? body : {}) as Partial<ProblemBody>;
  const detail = typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`;
  const code = problem.code && problem.code in ERROR_CODES ? problem.code : codeForStatus(status, detail);
  return new CatalogError(code, detail, Array.isArray(problem.errors) ? problem.errors : undefined);
}

/**
 * The error a client sees for `error`: serialized to problem+json exactly as the HTTP server answers
 * (toProblem, as used by src/http/app.ts sendProblem), sent through JSON, and parsed back with
 * fromProblem, as the HTTP client does. The local client passes every CatalogError through this, so
 * code, status, detail and field problems are identical in local and remote mode.
 */
export function throughProblem(error: CatalogError): CatalogError {
  const problem = toProblem(error);
  return fromProblem(problem.status, JSON.parse(JSON.stringify(problem)) as unknown);
}

/** Shorthand constructors used across the core. */
export const errors = {
  badRequest: (detail: string, problems?: FieldProblem[]) => new CatalogError('bad_request', detail, problems),
  notFound: (detail: string) => new CatalogError('not_found', detail),
  forbidden: (detail: string) => new CatalogError('forbidden', detail),
  unauthorized: (detail: string) => new CatalogError('unauthorized', detail),
  tooLarge: (detail: string) => new CatalogError('payload_too_large', detail),
  maintenance: () => new CatalogError('maintenance', MAINTENANCE_DETAIL),
  gone: (detail: string) => new CatalogError('gone', detail),
  storageFull: (what: string) =>
    new CatalogError('storage_full', `storage is full: ${what} could not be written (the disk of the catalog's data directory has no space left); nothing of this request was stored, and everything stored before is intact`),
};
