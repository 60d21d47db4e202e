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
 * So before listening, {@link warmRequestPath} sends {@link WARM_UP_REQUESTS} requests over a real
 * loopback connection to a second app built by the same `buildApp` over the same catalog, listening
 * on an ephemeral port of 127.0.0.1 for that time only: text searches of words from the catalog's
 * first parts and GET part of those parts, so the code the real app runs is the code V8 has
 * optimized (closures of one function share their optimized code; code trained on the second
 * app's objects is partly thrown away on the real app's, "wrong map": docs/search.md, "third
 * look", measures warming the real app instead). Nothing is written: the
 * searches run without storing a session (SearchService.searchUnstored) and never leave the main
 * thread. Authentication: a request of the warm-up carries a random 256-bit secret that never
 * leaves this process and is accepted by the warm-up app only, as a principal with every role
 * (as local mode); every other request to it (another local process finding the port) is
 * authenticated against the catalog's tokens as always. The requests run with V8's interrupt
 * budget at 1/8 (v8-tiering.ts), so that 600 of them get the request path optimized.
 */
import { randomBytes } from 'node:crypto';
import { Pool, type Dispatcher } from 'undici';
import { CatalogError } from '../api/errors.js';
import { ROUTES } from '../api/routes.js';
import { ROLES, type Principal, type SearchResponse } from '../api/schemas.js';
import { SearchBudgetExceeded, type SearchBudget } from '../core/search/budget.js';
import type { Catalog } from '../core/services.js';
import { buildApp, type AppOptions } from './app.js';
import { currentInterruptBudget, withInterruptBudget, WARM_UP_INTERRUPT_BUDGET } from './v8-tiering.js';

/**
 * Requests sent by the warm-up: enough for V8 to optimize the request path (at 1,000,000 parts:
 * docs/search.md, "Where a rare-word search request's time goes over HTTP"); they took 0.8-1.6 s
 * there on a loaded 2-core machine (a third of them read a word's postings and cards from disk).
 */
export const WARM_UP_REQUESTS = 600;

/**
 * The longest a warm-up may delay listening, in ms: it stops after this whatever it sent (a loaded
 * machine, or a catalog whose first searches read slowly, then starts less warm but on time).
 */
export const WARM_UP_MAX_MS = 1500;

/** Options of {@link warmRequestPath}. */
export interface WarmUpOptions {
  /** The catalog the real app serves (the pooled one in `catalog serve`). */
  catalog: Catalog;
  /**
   * The search the warm-up runs: the main thread's own (never a reader thread), without storing a
   * session (SearchService.searchUnstored); with a budget it may throw SearchBudgetExceeded.
   */
  searchUnstored: (principal: Principal, body: unknown, budget?: SearchBudget) => Promise<SearchResponse>;
  /** The budget of the warm-up's text searches (the main thread's, pooled-catalog.ts); a word over it is dropped. */
  maxPostings: number;
  /** The real app's limits (the same hooks and body limits run hot). */
  limits?: AppOptions['limits'];
  /** How many requests (default {@link WARM_UP_REQUESTS}); 0 does nothing. */
  requests?: number;
  /** At most this long, in ms (default {@link WARM_UP_MAX_MS}). */
  maxMs?: number;
}

/** Words (letters and digits, ≥ 3 of them, lowercased) of the names of `parts`, each once. */
function wordsOfNames(names: readonly string[]): string[] {
  const words = new Set<string>();
  for (const name of names) for (const word of name.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (word.length >= 3) words.add(word);
  return [...words];
}

/** What a warm-up did: requests answered, by HTTP status (200 for most; 400 for a word over the budget), and how long it took (ms). */
export interface WarmUpReport {
  answered: number;
  statuses: Record<number, number>;
  ms: number;
}

/** The catalog the warm-up app serves, and the Authorization header only it accepts. */
export interface WarmUpCatalog {
  catalog: Catalog;
  /** `Bearer warm-up-` + a random 256-bit secret, made for this warm-up and never sent anywhere else. */
  authorization: string;
  /** Who the secret authenticates: every role (as local mode), its own session owner. */
  principal: Principal;
}

/**
 * `catalog` as the warm-up app serves it: `service.authenticate` accepts the warm-up's own secret
 * (and authenticates anything else against the catalog's tokens, as always), and `search.search`
 * runs `options.searchUnstored` within the main thread's budget (a word over it is a 400, not a
 * trip to a reader thread). Every other member is the catalog's own.
 */
export function warmUpCatalog(options: Pick<WarmUpOptions, 'catalog' | 'searchUnstored' | 'maxPostings'>): WarmUpCatalog {
  const { catalog } = options;
  const authorization = `Bearer warm-up-${randomBytes(32).toString('base64url')}`;
  const principal: Principal = Object.freeze({ name: 'warm-up', roles: ROLES, organization: null, sessionOwner: `warm-up:${randomBytes(16).toString('hex')}` });
  const service = Object.create(catalog.service) as Catalog['service'];
  Object.defineProperty(service, 'authenticate', {
    value: (header: string | undefined) => (header === authorization ? Promise.resolve(principal) : catalog.service.authenticate(header)),
  });
  const search = Object.create(catalog.search) as Catalog['search'];
  Object.defineProperty(search, 'search', {
    value: async (caller: Principal, body: unknown) => {
      try {
        return await options.searchUnstored(caller, body, { maxPostings: options.maxPostings });
      } catch (error) {
        // A word too frequent for the main thread's budget: answered 400, and dropped by the client.
        if (error instanceof SearchBudgetExceeded) throw new CatalogError('bad_request', 'warm-up: over the main-thread search budget');
        throw error;
      }
    },
  });
  return { catalog: { ...catalog, service, search }, authorization, principal };
}

/**
 * Sends `options.requests` requests (for at most `options.maxMs`) through a warm-up app (see the module comment) and closes it:
 * each fourth a GET part, the others a text search of the next word (top 25). Resolves with what
 * was answered; never rejects (a failed warm-up only leaves the server as cold as before).
 */
export async function warmRequestPath(options: WarmUpOptions): Promise<WarmUpReport> {
  const started = performance.now();
  const report: WarmUpReport = { answered: 0, statuses: {}, ms: 0 };
  const total = options.requests ?? WARM_UP_REQUESTS;
  if (total <= 0) return report;
  const deadline = started + (options.maxMs ?? WARM_UP_MAX_MS);
  // Asked now (a child process), answered while the warm-up app starts.
  const budget = currentInterruptBudget();
  const warm = warmUpCatalog(options);
  // Lines are written and dropped, so the access log's hook runs hot too.
  const app = buildApp({ catalog: warm.catalog, accessLog: { write: () => true }, webApp: false, ...(options.limits ? { limits: options.limits } : {}) });
  let pool: Pool | undefined;
  const send = async (request: Dispatcher.RequestOptions): Promise<number> => {
    const response = await (pool as Pool).request(request);
    await response.body.dump();
    report.answered++;
    report.statuses[response.statusCode] = (report.statuses[response.statusCode] ?? 0) + 1;
    return response.statusCode;
  };
  try {
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    pool = new Pool(origin, { connections: 1 });
    const headers = { authorization: warm.authorization, 'content-type': 'application/json' };
    // Words of the first 1,000 parts by part id (an empty search, as SearchService.warm): enough
    // for each search of the warm-up to be a word's first (no result cache), as a client's are.
    const first = await options.searchUnstored(warm.principal, { resultOptions: { limit: 1000 } });
    const hits = first.results.filter((hit) => typeof hit.id === 'string');
    let words = wordsOfNames(hits.map((hit) => hit.name ?? ''));
    const partIds = hits.map((hit) => hit.id as string);
    // With V8's interrupt budget at 1/8, so that these requests get the request path optimized (v8-tiering.ts).
    await withInterruptBudget(WARM_UP_INTERRUPT_BUDGET, await budget, async () => {
      for (let i = 0; i < total && performance.now() < deadline; i++) {
        if (i % 4 === 3 && partIds.length > 0) {
          await send({ method: 'GET', path: ROUTES.part(partIds[i % partIds.length] as string), headers: { authorization: warm.authorization } });
        } else if (words.length > 0) {
          const word = words[i % words.length] as string;
          const status = await send({ method: 'POST', path: ROUTES.search, headers, body: JSON.stringify({ matches: { text: `${word} ` }, resultOptions: { limit: 25 } }) });
          if (status !== 200) words = words.filter((w) => w !== word);
        }
      }
    });
  } catch {
    // Only a warm-up: the server serves as it would have without it.
  } finally {
    await pool?.close().catch(() => undefined);
    await app.close().catch(() => undefined);
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}
