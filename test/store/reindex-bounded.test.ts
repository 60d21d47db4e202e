/**
 * A change that re-indexes every part holding an attribute (the ranking settings' attribute order,
 * an attribute made searchable or not) writes the index in bounded batches inside its one
 * transaction, not all of a catalog's parts gathered in memory at once: the index version
 * (engine_stats, one step per written batch) moves several times for a few thousand parts. And the
 * index it leaves is right across the batches, for parts holding one or several of the attributes.
 * On SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pgDriver from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog, openCatalogAt } from '../../src/open-catalog.js';
import { values } from '../helpers/search-fixtures.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

/** Parts: more than one batch of the re-index (2,000 parts) several times over. */
const PARTS = 5000;

interface Store {
  name: string;
  available: () => boolean;
  open(): Promise<{ catalog: Catalog; version: () => Promise<number>; close(): Promise<void> }>;
}

const stores: Store[] = [
  {
    name: 'SQLite',
    available: () => true,
    open() {
      const dataDir = mkdtempSync(join(tmpdir(), 'reindex-bounded-'));
      const catalog = openCatalog({ dataDir });
      const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
      return Promise.resolve({
        catalog,
        version: () => Promise.resolve((db.prepare('SELECT version FROM engine_stats').pluck().get() as number)),
        async close() {
          db.close();
          await catalog.close();
          rmSync(dataDir, { recursive: true, force: true });
        },
      });
    },
  },
  {
    name: 'PostgreSQL',
    available: postgresAvailable,
    async open() {
      const database = await createTestDatabase('reindex');
      const { schema, url } = await createTestSchema(database);
      const dataDir = mkdtempSync(join(tmpdir(), 'reindex-bounded-pg-'));
      const catalog = await openCatalogAt({ dataDir, databaseUrl: url });
      const client = new pgDriver.Client({ connectionString: url });
      await client.connect();
      return {
        catalog,
        version: async () => Number((await client.query<{ version: string }>('SELECT version FROM engine_stats')).rows[0]?.version),
        async close() {
          await client.end();
          await catalog.close();
          await dropTestSchema(database, schema);
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
];

describe.each(stores)('re-indexing the parts of an attribute on $name', (store) => {
  let opened: Awaited<ReturnType<Store['open']>>;
  let catalog: Catalog;
  beforeEach(async (context) => {
    if (!store.available()) context.skip();
    opened = await store.open();
    catalog = opened.catalog;
    await catalog.service.upsertAttributes(LOCAL_OWNER, [
      { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true },
      { attribute_id: 'family', type: 'text', name: { en: 'Family' }, searchable: true },
    ]);
    // vendor `acme` on even parts; family `acme` on every third: a sixth hold it in both.
    const parts = Array.from({ length: PARTS }, (_, i) => ({
      part_id: `p${String(i).padStart(5, '0')}`,
      name: { en: `bearing ${i}` },
      attributes: values({ vendor: i % 2 === 0 ? 'acme' : 'zenith', family: i % 3 === 0 ? 'acme' : 'other' }),
    }));
    for (let i = 0; i < parts.length; i += 1000) expect((await catalog.service.upsertParts(LOCAL_OWNER, parts.slice(i, i + 1000))).errors).toEqual({});
  });
  afterEach(async () => {
    if (store.available()) await opened.close();
  });

  const acmeInVendor = Math.ceil(PARTS / 2);
  const acmeAnywhere = Array.from({ length: PARTS }, (_, i) => i).filter((i) => i % 2 === 0 || i % 3 === 0).length;
  const search = (text: string) => catalog.search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 100 } });

  it('an attribute order writes the index in batches, and ranks by it every part, whichever attributes it holds', async () => {
    const before = await opened.version();
    await catalog.search.setRanking(LOCAL_OWNER, { attributeOrder: ['family', 'vendor'] });
    // 5,000 parts in batches of at most 2,000: three written batches at least, not one.
    expect(await opened.version() - before).toBeGreaterThanOrEqual(3);
    const found = await search('acme');
    expect(found.resultsTotalCount).toBe(acmeAnywhere);
    // `acme` in the family (listed first) ranks first: the first 100 all hold it there.
    expect(found.results.map((hit) => Number((hit.id ?? '').slice(1)) % 3)).toEqual(found.results.map(() => 0));
    // The order back to none: the parts with `acme` in both (two words' worth) first again, as imported.
    await catalog.search.setRanking(LOCAL_OWNER, { attributeOrder: [] });
    expect((await search('acme')).resultsTotalCount).toBe(acmeAnywhere);
  });

  it('an attribute no longer searchable is re-indexed in batches, and its words find nothing', async () => {
    const before = await opened.version();
    await catalog.service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'family', type: 'text', name: { en: 'Family' }, searchable: false }]);
    expect(await opened.version() - before).toBeGreaterThanOrEqual(3);
    expect((await search('acme')).resultsTotalCount).toBe(acmeInVendor);
    expect((await search('other')).resultsTotalCount).toBe(0);
  });
});
