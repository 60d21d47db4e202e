/**
 * The photo index follows the catalog incrementally (docs/search.md, "Photo search"):
 * after the first query loads every reference, an upload, a move or a deletion, by this process
 * or by another server on the same catalog, is applied from the store's change log
 * (ReferenceFeatureStore.changesSince) without loading everything again. Asserted through the
 * index's own counters (`syncStats`), never through timing. Two store sets opened on one SQLite
 * file, and on one PostgreSQL schema, stand for two processes / servers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeatureIndexSimilaritySearch } from '../../src/adapters/images/image-search.js';
import { extractPhotoReference } from '../../src/adapters/images/local-features/photo-features.js';
import { openPostgresStores } from '../../src/adapters/postgres/stores.js';
import { openSqliteStores } from '../../src/adapters/sqlite/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import type { Decision, ImageWrite, StoredPart } from '../../src/core/model.js';
import type { CatalogStores } from '../../src/core/ports.js';
import { IMAGES, partRow, queryCopy, searchableImageRow } from '../helpers/reference-rows.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

const FILES = ['horse.jpg', 'banana.jpg', 'lightbulb.jpg'] as const;




/** Two processes on one catalog: each its own stores and its own photo index. */
interface Pair {
  a: { stores: CatalogStores; search: FeatureIndexSimilaritySearch };
  b: { stores: CatalogStores; search: FeatureIndexSimilaritySearch };
  close(): Promise<void>;
}

function describeIndexSync(name: string, open: () => Promise<Pair>, available = true): void {
  describe.skipIf(!available)(`the photo index follows changes incrementally: ${name}`, () => {
    let pair: Pair;
    const features = new Map<string, Uint8Array>();
    const queries = new Map<string, Buffer>();
    let at = 1;

    async function upload(stores: CatalogStores, imageId: string, partId: string, file: string | null): Promise<void> {
      const f = file === null ? null : features.get(file);
      const write = (): Decision<ImageWrite> => ({ kind: 'write', value: { image: searchableImageRow(imageId, partId, at++), features: f ?? null }, created: true });
      await stores.images.upsertImages([{ image_id: imageId, part_id: partId }], write);
    }

    async function top(search: FeatureIndexSimilaritySearch, file: string): Promise<string[]> {
      return (await search.rankParts(queries.get(file) ?? Buffer.alloc(0), 3)).map((m) => `${m.part_id}/${m.image_id}`);
    }

    beforeAll(async () => {
      for (const file of FILES) {
        features.set(file, await extractPhotoReference(readFileSync(join(IMAGES, file))));
        queries.set(file, await queryCopy(file));
      }
      pair = await open();
      await pair.a.stores.catalog.upsertParts(['p-horse', 'p-banana', 'p-stable'].map(partRow), (item) => ({ kind: 'write', value: item as StoredPart, created: true }));
      await upload(pair.a.stores, 'horse', 'p-horse', 'horse.jpg');
    });

    afterAll(async () => {
      await pair?.close();
    });

    it('loads every reference once, then applies an upload of either process without a full load', async () => {
      const { a, b } = pair;
      expect((await top(a.search, 'horse.jpg'))[0]).toBe('p-horse/horse');
      expect((await top(b.search, 'horse.jpg'))[0]).toBe('p-horse/horse');
      expect([a.search.syncStats.fullLoads, b.search.syncStats.fullLoads]).toEqual([1, 1]);
      // An upload after the first search: on this process, and on the other one.
      await upload(a.stores, 'banana', 'p-banana', 'banana.jpg');
      await upload(b.stores, 'bulb', 'p-banana', 'lightbulb.jpg');
      for (const side of [a, b]) {
        expect((await top(side.search, 'banana.jpg'))[0]).toBe('p-banana/banana');
        expect((await top(side.search, 'lightbulb.jpg'))[0]).toBe('p-banana/bulb');
        expect(side.search.syncStats).toEqual({ fullLoads: 1, snapshotLoads: 0, changesApplied: 2 });
        expect(side.search.size).toBe(3);
      }
    });

    it('applies a move, a deletion and cleared features made by the other process', async () => {
      const { a, b } = pair;
      // A move to another part keeps the stored features (undefined).
      await b.stores.images.upsertImages([{ image_id: 'horse', part_id: 'p-stable' }], () => ({ kind: 'write', value: { image: searchableImageRow('horse', 'p-stable', at++), features: undefined }, created: false }));
      expect((await top(a.search, 'horse.jpg'))[0]).toBe('p-stable/horse');
      await b.stores.images.deleteImages(['banana'], () => ({ kind: 'write', value: null, created: false }));
      expect(await top(a.search, 'banana.jpg')).not.toContain('p-banana/banana');
      expect(a.search.size).toBe(2);
      await upload(b.stores, 'bulb', 'p-banana', null);
      expect(await top(a.search, 'lightbulb.jpg')).not.toContain('p-banana/bulb');
      expect(a.search.size).toBe(1);
      expect(a.search.syncStats.fullLoads).toBe(1);
    });
  });
}

describeIndexSync('two connections to one SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'image-index-sync-'));
  const side = () => {
    const stores = openSqliteStores({ dataDir: dir, clock: systemClock() });
    return { stores, search: new FeatureIndexSimilaritySearch(stores.references) };
  };
  const a = side();
  const b = side();
  return {
    a, b,
    async close() {
      await a.stores.close();
      await b.stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

let database = '';
describeIndexSync('two servers on one PostgreSQL catalog', async () => {
  database ||= await createTestDatabase('indexsync');
  const { url, schema } = await createTestSchema(database);
  const side = async () => {
    const stores = await openPostgresStores(url, { clock: systemClock(), max: 2 });
    return { stores, search: new FeatureIndexSimilaritySearch(stores.references) };
  };
  const a = await side();
  const b = await side();
  return {
    a, b,
    async close() {
      await a.stores.close();
      await b.stores.close();
      await dropTestSchema(database, schema);
    },
  };
}, postgresAvailable());
