/**
 * A write of a few parts spread over the catalog rewrites, of each word's stored posting list, only
 * the blocks that hold a changed part (adapters/sqlite/search/engine-store.ts): not every block
 * between the smallest and the largest changed part, a cost that grew with the catalog (a 10-part
 * update at 120,000 parts decoded and rewrote the whole lists of its frequent words).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { BLOCK_SIZE } from '../../src/core/search/engine/postings.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

const PARTS = 5 * BLOCK_SIZE;
const part = (i: number, name = `gizmo widget${i}`) => ({ part_id: `p${String(i).padStart(4, '0')}`, name: { en: name } });

describe('a write of parts far apart in a long posting list', () => {
  let catalog: Catalog;
  let watcher: SqliteDatabase;
  beforeAll(async () => {
    const dataDir = tempDir('catalog-block-rewrite-');
    catalog = openCatalog({ dataDir, searchTuning: { cacheSize: 0 } });
    expect(await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: PARTS }, (_, i) => part(i)))).toMatchObject({ errors: {} });
    // Every block the catalog's own connection deletes from now on, recorded by a trigger.
    watcher = openConnection(join(dataDir, 'catalog.db'));
    watcher.exec(`
      CREATE TABLE test_deleted_blocks (term_id INTEGER, first_doc INTEGER);
      CREATE TRIGGER test_block_deleted AFTER DELETE ON engine_postings BEGIN
        INSERT INTO test_deleted_blocks VALUES (OLD.term_id, OLD.first_doc);
      END;`);
  });
  afterAll(async () => {
    watcher?.close();
    await catalog?.close();
  });

  it('rewrites only the first and the last block of the word they share, and search sees every change', async () => {
    const termOf = watcher.prepare<[], { id: number; blocks: number }>(`
      SELECT term_id AS id, count(*) AS blocks FROM engine_postings GROUP BY term_id ORDER BY blocks DESC LIMIT 1`);
    const gizmo = termOf.get();
    expect(gizmo?.blocks).toBe(5);
    // The first part and the last one renamed (both keep "gizmo"), one in the middle loses it.
    expect(await catalog.service.upsertParts(LOCAL_OWNER, [part(0, 'gizmo renamed first'), part(PARTS / 2, 'sprocket middle'), part(PARTS - 1, 'gizmo renamed last')])).toMatchObject({ errors: {} });
    const deleted = watcher.prepare<[number], number>('SELECT count(*) FROM test_deleted_blocks WHERE term_id = ?').pluck().get(gizmo?.id ?? -1);
    // Blocks 1, 3 and 5 hold a changed part; blocks 2 and 4 are left as stored.
    expect(deleted).toBe(3);
    const total = async (text: string) => (await catalog.search.search(LOCAL_OWNER, { matches: { text } })).resultsTotalCount;
    expect(await total('gizmo')).toBe(PARTS - 1);
    expect(await total('renamed')).toBe(2);
    expect(await total('sprocket')).toBe(1);
    // Later writes in the same blocks still find their parts (no block lost or duplicated).
    expect(await catalog.service.upsertParts(LOCAL_OWNER, [part(1, 'gizmo again'), part(PARTS / 2, `gizmo widget${PARTS / 2}`), part(PARTS - 2, 'gizmo again')])).toMatchObject({ errors: {} });
    expect(await total('gizmo')).toBe(PARTS);
    expect(await total('again')).toBe(2);
    expect(watcher.prepare<[number], number>('SELECT count(*) FROM engine_postings WHERE term_id = ?').pluck().get(gizmo?.id ?? -1)).toBe(5);
  });
});
