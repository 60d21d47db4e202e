/**
 * A store that cannot be reached as the catalog's error: PostgreSQL restarting, failing over or
 * unreachable, and S3-compatible storage refusing connections or answering 5xx become
 * `CatalogError('unavailable')` — HTTP 503 with `Retry-After` (docs/api.md, Wire), CLI exit 5 —
 * instead of an internal error, so clients retry and nothing is reported as a bug. A PostgreSQL
 * transaction whose connection dies before its COMMIT is rolled back by the server, and a blob is
 * stored before the metadata that references it commits, so a retried write stores it once.
 */
import { CatalogError } from '../api/errors.js';

/** Seconds a client is told to wait before retrying a request refused because a store is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** Socket-level error codes of Node (and the AWS SDK's own) meaning the peer is not there right now. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN',
  'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'TimeoutError', 'RequestTimeout',
]);

/**
 * PostgreSQL SQLSTATEs of a server going away or not taking connections: class 08 (connection
 * exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many
 * connections).
 */
function isPostgresUnavailableState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/** What node-postgres says (with no code) when the connection under a query or a checkout died. */
const PG_CONNECTION_MESSAGES = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection terminated unexpectedly)/;

/** Whether `error` says a store's server cannot be reached or is going away (not that a request was wrong). */
export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || error instanceof CatalogError) return false;
  const { code, name, message, $metadata } = error as { code?: unknown; name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: number } };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && isPostgresUnavailableState(code)))) return true;
  if (typeof name === 'string' && NETWORK_CODES.has(name)) return true;
  if (typeof message === 'string' && PG_CONNECTION_MESSAGES.test(message)) return true;
  // The AWS SDK: a 5xx from the object store (ServiceUnavailable, SlowDown, InternalError ...).
  const status = $metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  // A cause chain (undici's "fetch failed", lib-storage's wrapped part errors).
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isStoreUnavailable(cause);
}

/**
 * The 503 for `what` (e.g. "the catalog database (PostgreSQL)") being unreachable. The driver's
 * message is not repeated: it names hosts, ports and paths of the server's side.
 */
export function unavailableError(what: string): CatalogError {
  return new CatalogError('unavailable', `${what} cannot be reached right now: retry in a moment`, undefined, {
    retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
  });
}

/** `error` as the unavailable CatalogError when it says a store cannot be reached; else `error` itself. */
export function asUnavailableError(error: unknown, what: string): unknown {
  return isStoreUnavailable(error) ? unavailableError(what) : error;
}
