/**
 * Runs `catalog serve`'s request path hot before the server listens (issue 12: rare-word search
 * p50 ≤ 1 ms over HTTP).
 *
 * V8 runs a function in its interpreter or its baseline compiler until the function has run often
 * enough to be optimized, and a request crosses a great deal of code that no start-up step runs:
 * Node's HTTP parser and response, socket writes, fastify's routing, hooks and serialization, the
 * route, authentication, the search service's answer and its result cards. On a fresh server at
 * 1,000,000 parts, the first 100 rare-word searches (words searched for the first time) cost
 * 0.76-1.1 ms of main-thread CPU each and the ones after 3,000 other requests 0.46-0.59 ms
 * (bench/request-cost.js; docs/search.md, "Where a rare-word search request's time goes over
 * HTTP"); a benchmark or a client's first minutes met the slow ones.
 *
 * So before listening on its port, the server's own app answers {@link WARM_UP_REQUESTS}
 * requests on an ephemeral port of 127.0.0.1 ({@link warmRequestPath}), sent over a real loopback
 * connection: text searches, each of a word not asked before (warm-up-words.ts), and GET part.
 * The app itself, not a second one built alike: V8's optimized code holds the hidden classes of
 * the objects it was trained on, and a second app's requests, replies and server are other
 * objects, so the real app's first requests threw part of that code away ("wrong map") and ran
 * cold again (docs/search.md, "third look"). The requests run with V8's interrupt budget at 1/8
 * (v8-tiering.ts).
 *
 * Nothing is written and nothing leaks. The app is built over {@link warmUpCatalog}, whose
 * `authenticate` accepts a random 256-bit secret that never leaves this process, while the
 * warm-up runs only, as a principal with every role (as local mode) whose searches store no
 * session (Principal `storesSessions`), and whose requests the access log leaves out (AppOptions
 * `unlogged`). Any other request (another local process finding the port) is authenticated
 * against the catalog's tokens and logged as always. The searches are the server's own, on the
 * main thread within its budget or on a reader thread, as a client's are.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Pool, type Dispatcher } from 'undici';
import { ROUTES } from '../api/routes.js';
import { ROLES, type Principal, type SearchResponse } from '../api/schemas.js';
import type { Catalog } from '../core/services.js';
import { currentInterruptBudget, withInterruptBudget, WARM_UP_INTERRUPT_BUDGET } from './v8-tiering.js';
import { WordQueue } from './warm-up-words.js';

/**
 * Requests sent by the warm-up: enough for V8 to optimize much of the request path (at 1,000,000
 * parts: docs/search.md, "Where a rare-word search request's time goes over HTTP").
 */
export const WARM_UP_REQUESTS = 600;

/**
 * The longest a warm-up may delay listening, in ms: it stops after this whatever it sent (a loaded
 * machine, or a catalog whose first searches read slowly, then starts less warm but on time).
 */
export const WARM_UP_MAX_MS = 1500;

/** Part ids kept for the warm-up's part reads. */
const MAX_WARM_UP_PART_IDS = 10_000;

/** The catalog the server's app is built over, with the warm-up's way in while it runs. */
export interface WarmUpCatalog {
  catalog: Catalog;
  /** `Bearer warm-up-` + a random 256-bit secret, made for this warm-up and never sent anywhere else. */
  authorization: string;
  /** Who the secret authenticates: every role (as local mode), its own session owner, no session stored. */
  principal: Principal;
  /** Ends the warm-up for good: the secret is refused from now on. */
  end(): void;
}

/**
 * `catalog` as the server's app serves it: while the warm-up runs, `service.authenticate` accepts
 * the warm-up's own secret, as a principal whose searches store no session (Principal
 * `storesSessions`). Anything else, and everything after {@link WarmUpCatalog.end}, is the
 * catalog's own.
 */
export function warmUpCatalog(catalog: Catalog): WarmUpCatalog {
  const authorization = `Bearer warm-up-${randomBytes(32).toString('base64url')}`;
  const principal: Principal = Object.freeze({ name: 'warm-up', roles: ROLES, organization: null, sessionOwner: `warm-up:${randomBytes(16).toString('hex')}`, storesSessions: false });
  let warming = true;
  const service = Object.create(catalog.service) as Catalog['service'];
  Object.defineProperty(service, 'authenticate', {
    value: (header: string | undefined) => (warming && header === authorization ? Promise.resolve(principal) : catalog.service.authenticate(header)),
  });
  return {
    catalog: { ...catalog, service },
    authorization,
    principal,
    end() {
      warming = false;
    },
  };
}

