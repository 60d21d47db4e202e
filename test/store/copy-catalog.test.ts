/**
 * The catalog copy of `catalog migrate` (core/migration/copy-catalog.ts) between two SQLite store
 * sets, where every step can be stopped and counted: interrupted after every batch in turn it still
 * ends with an identical, verified copy; a foreign or non-empty target is refused; a target changed
 * behind the copy's back is named by the verification. (On PostgreSQL and S3 with the built CLI,
 * real signals included: test/e2e/migrate.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileBlobStore } from '../../src/adapters/blobs/file-blob-store.js';
import { openSqliteStores } from '../../src/adapters/sqlite/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import { copyCatalog, MigrationInterrupted, MigrationTargetError, type MigrationEnd } from '../../src/core/migration/copy-catalog.js';
import type { StoredPart } from '../../src/core/model.js';
import type { SynonymSet } from '../../src/api/schemas.js';

const dirs: string[] = [];
const ends: MigrationEnd[] = [];
afterEach(async () => {
  for (const end of ends.splice(0)) await end.stores.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function end(): MigrationEnd {
  const dir = mkdtempSync(join(tmpdir(), 'copy-catalog-'));
  dirs.push(dir);
  const e = { stores: openSqliteStores({ dataDir: dir, clock: systemClock() }), blobs: new FileBlobStore(join(dir, 'images')) };
  ends.push(e);
  return e;
}

const write = <T>(value: T) => ({ kind: 'write' as const, value, created: true });

/** A source with every kind of data: attributes, nested organizations, parts with per-organization values, relations, an image, a token, settings, synonym sets. */
async function filled(): Promise<MigrationEnd> {
  const source = end();
  const { catalog, relations, images } = source.stores;
  await catalog.upsertAttributes([
    { attribute_id: 'zeta', type: 'text', name: { en: 'Zeta' } },
    { attribute_id: 'alpha', type: 'text', name: { en: 'Alpha' }, per_org_values: true },
  ] as never[], (item) => write(item));
  await catalog.upsertOrganizations([{ org_id: 'z-parent', parent_id: null }, { org_id: 'a-child', parent_id: 'z-parent' }], (item) => write(item));
  const parts: StoredPart[] = Array.from({ length: 23 }, (_, i) => ({
    part_id: `part-${String(i).padStart(2, '0')}`, serviceId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, name: { en: `Part ${i}` },
    attributes: [{ attribute_id: 'zeta', values: [{ organization: '', value: { en: `z${i}` } }] }, { attribute_id: 'alpha', values: [{ organization: 'a-child', value: { en: `${i} EUR` } }] }],
    createdAt: 1_000 + i, modifiedAt: 2_000 + i,
  }));
  await catalog.upsertParts(parts, (item) => write(item));
  await relations.writeRelations(Array.from({ length: 7 }, (_, i) => ({ anchor_part_id: `part-0${i}`, related_part_id: `part-1${i}`, type: 'duplicate' as const, source: 'ingested' as const, user_id: 'u', created: 5 + i })));
  const blob = await source.blobs.put(Buffer.from('not really an image, but bytes'));
  await images.upsertImages([{ image_id: 'img', part_id: 'part-01' }], () => write({
    image: { image_id: 'img', part_id: 'part-01', sha256: blob.sha256, size: blob.size, mime: 'image/jpeg', info: 'display searchable', position: 1, createdAt: 7, modifiedAt: 8 },
    features: new Uint8Array([1, 2, 3, 4]),
  }));
  await catalog.createToken({ name: 'admin', secretHash: 'a'.repeat(64), roles: ['catalogAdmin'], organization: null, scopes: ['search', 'metrics'], createdAt: 9, expiresAt: 99, lastUsedAt: null });
  await catalog.setSetting('catalog_id', 'source-catalog');
  await catalog.setSetting('maintenance', 'off');
  await catalog.setSetting('synonyms', '{"nic":["network card"]}');
  await catalog.upsertSynonyms<SynonymSet>([
    { synonym_id: 'bolts', synonyms: ['bolt', 'screw'] },
    { synonym_id: 'hex', input: 'hex', synonyms: ['hexagon', 'six sided'] },
  ], (item) => write(item));
  return source;
}

