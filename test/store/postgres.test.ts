/**
 * The store contract suite (store-contract.ts) against the PostgreSQL adapter: one
 * database for this file on the throwaway test cluster (test/services), a fresh schema per test,
 * the FileBlobStore beside it (the S3 BlobStore has its own run in s3-blob-store.test.ts). Also
 * what only a networked store has: migrations run once when several servers open at the same time,
 * and decide callbacks see each other's commits.
 * Skipped, loudly (global-setup.ts), when PostgreSQL cannot be started.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileBlobStore } from '../../src/adapters/blobs/file-blob-store.js';
import { openPool } from '../../src/adapters/postgres/database.js';
import { migratePostgres, PG_MIGRATIONS } from '../../src/adapters/postgres/migrations.js';
import { openPostgresStores } from '../../src/adapters/postgres/stores.js';
import { EMPTIED_TERMS_KEPT_VERSIONS } from '../../src/adapters/postgres/search/engine-store.js';
import { systemClock } from '../../src/adapters/system.js';
import type { StoredPart } from '../../src/core/model.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable, readSchemaSeed, resetTestSchema, type SchemaSeed } from '../services/services.js';
import { describeStoreContract } from './store-contract.js';

const available = postgresAvailable();
let database = '';

describe.skipIf(!available)('PostgreSQL store', () => {
  beforeAll(async () => {
    database = await createTestDatabase('store');
  });

  /**
   * One migrated schema for every contract test, put back to its freshly migrated state
   * (resetTestSchema) before each, as a new schema would be, without its ~1 s of migrations.
   */
  let migrated: { url: string; seed: SchemaSeed } | undefined;
  describeStoreContract('PostgreSQL', async () => {
    if (migrated) await resetTestSchema(migrated.url, migrated.seed);
    else {
      const { url, schema } = await createTestSchema(database);
      await (await openPostgresStores(url, { clock: systemClock(), max: 1 })).close();
      migrated = { url, seed: await readSchemaSeed(url, schema) };
    }
    const { url } = migrated;
    const blobDir = mkdtempSync(join(tmpdir(), 'store-contract-pg-blobs-'));
    const open = async () => ({ stores: await openPostgresStores(url, { clock: systemClock(), max: 4 }), blobs: new FileBlobStore(blobDir) });
    return {
      ...(await open()),
      reopen: open,
      async cleanup() {
        rmSync(blobDir, { recursive: true, force: true });
      },
    };
  });

  describe('several servers on one database', () => {
    it('migrate once when they open at the same time', async () => {
      const { url, schema } = await createTestSchema(database);
      const opened = await Promise.all(Array.from({ length: 4 }, () => openPostgresStores(url, { clock: systemClock(), max: 2 })));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const versions = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      await client.end();
      expect(versions.rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
      await Promise.all(opened.map((s) => s.close()));
      await dropTestSchema(database, schema);
    });

    it('serialise decide callbacks: concurrent read-modify-writes through two servers lose no update', async () => {
      const { url, schema } = await createTestSchema(database);
      const a = await openPostgresStores(url, { clock: systemClock(), max: 4 });
      const b = await openPostgresStores(url, { clock: systemClock(), max: 4 });
      const counter = (n: number): StoredPart => ({ part_id: 'counter', serviceId: 's', name: { en: String(n) }, attributes: [], createdAt: 1, modifiedAt: 1 + n });
      await a.catalog.upsertParts([{ part_id: 'counter' }], () => ({ kind: 'write', value: counter(0), created: true }));
      // Each write reads the stored count and writes count + 1: without serialisation, updates are lost.
      const bump = (s: typeof a) => s.catalog.upsertParts([{ part_id: 'counter' }], (_i, existing) => ({ kind: 'write', value: counter(Number(existing?.name.en) + 1), created: false }));
      await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 === 0 ? a : b)));
      expect((await b.catalog.getParts(['counter']))[0]?.name.en).toBe('20');
      const hits = await a.searchIndex.searchText({ words: [{ tokens: ['20'], prefix: false, typo: false }], visibleValues: ['factoryWorker'], filters: [], ctx: { principal: { name: 'x', roles: ['factoryWorker'], organization: null } as never, attributes: new Map(), organizations: new Map(), organization: undefined } }, 10);
      expect(hits.total).toBe(1);
      await a.close();
      await b.close();
      await dropTestSchema(database, schema);
    });

    it('number changes in commit order: a reader following the feed while two servers write never passes over a number', async () => {
      const { url, schema } = await createTestSchema(database);
      const a = await openPostgresStores(url, { clock: systemClock(), max: 4 });
      const b = await openPostgresStores(url, { clock: systemClock(), max: 4 });
      const reader = await openPostgresStores(url, { clock: systemClock(), max: 2 });
      const put = (s: typeof a, id: string) => s.catalog.upsertParts([{ part_id: id }], () => ({ kind: 'write', value: { part_id: id, serviceId: 's', name: { en: id }, attributes: [], createdAt: 1, modifiedAt: 1 }, created: true }));
      let writing = true;
      const writes = Promise.all(Array.from({ length: 40 }, (_, i) => (i % 5 === 4
        // The maintenance setting is written without the catalog write lock: the counter row alone orders it.
        ? (i % 2 === 0 ? a : b).catalog.setSetting('maintenance', i % 10 === 4 ? 'on' : 'off')
        : put(i % 2 === 0 ? a : b, `p${i}`)))).finally(() => (writing = false));
      const seen: number[] = [];
      let next = 0;
      while (writing || seen.length === 0 || next < (await reader.changes.changesSince(next, 1, undefined)).latest) {
        const page = await reader.changes.changesSince(next, 1000, undefined);
        for (const c of page.changes) seen.push(c.change);
        next = page.changes.at(-1)?.change ?? next;
      }
      await writes;
      const last = (await reader.changes.changesSince(next, 1000, undefined)).changes.map((c) => c.change);
      seen.push(...last);
      // Every number once, in order, none skipped: what a reader saw was never overtaken by a lower number committing later.
      expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
      expect(seen.length).toBeGreaterThanOrEqual(32);
      await Promise.all([a.close(), b.close(), reader.close()]);
      await dropTestSchema(database, schema);
    });

    it('see a write through the other server in the search engine at once (its caches follow engine_stats.version)', async () => {
      const { url, schema } = await createTestSchema(database);
      const a = await openPostgresStores(url, { clock: systemClock(), max: 2 });
      const b = await openPostgresStores(url, { clock: systemClock(), max: 2 });
      const q = (word: string) => ({ words: [{ tokens: [word], prefix: false, typo: false }], visibleValues: ['factoryWorker' as const], filters: [], ctx: { principal: { name: 'x', roles: ['factoryWorker'], organization: null } as never, attributes: new Map(), organizations: new Map(), organization: undefined } });
      const put = (id: string, name: string, at: number) => a.catalog.upsertParts([{ part_id: id }], () => ({ kind: 'write', value: { part_id: id, serviceId: 's', name: { en: name }, attributes: [], createdAt: at, modifiedAt: at }, created: true }));
      await put('p1', 'Impeller', 1);
      expect((await b.searchIndex.searchText(q('impeller'), 10)).total).toBe(1); // b's cache is warm now
      await put('p2', 'Impeller housing', 2);
      await put('p1', 'Rotor', 3);
      const hits = await b.searchIndex.searchText(q('impeller'), 10);
      expect(hits.total).toBe(1);
      expect((await b.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(['p2']);
      await a.close();
      await b.close();
      await dropTestSchema(database, schema);
    });
  });

  /**
   * Two servers on a fresh schema: `put` writes a part named `name` through a, `found` searches a
   * word through b (part ids, sorted), `count` runs a count query; dropped afterwards.
   */
  async function withTwoServers(run: (t: { client: pg.Client; put: (id: string, name: string) => Promise<unknown>; found: (word: string) => Promise<string[]>; count: (sql: string) => Promise<number> }) => Promise<void>): Promise<void> {
    const { url, schema } = await createTestSchema(database);
    const a = await openPostgresStores(url, { clock: systemClock(), max: 2 });
    const b = await openPostgresStores(url, { clock: systemClock(), max: 2 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const q = (word: string) => ({ words: [{ tokens: [word], prefix: false, typo: false }], visibleValues: ['factoryWorker' as const], filters: [], ctx: { principal: { name: 'x', roles: ['factoryWorker'], organization: null } as never, attributes: new Map(), organizations: new Map(), organization: undefined } });
      await run({
        client,
        found: async (word) => (await b.searchIndex.readCards((await b.searchIndex.searchText(q(word), 10)).cardIds)).map((c) => c.partId).sort(),
        put: (id, name) => a.catalog.upsertParts([{ part_id: id }], () => ({ kind: 'write', value: { part_id: id, serviceId: 's', name: { en: name }, attributes: [], createdAt: 1, modifiedAt: 1 }, created: true })),
        count: async (sql) => Number((await client.query<{ n: string }>(sql)).rows[0]?.n),
      });
    } finally {
      await client.end();
      await a.close();
      await b.close();
      await dropTestSchema(database, schema);
    }
  }

  it('lets a term a write emptied leave the dictionary and the vocabulary, and another server never finds a part by a word it lost', async () => {
    await withTwoServers(async ({ put, found, count }) => {
      await put('p1', 'Impeller');
      expect(await found('impeller')).toEqual(['p1']); // b keeps the word's list
      await put('p1', 'Stator');
      const before = await count('SELECT count(*) AS n FROM engine_terms');
      // 1,000 renames, each leaving a word (and its name's exact term) without a posting.
      // Letter words (the typo vocabulary holds no word with a digit), each its own.
      const word = (i: number) => `gear${[i % 26, Math.floor(i / 26) % 26, Math.floor(i / 676) % 26].map((k) => String.fromCharCode(97 + k)).join('')}`;
      for (let i = 0; i < 1000; i++) await put('p2', `Rotor ${word(i)}`);
      // Only the terms emptied within the last versions a reader may be behind stay: three per
      // rename (the word, the name's exact term, the pair "rotor gear…").
      expect(await count('SELECT count(*) AS n FROM engine_terms') - before).toBeLessThan(3 * (EMPTIED_TERMS_KEPT_VERSIONS + 32));
      expect(await count("SELECT count(*) AS n FROM search_terms WHERE term LIKE 'gear%'")).toBeLessThan(EMPTIED_TERMS_KEPT_VERSIONS + 32);
      expect(await count("SELECT count(*) AS n FROM search_term_keys WHERE term LIKE 'gear%'")).toBeLessThan(12 * (EMPTIED_TERMS_KEPT_VERSIONS + 32));
      expect(await count("SELECT count(*) AS n FROM engine_terms WHERE term = 'impeller'")).toBe(0);
      // b is more writes behind than emptied terms are kept: it keeps no list of a word that left.
      expect(await found('impeller')).toEqual([]);
      expect(await found('stator')).toEqual(['p1']);
      // The word comes back under a new id, and b finds it there.
      await put('p3', 'Impeller');
      expect(await found('impeller')).toEqual(['p3']);
      expect(await found(word(999))).toEqual(['p2']);
      expect(await found(word(0))).toEqual([]);
    });
  });

  it("leaves a stored term's dictionary row as it is when a write adds to its postings; another server still sees the change, and the log naming it is pruned", async () => {
    await withTwoServers(async ({ client, put, found, count }) => {
      const row = async () => (await client.query<{ ctid: string; xmin: string }>("SELECT ctid::text, xmin::text FROM engine_terms WHERE term = 'impeller'")).rows[0];
      await put('p1', 'Impeller');
      expect(await found('impeller')).toEqual(['p1']); // b keeps the word's list
      const stored = await row();
      await put('p2', 'Impeller housing');
      await put('p1', 'Impeller blade');
      // No new row version of the term for a write to its postings (no dead row to vacuum)...
      expect(await row()).toEqual(stored);
      // ...and b, whose cache held the list, sees both writes.
      expect(await found('impeller')).toEqual(['p1', 'p2']);
      expect(await found('blade')).toEqual(['p1']);
      for (let i = 0; i < 600; i++) await put('p3', `Rotor ${i % 2 === 0 ? 'left' : 'right'}`);
      const logged = await count('SELECT count(*) AS n FROM engine_term_changes');
      expect(logged).toBeGreaterThan(0);
      expect(logged).toBeLessThanOrEqual(EMPTIED_TERMS_KEPT_VERSIONS + 16);
      expect(await found('right')).toEqual(['p3']);
      expect(await found('left')).toEqual([]);
    });
  });

  it("records a statement's part changes in the order it wrote them, numbered on from the feed, a webhook delivery each, and prunes past the retention", async () => {
    const { url, schema } = await createTestSchema(database);
    const a = await openPostgresStores(url, { clock: systemClock(), max: 2 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("INSERT INTO webhooks (webhook_id, url, secret, types, created_at) VALUES ('parts', 'http://127.0.0.1:9/', 'x', '[\"part\"]', 0), ('images', 'http://127.0.0.1:9/', 'x', '[\"image\"]', 0), ('all', 'http://127.0.0.1:9/', 'x', NULL, 0)");
      const write = (ids: string[], name: string) => a.catalog.upsertParts(ids.map((part_id) => ({ part_id })), (item) => ({ kind: 'write', value: { part_id: item.part_id, serviceId: 's', name: { en: name }, attributes: [], createdAt: 1, modifiedAt: 2 }, created: true }));
      await write(['p3', 'p1', 'p2'], 'Impeller');
      await write(['p2', 'p4'], 'Stator'); // one update, one insert: two statements
      await a.catalog.deleteParts(['p1', 'p3'], () => ({ kind: 'write', value: null, created: false }));
      const changes = (await client.query<{ change: string; type: string; id: string; op: string }>('SELECT change, type, id, op FROM changes ORDER BY change')).rows;
      // The store inserts a batch's new parts, then updates the stored ones.
      expect(changes.slice(0, 5).map((c) => [Number(c.change), c.id, c.op])).toEqual([[1, 'p3', 'upsert'], [2, 'p1', 'upsert'], [3, 'p2', 'upsert'], [4, 'p4', 'upsert'], [5, 'p2', 'upsert']]);
      expect(changes.slice(5).map((c) => [c.id, c.op]).sort()).toEqual([['p1', 'delete'], ['p3', 'delete']]);
      expect(changes.slice(5).map((c) => Number(c.change))).toEqual([6, 7]);
      expect(new Set(changes.map((c) => c.type))).toEqual(new Set(['part']));
      const outbox = (await client.query<{ webhook_id: string; n: string; first: string; last: string }>('SELECT webhook_id, count(*) AS n, min(change) AS first, max(change) AS last FROM webhook_outbox GROUP BY webhook_id ORDER BY webhook_id')).rows;
      expect(outbox.map((r) => [r.webhook_id, Number(r.n), Number(r.first), Number(r.last)])).toEqual([['all', 7, 1, 7], ['parts', 7, 1, 7]]);
      // A statement whose numbers pass a thousand prunes what the retention (0 s here) lets go.
      await client.query("INSERT INTO settings (key, value) VALUES ('change_retention_seconds', '0') ON CONFLICT (key) DO UPDATE SET value = excluded.value");
      await client.query('DELETE FROM webhooks');
      await write(Array.from({ length: 1000 }, (_, i) => `bulk${i}`), 'Gasket');
      const feed = (await client.query<{ first: string; last: string; pruned: string }>('SELECT min(change) AS first, max(change) AS last, (SELECT pruned_through FROM change_log) AS pruned FROM changes')).rows[0]!;
      expect(Number(feed.last)).toBe(1007);
      expect(Number(feed.pruned)).toBeGreaterThanOrEqual(7);
      expect(Number(feed.first)).toBeGreaterThan(Number(feed.pruned));
    } finally {
      await client.end();
      await a.close();
      await dropTestSchema(database, schema);
    }
  });

  it("runs the catalog's statements without JIT compilation, whatever the URL's options set", async () => {
    // A search batch's prefix ranges were planned as millions of rows and JIT-compiled: 100-300 ms
    // of compilation for a 15 ms query.
    const { url } = await createTestSchema(database);
    const pool = openPool(url, { max: 2 });
    try {
      const clients = await Promise.all([pool.connect(), pool.connect()]);
      for (const client of clients) {
        expect((await client.query<{ jit: string }>('SHOW jit')).rows[0]?.jit).toBe('off');
        // The URL's own options (the test schema's search_path) still hold.
        expect((await client.query<{ search_path: string }>('SHOW search_path')).rows[0]?.search_path).toMatch(/^s_[0-9a-f]+$/u);
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('indexes a catalog written before the search engine (migration 4) when it opens', async () => {
    const { url, schema } = await createTestSchema(database);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await migratePostgres(pool, PG_MIGRATIONS.filter((m) => m.version <= 3));
    // What the tsvector-era program left: parts, their cards and current rows (search_docs is dropped by migration 4).
    for (const [pk, id, name] of [[1, 'v1', 'Valve body'], [2, 'v2', 'Valve']] as const) {
      await pool.query('INSERT INTO parts (pk, part_id, service_id, name, attributes, created_at, modified_at) VALUES ($1, $2, $3, $4, $5, 1, 1)', [pk, id, `s-${id}`, JSON.stringify({ en: name }), '[]']);
      await pool.query('INSERT INTO search_cards (id, part_pk, part_id, service_id, names, created_at, modified_at) VALUES ($1, $1, $2, $3, $4, 1, 1)', [pk, id, `s-${id}`, JSON.stringify({ en: name })]);
      await pool.query('INSERT INTO search_current (part_pk, card_id, holder, org_doc) VALUES ($1, $1, false, false)', [pk]);
    }
    await pool.end();
    const stores = await openPostgresStores(url, { clock: systemClock(), max: 2 });
    const hits = await stores.searchIndex.searchText({ words: [{ tokens: ['valve'], prefix: false, typo: false }], visibleValues: ['factoryWorker'], filters: [], ctx: { principal: { name: 'x', roles: ['factoryWorker'], organization: null } as never, attributes: new Map(), organizations: new Map(), organization: undefined } }, 10);
    expect(hits.total).toBe(2);
    // Ranked by the engine (BM25: the shorter name first), not by part id.
    expect((await stores.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(['v2', 'v1']);
    await stores.close();
    await dropTestSchema(database, schema);
  });
});