/** What a warm-up did: requests answered, by HTTP status, distinct words searched, and how long it took (ms). */
export interface WarmUpReport {
  answered: number;
  statuses: Record<number, number>;
  words: number;
  ms: number;
}

/** Options of {@link warmRequestPath}. */
export interface WarmUpOptions {
  /** The server's app, built over `warm.catalog`, not listening yet. */
  app: FastifyInstance;
  /** The catalog it was built over ({@link warmUpCatalog}); ended when the warm-up ends. */
  warm: WarmUpCatalog;
  /** How many requests (default {@link WARM_UP_REQUESTS}); 0 does nothing. */
  requests?: number;
  /** At most this long, in ms (default {@link WARM_UP_MAX_MS}). */
  maxMs?: number;
}

/** Listens with `server` on an ephemeral port of 127.0.0.1; resolves with its origin. */
function listenOnLoopback(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
    });
  });
}

/** Stops `server` listening and closes its connections (the warm-up's); the app can listen again. */
function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Sends `options.requests` requests (for at most `options.maxMs`) to `options.app` on an
 * ephemeral loopback port (see the module comment), then stops listening there and ends the
 * warm-up (`options.warm.end()`), whatever happened; the app can then listen on its own port.
 * Each fourth request is a GET part, the others a text search (top 25) of a word not asked before.
 * Resolves with what was answered; never rejects (a failed warm-up only leaves the server as cold
 * as before).
 */
export async function warmRequestPath(options: WarmUpOptions): Promise<WarmUpReport> {
  const started = performance.now();
  const report: WarmUpReport = { answered: 0, statuses: {}, words: 0, ms: 0 };
  const { app, warm } = options;
  const total = options.requests ?? WARM_UP_REQUESTS;
  if (total <= 0) {
    warm.end();
    return report;
  }
  const deadline = started + (options.maxMs ?? WARM_UP_MAX_MS);
  // Asked now (a child process), answered while the app gets ready.
  const budget = currentInterruptBudget();
  let pool: Pool | undefined;
  /** Sends a request; answers its status and, for a search answered 200, its hits. */
  const send = async (request: Dispatcher.RequestOptions, isSearch: boolean): Promise<{ status: number; hits: SearchResponse['results'] }> => {
    const response = await (pool as Pool).request(request);
    let hits: SearchResponse['results'] = [];
    if (isSearch && response.statusCode === 200) hits = ((await response.body.json()) as SearchResponse).results;
    else await response.body.dump();
    report.answered++;
    report.statuses[response.statusCode] = (report.statuses[response.statusCode] ?? 0) + 1;
    return { status: response.statusCode, hits };
  };
  try {
    await app.ready();
    const origin = await listenOnLoopback(app.server);
    pool = new Pool(origin, { connections: 1 });
    const headers = { authorization: warm.authorization, 'content-type': 'application/json' };
    const words = new WordQueue();
    const partIds: string[] = [];
    const learn = (hits: SearchResponse['results']) => {
      for (const hit of hits) {
        if (typeof hit.id === 'string' && partIds.length < MAX_WARM_UP_PART_IDS) partIds.push(hit.id);
        words.add(hit.name ?? '');
      }
    };
    // The first words and part ids: those of the first 1,000 parts by part id (an empty search).
    learn((await warm.catalog.search.search(warm.principal, { resultOptions: { limit: 1000 } })).results);
    // With V8's interrupt budget at 1/8, so that these requests get the request path optimized (v8-tiering.ts).
    await withInterruptBudget(WARM_UP_INTERRUPT_BUDGET, await budget, async () => {
      for (let i = 0; i < total && performance.now() < deadline; i++) {
        if (i % 4 === 3 && partIds.length > 0) {
          // Spread over the ids known (a prime stride), as a client's reads are.
          await send({ method: 'GET', path: ROUTES.part(partIds[(i * 7919) % partIds.length] as string), headers: { authorization: warm.authorization } }, false);
          continue;
        }
        const word = words.next();
        if (word === undefined) continue;
        const { status, hits } = await send({ method: 'POST', path: ROUTES.search, headers, body: JSON.stringify({ matches: { text: `${word} ` }, resultOptions: { limit: 25 } }) }, true);
        if (status === 200) learn(hits);
        else words.drop(word);
      }
    });
    report.words = words.asked;
  } catch {
    // Only a warm-up: the server serves as it would have without it.
  } finally {
    await pool?.close().catch(() => undefined);
    await stopListening(app.server);
    warm.end();
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}