describe('copyCatalog (catalog migrate)', () => {
  it('copies everything, then continues after an interruption at every batch in turn, nothing duplicated or skipped', async () => {
    const source = await filled();
    const target = end();
    let runs = 0;
    let result: Awaited<ReturnType<typeof copyCatalog>> | undefined;
    // Each run is interrupted after its first finished batch, so every batch boundary of every phase
    // is hit; the verification is interrupted once too (it starts over on the next run).
    let verifyInterrupted = false;
    for (;;) {
      runs++;
      const controller = new AbortController();
      try {
        result = await copyCatalog(source, target, { batchSize: 10, newCatalogId: () => 'unused', signal: controller.signal, onProgress: (p) => {
          if (p.phase !== 'verify' || !verifyInterrupted) controller.abort();
          if (p.phase === 'verify') verifyInterrupted = true;
        } });
        break;
      } catch (error) {
        expect(error).toBeInstanceOf(MigrationInterrupted);
      }
      expect(runs).toBeLessThan(50);
    }
    expect(runs).toBeGreaterThan(5);
    expect(result?.differences).toEqual([]);
    expect(result?.resumed).toBe(true);
    expect(result?.counts).toEqual({ attributes: 2, organizations: 2, parts: 23, relations: 7, images: 1, tokens: 1, settings: 1, synonyms: 2 });
    const t = target.stores;
    expect(await t.catalog.listParts({ after: undefined, limit: 100 })).toEqual(await source.stores.catalog.listParts({ after: undefined, limit: 100 }));
    expect((await t.catalog.allAttributes()).map((a) => a.attribute_id)).toEqual(['zeta', 'alpha']);
    expect(await t.catalog.getSetting('catalog_id')).toBe('source-catalog');
    expect(await t.catalog.getSetting('synonyms')).toBe('{"nic":["network card"]}');
    expect(await t.catalog.getSetting('maintenance')).toBe('off');
    expect(await t.catalog.allSynonyms()).toEqual(await source.stores.catalog.allSynonyms());
    expect((await t.catalog.allSynonyms()).map((x) => x.synonym_id)).toEqual(['bolts', 'hex']);
    expect(await t.catalog.findTokenByHash('a'.repeat(64))).toMatchObject({ name: 'admin', roles: ['catalogAdmin'] });
    expect(await t.references.featuresOf!(['img'])).toEqual(new Map([['img', new Uint8Array([1, 2, 3, 4])]]));
    expect((await t.relations.listRelations(undefined, 100)).length).toBe(7);
    // The image's original went with it.
    const [image] = await t.images.getImages(['img']);
    expect(await target.blobs.has(image!.sha256)).toBe(true);
  });

  it('refuses a target that is not empty, or holds a migration of another catalog, writing nothing', async () => {
    const source = await filled();
    const busy = end();
    await busy.stores.catalog.upsertOrganizations([{ org_id: 'x', parent_id: null }], (item) => write(item));
    await expect(copyCatalog(source, busy, { newCatalogId: () => 'x' })).rejects.toThrow(MigrationTargetError);
    expect(await busy.stores.catalog.getSetting('migration')).toBeUndefined();
    const other = end();
    await other.stores.catalog.setSetting('migration', JSON.stringify({ source: 'another-catalog', phase: 'parts', done: 0, after: null }));
    await expect(copyCatalog(source, other, { newCatalogId: () => 'x' })).rejects.toThrow(/another catalog \(another-catalog\)/);
  });

  it('names what differs when the target changed behind its back, stays in maintenance, and copies again on the next run', async () => {
    const source = await filled();
    const target = end();
    expect((await copyCatalog(source, target, { newCatalogId: () => 'x' })).differences).toEqual([]);
    await target.stores.catalog.upsertParts([{ part_id: 'part-05' }], (_item, existing) => write({ ...existing!, name: { en: 'tampered' } }));
    await target.stores.catalog.setSetting('maintenance', 'on');
    const checked = await copyCatalog(source, target, { newCatalogId: () => 'x' });
    expect(checked.differences).toEqual([{ what: 'parts', detail: "content differs, first at 'part-05'" }]);
    expect(await target.stores.catalog.getSetting('maintenance')).toBe('on');
    expect((await copyCatalog(source, target, { newCatalogId: () => 'x' })).differences).toEqual([]);
    expect((await target.stores.catalog.getParts(['part-05']))[0]?.name).toEqual({ en: 'Part 5' });
  });
});
