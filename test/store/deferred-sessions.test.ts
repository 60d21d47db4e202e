/**
 * Sessions stored after answering (a SessionBatcher as the search service's session sink, `catalog
 * serve`'s main thread): the searches of one turn of the event loop are stored together on the
 * next, and a session is always found, by paging it at once or after the catalog is closed.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { openSessionDatabase, SqliteSessionStore } from '../../src/adapters/sqlite/session-store.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Clock, SessionBatchWriter, SessionStore } from '../../src/core/ports.js';
import { SESSION_BATCH_WINDOW_MS, SessionBatcher } from '../../src/http/pool/session-batcher.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

/** A session sink of `catalog serve`'s kind: batches stored on this thread, or handed to `writer`. */
function batched(writer?: SessionBatchWriter) {
  return { sessionSink: (sessions: SessionStore, clock: Clock) => new SessionBatcher({ sessions, clock, writer }) };
}

describe('deferred session writes', () => {
  let dir: string;
  let catalog: Catalog;

  beforeEach(async () => {
    dir = tempDir('catalog-defer-');
    catalog = openCatalog({ dataDir: dir, ...batched() });
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 30 }, (_, i) => ({ part_id: `p${String(i).padStart(2, '0')}`, name: { en: `Cog ${i}` } })));
  });
  afterEach(async () => {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sessions in the data directory's sessions.db, read through a connection of its own. */
  function storedSessions(): number {
    const store = new SqliteSessionStore(openSessionDatabase(join(dir, 'sessions.db')));
    try {
      return (store.db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    } finally {
      store.db.close();
    }
  }

  it('stores the sessions of one turn together, after answering, and pages one at once', async () => {
    const sessions = (catalog.search as unknown as { sessions: SqliteSessionStore }).sessions;
    const many = vi.spyOn(sessions, 'createMany');
    const answers = await Promise.all(['cog', 'cog 1', 'cog 2'].map((text) => catalog.search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 5 } })));
    expect(storedSessions()).toBe(0);
    // Paging reads what is pending first.
    const page = await catalog.search.searchState(LOCAL_OWNER, answers[0]?.sessionId ?? '', { skip: 5, limit: 5 });
    expect(page.results.map((r) => r.id)).toEqual(['p05', 'p06', 'p07', 'p08', 'p09']);
    expect(storedSessions()).toBe(3);
    expect(many).toHaveBeenCalledTimes(1);
    expect(many.mock.calls[0]?.[0]).toHaveLength(3);
  });

  it('a batch that cannot be stored loses those sessions only (404, as expired ones), and the next batch is stored', async () => {
    const sessions = (catalog.search as unknown as { sessions: SqliteSessionStore }).sessions;
    vi.spyOn(sessions, 'createMany').mockRejectedValueOnce(Object.assign(new Error('SQLITE_FULL: database or disk is full'), { code: 'SQLITE_FULL' }));
    const lost = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog' }, resultOptions: { limit: 5 } });
    expect(lost.resultsTotalCount).toBe(30); // the answer itself was right
    await expect(catalog.search.searchState(LOCAL_OWNER, lost.sessionId)).rejects.toMatchObject({ status: 404 });
    const kept = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog 1' } });
    expect((await catalog.search.searchState(LOCAL_OWNER, kept.sessionId)).resultsTotalCount).toBe(kept.resultsTotalCount);
    expect(storedSessions()).toBe(1);
  });

  it('stores them on the next turn without a read, and on close', async () => {
    await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(storedSessions()).toBe(1);
    const last = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog 3' } });
    await catalog.close();
    catalog = openCatalog({ dataDir: dir });
    expect((await catalog.search.searchState(LOCAL_OWNER, last.sessionId)).resultsTotalCount).toBe(last.resultsTotalCount);
    expect(storedSessions()).toBe(2);
  });
});

describe('deferred session writes handed to a writer (catalog serve\'s session-writer thread)', () => {
  let dir: string;
  let catalog: Catalog;
  const batches: number[] = [];

  beforeEach(async () => {
    dir = tempDir('catalog-defer-writer-');
    batches.length = 0;
    // A writer that stores through a connection of its own, as the thread does, and records each batch's size.
    const store = new SqliteSessionStore(openSessionDatabase(join(dir, 'sessions.db')));
    catalog = openCatalog({
      dataDir: dir,
      ...batched(async (sessions, budget) => {
        batches.push(sessions.length);
        await store.createMany(sessions, budget);
      }),
    });
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 30 }, (_, i) => ({ part_id: `p${String(i).padStart(2, '0')}`, name: { en: `Cog ${i}` } })));
  });
  afterEach(async () => {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gathers the sessions of a few milliseconds into one hand-over, and pages one at once', async () => {
    // The window's timer stands still until advanced, however slow the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => void vi.useRealTimers());
    const first = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog' }, resultOptions: { limit: 5 } });
    // Later turns of the event loop, within the window: the same batch.
    await new Promise((resolve) => setImmediate(resolve));
    await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog 1' } });
    await new Promise((resolve) => setImmediate(resolve));
    await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog 2' } });
    expect(batches).toEqual([]);
    const page = await catalog.search.searchState(LOCAL_OWNER, first.sessionId, { skip: 5, limit: 5 });
    expect(page.results.map((r) => r.id)).toEqual(['p05', 'p06', 'p07', 'p08', 'p09']);
    expect(batches).toEqual([3]);
    // Without a read, the window's end hands them over.
    await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog 3' } });
    await vi.advanceTimersByTimeAsync(SESSION_BATCH_WINDOW_MS - 1);
    expect(batches).toEqual([3]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([3, 1]);
  });

  it('hands over at once from 64 pending sessions', async () => {
    await Promise.all(Array.from({ length: 70 }, (_, i) => catalog.search.search(LOCAL_OWNER, { matches: { text: `cog ${i % 30}` } })));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches[0]).toBeGreaterThanOrEqual(64);
    await vi.waitFor(() => expect(batches.reduce((a, b) => a + b, 0)).toBe(70));
  });

  it('hands each batch to a session writer at once, not behind the previous one still being stored (the writer bounds what waits)', async () => {
    const dir2 = tempDir('catalog-defer-writer-');
    const batches: number[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writer = openCatalog({
      dataDir: dir2,
      // A writer that takes every batch and stores none until released.
      ...batched(async (sessions) => {
        batches.push(sessions.length);
        await held;
      }),
    });
    try {
      await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p1', name: { en: 'Cog' } }]);
      await writer.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
      const first = writer.search.flushSessions();
      await writer.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
      const second = writer.search.flushSessions();
      await new Promise((resolve) => setImmediate(resolve));
      expect(batches).toEqual([1, 1]);
      release();
      await Promise.all([first, second]);
    } finally {
      release();
      await writer.close();
      rmSync(dir2, { recursive: true, force: true });
    }
  });
});
