/**
 * The photo index's snapshot file (docs/search.md, "Photo search": Start-up): a
 * process that built the index from the records writes it; the next process on the same catalog
 * reads it instead of loading every record, applies the changes committed since, and answers as a
 * full load would. A snapshot of another catalog's history, one newer than the catalog, or a damaged
 * one is refused and the index is built from the records: never a wrong answer. Asserted through
 * the index's counters (`syncStats`, `snapshots.stats`) and its answers, never through timing.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeatureIndexSimilaritySearch } from '../../src/adapters/images/image-search.js';
import { extractPhotoReference } from '../../src/adapters/images/local-features/photo-features.js';
import { photoIndexFileOf } from '../../src/adapters/images/photo-index-snapshots.js';
import { openPostgresStores } from '../../src/adapters/postgres/stores.js';
import { openSqliteStores } from '../../src/adapters/sqlite/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import type { Decision, ImageWrite, StoredPart } from '../../src/core/model.js';
import type { CatalogStores } from '../../src/core/ports.js';
import { IMAGES, partRow, queryCopy, searchableImageRow } from '../helpers/reference-rows.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

const FILES = ['horse.jpg', 'banana.jpg', 'lightbulb.jpg', 'apple_fuji.jpg'] as const;




/** A catalog the test can open processes on (each its own stores and photo index). */
interface TestCatalog {
  open(): Promise<CatalogStores>;
  close(): Promise<void>;
}

