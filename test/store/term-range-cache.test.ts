/**
 * The SQLite reader's memory of dictionary ranges (term-id-cache.ts `range`): a prefix search and
 * the names beginning with a query read their range once; a write that adds a term the range
 * would hold puts it in the kept range, and one that changes the postings of a term it holds makes
 * the names list built from it again, so a new or renamed part is ranked at once as it is now.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { PgEngineReader } from '../../src/adapters/postgres/search/engine-reader.js';
import { LeveledTerms } from '../../src/adapters/sqlite/search/leveled-terms.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog, openCatalogAt } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';
import { createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

describe('the dictionary ranges a reader keeps', () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = openCatalog({ dataDir: tempDir('catalog-range-cache-'), searchTuning: { cacheSize: 0 } });
    const parts = Array.from({ length: 30 }, (_, i) => ({ part_id: `d${i}`, name: { en: `Dimage camera DX${1000 + i}` } }));
    expect(await catalog.service.upsertParts(LOCAL_OWNER, [...parts, { part_id: 'other', name: { en: 'Tripod with dimage mount' } }])).toMatchObject({ errors: {} });
  });
  afterAll(async () => {
    await catalog?.close();
  });

  const ids = async (text: string) => (await catalog.search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 50 } })).results.map((r) => r.id);

  it('reads a range once, again only after a write adds a term it holds, and finds the new part first', async () => {
    const range = vi.spyOn(LeveledTerms.prototype, 'range');
    try {
      const first = await ids('dima');
      expect(first).toHaveLength(31);
      // The names beginning with the query rank first: every camera before the tripod.
      expect(first.at(-1)).toBe('other');
      const reads = range.mock.calls.length;
      expect(reads).toBeGreaterThan(0);
      expect(await ids('dima')).toEqual(first);
      expect(range.mock.calls.length).toBe(reads);

      // A write whose terms no cached range holds keeps them.
      expect(await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'lens', name: { en: 'Zoom lens' } }])).toMatchObject({ errors: {} });
      expect(await ids('dima')).toEqual(first);
      expect(range.mock.calls.length).toBe(reads);

      // A part named with the prefix: the changed-terms log names its terms, which the kept
      // ranges take in without reading the dictionary again, and the new part ranks with the names.
      expect(await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'new', name: { en: 'Dimax flash' } }])).toMatchObject({ errors: {} });
      const after = await ids('dima');
      expect(after).toHaveLength(32);
      expect(after.indexOf('new')).toBeLessThan(after.indexOf('other'));
      expect(range.mock.calls.length).toBe(reads);
      // A prefix no search asked for before is read from the dictionary.
      expect(await ids('dimax')).toEqual(['new']);
      expect(range.mock.calls.length).toBeGreaterThan(reads);

      // A part whose name began with it is renamed: no term is added to the range, but the
      // postings of one it holds changed, so the names beginning with the query are made again.
      expect(await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'd0', name: { en: 'Tripod dimage adapter' } }])).toMatchObject({ errors: {} });
      const renamed = await ids('dima');
      expect(renamed).toHaveLength(32);
      expect(renamed.slice(-2).sort()).toEqual(['d0', 'other']);
    } finally {
      range.mockRestore();
    }
  });
});

/**
 * On PostgreSQL the reader fetches what a search missed and runs it again (a list it does not hold
 * yet is answered empty meanwhile): from a fresh reader, the names beginning with a query rank
 * first at the first search, and the names list kept from it ranks them so at the next.
 */
