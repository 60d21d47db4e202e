/**
 * Connection, timeout and body limits of the HTTP server (docs/api.md, Wire). Each is configurable through `buildApp({limits})` /
 * `startServer({limits})`; the defaults are documented in docs/api.md.
 */
import { ROUTES } from '../api/routes.js';

/** Largest JSON body per endpoint, in bytes. Beyond: 413 problem+json, connection closed. */
export interface JsonBodyLimits {
  /** POST /1/catalog/parts: 1,000 parts (default 16 MiB, ≈16 KiB a part). */
  parts: number;
  /** POST /1/catalog/attributes: 1,000 attributes (default 8 MiB). */
  attributes: number;
  /** POST /v1/parts/relations: 1,000 relations (default 4 MiB). */
  relations: number;
  /** Every other JSON endpoint: id lists, list/select requests, organizations (default 2 MiB). */
  other: number;
}

/** Limits of the HTTP server. Times in milliseconds. */
export interface ServerLimits {
  /** Headers must arrive within this (default 10 s; at most requestTimeoutMs); else 408 and the connection is closed. */
  headersTimeoutMs: number;
  /**
   * A whole request, body included, must arrive within this (default 120 s: a 256 MiB upload
   * needs ≥ 2.3 MB/s); else 408 and the connection is closed. Ends slow-body connections.
   */
  requestTimeoutMs: number;
  /** A socket with no traffic for this long is closed (default 60 s). */
  connectionTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (default 5 s). */
  keepAliveTimeoutMs: number;
  /** Requests served on one keep-alive connection before it is closed (default 1,000). */
  maxRequestsPerSocket: number;
  /** Open connections at once (default 1,024); beyond, new connections are dropped at accept. */
  maxConnections: number;
  /** How often Node checks the headers and request timeouts (default 1 s; Node's own is 30 s). */
  timeoutCheckIntervalMs: number;
  /** Largest JSON body per endpoint (search and uploads have their own limits, decisions §9). */
  jsonBody: JsonBodyLimits;
}

const MIB = 1024 * 1024;

/** The defaults of {@link ServerLimits} (docs/api.md, Wire). */
export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  connectionTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxRequestsPerSocket: 1000,
  maxConnections: 1024,
  timeoutCheckIntervalMs: 1000,
  jsonBody: Object.freeze({ parts: 16 * MIB, attributes: 8 * MIB, relations: 4 * MIB, other: 2 * MIB }),
});

/** Merges partial limits over the defaults (`jsonBody` field by field). */
export function serverLimits(partial: Partial<Omit<ServerLimits, 'jsonBody'>> & { jsonBody?: Partial<JsonBodyLimits> } = {}): ServerLimits {
  return { ...DEFAULT_SERVER_LIMITS, ...partial, jsonBody: { ...DEFAULT_SERVER_LIMITS.jsonBody, ...partial.jsonBody } };
}

/** The JSON body limit of a route, by method and route pattern. */
export function jsonBodyLimitFor(method: string | readonly string[], url: string, limits: JsonBodyLimits): number {
  const methods = typeof method === 'string' ? [method] : method;
  if (methods.includes('POST')) {
    if (url === ROUTES.parts) return limits.parts;
    if (url === ROUTES.attributes) return limits.attributes;
    if (url === ROUTES.relations) return limits.relations;
  }
  return limits.other;
}
