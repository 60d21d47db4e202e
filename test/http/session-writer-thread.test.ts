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
