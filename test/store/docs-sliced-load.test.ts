/**
 * The first load of the SQLite engine's per-part arrays in slices (engine-store.ts
 * loadDocsInSlices), the event loop running between them: with writes committed by another
 * connection between the slices, the arrays end up as a fresh full load reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineStore } from '../../src/adapters/sqlite/search/engine-store.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

const engineOf = (catalog: Catalog) => (catalog.search as unknown as { index: { engine: EngineStore } }).index.engine;
const parts = (from: number, to: number, word: string) => Array.from({ length: to - from }, (_, k) => ({ part_id: `p${String(from + k).padStart(4, '0')}`, name: { en: `${word} bracket ${from + k}` } }));
/** What a search reads of the arrays, for the docs the catalog holds. */
const arrays = (engine: EngineStore) => {
  const docs = Array.from({ length: engine.docCapacity }, (_, doc) => doc).filter((doc) => (engine.card[doc] ?? 0) !== 0);
  return { n: engine.n, sumLength: engine.sumLength, docs: docs.map((doc) => [doc, engine.card[doc], engine.key[doc], ...engine.dl.map((dl) => dl[doc])]) };
};

describe('the per-part arrays loaded in slices', () => {
  const dataDir = tempDir('catalog-docs-slices-');
  let writer: Catalog;
  beforeAll(async () => {
    writer = openCatalog({ dataDir });
    // 600 parts: three chunks of 256 docs.
    expect(await writer.service.upsertParts(LOCAL_OWNER, parts(0, 600, 'steel'))).toMatchObject({ errors: {} });
  });
  afterAll(async () => {
    await writer.close();
  });

  it('end as a full load reads them, with writes committed between the slices', async () => {
    const reader = openCatalog({ dataDir });
    try {
      const writes = [
        // A part of the first chunk renamed (a new card) once that chunk is loaded, parts appended
        // (a fourth chunk), a part of the last chunk deleted.
        () => writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p0003', name: { en: 'brass hinge' } }]),
        () => writer.service.upsertParts(LOCAL_OWNER, parts(600, 900, 'copper')),
        () => writer.service.deleteParts(LOCAL_OWNER, ['p0599']),
      ];
      let turns = 0;
      await engineOf(reader).loadDocsInSlices(async () => {
        await writes[turns]?.();
        turns++;
      }, 1);
      expect(turns).toBe(3);
      const fresh = openCatalog({ dataDir });
      try {
        await fresh.search.warm({ postings: 0 });
        expect(arrays(engineOf(reader))).toEqual(arrays(engineOf(fresh)));
        expect(engineOf(reader).n).toBe(899);
      } finally {
        await fresh.close();
      }
      // And its searches see every write.
      expect((await reader.search.search(LOCAL_OWNER, { matches: { text: 'brass ' } })).results.map((r) => r.id)).toEqual(['p0003']);
      expect((await reader.search.search(LOCAL_OWNER, { matches: { text: 'copper ' } })).resultsTotalCount).toBe(300);
      expect((await reader.search.search(LOCAL_OWNER, { matches: { text: 'steel ' } })).resultsTotalCount).toBe(598);
    } finally {
      await reader.close();
    }
  });
});
