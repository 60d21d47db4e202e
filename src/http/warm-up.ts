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
 * requests on an ephemeral port of 127.0.0.1 ({@link RequestPathWarmUp.beforeListening}), sent over a real loopback
 * connection: text searches, each of a word not asked before (warm-up-words.ts), and GET part.
 * The app itself, not a second one built alike: V8's optimized code holds the hidden classes of
 * the objects it was trained on, and a second app's requests, replies and server are other
 * objects, so the real app's first requests threw part of that code away ("wrong map") and ran
 * cold again (docs/search.md, "third look"). The requests run with V8's interrupt budget at 1/8
 * (v8-tiering.ts).
 *
 * That first phase is bounded by {@link WARM_UP_MAX_MS} (at 1,000,000 parts it sends ~600 requests,
 * each a word's first search at ~2.5 ms while the code is cold), and 600 requests leave the path
 * far from its steady speed. So once the server listens, a second phase sends
 * {@link WARM_UP_IDLE_REQUESTS} more through its own port, in idle time only: each is sent when no
 * client's request has been in flight for {@link WARM_UP_IDLE_QUIET_MS}, so a client meets at most
 * one warm-up request in flight (~1 ms) on arriving. Its searches repeat the first phase's words,
 * whose postings and cards were read then, and bypass the result cache (Principal
 * `cachesResults`): they rank as a client's uncached search does, and fill no cache that clients'
 * searches use. Measured at 1,000,000 parts (docs/search.md, "fourth look"): a word's first search
 * after a second of idle time 1.09-1.11 -> 0.74-0.82 ms of main-thread CPU.
 *
 * Nothing is written and nothing leaks. The app is built over {@link warmUpCatalog}, whose
 * `authenticate` accepts a random 256-bit secret that never leaves this process, while the
 * warm-up runs only, as a principal with every role (as local mode) whose searches store no
 * session (Principal `storesSessions`) and leave no cached answer, and whose requests the access
 * log leaves out (AppOptions `unlogged`). Any other request (another local process finding the
 * port) is authenticated against the catalog's tokens and logged as always. The searches are the
 * server's own, on the main thread within its budget or on a reader thread, as a client's are.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Pool, type Dispatcher } from 'undici';
import { ROUTES } from '../api/routes.js';
import { ROLES, type Principal, type SearchResponse } from '../api/schemas.js';
import type { Catalog } from '../core/services.js';
import { serverPrincipal } from '../core/catalog/tokens.js';
import { currentInterruptBudget, withInterruptBudget, WARM_UP_INTERRUPT_BUDGET } from './v8-tiering.js';
import { WordQueue } from './warm-up-words.js';

/**
 * Headers the warm-up's requests cycle through besides Authorization: none, a JSON client's, curl's,
 * a browser's (the web app's), and Content-Type on every request as some client libraries send it.
 * Node builds a request's headers object in arrival order, so each set (and each order) is another
 * hidden class: trained on this many, the code that reads headers handles any (megamorphic), and a
 * client's own set does not throw its optimized form away at its first request ("wrong map";
 * docs/search.md, "fifth look").
 */
const WARM_UP_HEADER_SETS: readonly Readonly<Record<string, string>>[] = [
  {},
  { accept: 'application/json' },
  { 'user-agent': 'curl/8.5.0', accept: '*/*' },
  {
    accept: 'application/json', 'accept-encoding': 'gzip, deflate, br', 'accept-language': 'en-US,en;q=0.9', 'sec-fetch-mode': 'cors',
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  },
  { 'content-type': 'application/json' },
];

/**
 * The headers of the warm-up's i-th request: `own` (what the request needs) with the i-th of
 * {@link WARM_UP_HEADER_SETS}, Authorization first or last by turns.
 */
function warmUpHeaders(i: number, authorization: string, own: Readonly<Record<string, string>>): Record<string, string> {
  const set = WARM_UP_HEADER_SETS[i % WARM_UP_HEADER_SETS.length] ?? {};
  return Math.floor(i / WARM_UP_HEADER_SETS.length) % 2 === 0 ? { authorization, ...set, ...own } : { ...set, ...own, authorization };
}

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

/**
 * Requests the warm-up sends after the server listens, in idle time only (the second phase of
 * {@link RequestPathWarmUp}): ~2.5 s of one core at 1,000,000 parts, once.
 */
export const WARM_UP_IDLE_REQUESTS = 2400;

/** How long no client's request may have been in flight before the warm-up sends one of its idle phase, in ms. */
export const WARM_UP_IDLE_QUIET_MS = 50;

/** Part ids kept for the warm-up's part reads. */
const MAX_WARM_UP_PART_IDS = 10_000;

/** The catalog the server's app is built over, with the warm-up's way in while it runs. */
export interface WarmUpCatalog {
  catalog: Catalog;
  /** `Bearer warm-up-` + a random 256-bit secret, made for this warm-up and never sent anywhere else. */
  authorization: string;
  /** Who the secret authenticates: every role (as local mode), its own session owner, no session stored, no result cached. */
  principal: Principal;
  /** Ends the warm-up for good: the secret is refused from now on. */
  end(): void;
}

