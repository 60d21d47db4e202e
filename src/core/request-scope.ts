/**
 * The HTTP request the running code serves, for code far below the route: `catalog serve` runs each
 * request in a scope of its own (http/app.ts); code outside one (the CLI, the writer thread,
 * start-up) gets no scope. It holds:
 * - what the request has learned of the catalog's slowly changing state (its attributes,
 *   organizations and settings), for the stores to answer the rest of the request from a cache
 *   while that state holds (outside a request the stores read everything afresh);
 * - the request's abort signal, for the writer thread's queue (http/pool/pooled-catalog.ts): a
 *   write still waiting when the connection closes before the answer (the client left, or a
 *   timeout closed it) is dropped instead of committing unseen later, after writes that were
 *   answered.
 *
 * The PostgreSQL store reads the state's version with the request's token (one statement it makes
 * anyway) and keeps attributes, organizations and settings per version, so a request reads them
 * with no statement of its own while nothing changed them; any change, through any server, moves
 * the version (adapters/postgres/catalog-store.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A request's scope (see the module comment). */
export interface RequestScope {
  /** The version of the attributes, organizations and settings as the request's token was read; undefined until then. */
  settingsVersion?: number;
  /**
   * The signal that aborts when the server gives the request up, made when first asked for (set
   * for the requests that may write; a request that never queues a write makes none).
   */
  abortSignal?: () => AbortSignal;
}

const current = new AsyncLocalStorage<RequestScope>();

/** Runs `fn` in a new request scope (for everything `fn` starts). */
export function withRequestScope<T>(fn: () => T): T {
  return current.run({}, fn);
}

/**
 * The request this code runs for wrote the catalog: what it learned with its token no longer holds,
 * so what it reads next is read afresh (other requests keep theirs). Nothing outside a request.
 */
export function catalogWritten(): void {
  const scope = current.getStore();
  if (scope) scope.settingsVersion = undefined;
}

/** The scope of the request this code runs for, or undefined outside one. */
export function requestScope(): RequestScope | undefined {
  return current.getStore();
}
