/**
 * CatalogService.upsertPartBatches over SQLite (a local import writes several batches per
 * transaction): every batch of a call is written in ONE transaction, so a failure while
 * writing a later batch stores nothing of the earlier ones — neither their parts rows nor their
 * search index entries — and the catalog then takes the same batches as if nothing had happened.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { systemIds } from '../../src/adapters/system.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

describe('upsertPartBatches (SQLite): one transaction for every batch', () => {
  let dir: string | undefined;
  let catalog: Catalog | undefined;
  afterEach(async () => {
    await catalog?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('a failure while writing the second batch leaves nothing of the first, parts or index; the same call then stores both', async () => {
    dir = tempDir('catalog-part-batches-');
    // Each new part takes a serviceId: the fourth one (the second batch's second part) fails,
    // inside the transaction, after the first batch's parts and postings were written in it.
    let uuids = 0;
    let failAt = 4;
    const ids = systemIds();
    catalog = openCatalog({ dataDir: dir, ids: { secret: () => ids.secret(), uuid: () => {
      uuids++;
      if (uuids === failAt) throw new Error('no more ids');
      return ids.uuid();
    } } });
    const client = new LocalCatalogClient(catalog);
    const batches = [
      { items: [{ part_id: 'b1', name: { en: 'Sprocket one' } }, { part_id: 'b2', name: { en: 'Sprocket two' } }] },
      { items: [{ part_id: 'b3', name: { en: 'Sprocket three' } }, { part_id: 'b4', name: { en: 'Sprocket four' } }] },
    ];
    await expect(client.upsertPartBatches(batches)).rejects.toThrow('no more ids');
    expect((await client.listParts({})).result).toEqual([]);
    expect((await client.search({ matches: { text: 'sprocket' } })).resultsTotalCount).toBe(0);

    failAt = 0;
    expect(await client.upsertPartBatches(batches)).toEqual([
      { created: ['b1', 'b2'], updated: [], errors: {} },
      { created: ['b3', 'b4'], updated: [], errors: {} },
    ]);
    expect((await client.listParts({})).result.map((p) => p.part_id)).toEqual(['b1', 'b2', 'b3', 'b4']);
    const found = await client.search({ matches: { text: 'sprocket' } });
    expect(found.resultsTotalCount).toBe(4);
    expect(found.results.map((r) => r.id).sort()).toEqual(['b1', 'b2', 'b3', 'b4']);
  });

  it('a batch over the per-call limit is refused before anything is written', async () => {
    dir = tempDir('catalog-part-batches-');
    catalog = openCatalog({ dataDir: dir, limits: { maxBulkItems: 2 } });
    const client = new LocalCatalogClient(catalog);
    const result = client.upsertPartBatches([
      { items: [{ part_id: 'a1', name: { en: 'A' } }] },
      { items: [{ part_id: 'a2', name: { en: 'A' } }, { part_id: 'a3', name: { en: 'A' } }, { part_id: 'a4', name: { en: 'A' } }], validated: true },
    ]);
    await expect(result).rejects.toMatchObject({ code: 'payload_too_large' });
    expect((await client.listParts({})).result).toEqual([]);
  });
});
