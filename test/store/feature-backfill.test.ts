/**
 * Existing catalogs get the current reference features (docs/search.md, "Photo search": Backfill,
 * Small references): a record of an older feature version (2: keypoints of the picture as it is
 * only; 3: no AKAZE record for a small reference) is stale, so the backfill that starts after a
 * catalog is opened re-extracts it from the stored original, and the image is found meanwhile as
 * before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { extractPhotoReference } from '../../src/adapters/images/local-features/photo-features.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import type { BackfillProgress } from '../../src/core/search/photo/backfill.js';
import { decodePhotoFeatures, PHOTO_FEATURE_VERSION } from '../../src/core/search/photo/photo-search.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';
import { olderPhotoRecord } from '../helpers/photo-features.js';

const FILE = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'images', 'op2_multiply.jpg');

describe('feature backfill of version-2 and version-3 records to version 4', () => {
  let catalog: Catalog | undefined;
  afterEach(async () => {
    await catalog?.close();
    catalog = undefined;
  });

  it('re-extracts a version-3 record on open (a small reference then gets its AKAZE record); the image stays searchable before and after', async () => {
    const dataDir = tempDir();
    catalog = openCatalog({ dataDir });
    const client = new LocalCatalogClient(catalog);
    await client.upsertParts([{ part_id: 'icon', name: { en: 'icon' } }]);
    const uploaded = await client.uploadImages([{ image_id: 'icon-1', part_id: 'icon', info: 'searchable' }], [{ filename: 'icon-1.jpg', path: FILE }]);
    expect(uploaded.errors, JSON.stringify(uploaded)).toEqual({});
    await catalog.close();
    catalog = undefined;

    // Write the stored record back as a catalog at feature version 3 holds it
    // (container version 3: no AKAZE record, the ORB vocabulary's id alone in the prefix).
    const db = new Database(join(dataDir, 'catalog.db'));
    const row = db.prepare<[], { features: Buffer }>("SELECT features FROM images WHERE image_id = 'icon-1'").get();
    const current = decodePhotoFeatures(new Uint8Array(row?.features ?? []));
    expect(row?.features[2]).toBe(PHOTO_FEATURE_VERSION);
    expect(current.small?.count ?? 0).toBeGreaterThan(0);
    db.prepare("UPDATE images SET features = ? WHERE image_id = 'icon-1'").run(Buffer.from(olderPhotoRecord(current.global, current.local!, 3)));
    db.close();

    const progress: BackfillProgress[] = [];
    catalog = openCatalog({ dataDir, onFeatureBackfill: (p) => progress.push({ ...p }) });
    const reopened = new LocalCatalogClient(catalog);
    const query = readFileSync(FILE);
    // Before the backfill has run (it starts 2 s after opening): found with its version-3 record.
    const before = await reopened.search({}, { image: query, filename: 'q.jpg' });
    expect(before.results[0]?.id).toBe('icon');
    const deadline = Date.now() + 30_000;
    while (!progress.some((p) => p.done === 1 && p.remaining === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(progress.at(-1)).toMatchObject({ done: 1, failed: 0, remaining: 0 });
    const check = new Database(join(dataDir, 'catalog.db'), { readonly: true });
    const after = check.prepare<[], { features: Buffer }>("SELECT features FROM images WHERE image_id = 'icon-1'").get();
    check.close();
    expect(new Uint8Array(after?.features ?? [])).toEqual(await extractPhotoReference(readFileSync(FILE)));
    const found = await reopened.search({}, { image: query, filename: 'q.jpg' });
    expect(found.results[0]?.id).toBe('icon');
  });
});
