/**
 * The warm-up of `catalog serve`'s request path (src/http/warm-up.ts; issue 12): before listening,
 * requests run through a second app over the same catalog. It must leave nothing behind (no
 * session stored, no way in without a token), and the server must answer as before.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogError } from '../../src/api/errors.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { MAIN_THREAD_SEARCH_POSTINGS } from '../../src/http/pool/pooled-catalog.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { warmRequestPath, warmUpCatalog } from '../../src/http/warm-up.js';
import { openCatalog } from '../../src/open-catalog.js';
import type { Catalog } from '../../src/core/services.js';
import { tempDir } from '../helpers/harness.js';

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

  it('drops a word over the main-thread budget instead of running it without one', async () => {
    // First: a cached result costs no postings, so the words must not have been searched yet.
    const report = await warmRequestPath({ catalog, searchUnstored: (principal, body, budget) => catalog.search.searchUnstored(principal, body, budget), maxPostings: 0, requests: 12 });
    // Every word is over a budget of no posting: each search is answered 400 once, and the part reads 200.
    expect(report.statuses[200]).toBe(3);
    expect(report.statuses[400]).toBe(9);
  });

  it('searches without storing a session (SearchService.searchUnstored)', async () => {
    const before = storedSessions(dir);
    const answer = await catalog.search.searchUnstored(LOCAL_OWNER, { matches: { text: 'pump' }, resultOptions: { limit: 5 } });
    expect(answer.resultsTotalCount).toBe(40);
    expect(answer.results).toHaveLength(5);
    await catalog.search.flushSessions();
    expect(storedSessions(dir)).toBe(before);
    await expect(catalog.search.searchState(LOCAL_OWNER, answer.sessionId)).rejects.toMatchObject({ code: 'not_found' } satisfies Partial<CatalogError>);
  });

  it('sends its searches and part reads through a real app, and stores nothing', async () => {
    const before = storedSessions(dir);
    const report = await warmRequestPath({
      catalog, searchUnstored: (principal, body, budget) => catalog.search.searchUnstored(principal, body, budget), maxPostings: MAIN_THREAD_SEARCH_POSTINGS, requests: 40,
    });
    expect(report).toMatchObject({ answered: 40, statuses: { 200: 40 } });
    await catalog.search.flushSessions();
    expect(storedSessions(dir)).toBe(before);
  });

  it('stops at its time limit, whatever it has sent', async () => {
    const report = await warmRequestPath({ catalog, searchUnstored: (principal, body, budget) => catalog.search.searchUnstored(principal, body, budget), maxPostings: MAIN_THREAD_SEARCH_POSTINGS, requests: 100_000, maxMs: 200 });
    expect(report.answered).toBeGreaterThan(0);
    expect(report.answered).toBeLessThan(100_000);
  });

  it("accepts its own secret only, and authenticates everything else against the catalog's tokens", async () => {
    const warm = warmUpCatalog({ catalog, searchUnstored: (principal, body, budget) => catalog.search.searchUnstored(principal, body, budget), maxPostings: MAIN_THREAD_SEARCH_POSTINGS });
    expect(warm.authorization).toMatch(/^Bearer warm-up-[A-Za-z0-9_-]{43}$/);
    await expect(warm.catalog.service.authenticate(warm.authorization)).resolves.toBe(warm.principal);
    await expect(warm.catalog.service.authenticate(`Bearer ${secret}`)).resolves.toMatchObject({ name: 'admin' });
    await expect(warm.catalog.service.authenticate('Bearer warm-up-x')).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(warm.catalog.service.authenticate(undefined)).rejects.toMatchObject({ code: 'unauthorized' });
    // A second warm-up has another secret.
    const other = warmUpCatalog({ catalog, searchUnstored: (principal, body, budget) => catalog.search.searchUnstored(principal, body, budget), maxPostings: MAIN_THREAD_SEARCH_POSTINGS });
    await expect(other.catalog.service.authenticate(warm.authorization)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it.runIf(process.platform === 'linux')('releaseMemory unmaps what the searches read through the memory map (the server calls it after its warm-up)', async () => {
    // Pages still in the WAL are read from it, not through the map: move them into the file first.
    const db = new Database(join(dir, 'catalog.db'));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const mapped = openCatalog({ dataDir: dir, mmapBytes: 64 * 2 ** 20 });
    try {
      const mappings = () => readFileSync('/proc/self/maps', 'utf8').split('\n').filter((line) => line.endsWith(join(dir, 'catalog.db'))).length;
      expect((await mapped.search.searchUnstored(LOCAL_OWNER, { matches: { text: 'pump' } })).resultsTotalCount).toBe(40);
      expect(mappings()).toBeGreaterThan(0);
      mapped.search.releaseMemory();
      expect(mappings()).toBe(0);
      // The next read maps again.
      expect((await mapped.search.searchUnstored(LOCAL_OWNER, { matches: { text: 'model7' } })).resultsTotalCount).toBe(1);
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
