/**
 * Search sessions within a budget ("Resources an attacker can exhaust" and "A search
 * session belongs to the token"): packed hit blocks, the per-token cap (oldest evicted first), the
 * total size budget, expired sessions purged by a timer with the space given back, the version-1
 * file migrated, and ownership by token identity rather than name.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSessionDatabase, SESSIONS_FILE, SqliteSessionStore } from '../../src/adapters/sqlite/session-store.js';
import { packCardIds, packScores, unpackCardIds, unpackScores } from '../../src/adapters/session-blocks.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import type { StoredSession } from '../../src/core/model.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { openCatalog } from '../../src/open-catalog.js';
import { createHarness, tempDir, type Harness } from '../helpers/harness.js';

function session(id: string, owner: string, expiresAt = Number.MAX_SAFE_INTEGER): StoredSession {
  return { sessionId: id, principal: owner, createdAt: 0, expiresAt, imageId: null, language: undefined, total: 3000, stored: 3000 };
}

/** 3,000 card ids: a ranked window, then a newest-first tail (the shape docs/search.md describes). */
function hits(seed: number): number[] {
  const ids = [987_654_321_000 + seed, 5, 1_000_000];
  for (let id = 2_000_000 + seed; ids.length < 3000; id -= 7) ids.push(id);
  return ids;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function memoryStore(): SqliteSessionStore {
  const store = new SqliteSessionStore(openSessionDatabase(':memory:'));
  closers.push(() => store.close());
  return store;
}

describe('packed hit blocks', () => {
  it('round-trips any order of ids below 2^51, including descending runs', () => {
    const ids = [0, 1, 2 ** 40 + 3, 7, 7, 2 ** 51 - 1, 0, 123_456_789];
    expect(() => packCardIds([2 ** 51])).toThrow(RangeError);
    expect(unpackCardIds(packCardIds(ids))).toEqual(ids);
    expect(unpackCardIds(packCardIds(ids), 2, 5)).toEqual(ids.slice(2, 5));
    const tail = hits(0);
    // A newest-first run with small gaps costs about one byte a hit, not eight.
    expect(packCardIds(tail).length).toBeLessThan(tail.length * 1.1);
    expect(unpackCardIds(packCardIds(tail))).toEqual(tail);
  });

  it('keeps an image search\'s scores to 1/65,535, two bytes a hit, and refuses a score outside [0, 1]', () => {
    const scores = [1, 0.99995, 0.5, 0.123456, 0];
    const packed = packScores(scores);
    expect(packed.length).toBe(10);
    unpackScores(packed).forEach((score, i) => expect(Math.abs(score - (scores[i] as number))).toBeLessThanOrEqual(1 / 131_070));
    expect(unpackScores(packed, 1, 3)).toHaveLength(2);
    expect(() => packScores([1.2])).toThrow(RangeError);
    expect(() => packScores([Number.NaN])).toThrow(RangeError);
  });

  it('reads any page of a stored session exactly', async () => {
    const store = memoryStore();
    const ids = hits(1);
    await store.create(session('s', 'token:a'), { cardIds: ids });
    expect((await store.readHits('s', 0, 10)).cardIds).toEqual(ids.slice(0, 10));
    expect((await store.readHits('s', 1020, 10)).cardIds).toEqual(ids.slice(1020, 1030));
    expect((await store.readHits('s', 2990, 100)).cardIds).toEqual(ids.slice(2990));
    expect((await store.readHits('s', 3000, 10)).cardIds).toEqual([]);
  });
});

describe('session budget', () => {
  it('keeps at most maxSessionsPerOwner sessions per owner, evicting that owner\'s oldest first', async () => {
    const store = memoryStore();
    const budget = { maxSessionsPerOwner: 3, maxTotalBytes: Number.MAX_SAFE_INTEGER };
    await store.create(session('other', 'token:b'), { cardIds: hits(0) }, budget);
    for (let i = 0; i < 5; i++) await store.create(session(`a${i}`, 'token:a'), { cardIds: hits(i) }, budget);
    expect(await store.get('a0')).toBeUndefined();
    expect(await store.get('a1')).toBeUndefined();
    for (const id of ['a2', 'a3', 'a4']) expect((await store.readHits(id, 0, 3000)).cardIds).toEqual(hits(Number(id.slice(1))));
    // Another owner's session is not touched by this owner's cap.
    expect(await store.get('other')).toBeDefined();
    expect(store.usage().sessions).toBe(4);
  });

  it('keeps the total within maxTotalBytes, evicting the oldest sessions of anyone first', async () => {
    const store = memoryStore();
    await store.create(session('probe', 'token:x'), { cardIds: hits(0) });
    const one = store.usage().bytes;
    const budget = { maxSessionsPerOwner: 1000, maxTotalBytes: one * 4 };
    for (let i = 1; i <= 10; i++) {
      await store.create(session(`s${i}`, `token:${i % 3}`), { cardIds: hits(i) }, budget);
      expect(store.usage().bytes).toBeLessThanOrEqual(budget.maxTotalBytes);
    }
    const live: string[] = [];
    for (const id of ['probe', ...Array.from({ length: 10 }, (_, i) => `s${i + 1}`)]) if (await store.get(id)) live.push(id);
    expect(live).toEqual(['s7', 's8', 's9', 's10']);
    for (const id of live) expect((await store.readHits(id, 0, 3000)).cardIds).toEqual(hits(Number(id.slice(1))));
  });

  it('20,000 searches by one token leave sessions.db within the per-token cap, each kept session readable', async () => {
    const dir = tempDir();
    const catalog = openCatalog({ dataDir: dir, searchLimits: { maxSessionsPerToken: 50, sessionPurgeIntervalMs: 0 } });
    closers.push(() => catalog.close());
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 30 }, (_, i) => ({ part_id: `p${i}`, name: { en: `Washer ${i}` } })));
    const sessions: string[] = [];
    for (let i = 0; i < 20_000; i++) sessions.push((await catalog.search.search(LOCAL_OWNER, { matches: { text: 'washer' }, resultOptions: { limit: 1 } })).sessionId);
    const kept = sessions.slice(-50);
    for (const id of kept) expect((await catalog.search.searchState(LOCAL_OWNER, id, { limit: 1000 })).results).toHaveLength(30);
    await expect(catalog.search.searchState(LOCAL_OWNER, sessions.at(-51) ?? '')).rejects.toMatchObject({ code: 'not_found' });
    const db = new Database(join(dir, SESSIONS_FILE), { readonly: true });
    closers.push(async () => void db.close());
    expect(db.prepare('SELECT count(*) FROM sessions').pluck().get()).toBe(50);
    // Far below what 20,000 unbounded sessions took (one row each plus their hits).
    expect(statSync(join(dir, SESSIONS_FILE)).size).toBeLessThan(256 * 1024);
  }, 300_000);
});