function describeSnapshots(name: string, catalog: () => Promise<TestCatalog>, available = true): void {
  describe.skipIf(!available)(`the photo index snapshot: ${name}`, () => {
    const features = new Map<string, Uint8Array>();
    const queries = new Map<string, Buffer>();
    const opened: CatalogStores[] = [];
    const catalogs: TestCatalog[] = [];
    let dir: string;
    let at = 1;

    async function storesOf(c: TestCatalog): Promise<CatalogStores> {
      const stores = await c.open();
      opened.push(stores);
      return stores;
    }

    async function newCatalog(): Promise<{ catalog: TestCatalog; stores: CatalogStores }> {
      const c = await catalog();
      catalogs.push(c);
      const stores = await storesOf(c);
      await stores.catalog.upsertParts(['p-horse', 'p-banana', 'p-bulb', 'p-apple'].map(partRow), (item) => ({ kind: 'write', value: item as StoredPart, created: true }));
      return { catalog: c, stores };
    }

    async function upload(stores: CatalogStores, imageId: string, partId: string, file: string): Promise<void> {
      const write = (): Decision<ImageWrite> => ({ kind: 'write', value: { image: searchableImageRow(imageId, partId, at++), features: features.get(file) ?? null }, created: true });
      await stores.images.upsertImages([{ image_id: imageId, part_id: partId }], write);
    }

    /** A new process's photo index over `stores`, with the snapshot `file`, snapshotting any size (and again after `minChanges` changes). */
    function processOn(stores: CatalogStores, file: string, minChanges = 500): FeatureIndexSimilaritySearch {
      return new FeatureIndexSimilaritySearch(stores.references, { snapshot: { file, minReferences: 0, minChanges } });
    }

    async function top(search: FeatureIndexSimilaritySearch, file: string): Promise<string[]> {
      return (await search.rankParts(queries.get(file) ?? Buffer.alloc(0), 3)).map((m) => `${m.part_id}/${m.image_id}:${m.score.toFixed(6)}`);
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'image-index-snapshot-'));
      for (const file of FILES) {
        features.set(file, await extractPhotoReference(readFileSync(join(IMAGES, file))));
        queries.set(file, await queryCopy(file));
      }
    });

    afterAll(async () => {
      for (const stores of opened) await stores.close();
      for (const c of catalogs) await c.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('writes the index after a full load; the next process reads it, applies later changes and answers as a full load', async () => {
      const file = join(dir, 'one.snapshot');
      const { catalog: c, stores } = await newCatalog();
      await upload(stores, 'horse', 'p-horse', 'horse.jpg');
      await upload(stores, 'banana', 'p-banana', 'banana.jpg');

      // The temporary file of a write whose process died (SIGKILL mid-write) goes with the next write;
      // one of a process still running (it may be writing now) stays.
      const abandoned = `${file}.999999999.1700000000000.tmp`;
      const running = `${file}.${process.pid}.1700000000000.tmp`;
      writeFileSync(abandoned, 'half a snapshot');
      writeFileSync(running, 'being written');
      const first = processOn(await storesOf(c), file);
      const firstAnswers = [await top(first, 'horse.jpg'), await top(first, 'banana.jpg')];
      await first.close();
      expect(existsSync(abandoned)).toBe(false);
      expect(existsSync(running)).toBe(true);
      rmSync(running);
      expect(first.syncStats).toMatchObject({ fullLoads: 1, snapshotLoads: 0 });
      expect(first.snapshots?.stats).toMatchObject({ writes: 1, lastProblem: undefined });

      const second = processOn(await storesOf(c), file);
      expect([await top(second, 'horse.jpg'), await top(second, 'banana.jpg')]).toEqual(firstAnswers);
      expect(second.syncStats).toEqual({ fullLoads: 0, snapshotLoads: 1, changesApplied: 0 });

      // Changes after the snapshot: an upload, and a removal.
      await upload(stores, 'bulb', 'p-bulb', 'lightbulb.jpg');
      await stores.images.deleteImages(['banana'], () => ({ kind: 'write', value: null, created: false }));
      const third = processOn(await storesOf(c), file);
      const full = new FeatureIndexSimilaritySearch((await storesOf(c)).references);
      for (const query of ['horse.jpg', 'banana.jpg', 'lightbulb.jpg']) expect(await top(third, query)).toEqual(await top(full, query));
      expect((await top(third, 'lightbulb.jpg'))[0]).toMatch(/^p-bulb\/bulb:/);
      expect((await top(third, 'banana.jpg')).join()).not.toContain('p-banana/banana');
      expect(third.syncStats).toEqual({ fullLoads: 0, snapshotLoads: 1, changesApplied: 2 });
      expect(third.size).toBe(2);
    });

    it('a process that changed the catalog enough writes the snapshot at its close, loading the index if it never did; one that changed little does not', async () => {
      const file = join(dir, 'bulk.snapshot');
      const { catalog: c, stores } = await newCatalog();
      // A bulk upload's process: three uploads, no search, then its close.
      const uploader = processOn(stores, file, 3);
      for (const [id, f] of [['h', 'horse.jpg'], ['b', 'banana.jpg'], ['l', 'lightbulb.jpg']] as const) await upload(stores, id, 'p-horse', f);
      await uploader.close();
      expect(uploader.syncStats).toMatchObject({ fullLoads: 1, snapshotLoads: 0 });
      expect(uploader.snapshots?.stats).toMatchObject({ writes: 1, lastProblem: undefined });

      const next = processOn(await storesOf(c), file, 3);
      expect((await top(next, 'banana.jpg'))[0]).toMatch(/^p-horse\/b:/);
      expect(next.syncStats).toEqual({ fullLoads: 0, snapshotLoads: 1, changesApplied: 0 });
      await next.close();

      // A process that changed nothing (`catalog parts list` on a catalog of many changes and no
      // file): nothing loaded, nothing written.
      const elsewhere = await newCatalog();
      for (const [id, f] of [['h', 'horse.jpg'], ['b', 'banana.jpg'], ['l', 'lightbulb.jpg']] as const) await upload(elsewhere.stores, id, 'p-horse', f);
      const reader = processOn(await storesOf(elsewhere.catalog), join(dir, 'untouched.snapshot'), 3);
      await reader.close();
      expect(reader.syncStats).toMatchObject({ fullLoads: 0, snapshotLoads: 0 });
      expect(existsSync(join(dir, 'untouched.snapshot'))).toBe(false);

      // Two changes, fewer than the three that make a new snapshot worth it: nothing loaded, nothing written.
      const small = processOn(await storesOf(c), file, 3);
      await upload(stores, 'a', 'p-apple', 'apple_fuji.jpg');
      await stores.images.deleteImages(['h'], () => ({ kind: 'write', value: null, created: false }));
      await small.close();
      expect(small.syncStats).toMatchObject({ fullLoads: 0, snapshotLoads: 0 });
      expect(small.snapshots?.stats.writes).toBe(0);
    });

    it('a close with nowhere to write the snapshot (a directory that cannot be written) builds nothing', async () => {
      const { catalog: c, stores } = await newCatalog();
      // Open before its three uploads: they are its own changes, enough for a snapshot.
      const nowhere = processOn(await storesOf(c), join(dir, 'missing-directory', 'photo.snapshot'), 3);
      for (const [id, f] of [['h', 'horse.jpg'], ['b', 'banana.jpg'], ['l', 'lightbulb.jpg']] as const) await upload(stores, id, 'p-horse', f);
      await nowhere.close();
      expect(nowhere.syncStats).toMatchObject({ fullLoads: 0, snapshotLoads: 0 });
      // A process that searched: its load's write fails, and its close does not try again.
      const searched = processOn(await storesOf(c), join(dir, 'missing-directory', 'photo.snapshot'), 3);
      expect((await top(searched, 'banana.jpg'))[0]).toMatch(/^p-horse\/b:/);
      await searched.snapshots?.idle();
      expect(searched.snapshots?.stats).toMatchObject({ writes: 0, failedWrites: 1 });
      for (const [id, f] of [['h2', 'horse.jpg'], ['b2', 'banana.jpg'], ['l2', 'lightbulb.jpg']] as const) await upload(stores, id, 'p-horse', f);
      await searched.close();
      expect(searched.syncStats).toMatchObject({ fullLoads: 1, changesApplied: 0 });
      expect(searched.snapshots?.stats.failedWrites).toBe(1);
    });

    it('a running process writes the snapshot again once it applied enough changes, after its queries', async () => {
      const file = join(dir, 'running.snapshot');
      const { catalog: c, stores } = await newCatalog();
      await upload(stores, 'h', 'p-horse', 'horse.jpg');
      const server = processOn(await storesOf(c), file, 2);
      await top(server, 'horse.jpg');
      await server.snapshots?.idle();
      expect(server.snapshots?.stats.writes).toBe(1);
      await upload(stores, 'b', 'p-banana', 'banana.jpg');
      await upload(stores, 'l', 'p-bulb', 'lightbulb.jpg');
      const answers = [await top(server, 'banana.jpg'), await top(server, 'lightbulb.jpg')];
      await server.snapshots?.idle();
      expect(server.snapshots?.stats).toMatchObject({ writes: 2, lastProblem: undefined });

      const next = processOn(await storesOf(c), file, 2);
      expect([await top(next, 'banana.jpg'), await top(next, 'lightbulb.jpg')]).toEqual(answers);
      expect(next.syncStats).toEqual({ fullLoads: 0, snapshotLoads: 1, changesApplied: 0 });
    });

    it("refuses another catalog's snapshot, one newer than the catalog, and a damaged one, and builds from the records", async () => {
      const file = join(dir, 'two.snapshot');
      const { catalog: c, stores } = await newCatalog();
      for (const [id, f] of [['h2', 'horse.jpg'], ['b2', 'banana.jpg'], ['l2', 'lightbulb.jpg']] as const) await upload(stores, id, 'p-horse', f);
      const writer = processOn(await storesOf(c), file);
      await top(writer, 'horse.jpg');
      await writer.close();
      expect(writer.snapshots?.stats.writes).toBe(1);

      // Another catalog with as many changes and more: same change numbers, other images.
      const other = await newCatalog();
      for (const [id, f] of [['x1', 'apple_fuji.jpg'], ['x2', 'banana.jpg'], ['x3', 'horse.jpg'], ['x4', 'lightbulb.jpg']] as const) await upload(other.stores, id, 'p-apple', f);
      const otherFile = join(dir, 'other.snapshot');
      copyFileSync(file, otherFile);
      const foreign = processOn(await storesOf(other.catalog), otherFile);
      expect((await top(foreign, 'apple_fuji.jpg'))[0]).toMatch(/^p-apple\/x1:/);
      expect(foreign.syncStats).toMatchObject({ fullLoads: 1, snapshotLoads: 0 });
      expect(foreign.snapshots?.stats.lastProblem).toMatch(/another history/);
      await foreign.close();

      // A catalog behind the snapshot (a backup restored under it): fewer changes than the snapshot names.
      const behind = await newCatalog();
      await upload(behind.stores, 'y1', 'p-apple', 'apple_fuji.jpg');
      const behindFile = join(dir, 'behind.snapshot');
      copyFileSync(file, behindFile);
      const restored = processOn(await storesOf(behind.catalog), behindFile);
      expect((await top(restored, 'apple_fuji.jpg'))[0]).toMatch(/^p-apple\/y1:/);
      expect(restored.syncStats).toMatchObject({ fullLoads: 1, snapshotLoads: 0 });
      expect(restored.snapshots?.stats.lastProblem).toMatch(/is at change \d+, the catalog at \d+/);
      await restored.close();

      // Damaged: a flipped byte in the middle of the file.
      const bytes = readFileSync(file);
      const middle = Math.floor(bytes.length / 2);
      bytes[middle] = (bytes[middle] ?? 0) ^ 0x5a;
      writeFileSync(file, bytes);
      const reader = processOn(await storesOf(c), file);
      expect((await top(reader, 'lightbulb.jpg'))[0]).toMatch(/^p-horse\/l2:/);
      expect(reader.syncStats).toMatchObject({ fullLoads: 1, snapshotLoads: 0 });
      expect(reader.snapshots?.stats.lastProblem).toMatch(/not read/);
      // The full load wrote a good file again.
      await reader.close();
      const after = processOn(await storesOf(c), file);
      await top(after, 'horse.jpg');
      expect(after.syncStats).toMatchObject({ fullLoads: 0, snapshotLoads: 1 });
    });
  });
}

