/**
 * The PostgreSQL store answers a request's reads of attributes, organizations and settings from
 * what it keeps for the version read with the request's token (core/request-scope.ts): a request
 * that finds them unchanged reads them with no statement of its own, and any change, through any
 * connection, or the request's own write, is read afresh. Statements are counted as the driver
 * sends them, in this process.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPostgresStores, type PostgresStores } from '../../src/adapters/postgres/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import type { Attribute } from '../../src/api/schemas.js';
import { withRequestScope } from '../../src/core/request-scope.js';
import { createTestDatabase, createTestSchema, postgresAvailable } from '../services/services.js';

const attribute = (id: string): Attribute => ({ attribute_id: id, type: 'text', searchable: true, filterable: true } as unknown as Attribute);

describe.skipIf(!postgresAvailable())('PostgreSQL settings kept per request', () => {
  let stores: PostgresStores;
  let other: pg.Client;
  const sent: string[] = [];
  /** While set, the answer of every token read sent meanwhile is held back until it resolves (the read itself is sent at once). */
  let tokenAnswersWait: Promise<void> | undefined;

  /** One request: the token read, then the reads every request makes; resolves what they answered and the statements sent. */
  const request = () => withRequestScope(async () => {
    const from = sent.length;
    const token = await stores.catalog.findTokenByHash('hash-of-reader');
    const attributes = await stores.catalog.attributesById();
    const organizations = await stores.catalog.allOrganizations();
    const maintenance = await stores.catalog.getSetting('maintenance');
    return { token, attributes: [...attributes.keys()], organizations: [...organizations.keys()], maintenance, statements: sent.length - from };
  });

  beforeAll(async () => {
    const { url } = await createTestSchema(await createTestDatabase('settings_cache'));
    stores = await openPostgresStores(url, { clock: systemClock(), max: 4 });
    other = new pg.Client({ connectionString: url });
    await other.connect();
    await stores.catalog.createToken({ name: 'reader', secretHash: 'hash-of-reader', roles: ['factoryWorker'], organization: null, scopes: null, createdAt: 1, expiresAt: null, lastUsedAt: null });
    await stores.catalog.upsertAttributes([attribute('color')], (item) => ({ kind: 'write', value: item as Attribute, created: true }));
    await stores.catalog.ensureOrganizations(['north']);
    const send = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (text !== undefined && this !== other) sent.push(text);
      const answer = (send as (...a: unknown[]) => unknown).apply(this, args);
      const held = tokenAnswersWait;
      return held && text?.includes('JOIN tokens') ? held.then(() => answer) : answer;
    } as typeof send);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await other?.end();
    await stores?.close();
  });

  it('reads them with the token alone while nothing changed them', async () => {
    const first = await request();
    expect(first).toMatchObject({ attributes: ['color'], organizations: ['north'], maintenance: undefined });
    expect(first.token?.name).toBe('reader');
    const second = await request();
    expect(second).toMatchObject({ attributes: ['color'], organizations: ['north'], maintenance: undefined, statements: 1 });
  });

  it('reads them afresh after a change through another connection (another server)', async () => {
    await request();
    await other.query("INSERT INTO attributes (attribute_id, body) VALUES ('size', $1)", [JSON.stringify(attribute('size'))]);
    await other.query("INSERT INTO settings (key, value) VALUES ('maintenance', 'on') ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    const after = await request();
    expect(after).toMatchObject({ attributes: ['color', 'size'], maintenance: 'on' });
    await other.query("UPDATE settings SET value = 'off' WHERE key = 'maintenance'");
    expect((await request()).maintenance).toBe('off');
  });

  it('never answers a state from what was kept for another after a backup is restored under it', async () => {
    const before = await request();
    // A restored backup brings back an older value of the version (a count would then count again
    // through the value kept here), and a write follows.
    const kept = (await other.query<{ version: string }>("SELECT version FROM change_counters WHERE name = 'settings'")).rows[0]?.version;
    await other.query("UPDATE change_counters SET version = version - 1 WHERE name = 'settings'");
    await other.query("INSERT INTO attributes (attribute_id, body) VALUES ('weight', $1)", [JSON.stringify(attribute('weight'))]);
    const now = (await other.query<{ version: string }>("SELECT version FROM change_counters WHERE name = 'settings'")).rows[0]?.version;
    expect(now).not.toBe(kept);
    const after = await request();
    expect(after.attributes).toEqual([...before.attributes, 'weight']);
  });

  it('reads afresh, in the same request, what the request itself wrote', async () => {
    await request();
    const seen = await withRequestScope(async () => {
      await stores.catalog.findTokenByHash('hash-of-reader');
      expect(await stores.catalog.getSetting('maintenance')).toBe('off');
      await stores.catalog.setSetting('maintenance', 'on');
      return stores.catalog.getSetting('maintenance');
    });
    expect(seen).toBe('on');
    // A write transaction of the request (the catalog write lock), after its reads were kept.
    await request();
    const attributes = await withRequestScope(async () => {
      await stores.catalog.findTokenByHash('hash-of-reader');
      expect([...(await stores.catalog.attributesById()).keys()]).not.toContain('depth');
      await stores.catalog.upsertAttributes([attribute('depth')], (item) => ({ kind: 'write', value: item as Attribute, created: true }));
      return [...(await stores.catalog.attributesById()).keys()];
    });
    expect(attributes).toContain('depth');
    await stores.catalog.setSetting('maintenance', 'off');
  });

  it('keeps nothing for code outside a request (the CLI, the writer thread): each read is a statement', async () => {
    const from = sent.length;
    await stores.catalog.attributesById();
    await stores.catalog.attributesById();
    await stores.catalog.getSetting('maintenance');
    await stores.catalog.getSetting('maintenance');
    expect(sent.length - from).toBe(4);
  });

  it('answers an unknown token as unknown', async () => {
    expect(await withRequestScope(() => stores.catalog.findTokenByHash('no-such-hash'))).toBeUndefined();
  });

  it('reads the tokens of requests that arrive together in one statement, each answered with its own', async () => {
    await stores.catalog.createToken({ name: 'writer', secretHash: 'hash-of-writer', roles: ['dataContributor'], organization: null, scopes: null, createdAt: 1, expiresAt: null, lastUsedAt: null });
    await stores.catalog.createToken({ name: 'gone', secretHash: 'hash-of-gone', roles: ['factoryWorker'], organization: null, scopes: null, createdAt: 1, expiresAt: null, lastUsedAt: null });
    expect(await stores.catalog.revokeToken('gone')).toBe(true);
    const hashes = Array.from({ length: 24 }, (_, i) => ['hash-of-reader', 'hash-of-writer', 'hash-of-gone', `unknown-${i}`][i % 4] as string);
    const from = sent.length;
    const found = await Promise.all(hashes.map((hash) => withRequestScope(async () => (await stores.catalog.findTokenByHash(hash))?.name ?? null)));
    expect(found).toEqual(hashes.map((hash) => ({ 'hash-of-reader': 'reader', 'hash-of-writer': 'writer' } as Record<string, string>)[hash] ?? null));
    // The first goes at once, the other 23 together in the next statement.
    expect(sent.slice(from).filter((text) => /FROM tokens|JOIN tokens/.test(text)).length).toBeLessThanOrEqual(2);
  });

  it('sees a revocation committed before the request came, though a read of the same token was on its way', async () => {
    await stores.catalog.createToken({ name: 'brief', secretHash: 'hash-of-brief', roles: ['factoryWorker'], organization: null, scopes: null, createdAt: 1, expiresAt: null, lastUsedAt: null });
    let release = () => {};
    tokenAnswersWait = new Promise<void>((resolve) => { release = resolve; });
    try {
      // Read in a snapshot taken before the revocation; its answer arrives after it.
      const from = sent.length;
      const earlier = withRequestScope(() => stores.catalog.findTokenByHash('hash-of-brief'));
      while (!sent.slice(from).some((text) => text.includes('JOIN tokens'))) await new Promise((resolve) => setImmediate(resolve));
      await other.query("DELETE FROM tokens WHERE name = 'brief'");
      const later = withRequestScope(() => stores.catalog.findTokenByHash('hash-of-brief'));
      tokenAnswersWait = undefined;
      release();
      expect((await earlier)?.name).toBe('brief');
      expect(await later).toBeUndefined();
    } finally {
      tokenAnswersWait = undefined;
      release();
    }
  });
});