describe('expired sessions', () => {
  it('are purged by the timer without any search, and the file shrinks', async () => {
    const dir = tempDir();
    let now = 1_000_000;
    const catalog = openCatalog({
      dataDir: dir,
      clock: { nowMicros: () => now },
      searchLimits: { sessionTtlMicros: 1_000_000, sessionPurgeIntervalMs: 20, maxSessionHits: 100_000 },
    });
    closers.push(() => catalog.close());
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 1000 }, (_, i) => ({ part_id: `p${i}`, name: { en: `Washer ${i}` } })));
    // The timer runs meanwhile but finds nothing expired: the clock stands still until below.
    for (let i = 0; i < 2000; i++) await catalog.search.search(LOCAL_OWNER, { matches: { text: 'washer' } });
    const sessionsDb = join(dir, SESSIONS_FILE);
    const full = statSync(sessionsDb).size + statSync(`${sessionsDb}-wal`).size;
    const db = new Database(sessionsDb, { readonly: true });
    closers.push(async () => void db.close());
    const count = () => db.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
    expect(count()).toBe(1000);
    now += 2_000_000;
    await vi.waitFor(() => expect(count()).toBe(0), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(statSync(sessionsDb).size).toBeLessThan(full / 10), { timeout: 10_000, interval: 20 });
  });
});

