/**
 * The warm-up of `catalog serve`'s request path (src/http/warm-up.ts; issue 12): before listening
 * on its port, the server's own app answers requests on a loopback port. It must leave nothing
 * behind (no session stored, no access-log line, no way in without a token), and the server must
 * answer as before.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CatalogError } from '../../src/api/errors.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Principal } from '../../src/api/schemas.js';
import { buildApp } from '../../src/http/app.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { RequestPathWarmUp, warmUpCatalog, type WarmUpOptions } from '../../src/http/warm-up.js';
import { EngineSearcher } from '../../src/core/search/engine/searcher.js';
import { WordQueue } from '../../src/http/warm-up-words.js';
import { openCatalog } from '../../src/open-catalog.js';
import type { Catalog } from '../../src/core/services.js';
import { tempDir } from '../helpers/harness.js';

/** Local mode's caller, storing no session (as the warm-up's principal). */
const NO_SESSIONS: Principal = { ...LOCAL_OWNER, storesSessions: false };

/** The first phase alone (no idle phase after it), as a server without one would run it. */
function beforeListeningOnly(options: Omit<WarmUpOptions, 'idleRequests'>) {
  return new RequestPathWarmUp({ ...options, idleRequests: 0 }).beforeListening();
}

/** Sessions stored in the data directory's sessions.db. */
function storedSessions(dir: string): number {
  const db = new Database(join(dir, 'sessions.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('warming the request path', () => {
  let dir: string;
  let catalog: Catalog;
  let secret: string;

  beforeAll(async () => {
    dir = tempDir('catalog-warm-up-');
    catalog = openCatalog({ dataDir: dir, deferSessionWrites: true });
    secret = (await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] })).secret;
    const parts = Array.from({ length: 40 }, (_, i) => ({ part_id: `p${String(i).padStart(3, '0')}`, name: { en: `Gear pump ${i} model${i}` } }));
    expect(await catalog.service.upsertParts(LOCAL_OWNER, parts)).toMatchObject({ errors: {} });
  });
  afterAll(async () => {
    await catalog?.close();
  });

  it('searches of a principal that stores no session are answered, and nothing is stored', async () => {
    const before = storedSessions(dir);
    const answer = await catalog.search.search(NO_SESSIONS, { matches: { text: 'pump' }, resultOptions: { limit: 5 } });
    expect(answer.resultsTotalCount).toBe(40);
    expect(answer.results).toHaveLength(5);
    await catalog.search.flushSessions();
    expect(storedSessions(dir)).toBe(before);
    await expect(catalog.search.searchState(NO_SESSIONS, answer.sessionId)).rejects.toMatchObject({ code: 'not_found' } satisfies Partial<CatalogError>);
  });

  it("a reader thread's early answer (searchAnsweringEarly) to a principal that stores no session stores nothing either", async () => {
    const before = storedSessions(dir);
    let answer: { sessionId: string; resultsTotalCount: number } | undefined;
    await catalog.search.searchAnsweringEarly(NO_SESSIONS, { matches: { text: 'gear' }, resultOptions: { limit: 5 } }, (response) => {
      answer = response;
    });
    expect(answer?.resultsTotalCount).toBe(40);
    await catalog.search.flushSessions();
    expect(storedSessions(dir)).toBe(before);
    await expect(catalog.search.searchState(NO_SESSIONS, answer?.sessionId ?? '')).rejects.toMatchObject({ code: 'not_found' } satisfies Partial<CatalogError>);
  });

  it('sends its searches (each a word not asked before) and part reads through the app itself on a loopback port, logs and stores nothing, then lets the app listen on its own', async () => {
    const before = storedSessions(dir);
    const lines: string[] = [];
    const warm = warmUpCatalog(catalog);
    const app = buildApp({ catalog: warm.catalog, accessLog: { write: (line) => lines.push(line) }, unlogged: (principal) => principal === warm.principal, webApp: false });
    try {
      const report = await beforeListeningOnly({ app, warm, requests: 40 });
      // 30 searches and 10 part reads; the 40 names hold 42 words (gear, pump, model0 ... model39).
      expect(report).toMatchObject({ answered: 40, statuses: { 200: 40 }, words: 30 });
      // Ended: the secret is refused from now on.
      await expect(warm.catalog.service.authenticate(warm.authorization)).rejects.toMatchObject({ code: 'unauthorized' });
      expect(app.server.listening).toBe(false);
      await catalog.search.flushSessions();
      expect(storedSessions(dir)).toBe(before);
      expect(lines).toEqual([]);
      // The same app then serves on its own port, to the catalog's tokens only.
      const origin = await app.listen({ host: '127.0.0.1', port: 0 });
      expect((await fetch(`${origin}/1/catalog/parts/p001`, { headers: { authorization: warm.authorization } })).status).toBe(401);
      expect((await fetch(`${origin}/1/catalog/parts/p001`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
      expect(lines).toHaveLength(2);
    } finally {
      await app.close();
    }
  });

  it('sends its requests with many header sets, Authorization first and last, so that code reading headers is trained on many hidden classes', async () => {
    const warm = warmUpCatalog(catalog);
    const app = buildApp({ catalog: warm.catalog, accessLog: null, webApp: false });
    const orders = new Set<string>();
    app.addHook('onRequest', (request, _reply, done) => {
      orders.add(request.raw.rawHeaders.filter((_, k) => k % 2 === 0).map((name) => name.toLowerCase()).join(','));
      done();
    });
    try {
      expect(await beforeListeningOnly({ app, warm, requests: 40 })).toMatchObject({ answered: 40, statuses: { 200: 40 } });
      // Five sets, two orders each, for searches and part reads alike: each a hidden class of Node's headers object.
      expect(orders.size).toBeGreaterThanOrEqual(10);
      const authorizationAt = [...orders].map((names) => names.split(',').filter((n) => n !== 'host' && n !== 'connection' && n !== 'content-length').indexOf('authorization'));
      expect(authorizationAt).toContain(0);
      expect(authorizationAt.some((at) => at > 0)).toBe(true);
      expect([...orders].some((names) => names.includes('user-agent') && names.includes('accept-language'))).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('a principal that caches no results has every search ranked, and leaves no answer for anyone else', async () => {
    const ranked = vi.spyOn(EngineSearcher.prototype, 'matchingDocs');
    try {
      const uncached: Principal = { ...NO_SESSIONS, cachesResults: false };
      const text = { matches: { text: 'model13' } };
      await catalog.search.search(NO_SESSIONS, text);
      await catalog.search.search(NO_SESSIONS, text);
      expect(ranked).toHaveBeenCalledTimes(1);
      await catalog.search.search(uncached, text);
      await catalog.search.search(uncached, text);
      expect(ranked).toHaveBeenCalledTimes(3);
      // Another query, first by the uncached principal: the next caller's search is ranked, not served from it.
      const other = { matches: { text: 'model14' } };
      expect((await catalog.search.search(uncached, other)).resultsTotalCount).toBe(1);
      expect((await catalog.search.search(NO_SESSIONS, other)).resultsTotalCount).toBe(1);
      expect(ranked).toHaveBeenCalledTimes(5);
    } finally {
      ranked.mockRestore();
    }
  });

  it("goes on through the app's own port once it listens, in idle time only, storing and logging nothing, then ends", async () => {
    const before = storedSessions(dir);
    const lines: string[] = [];
    const warm = warmUpCatalog(catalog);
    const app = buildApp({ catalog: warm.catalog, accessLog: { write: (line) => lines.push(line) }, unlogged: (principal) => principal === warm.principal, webApp: false });
    const warmUp = new RequestPathWarmUp({ app, warm, requests: 8, idleRequests: 40, idleQuietMs: 1 });
    try {
      expect(await warmUp.beforeListening()).toMatchObject({ answered: 8, words: 6 });
      // Not ended: the second phase is to come.
      await expect(warm.catalog.service.authenticate(warm.authorization)).resolves.toBe(warm.principal);
      await app.listen({ host: '0.0.0.0', port: 0 });
      await warmUp.whileIdle();
      expect(warmUp.report).toMatchObject({ answered: 48, statuses: { 200: 48 } });
      // Ended by itself: the secret is refused from now on.
      await expect(warm.catalog.service.authenticate(warm.authorization)).rejects.toMatchObject({ code: 'unauthorized' });
      await catalog.search.flushSessions();
      expect(storedSessions(dir)).toBe(before);
      expect(lines).toEqual([]);
      await warmUp.stop();
    } finally {
      await app.close();
    }
  });

  it('with no request before listening (CATALOG_WARM_UP_REQUESTS=0) sends none after it either, and has ended', async () => {
    const warm = warmUpCatalog(catalog);
    const app = buildApp({ catalog: warm.catalog, accessLog: null, webApp: false });
    const warmUp = new RequestPathWarmUp({ app, warm, requests: 0, idleRequests: 40, idleQuietMs: 1 });
    try {
      expect((await warmUp.beforeListening()).answered).toBe(0);
      await app.listen({ host: '127.0.0.1', port: 0 });
      await warmUp.whileIdle();
      expect(warmUp.report.answered).toBe(0);
      await expect(warm.catalog.service.authenticate(warm.authorization)).rejects.toMatchObject({ code: 'unauthorized' });
    } finally {
      await app.close();
    }
  });

  it("holds its idle requests while a client's request is in flight or recent, takes no client's connection slot, and stops at once when told", async () => {
    const warm = warmUpCatalog(catalog);
    // One connection for clients: the warm-up's own must not take it.
    const app = buildApp({ catalog: warm.catalog, accessLog: null, webApp: false, limits: { maxConnections: 1 } });
    const warmUp = new RequestPathWarmUp({ app, warm, requests: 8, idleRequests: 100_000, idleQuietMs: 60_000 });
    try {
      await warmUp.beforeListening();
      const origin = await app.listen({ host: '127.0.0.1', port: 0 });
      // No client yet: it sends at once.
      const idle = warmUp.whileIdle();
      await vi.waitFor(() => expect(warmUp.report.answered).toBeGreaterThan(10), { timeout: 10_000, interval: 10 });
      // A client's request: the warm-up holds for 60 s after it (one of its own may be in flight).
      expect((await fetch(`${origin}/1/catalog/parts/p001`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
      const after = warmUp.report.answered;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(warmUp.report.answered).toBeLessThanOrEqual(after + 1);
      // Stopped while it waits for quiet: at once, and ended.
      const stopping = Date.now();
      await warmUp.stop();
      await idle;
      expect(Date.now() - stopping).toBeLessThan(5_000);
      expect(app.server.maxConnections).toBe(1);
      await expect(warm.catalog.service.authenticate(warm.authorization)).rejects.toMatchObject({ code: 'unauthorized' });
    } finally {
      await app.close();
    }
  });

  it("leaves the warm-up's own requests out of the access log, and no one else's", async () => {
    const lines: string[] = [];
    const warm = warmUpCatalog(catalog);
    const app = buildApp({ catalog: warm.catalog, accessLog: { write: (line) => lines.push(line) }, unlogged: (principal) => principal === warm.principal, webApp: false });
    try {
      // While the warm-up runs: its secret's request is answered and not logged; a token's is logged.
      const origin = await app.listen({ host: '127.0.0.1', port: 0 });
      expect((await fetch(`${origin}/1/catalog/parts/p001`, { headers: { authorization: warm.authorization } })).status).toBe(200);
      expect(lines).toEqual([]);
      expect((await fetch(`${origin}/1/catalog/parts/p001`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
      expect((await fetch(`${origin}/1/catalog/parts/p001`, { headers: { authorization: 'Bearer warm-up-x' } })).status).toBe(401);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain(' admin "GET /1/catalog/parts/p001" 200 ');
      expect(lines[1]).toContain(' - "GET /1/catalog/parts/p001" 401 ');
    } finally {
      await app.close();
    }
  });

  it('stops at its time limit, whatever it has sent', async () => {
    const warm = warmUpCatalog(catalog);
    const app = buildApp({ catalog: warm.catalog, accessLog: null, webApp: false });
    try {
      const report = await beforeListeningOnly({ app, warm, requests: 100_000, maxMs: 200 });
      expect(report.answered).toBeGreaterThan(0);
      expect(report.answered).toBeLessThan(100_000);
    } finally {
      await app.close();
    }
  });

  it("accepts its own secret while warming only, and authenticates everything else against the catalog's tokens", async () => {
    const warm = warmUpCatalog(catalog);
    expect(warm.authorization).toMatch(/^Bearer warm-up-[A-Za-z0-9_-]{43}$/);
    expect(warm.principal.storesSessions).toBe(false);
    await expect(warm.catalog.service.authenticate(warm.authorization)).resolves.toBe(warm.principal);
    await expect(warm.catalog.service.authenticate(`Bearer ${secret}`)).resolves.toMatchObject({ name: 'admin' });
    await expect(warm.catalog.service.authenticate('Bearer warm-up-x')).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(warm.catalog.service.authenticate(undefined)).rejects.toMatchObject({ code: 'unauthorized' });
    // A second warm-up has another secret.
    const other = warmUpCatalog(catalog);
    await expect(other.catalog.service.authenticate(warm.authorization)).rejects.toMatchObject({ code: 'unauthorized' });
    // Ended: refused.
    warm.end();
    await expect(warm.catalog.service.authenticate(warm.authorization)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it.runIf(process.platform === 'linux')('releaseMemory unmaps what the searches read through the memory map (the server calls it after its warm-up)', async () => {
    // Pages still in the WAL are read from it, not through the map: move them into the file first.
    const db = new Database(join(dir, 'catalog.db'));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const mapped = openCatalog({ dataDir: dir, mmapBytes: 64 * 2 ** 20 });
    try {
      const mappings = () => readFileSync('/proc/self/maps', 'utf8').split('\n').filter((line) => line.endsWith(join(dir, 'catalog.db'))).length;
      expect((await mapped.search.search(NO_SESSIONS, { matches: { text: 'pump' } })).resultsTotalCount).toBe(40);
      expect(mappings()).toBeGreaterThan(0);
      mapped.search.releaseMemory();
      expect(mappings()).toBe(0);
      // The next read maps again.
      expect((await mapped.search.search(NO_SESSIONS, { matches: { text: 'model7' } })).resultsTotalCount).toBe(1);
    } finally {
      await mapped.close();
    }
  });

  describe('a pooled server that warmed up', () => {
    let server: RunningServer;
    beforeAll(async () => {
      await catalog.search.flushSessions();
      server = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 1, warmUpRequests: 100 });
    });
    afterAll(async () => {
      await server?.close();
    });

    it('stored no session while warming, answers as before and refuses a request without a valid token', async () => {
      expect(storedSessions(dir)).toBe(0);
      const search = await fetch(`${server.url}/1/find/search`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ matches: { text: 'model7' } }) });
      expect(search.status).toBe(200);
      const answer = (await search.json()) as { sessionId: string; results: { id: string }[] };
      expect(answer.results.map((r) => r.id)).toEqual(['p007']);
      // The next page request sees the session (decisions §8).
      const page = await fetch(`${server.url}/1/find/search/state/${answer.sessionId}`, { headers: { authorization: `Bearer ${secret}` } });
      expect(page.status).toBe(200);
      expect(storedSessions(dir)).toBe(1);
      for (const authorization of [undefined, 'Bearer warm-up-x', 'Bearer cat_nope']) {
        const refused = await fetch(`${server.url}/1/catalog/parts/p001`, { headers: authorization ? { authorization } : {} });
        expect(refused.status).toBe(401);
      }
    });
  });
});

describe('the warm-up\'s words', () => {
  it('asks each word of the names once, in the order found, then from the first again', () => {
    const words = new WordQueue();
    words.add('Gear pump, GEAR housing');
    words.add('a pump of 12 V');
    expect([words.next(), words.next(), words.next(), words.asked]).toEqual(['gear', 'pump', 'housing', 3]);
    expect(words.next()).toBe('gear');
    words.add('Pump valve');
    expect([words.next(), words.next(), words.next(), words.asked]).toEqual(['pump', 'housing', 'valve', 4]);
  });

  it('asks again the words asked so far only, in order, from the first after the last', () => {
    const words = new WordQueue();
    expect(words.again()).toBeUndefined();
    words.add('alpha beta gamma delta');
    expect([words.next(), words.next(), words.next()]).toEqual(['alpha', 'beta', 'gamma']);
    expect([words.again(), words.again(), words.again(), words.again()]).toEqual(['alpha', 'beta', 'gamma', 'alpha']);
    words.drop('alpha');
    expect([words.again(), words.again(), words.again()]).toEqual(['beta', 'gamma', 'beta']);
  });

  it('never asks a dropped word again, and counts only the words kept', () => {
    const words = new WordQueue();
    words.add('alpha beta gamma');
    expect([words.next(), words.next()]).toEqual(['alpha', 'beta']);
    words.drop('beta');
    expect(words.asked).toBe(1);
    expect([words.next(), words.next(), words.next()]).toEqual(['gamma', 'alpha', 'gamma']);
    expect(new WordQueue().next()).toBeUndefined();
  });
});
