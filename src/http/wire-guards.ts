/**
 * What the HTTP server does before (or instead of) routing a request (decisions §1,
 * §2): problem+json for the node HTTP parser's own errors, credentials in a query string refused,
 * query strings redacted in the access log.
 */
import type { Socket } from 'node:net';
import { CatalogError, ERROR_CODES, toProblem, type ErrorCode } from '../api/errors.js';

/** The query parameters whose values are printed in the access log; every other value is redacted. */
const LOGGED_PARAMETERS = new Set(['skip', 'limit', 'projection', 'organization']);

/** Parameter names that carry credentials (access_token, token, api_key, authorization, ...). */
const SECRET_NAME = /token|auth|secret|passw|api[-_]?key|apikey|bearer|credential|session[-_]?id|signature|^key$|^jwt$/i;
/** A value that is one of our access tokens (`cat_` + 43 base64url characters, docs/api.md §2) or a bearer credential. */
const SECRET_VALUE = /cat_[A-Za-z0-9_-]{43}|^bearer\s/i;

function queryOf(url: string): string | undefined {
  const at = url.indexOf('?');
  return at < 0 ? undefined : url.slice(at + 1);
}

/**
 * The first query parameter of `url` that carries credentials (by its name, or a value that is an
 * access token), or undefined. Tokens belong in the Authorization header: a URL ends up in access
 * logs, proxies and browser histories.
 */
export function secretQueryParameter(url: string): string | undefined {
  const query = queryOf(url);
  if (!query) return undefined;
  for (const [name, value] of new URLSearchParams(query)) {
    if (SECRET_NAME.test(name) || SECRET_VALUE.test(value)) return name;
  }
  return undefined;
}

/** The 400 for credentials in the query string; its detail says to use the Authorization header. */
export function secretInQueryError(parameter: string): CatalogError {
  return new CatalogError(
    'bad_request',
    `credentials in the URL are refused (query parameter '${parameter}'): a URL ends up in logs. ` +
      'Send the token in the Authorization header instead: "Authorization: Bearer <token>"',
  );
}

/**
 * The request target as the access log prints it: the path, and the query with every value
 * replaced by `***` except the known harmless parameters (skip, limit, projection, organization).
 * A query that cannot be parsed is dropped whole.
 */
export function redactUrl(url: string): string {
  const query = queryOf(url);
  const path = query === undefined ? url : url.slice(0, url.indexOf('?'));
  if (query === undefined || query === '') return path;
  const parts: string[] = [];
  try {
    for (const [name, value] of new URLSearchParams(query)) {
      const shown = LOGGED_PARAMETERS.has(name) && !SECRET_VALUE.test(value) ? encodeURIComponent(value) : '***';
      parts.push(`${encodeURIComponent(name)}=${shown}`);
    }
  } catch {
    return `${path}?***`;
  }
  return `${path}?${parts.join('&')}`;
}

/** What the node HTTP parser reports, as our error (status 408, 431 or 400). */
function clientErrorCode(error: NodeJS.ErrnoException): { code: ErrorCode; detail: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', detail: 'the request (headers and body) did not arrive in time; the connection is closed' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', detail: 'the request line and headers are larger than the server accepts' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { code: 'bad_request', detail: 'malformed HTTP request: Content-Length together with Transfer-Encoding' };
    case 'HPE_INVALID_CHUNK_SIZE':
      return { code: 'bad_request', detail: 'malformed HTTP request: invalid chunked body' };
    case 'HPE_INVALID_HEADER_TOKEN':
      return { code: 'bad_request', detail: 'malformed HTTP request: invalid character in a header' };
    default:
      return { code: 'bad_request', detail: `malformed HTTP request${typeof error.code === 'string' && error.code.startsWith('HPE_') ? ` (${error.code})` : ''}` };
  }
}

/**
 * A complete HTTP/1.1 response carrying the problem+json body of `error`, closing the connection:
 * what the server writes on a raw socket when the request could not even be parsed.
 */
export function rawProblemResponse(error: CatalogError): string {
  const body = JSON.stringify(toProblem(error));
  const { status, title } = ERROR_CODES[error.code];
  return (
    `HTTP/1.1 ${status} ${title}\r\n` +
    'Content-Type: application/problem+json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n' +
    '\r\n' +
    body
  );
}

/**
 * fastify's `clientErrorHandler` (the node server's 'clientError' event): the HTTP parser's errors
 * (bad framing, Content-Length with Transfer-Encoding, bad chunking, a NUL in a header), header
 * overflow (431) and request timeouts (408) are answered with problem+json, then the socket is
 * closed. Nothing is written when the peer is gone or a response has already begun on the socket.
 */
export function problemClientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const { code, detail } = clientErrorCode(error);
    socket.end(rawProblemResponse(new CatalogError(code, detail)));
    // end() flushes then closes; destroy soon after in case the peer never reads.
    setTimeout(() => socket.destroy(), 1000).unref();
    return;
  }
  socket.destroy(error);
}
