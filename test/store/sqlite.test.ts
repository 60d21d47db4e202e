/**
 * The store contract suite (store-contract.ts) against the SQLite adapter on disk, as the product
 * runs it (it also checks that every committed write survives a reopen). The in-memory databases
 * the other tests use are the same adapter on another file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FileBlobStore } from '../../src/adapters/blobs/file-blob-store.js';
import { openSqliteStores } from '../../src/adapters/sqlite/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import { describeStoreContract } from './store-contract.js';
import type { StoredPart, StoredToken } from '../../src/core/model.js';

describeStoreContract('SQLite on disk', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-contract-'));
  const open = () => ({ stores: openSqliteStores({ dataDir: dir, clock: systemClock() }), blobs: new FileBlobStore(join(dir, 'images')) });
  return {
    ...open(),
    reopen: async () => open(),
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('openSqliteStores: the data directory', () => {
  it('fails at once for a path under /proc (Node 20 recursive mkdir spins there forever)', () => {
    // A child process with a deadline: a spin would block this test's own event loop.
    const script = `import('${pathToFileURL(join(process.cwd(), 'dist/adapters/sqlite/stores.js')).href}').then((m) => {
      try { m.openSqliteStores({ dataDir: '/proc/catalog-nope/x', clock: { nowMicros: () => 1 } }); console.log('opened'); }
      catch (e) { console.log('threw ' + e.code); }
    })`;
    const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(out.signal).toBeNull();
    expect(out.stdout.trim()).toBe('threw ENOENT');
  });

  it('creates missing parents', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-dirs-'));
    const stores = openSqliteStores({ dataDir: join(dir, 'a', 'b'), clock: systemClock() });
    await stores.close();
    expect(existsSync(join(dir, 'a', 'b', 'catalog.db'))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('SqliteCatalogStore: tokens found are kept per connection', () => {
  it('a token revoked through another connection (another process, the CLI) fails at once; one created is found', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-cache-'));
    const server = openSqliteStores({ dataDir: dir, clock: systemClock() });
    const cli = openSqliteStores({ dataDir: dir, clock: systemClock() });
    try {
      const token: StoredToken = { name: 'ops', secretHash: 'a'.repeat(64), roles: ['catalogAdmin'], organization: null, scopes: null, createdAt: 1, expiresAt: null, lastUsedAt: null };
      await cli.catalog.createToken(token);
      expect((await server.catalog.findTokenByHash(token.secretHash))?.name).toBe('ops');
      expect((await server.catalog.findTokenByHash(token.secretHash))?.name).toBe('ops'); // from memory
      expect(await cli.catalog.revokeToken('ops')).toBe(true);
      // Another connection's commit is seen from the server's next turn of the event loop (its next request).
      await new Promise((resolve) => setImmediate(resolve));
      expect(await server.catalog.findTokenByHash(token.secretHash)).toBeUndefined();
      // This connection's own writes count too.
      await server.catalog.createToken({ ...token, name: 'ops2' });
      expect((await server.catalog.findTokenByHash(token.secretHash))?.name).toBe('ops2');
      await server.catalog.revokeToken('ops2');
      expect(await server.catalog.findTokenByHash(token.secretHash)).toBeUndefined();
    } finally {
      await cli.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteCatalogStore: synonym sets are kept per connection', () => {
  it('answers from memory while nothing commits, and sees another connection\'s change from its next turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'synonym-cache-'));
    const server = openSqliteStores({ dataDir: dir, clock: systemClock() });
    const cli = openSqliteStores({ dataDir: dir, clock: systemClock() });
    const write = (item: { synonym_id: string; synonyms: string[] }) => ({ kind: 'write' as const, value: item, created: true });
    try {
      await cli.catalog.upsertSynonyms([{ synonym_id: 'a', synonyms: ['bolt', 'screw'] }], write);
      const first = await server.catalog.allSynonyms();
      expect(first.map((s) => s.synonym_id)).toEqual(['a']);
      await new Promise((resolve) => setImmediate(resolve));
      expect(await server.catalog.allSynonyms()).toBe(first);
      await cli.catalog.upsertSynonyms([{ synonym_id: 'b', synonyms: ['nut', 'washer'] }], write);
      await new Promise((resolve) => setImmediate(resolve));
      expect((await server.catalog.allSynonyms()).map((s) => s.synonym_id)).toEqual(['a', 'b']);
      // This connection's own writes count at once.
      await server.catalog.deleteSynonyms(['a'], () => ({ kind: 'write', value: null, created: false }));
      expect((await server.catalog.allSynonyms()).map((s) => s.synonym_id)).toEqual(['b']);
    } finally {
      await cli.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteCatalogStore: settings are kept per connection until a commit', () => {
  it('a setting changed through another connection is read from the next turn; this connection\'s own writes at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-cache-'));
    const server = openSqliteStores({ dataDir: dir, clock: systemClock() });
    const cli = openSqliteStores({ dataDir: dir, clock: systemClock() });
    try {
      expect(await server.catalog.getSetting('maintenance')).toBeUndefined();
      await cli.catalog.setSetting('maintenance', 'on');
      await new Promise((resolve) => setImmediate(resolve));
      expect(await server.catalog.getSetting('maintenance')).toBe('on');
      await server.catalog.setSetting('maintenance', 'off');
      expect(await server.catalog.getSetting('maintenance')).toBe('off');
      expect(await server.catalog.initSetting('catalog_id', 'x')).toBe('x');
      expect(await server.catalog.getSetting('catalog_id')).toBe('x');
    } finally {
      await cli.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteCatalogStore: parts read one at a time are kept per connection until a commit', () => {
  const part = (name: string): StoredPart => ({
    part_id: 'p1',
    serviceId: '8fa2867c-2d6d-4aad-9098-9f2c512a7976',
    name: { en: name },
    attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme' } }] }],
    createdAt: 1,
    modifiedAt: 1,
  });
  const attribute = { attribute_id: 'vendor', attribute_type: 'text' as const, name: { en: 'Vendor' } };
  const writePart = (value: StoredPart) => () => ({ kind: 'write' as const, value, created: true });

  it('a part changed or deleted through another connection is read from the next turn; this connection\'s own writes at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'part-cache-'));
    const server = openSqliteStores({ dataDir: dir, clock: systemClock() });
    const cli = openSqliteStores({ dataDir: dir, clock: systemClock() });
    try {
      await cli.catalog.upsertAttributes([attribute], () => ({ kind: 'write', value: attribute as never, created: true }));
      await cli.catalog.upsertParts([{ part_id: 'p1' }], writePart(part('first')));
      const [first] = await server.catalog.getParts(['p1']);
      expect(first?.name).toEqual({ en: 'first' });
      expect((await server.catalog.getParts(['p1']))[0]).toBe(first); // from memory
      // Shared between requests, so frozen: a caller that changed it would throw, not change others' answers.
      expect(Object.isFrozen(first) && Object.isFrozen(first?.attributes[0]?.values[0]?.value)).toBe(true);
      expect(() => (first as { name: unknown }).name = {}).toThrow(TypeError);

      await cli.catalog.upsertParts([{ part_id: 'p1' }], writePart(part('second')));
      await new Promise((resolve) => setImmediate(resolve));
      expect((await server.catalog.getParts(['p1']))[0]?.name).toEqual({ en: 'second' });
      // A page of several parts takes what is kept.
      expect((await server.catalog.getParts(['p1', 'nope']))[0]?.name).toEqual({ en: 'second' });

      await cli.catalog.deleteParts(['p1'], () => ({ kind: 'write', value: null, created: false }));
      await new Promise((resolve) => setImmediate(resolve));
      expect(await server.catalog.getParts(['p1'])).toEqual([]);

      // This connection's own writes count at once, a deletion too.
      await server.catalog.upsertParts([{ part_id: 'p1' }], writePart(part('third')));
      expect((await server.catalog.getParts(['p1']))[0]?.name).toEqual({ en: 'third' });
      await server.catalog.deleteParts(['p1'], () => ({ kind: 'write', value: null, created: false }));
      expect(await server.catalog.getParts(['p1'])).toEqual([]);

      // Memory is bounded in bytes too: a part of over a sixteenth of the budget (~1 MB) is read each time.
      await server.catalog.upsertParts([{ part_id: 'p1' }], writePart(part('x'.repeat(600_000))));
      const [big] = await server.catalog.getParts(['p1']);
      expect(big?.name['en']).toHaveLength(600_000);
      expect((await server.catalog.getParts(['p1']))[0]).not.toBe(big);
      expect(Object.isFrozen(big)).toBe(false);
    } finally {
      await cli.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