describe.skipIf(!postgresAvailable())('the names beginning with a query on PostgreSQL, from a fresh reader', () => {
  let database = '';
  let schema = '';
  let url = '';
  const dataDir = tempDir('catalog-range-cache-pg-');
  beforeAll(async () => {
    database = inject('postgresUrl');
    ({ schema, url } = await createTestSchema(database));
    const writer = await openCatalogAt({ dataDir, databaseUrl: url });
    const parts = Array.from({ length: 30 }, (_, i) => ({ part_id: `d${i}`, name: { en: `Dimage camera DX${1000 + i}` } }));
    // The tripod holds the word twice: by relevance alone it would come first.
    expect(await writer.service.upsertParts(LOCAL_OWNER, [...parts, { part_id: 'other', name: { en: 'Tripod dimage dimage mount' } }])).toMatchObject({ errors: {} });
    await writer.close();
  });
  afterAll(async () => {
    if (schema !== '') await dropTestSchema(database, schema);
  });

  it('ranks every part whose name begins with the query first, the first search and the next', async () => {
    const catalog = await openCatalogAt({ dataDir, databaseUrl: url, searchTuning: { cacheSize: 0 } });
    try {
      for (let round = 0; round < 2; round++) {
        const found = (await catalog.search.search(LOCAL_OWNER, { matches: { text: 'dima' }, resultOptions: { limit: 50 } })).results.map((r) => r.id);
        expect(found).toHaveLength(31);
        expect(found.at(-1), `search ${round + 1}`).toBe('other');
      }
    } finally {
      await catalog.close();
    }
  });

  it('keeps what it fetched across writes: a write elsewhere costs the next search no fetch, a new or renamed name is ranked at once', async () => {
    const catalog = await openCatalogAt({ dataDir, databaseUrl: url, searchTuning: { cacheSize: 0 } });
    const fetches = vi.spyOn(PgEngineReader.prototype as unknown as { fetch: () => Promise<void> }, 'fetch');
    try {
      const ids = async (text: string) => (await catalog.search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 50 } })).results.map((r) => r.id);
      const first = await ids('dima');
      expect(first.at(-1)).toBe('other');
      expect(fetches.mock.calls.length).toBeGreaterThan(0);
      fetches.mockClear();
      expect(await ids('dima')).toEqual(first);
      expect(fetches.mock.calls.length).toBe(0);

      // A write of terms the search does not use: its prefixes, names and lists are still held.
      expect(await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'lens', name: { en: 'Zoom lens' } }])).toMatchObject({ errors: {} });
      expect(await ids('dima')).toEqual(first);
      expect(fetches.mock.calls.length).toBe(0);

      // A part named with the prefix: ranked with the names at once (its list is fetched).
      expect(await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'new', name: { en: 'Dimax flash' } }])).toMatchObject({ errors: {} });
      const after = await ids('dima');
      expect(after).toHaveLength(32);
      expect(after.at(-1)).toBe('other');
      expect(await ids('dimax')).toEqual(['new']);

      // A part whose name began with it is renamed: the names list is made again.
      expect(await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'd0', name: { en: 'Tripod dimage adapter' } }])).toMatchObject({ errors: {} });
      const renamed = await ids('dima');
      expect(renamed).toHaveLength(32);
      expect(renamed.slice(-2).sort()).toEqual(['d0', 'other']);
    } finally {
      fetches.mockRestore();
      await catalog.close();
    }
  });
});

/**
 * The lists of a range a reader does not hold yet (the names beginning with a query: with a part
 * number in every name, one term per part) are read together, not a statement per term: a fresh
 * reader's first search of a common word read thousands of one-posting lists one by one.
 */
describe('the lists of a range, read together', () => {
  it('a first search of a prefix reads the names beginning with it in a few statements', async () => {
    const dataDir = tempDir('catalog-range-lists-');
    const writer = openCatalog({ dataDir });
    const parts = Array.from({ length: 400 }, (_, i) => ({ part_id: `n${i}`, name: { en: `Network adapter NA${10_000 + i * 37}` } }));
    expect(await writer.service.upsertParts(LOCAL_OWNER, [...parts, { part_id: 'x', name: { en: 'Cable for a network' } }])).toMatchObject({ errors: {} });
    await writer.close();
    const reader = openCatalog({ dataDir, searchTuning: { cacheSize: 0 } });
    try {
      const { default: Database } = await import('better-sqlite3');
      const probe = new Database(':memory:');
      const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { all: (...args: unknown[]) => unknown; get: (...args: unknown[]) => unknown };
      probe.close();
      const all = vi.spyOn(statementPrototype, 'all');
      const get = vi.spyOn(statementPrototype, 'get');
      try {
        const answer = await reader.search.search(LOCAL_OWNER, { matches: { text: 'netw' }, resultOptions: { limit: 5 } });
        expect(answer.resultsTotalCount).toBe(401);
        // The names beginning with the query first, the cable last.
        expect(answer.results[0]?.id).toMatch(/^n\d+$/u);
        expect(all.mock.calls.length + get.mock.calls.length).toBeLessThan(60);
      } finally {
        all.mockRestore();
        get.mockRestore();
      }
    } finally {
      await reader.close();
    }
  });
});
