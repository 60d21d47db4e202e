/**
 * A write of a few parts spread over the catalog rewrites, of each word's stored posting list, only
 * the blocks that hold a changed part (adapters/sqlite/search/engine-store.ts): not every block
 * between the smallest and the largest changed part, a cost that grew with the catalog (a 10-part
 * update at 120,000 parts decoded and rewrote the whole lists of its frequent words). On both stores.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from '../../src/adapters/sqlite/database.js';
import { BLOCK_SIZE } from '../../src/core/search/engine/postings.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog, openCatalogAt } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';
import { createTestDatabase, createTestSchema, postgresAvailable } from '../services/services.js';

const PARTS = 5 * BLOCK_SIZE;
const part = (i: number, name = `gizmo widget${i}`) => ({ part_id: `p${String(i).padStart(4, '0')}`, name: { en: name } });

/** A store under test: its catalog, a query on its database from another connection, and the end. */
interface Opened {
  catalog: Catalog;
  count(sql: string, params: number[]): Promise<number>;
  close(): Promise<void>;
}

/** The SQLite catalog, every block its connection rewrites (updates or deletes) recorded by triggers. */
async function openSqlite(): Promise<Opened> {
  const dataDir = tempDir('catalog-block-rewrite-');
  const catalog = openCatalog({ dataDir, searchTuning: { cacheSize: 0 } });
  await seed(catalog);
  const watcher = openConnection(join(dataDir, 'catalog.db'));
  watcher.exec(`
    CREATE TABLE test_deleted_blocks (term_id INTEGER, first_doc INTEGER);
    CREATE TRIGGER test_block_deleted AFTER DELETE ON engine_postings BEGIN
      INSERT INTO test_deleted_blocks VALUES (OLD.term_id, OLD.first_doc);
    END;
    CREATE TRIGGER test_block_updated AFTER UPDATE ON engine_postings BEGIN
      INSERT INTO test_deleted_blocks VALUES (OLD.term_id, OLD.first_doc);
    END;`);
  return {
    catalog,
    count: async (sql, params) => watcher.prepare(sql.replace(/\$\d/g, '?')).pluck().get(...params) as number,
    async close() {
      watcher.close();
      await catalog.close();
    },
  };
}

/** The same on PostgreSQL (a schema of its own on the test cluster). */
async function openPostgres(): Promise<Opened> {
  const { url } = await createTestSchema(await createTestDatabase('blocks'));
  const catalog = await openCatalogAt({ dataDir: tempDir('catalog-block-rewrite-pg-'), databaseUrl: url });
  await seed(catalog);
  const watcher = new pg.Client({ connectionString: url });
  await watcher.connect();
  await watcher.query(`
    CREATE TABLE test_deleted_blocks (term_id integer, first_doc integer);
    CREATE FUNCTION test_block_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_deleted_blocks VALUES (OLD.term_id, OLD.first_doc); RETURN OLD; END $$;
    CREATE TRIGGER test_block_deleted AFTER DELETE OR UPDATE ON engine_postings FOR EACH ROW EXECUTE FUNCTION test_block_deleted();`);
  return {
    catalog,
    count: async (sql, params) => Number(Object.values((await watcher.query(sql, params)).rows[0] ?? {})[0]),
    async close() {
      await watcher.end();
      await catalog.close();
    },
  };
}

async function seed(catalog: Catalog): Promise<void> {
  expect(await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: PARTS }, (_, i) => part(i)))).toMatchObject({ errors: {} });
}

describe.each([
  ['SQLite', openSqlite, true],
  ['PostgreSQL', openPostgres, postgresAvailable()],
] as const)('a write of parts far apart in a long posting list (%s)', (_store, open, available) => {
  let opened: Opened;
  beforeAll(async () => {
    if (available) opened = await open();
  });
  afterAll(async () => {
    await opened?.close();
  });

  it.skipIf(!available)('rewrites only the blocks that hold a changed part, and search sees every change', async () => {
    const { catalog, count } = opened;
    // The word of every part, in five full blocks.
    const gizmo = await count('SELECT term_id FROM engine_postings GROUP BY term_id HAVING count(*) = 5 ORDER BY term_id LIMIT 1', []);
    // The first part renamed with "gizmo" twice, the last one renamed keeping it once, one in the
    // middle loses it.
    expect(await catalog.service.upsertParts(LOCAL_OWNER, [part(0, 'gizmo gizmo renamed first'), part(PARTS / 2, 'sprocket middle'), part(PARTS - 1, 'gizmo renamed last')])).toMatchObject({ errors: {} });
    // Blocks 1 and 3 hold a changed posting and are rewritten (updated, or deleted and written
    // again); blocks 2 and 4 are left as stored, and so is block 5: its renamed part holds the
    // word as often as before (a posting holds no length).
    expect(await count('SELECT count(DISTINCT first_doc) FROM test_deleted_blocks WHERE term_id = $1', [gizmo])).toBe(2);
    const total = async (text: string) => (await catalog.search.search(LOCAL_OWNER, { matches: { text } })).resultsTotalCount;
    expect(await total('gizmo')).toBe(PARTS - 1);
    expect(await total('renamed')).toBe(2);
    expect(await total('sprocket')).toBe(1);
    // Later writes in the same blocks still find their parts (no block lost or duplicated).
    expect(await catalog.service.upsertParts(LOCAL_OWNER, [part(1, 'gizmo again'), part(PARTS / 2, `gizmo widget${PARTS / 2}`), part(PARTS - 2, 'gizmo again')])).toMatchObject({ errors: {} });
    expect(await total('gizmo')).toBe(PARTS);
    expect(await total('again')).toBe(2);
    expect(await count('SELECT count(*) FROM engine_postings WHERE term_id = $1', [gizmo])).toBe(5);
  });
});