describe('session database migration', () => {
  it('replaces a version-1 file (float64 blocks, owner by name) and turns on incremental vacuum', () => {
    const path = join(tempDir(), SESSIONS_FILE);
    const old = new Database(path);
    old.exec(`CREATE TABLE sessions (session_id TEXT PRIMARY KEY, principal TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
      image_id TEXT, language TEXT, total INTEGER NOT NULL, stored INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE session_hits (session_id TEXT NOT NULL, block INTEGER NOT NULL, card_ids BLOB NOT NULL, PRIMARY KEY (session_id, block)) WITHOUT ROWID;
      INSERT INTO sessions VALUES ('old', 'local', 0, 9007199254740991, NULL, NULL, 1, 1);
      PRAGMA user_version = 1;`);
    old.close();
    const db = openSessionDatabase(path);
    const store = new SqliteSessionStore(db);
    closers.push(() => store.close());
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    expect(store.usage()).toEqual({ sessions: 0, bytes: 0 });
  });

  it('gives a new file incremental vacuum, and reopening a current file writes nothing (a search paid a write and two fsyncs at open)', () => {
    const path = join(tempDir(), SESSIONS_FILE);
    const created = openSessionDatabase(path);
    expect(created.pragma('auto_vacuum', { simple: true })).toBe(2);
    created.close(); // the last connection: checkpoints and removes the WAL
    const before = statSync(path).mtimeMs;
    const db = openSessionDatabase(path);
    closers.push(async () => {
      db.close();
    });
    // A write at open would have put page 1 into a new WAL (4,152 bytes: header and one frame).
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect(statSync(path).mtimeMs).toBe(before);
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
  });

  it('adds the state column and the scores column to a version-2 file and keeps its sessions', async () => {
    const path = join(tempDir(), SESSIONS_FILE);
    const v2 = openSessionDatabase(path);
    v2.exec('ALTER TABLE sessions DROP COLUMN state; ALTER TABLE session_hits DROP COLUMN scores');
    v2.pragma('user_version = 2');
    v2.prepare("INSERT INTO sessions (session_id, owner, created_at, expires_at, image_id, language, total, stored, bytes) VALUES ('kept', 'o', 1, 99, NULL, NULL, 0, 0, 128)").run();
    v2.close();
    const db = openSessionDatabase(path);
    const store = new SqliteSessionStore(db);
    closers.push(() => store.close());
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    expect(await store.get('kept')).toMatchObject({ sessionId: 'kept', total: 0 });
    await store.create({ sessionId: 'new', principal: 'o', createdAt: 1, expiresAt: 99, imageId: null, language: undefined, total: 0, stored: 0, organization: 'acme' }, { cardIds: [] });
    expect((await store.get('new'))?.organization).toBe('acme');
    expect(db.prepare("SELECT sessions FROM session_owners WHERE owner = 'o'").pluck().get()).toBe(2);
  });

  it('counts each owner\'s sessions from a version-4 file on, through evictions and purges', async () => {
    const path = join(tempDir(), SESSIONS_FILE);
    const v4 = openSessionDatabase(path);
    v4.exec('DROP TABLE session_owners');
    v4.pragma('user_version = 4');
    const insert = v4.prepare("INSERT INTO sessions (session_id, owner, created_at, expires_at, image_id, language, total, stored, bytes) VALUES (?, ?, 1, ?, NULL, NULL, 0, 0, 128)");
    for (const [id, owner, expires] of [['a1', 'a', 10], ['a2', 'a', 10], ['a3', 'a', 99], ['b1', 'b', 10]] as const) insert.run(id, owner, expires);
    v4.close();
    const db = openSessionDatabase(path);
    const store = new SqliteSessionStore(db);
    closers.push(() => store.close());
    const counts = () => Object.fromEntries(db.prepare<[], { owner: string; sessions: number }>('SELECT owner, sessions FROM session_owners ORDER BY owner').all().map((r) => [r.owner, r.sessions]));
    expect(counts()).toEqual({ a: 3, b: 1 });
    // At the cap of 3, a fourth session of 'a' evicts a's oldest (a1), not b's.
    await store.create({ sessionId: 'a4', principal: 'a', createdAt: 1, expiresAt: 99, imageId: null, language: undefined, total: 0, stored: 0 }, { cardIds: [] }, { maxSessionsPerOwner: 3, maxTotalBytes: 2 ** 40 });
    expect(await store.get('a1')).toBeUndefined();
    expect(await store.get('b1')).toBeDefined();
    expect(counts()).toEqual({ a: 3, b: 1 });
    // Expired at 50: a2 and b1; an owner left with none has no row.
    await store.purgeExpired(50, 100);
    expect(counts()).toEqual({ a: 2 });
  });
});