/**
 * `catalog` as the server's app serves it: while the warm-up runs, `service.authenticate` accepts
 * the warm-up's own secret, as a principal whose searches store no session and leave no cached
 * answer (Principal `storesSessions`, `cachesResults`). Anything else, and everything after
 * {@link WarmUpCatalog.end}, is the catalog's own.
 */
export function warmUpCatalog(catalog: Catalog): WarmUpCatalog {
  const authorization = `Bearer warm-up-${randomBytes(32).toString('base64url')}`;
  // Built as a token's is, and not frozen: one hidden class for both, so the code the warm-up
  // trains is the code clients run.
  const principal = serverPrincipal({ name: 'warm-up', roles: [...ROLES], organization: null, sessionOwner: `warm-up:${randomBytes(16).toString('hex')}`, storesSessions: false, cachesResults: false });
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

/** Options of {@link RequestPathWarmUp}. */
export interface WarmUpOptions {
  /** The server's app, built over `warm.catalog`, not listening yet. */
  app: FastifyInstance;
  /** The catalog it was built over ({@link warmUpCatalog}); ended when the warm-up ends. */
  warm: WarmUpCatalog;
  /** Requests before listening (default {@link WARM_UP_REQUESTS}); 0 does nothing. */
  requests?: number;
  /** At most this long before listening, in ms (default {@link WARM_UP_MAX_MS}). */
  maxMs?: number;
  /** Requests after listening, in idle time (default {@link WARM_UP_IDLE_REQUESTS}); 0: none. */
  idleRequests?: number;
  /** How long no client's request may have been in flight before an idle request is sent, in ms (default {@link WARM_UP_IDLE_QUIET_MS}). */
  idleQuietMs?: number;
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
 * The origin through which this process reaches `server` where it listens: the loopback address of
 * its family when it listens on every address, else the address itself. Undefined when it does
 * not listen on a TCP port.
 */
function ownOrigin(server: Server): string | undefined {
  const address = server.address();
  if (address === null || typeof address === 'string') return undefined;
  const host = address.family === 'IPv6' ? (address.address === '::' ? '::1' : address.address) : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * The warm-up of one app, in two phases (see the module comment):
 *
 * 1. {@link beforeListening}: `requests` requests (for at most `maxMs`) on an ephemeral loopback
 *    port, then the app stops listening there; each fourth is a GET part, the others a text search
 *    (top 25) of a word not asked before.
 * 2. {@link whileIdle}, once the app listens on its own port: `idleRequests` more through that
 *    port, each sent only when no client's request has been in flight for `idleQuietMs`; searches
 *    repeat the words of phase 1 (their postings and cards read already; the warm-up's searches
 *    bypass the result cache, Principal `cachesResults`), so they fill no cache that clients' use.
 *
 * The warm-up ends (its secret refused from then on) after phase 2, or after phase 1 when there is
 * no phase 2, or at {@link stop}. Never rejects: a failed warm-up leaves the server as cold as it
 * would have been without it.
 */
export class RequestPathWarmUp {
  private readonly app: FastifyInstance;
  private readonly warm: WarmUpCatalog;
  private readonly words = new WordQueue();
  private readonly partIds: string[] = [];
  /** What was answered so far, both phases (`words` and `ms`: phase 1's). */
  readonly report: WarmUpReport = { answered: 0, statuses: {}, words: 0, ms: 0 };
  private pool: Pool | undefined;
  private stopped = false;
  /** Phase 2 while it runs (resolves when it ends). */
  private idle: Promise<void> | undefined;
  /** Requests of clients in flight, and when the last one began or ended (performance.now()). */
  private clientRequests = 0;
  private lastClientRequestAt = Number.NEGATIVE_INFINITY;
  /** Ends phase 2's wait for quiet at once ({@link stop}). */
  private wake: (() => void) | undefined;

  constructor(private readonly options: WarmUpOptions) {
    this.app = options.app;
    this.warm = options.warm;
  }

  /** Phase 1; resolves with what was answered once the app no longer listens on the loopback port. */
  async beforeListening(): Promise<WarmUpReport> {
    const started = performance.now();
    const total = this.options.requests ?? WARM_UP_REQUESTS;
    if (total <= 0) {
      this.end();
      return this.report;
    }
    const deadline = started + (this.options.maxMs ?? WARM_UP_MAX_MS);
    // Asked now (a child process), answered while the app gets ready.
    const budget = currentInterruptBudget();
    try {
      await this.app.ready();
      this.pool = new Pool(await listenOnLoopback(this.app.server), { connections: 1 });
      // The first words and part ids: those of the first 1,000 parts by part id (an empty search).
      this.learn((await this.warm.catalog.search.search(this.warm.principal, { resultOptions: { limit: 1000 } })).results);
      // With V8's interrupt budget at 1/8, so that these requests get the request path optimized (v8-tiering.ts).
      await withInterruptBudget(WARM_UP_INTERRUPT_BUDGET, await budget, async () => {
        for (let i = 0; i < total && performance.now() < deadline; i++) await this.sendOne(i, () => this.words.next());
      });
      this.report.words = this.words.asked;
    } catch {
      // Only a warm-up: the server serves as it would have without it.
    } finally {
      await this.closePool();
      await stopListening(this.app.server);
      if ((this.options.idleRequests ?? WARM_UP_IDLE_REQUESTS) <= 0 || this.words.asked === 0) this.end();
    }
    this.report.ms = Math.round(performance.now() - started);
    return this.report;
  }

  /**
   * Phase 2, in the background, once the app listens on its own port (its address reached from
   * this process: {@link ownOrigin}); ends the warm-up when done. Resolves when it has ended
   * (never rejects); at once when the warm-up had ended already.
   */
  whileIdle(): Promise<void> {
    if (this.idle) return this.idle;
    const origin = this.stopped ? undefined : ownOrigin(this.app.server);
    if (origin === undefined) {
      this.end();
      return Promise.resolve();
    }
    const server = this.app.server;
    const track = (request: IncomingMessage, response: ServerResponse) => {
      if (request.headers.authorization === this.warm.authorization) return;
      this.clientRequests++;
      this.lastClientRequestAt = performance.now();
      response.once('close', () => {
        this.clientRequests--;
        this.lastClientRequestAt = performance.now();
      });
    };
    server.on('request', track);
    // The warm-up's own connection is not a client's: clients keep every slot of the limit.
    const limited = server.maxConnections > 0 && Number.isFinite(server.maxConnections);
    if (limited) server.maxConnections++;
    const quietMs = this.options.idleQuietMs ?? WARM_UP_IDLE_QUIET_MS;
    const total = this.options.idleRequests ?? WARM_UP_IDLE_REQUESTS;
    this.idle = (async () => {
      try {
        this.pool = new Pool(origin, { connections: 1 });
        for (let i = 0; i < total && !this.stopped;) {
          const quietFor = performance.now() - this.lastClientRequestAt;
          if (this.clientRequests > 0 || quietFor < quietMs) {
            await this.quiet(Math.max(1, quietMs - quietFor));
            continue;
          }
          await this.sendOne(i++, () => this.words.again());
        }
      } catch {
        // Only a warm-up (the server closing under it, say).
      } finally {
        server.off('request', track);
        await this.closePool();
        if (limited) server.maxConnections--;
        this.end();
      }
    })();
    return this.idle;
  }

  /** Stops the warm-up (waits for phase 2's request in flight) and ends it; idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.idle;
    this.end();
  }

  /** Waits `ms`, or until {@link stop}. */
  private quiet(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private end(): void {
    this.stopped = true;
    this.warm.end();
  }

  private async closePool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close().catch(() => undefined);
  }

  /** Keeps the words and part ids of these hits for later requests. */
  private learn(hits: SearchResponse['results']): void {
    for (const hit of hits) {
      if (typeof hit.id === 'string' && this.partIds.length < MAX_WARM_UP_PART_IDS) this.partIds.push(hit.id);
      this.words.add(hit.name ?? '');
    }
  }

  /**
   * The i-th request: each fourth a GET part (spread over the ids known, a prime stride), else a
   * search of `nextWord()`; its headers one of {@link WARM_UP_HEADER_SETS}, before or after the
   * Authorization header.
   */
  private async sendOne(i: number, nextWord: () => string | undefined): Promise<void> {
    const authorization = this.warm.authorization;
    if (i % 4 === 3 && this.partIds.length > 0) {
      await this.send({ method: 'GET', path: ROUTES.part(this.partIds[(i * 7919) % this.partIds.length] as string), headers: warmUpHeaders(i, authorization, {}) }, false);
      return;
    }
    const word = nextWord();
    if (word === undefined) return;
    const { status, hits } = await this.send({
      method: 'POST', path: ROUTES.search, headers: warmUpHeaders(i, authorization, { 'content-type': 'application/json' }),
      body: JSON.stringify({ matches: { text: `${word} ` }, resultOptions: { limit: 25 } }),
    }, true);
    if (status === 200) this.learn(hits);
    else this.words.drop(word);
  }

  /** Sends a request; answers its status and, for a search answered 200, its hits. */
  private async send(request: Dispatcher.RequestOptions, isSearch: boolean): Promise<{ status: number; hits: SearchResponse['results'] }> {
    const response = await (this.pool as Pool).request(request);
    let hits: SearchResponse['results'] = [];
    if (isSearch && response.statusCode === 200) hits = ((await response.body.json()) as SearchResponse).results;
    else await response.body.dump();
    this.report.answered++;
    this.report.statuses[response.statusCode] = (this.report.statuses[response.statusCode] ?? 0) + 1;
    return { status: response.statusCode, hits };
  }
}