describeSnapshots('SQLite', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'image-index-snapshot-db-'));
  return {
    open: async () => openSqliteStores({ dataDir, clock: systemClock() }),
    close: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});

let database = '';
describeSnapshots('PostgreSQL', async () => {
  database ||= await createTestDatabase('indexsnap');
  const { url, schema } = await createTestSchema(database);
  return {
    open: async () => openPostgresStores(url, { clock: systemClock(), max: 2 }),
    close: async () => dropTestSchema(database, schema),
  };
}, postgresAvailable());

describe('where a catalog keeps its photo index snapshot', () => {
  it('in its data directory for SQLite, nowhere for PostgreSQL, where CATALOG_PHOTO_INDEX_FILE says when set', () => {
    expect(photoIndexFileOf({ dataDir: '/data' }, {})).toBe(join('/data', 'photo-index.snapshot'));
    expect(photoIndexFileOf({ dataDir: undefined }, {})).toBeUndefined();
    expect(photoIndexFileOf({ dataDir: '/data', databaseUrl: 'postgres://h/db' }, {})).toBeUndefined();
    expect(photoIndexFileOf({ dataDir: undefined, databaseUrl: 'postgres://h/db' }, { CATALOG_PHOTO_INDEX_FILE: '/var/cache/catalog/photo.snapshot' })).toBe('/var/cache/catalog/photo.snapshot');
    expect(photoIndexFileOf({ dataDir: '/data' }, { CATALOG_PHOTO_INDEX_FILE: '0' })).toBeUndefined();
    expect(photoIndexFileOf({ dataDir: '/data' }, { CATALOG_PHOTO_INDEX_FILE: '' })).toBeUndefined();
    // A server's reader and writer threads keep none, whatever the environment.
    expect(photoIndexFileOf({ dataDir: '/data', photoIndexSnapshot: false }, { CATALOG_PHOTO_INDEX_FILE: '/x' })).toBeUndefined();
  });
});