describe('session ownership', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('a revoked token\'s name re-created cannot read the old sessions; a token named local cannot read local-mode sessions', async () => {
    h = await createHarness('http');
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'Washer' } }]);
    const first = await h.service.createToken(LOCAL_OWNER, { name: 'worker', roles: ['factoryWorker'] });
    const firstClient = h.withToken(first.secret);
    const { sessionId } = await firstClient.search({ matches: { text: 'washer' } });
    expect((await firstClient.searchState(sessionId)).results).toHaveLength(1);
    await h.service.revokeToken(LOCAL_OWNER, 'worker');
    const second = await h.service.createToken(LOCAL_OWNER, { name: 'worker', roles: ['factoryWorker'] });
    await expect(h.withToken(second.secret).searchState(sessionId)).rejects.toMatchObject({ status: 404 });

    const local = new LocalCatalogClient(h.catalog);
    const localSession = await local.search({ matches: { text: 'washer' } });
    expect((await local.searchState(localSession.sessionId)).results).toHaveLength(1);
    const named = await h.service.createToken(LOCAL_OWNER, { name: 'local', roles: ['catalogAdmin'] });
    const impostor = h.withToken(named.secret);
    expect(impostor).toBeInstanceOf(HttpCatalogClient);
    await expect(impostor.searchState(localSession.sessionId)).rejects.toMatchObject({ status: 404 });
    // And the other way round: local mode cannot read the token's sessions.
    const tokenSession = await impostor.search({ matches: { text: 'washer' } });
    await expect(local.searchState(tokenSession.sessionId)).rejects.toMatchObject({ status: 404 });
  });
});

describe('a damaged sessions.db (synchronous = OFF: an OS crash or a power cut can leave one)', () => {
  it('is replaced by an empty one when opened, and the catalog searches as before', async () => {
    const dir = tempDir();
    const first = openCatalog({ dataDir: dir });
    await first.service.upsertParts(LOCAL_OWNER, [{ part_id: 'cog', name: { en: 'Cog wheel' } }]);
    await first.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
    await first.close();
    writeFileSync(join(dir, SESSIONS_FILE), Buffer.alloc(8192, 0x5a)); // not a database any more
    const again = openCatalog({ dataDir: dir });
    closers.push(() => again.close());
    const found = await again.search.search(LOCAL_OWNER, { matches: { text: 'cog' } });
    expect(found.results.map((r) => r.id)).toEqual(['cog']);
    expect((await again.search.searchState(LOCAL_OWNER, found.sessionId)).resultsTotalCount).toBe(1);
  });

  it('is written without fsync', () => {
    const dir = tempDir();
    const db = openSessionDatabase(join(dir, SESSIONS_FILE));
    closers.push(async () => {
      db.close();
    });
    expect(db.pragma('synchronous', { simple: true })).toBe(0);
  });
});
