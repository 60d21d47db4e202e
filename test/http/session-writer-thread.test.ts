/**
 * `catalog serve` stores the sessions of the searches its main thread answers from a thread of
 * their own (src/adapters/sqlite/session-writer): the event loop never waits on
 * sessions.db. Shown with sessions.db's write lock held by another connection (a backup, a
 * second process): searches are still answered while it is held, and once it is released their
 * sessions are stored and page. (Written on the main thread, the first session write blocked the
 * event loop in SQLite's busy handler until the lock went, so the second search never answered.)
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { packSessionHits } from '../../src/adapters/session-blocks.js';
import { startSessionWriterThread } from '../../src/adapters/sqlite/session-writer/session-writer-thread.js';
import { ThreadLock } from '../../src/adapters/sqlite/thread-lock.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';
import { adminSecret, serveForTest, withSeededDataDir } from '../helpers/seeded-data-dir.js';

describe('session writes off the main thread', () => {
  const fixture = withSeededDataDir(
    'catalog-session-thread-',
    async (setup) => {
      const secret = await adminSecret(setup);
      await setup.service.upsertParts(LOCAL_OWNER, Array.from({ length: 30 }, (_, i) => ({ part_id: `p${String(i).padStart(2, '0')}`, name: { en: i % 2 === 0 ? `Zebra gear ${i}` : `Cog ${i}` } })));
      return secret;
    },
    (dir, secret) => serveForTest(dir, secret, { readers: 1 }),
  );

  it('answers searches while sessions.db is locked, and stores their sessions once it is free', async () => {
    const { dir, opened: { client } } = fixture();
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
 * by that same session-writer thread, not by the reader: a reader that stored them
 * itself waited for sessions.db's write lock, and every search queued behind it waited too (under
 * 50 connections at 1,000,000 parts, ~1 s of every 10 per reader). Shown with the lock held by
 * another connection: searches on the one reader go on being answered, and their sessions page
 * once it is released. (Before, the reader sat in SQLite's busy handler with the first session, so
 * the second search on it was not answered while the lock was held.)
 */
describe('reader threads hand their sessions to the session writer', () => {
  const fixture = withSeededDataDir(
    'catalog-session-readers-',
    async (setup) => {
      const secret = await adminSecret(setup);
      // "gear": 9,000 postings, over the main thread's budget (MAIN_THREAD_SEARCH_POSTINGS): ranked on the reader.
      for (let at = 0; at < 9_000; at += 1_000) {
        await setup.service.upsertParts(LOCAL_OWNER, Array.from({ length: 1_000 }, (_, i) => ({ part_id: `p${String(at + i).padStart(4, '0')}`, name: { en: `Gear ${at + i} ${(at + i) % 2 === 0 ? 'cog' : 'wheel'}` } })));
      }
      return secret;
    },
    (dir, secret) => serveForTest(dir, secret, { readers: 1 }),
    60_000,
  );

  it('answers one search after another on the one reader while sessions.db is locked, and their sessions page once it is free', async () => {
    const { dir, opened: { client } } = fixture();
    const other = new Database(join(dir, 'sessions.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      const within = (ms: number) => new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms));
      // `gear ` typed whole: every name begins with it, and as a prefix the shorter names would come first.
      const first = await Promise.race([client.search({ matches: { text: 'gear ' }, resultOptions: { limit: 5 } }), within(10_000)]);
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

/**
 * What waits for the session writer is bounded in bytes (MAX_PENDING_SESSION_BYTES): while the
 * writer is held up (here: the server threads' shared write lock of sessions.db held), the
 * readers' sessions (a frequent word's ~20 KB packed) would otherwise pile up in memory for as
 * long as it lasts. A batch beyond the bound is refused at once, lost as in a crash; the batches
 * within it are stored once the writer can go on.
 */
describe('the session writer holds a bounded number of bytes', () => {
  it('refuses a batch that would pass the bound while the writer is held up, and stores the others once it is free', async () => {
    const dir = tempDir('catalog-session-bound-');
    const setup = openCatalog({ dataDir: dir });
    await setup.close();
    const lock = ThreadLock.newBuffer();
    const writer = startSessionWriterThread(dir, lock, { maxPendingBytes: 15_000 });
    expect(writer).toBeDefined();
    if (!writer) return;
    const session = (sessionId: string, hits: number) => ({
      session: { sessionId, principal: 'owner', createdAt: 1, expiresAt: Number.MAX_SAFE_INTEGER, imageId: null, language: undefined, total: hits, stored: hits },
      hits: packSessionHits({ cardIds: Array.from({ length: hits }, (_, i) => 1_000_000 + i * 37) }),
    });
    const budget = { maxSessionsPerOwner: 1_000, maxTotalBytes: 1e9 };
    const cell = new Int32Array(lock);
    try {
      // The thread up before the lock is taken.
      await writer.write([session('0', 1)], budget);
      Atomics.store(cell, 0, 1);
      // ~10 KB of packed hits (a byte a hit here): within the bound, waiting for the lock.
      const first = writer.write([session('a', 10_000)], budget);
      // Another ~10 KB would pass 15,000 bytes: refused now, without waiting.
      await expect(writer.write([session('b', 10_000)], budget)).rejects.toThrow(/session writer is behind/);
      Atomics.store(cell, 0, 0);
      Atomics.notify(cell, 0);
      await first;
      // Room again once the first is stored.
      await writer.write([session('c', 10_000)], budget);
      const stored = new Database(join(dir, 'sessions.db'), { readonly: true });
      try {
        expect(stored.prepare('SELECT session_id FROM sessions ORDER BY seq').pluck().all()).toEqual(['0', 'a', 'c']);
      } finally {
        stored.close();
      }
    } finally {
      Atomics.store(cell, 0, 0);
      Atomics.notify(cell, 0);
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
