/**
 * `catalog serve` stores the sessions of the searches its main thread answers from a thread of
 * their own (src/adapters/sqlite/session-writer; issue 12): the event loop never waits on
 * sessions.db. Shown with sessions.db's write lock held by another connection (a backup, a
 * second process): searches are still answered while it is held, and once it is released their
 * sessions are stored and page. (Written on the main thread, the first session write blocked the
 * event loop in SQLite's busy handler until the lock went, so the second search never answered.)
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

describe('session writes off the main thread', () => {
  let dir: string;
  let server: RunningServer;
  let client: HttpCatalogClient;

  beforeAll(async () => {
    dir = tempDir('catalog-session-thread-');
    const setup = openCatalog({ dataDir: dir });
    const { secret } = await setup.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] });
    await setup.service.upsertParts(LOCAL_OWNER, Array.from({ length: 30 }, (_, i) => ({ part_id: `p${String(i).padStart(2, '0')}`, name: { en: i % 2 === 0 ? `Zebra gear ${i}` : `Cog ${i}` } })));
    await setup.close();
    server = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 1 });
    client = new HttpCatalogClient({ url: server.url, token: secret, retries: 0 });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('answers searches while sessions.db is locked, and stores their sessions once it is free', async () => {
    // A rare word: answered on the main thread (within its budget), its session stored after answering.
    await client.search({ matches: { text: 'zebra' }, resultOptions: { limit: 5 } });
    const other = new Database(join(dir, 'sessions.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      const first = await client.search({ matches: { text: 'zebra' }, resultOptions: { limit: 5 } });
      const second = await client.search({ matches: { text: 'cog' }, resultOptions: { limit: 5 } });
      expect(first.resultsTotalCount).toBe(15);
      expect(second.resultsTotalCount).toBe(15);
      other.exec('COMMIT');
      // Paging waits for the pending writes, which the thread commits now that the lock is free.
      expect((await client.searchState(first.sessionId, { skip: 5, limit: 5 })).results.map((r) => r.id)).toEqual(['p10', 'p12', 'p14', 'p16', 'p18']);
      expect((await client.searchState(second.sessionId, { skip: 10, limit: 10 })).results.map((r) => r.id)).toEqual(['p21', 'p23', 'p25', 'p27', 'p29']);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  });
});

/**
 * The sessions of searches a reader thread ranks (a word over the main thread's budget) are stored
 * by that same session-writer thread, not by the reader (issue 12): a reader that stored them
 * itself waited for sessions.db's write lock, and every search queued behind it waited too (under
 * 50 connections at 1,000,000 parts, ~1 s of every 10 per reader). Shown with the lock held by
 * another connection: searches on the one reader go on being answered, and their sessions page
 * once it is released. (Before, the reader sat in SQLite's busy handler with the first session, so
 * the second search on it was not answered while the lock was held.)
 */
describe('reader threads hand their sessions to the session writer', () => {
  let dir: string;
  let server: RunningServer;
  let client: HttpCatalogClient;

  beforeAll(async () => {
    dir = tempDir('catalog-session-readers-');
    const setup = openCatalog({ dataDir: dir });
    const { secret } = await setup.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] });
    // "gear": 9,000 postings, over the main thread's budget (MAIN_THREAD_SEARCH_POSTINGS): ranked on the reader.
    for (let at = 0; at < 9_000; at += 1_000) {
      await setup.service.upsertParts(LOCAL_OWNER, Array.from({ length: 1_000 }, (_, i) => ({ part_id: `p${String(at + i).padStart(4, '0')}`, name: { en: `Gear ${at + i} ${(at + i) % 2 === 0 ? 'cog' : 'wheel'}` } })));
    }
    await setup.close();
    server = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 1, warmUpRequests: 0 });
    client = new HttpCatalogClient({ url: server.url, token: secret, retries: 0 });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('answers one search after another on the one reader while sessions.db is locked, and their sessions page once it is free', async () => {
    const other = new Database(join(dir, 'sessions.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      const within = (ms: number) => new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms));
      const first = await Promise.race([client.search({ matches: { text: 'gear' }, resultOptions: { limit: 5 } }), within(10_000)]);
      const second = await Promise.race([client.search({ matches: { text: 'gear cog' }, resultOptions: { limit: 5 } }), within(10_000)]);
      const third = await Promise.race([client.search({ matches: { text: 'gear wheel' }, resultOptions: { limit: 5 } }), within(10_000)]);
      expect(first).not.toBe('late');
      expect(second).not.toBe('late');
      expect(third).not.toBe('late');
      if (first === 'late' || second === 'late' || third === 'late') return;
      expect([first.resultsTotalCount, second.resultsTotalCount, third.resultsTotalCount]).toEqual([9_000, 4_500, 4_500]);
      other.exec('COMMIT');
      // Each session whole: its last page, in rank order (ties by part id).
      expect((await client.searchState(first.sessionId, { skip: 8_998, limit: 5 })).results.map((r) => r.id)).toEqual(['p8998', 'p8999']);
      expect((await client.searchState(second.sessionId, { skip: 4_498, limit: 5 })).results.map((r) => r.id)).toEqual(['p8996', 'p8998']);
      expect((await client.searchState(third.sessionId, { skip: 0, limit: 2 })).results.map((r) => r.id)).toEqual(['p0001', 'p0003']);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  }, 60_000);
});
