/**
 * Contract: the change feed (docs/api.md "Changes") for both clients (and on PostgreSQL through
 * the contract-postgres project): numbering, tombstones, paging, 410 past the retention, what a
 * reader sees, and a delta applied to a copy makes it equal to the source (attributes, parts,
 * images, relations, deletions) with the CLI's delta code (src/cli/commands/changes/delta.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogClient } from '../../src/client/types.js';
import { changedItems, deltaRecords, RELATION_KEY_SEPARATOR, writeWithTombstones } from '../../src/cli/commands/changes/delta.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';
import { SHARED_IMAGES } from '../helpers/data.js';

const bytesOf = (name: string) => readFileSync(join(SHARED_IMAGES, name));

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Everything a copy must equal: attributes, parts (without times and service ids), images with their bytes' hash, relations. */
async function snapshot(client: CatalogClient): Promise<unknown> {
  const parts = (await client.listParts({ paging: { limit: 1000 } })).result.map(({ part_id, name, attributes }) => ({ part_id, name, attributes }));
  const attributes = (await client.listAttributes({ paging: { limit: 1000 } })).result.map(({ attribute_id, type, name, visibility }) => ({ attribute_id, type, name, visibility }));
  const images = [];
  for (const image of (await client.listImages({ paging: { limit: 1000 } })).result) {
    const download = await client.downloadImage(image.image_id);
    images.push({ ...image, size: (await readAll(download.stream)).length, etag: download.etag });
  }
  const relations = (await client.listRelations({ paging: { limit: 1000 } })).result.map(({ anchor_part_id, related_part_id, type, source }) => ({ anchor_part_id, related_part_id, type, source }));
  return { attributes, parts, images, relations };
}

/**
 * Applies the delta of `source` after `since` to `copy`, as docs/cli.md's sync recipe does:
 * attributes, image deletions, parts (with tombstones), relations, image writes. Returns where
 * the next delta starts.
 */
async function applyDelta(source: CatalogClient, copy: CatalogClient, since: number): Promise<number> {
  let next = since;
  const apply = async (type: 'attribute' | 'part', idField: string, select: (ids: string[]) => Promise<Record<string, unknown>[]>, write: (items: Record<string, unknown>[]) => Promise<never>, remove: (ids: string[]) => Promise<{ deleted: string[]; errors: Record<string, string[]> }>, existing: (ids: string[]) => Promise<Set<string>>) => {
    const changed = await changedItems(source, type, since);
    next = Math.max(next, changed.next);
    const records: Record<string, unknown>[] = [];
    for await (const record of deltaRecords(changed, idField, select)) records.push(record);
    const result = await writeWithTombstones(records.map(({ serviceId: _s, createdAt: _c, modifiedAt: _m, ...rest }) => rest), idField, write, remove, existing);
    expect(result.errors).toEqual({});
  };
  await apply('attribute', 'attribute_id', (ids) => source.selectAttributes({ attribute_ids: ids }) as never, (items) => copy.upsertAttributes(items) as never, (ids) => copy.deleteAttributes(ids),
    async (ids) => new Set((await copy.selectAttributes({ attribute_ids: ids })).map((a) => a.attribute_id)));
  const images = await changedItems(source, 'image', since);
  next = Math.max(next, images.next);
  if (images.deleted.length > 0) {
    const known = new Set((await copy.selectImages({ image_ids: images.deleted })).map((i) => i.image_id));
    await copy.deleteImages(images.deleted.filter((id) => known.has(id)));
  }
  await apply('part', 'part_id', (ids) => source.selectParts({ part_ids: ids }) as never, (items) => copy.upsertParts(items) as never, (ids) => copy.deleteParts(ids),
    async (ids) => new Set((await copy.selectParts({ part_ids: ids })).map((p) => p.part_id)));
  const relations = await changedItems(source, 'relation', since);
  next = Math.max(next, relations.next);
  for (const key of relations.upserted) {
    const [anchor, related] = key.split(RELATION_KEY_SEPARATOR) as [string, string];
    const relation = (await source.getRelations(anchor).catch(() => [])).find((r) => r.part_id === related && r.part_role === 'related_part');
    if (relation) await copy.createRelations([{ anchor_part_id: anchor, related_part_id: related, type: relation.type, source: relation.source }]);
  }
  for (const imageId of images.upserted) {
    const image = await source.getImage(imageId).catch(() => undefined);
    if (!image) continue;
    const bytes = await readAll((await source.downloadImage(imageId)).stream);
    const result = await copy.uploadImages([{ image_id: image.image_id, part_id: image.part_id, info: image.info, ...(image.position !== undefined ? { position: image.position } : {}) }], [{ filename: imageId, data: bytes }]);
    expect(result.errors).toEqual({});
  }
  return next;
}

describe.each(MODES)('change feed (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
  });
  afterEach(async () => {
    await h.close();
  });

  it('numbers every write and deletion in commit order and pages through them', async () => {
    expect(await h.admin.changes({})).toEqual({ changes: [], next: 0, latest: 0, more: false });
    await h.admin.upsertAttributes([{ attribute_id: 'colour', type: 'text', name: { en: 'Colour' } }]);
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'One' } }, { part_id: 'p2', name: { en: 'Two' } }]);
    await h.admin.deleteParts(['p2']);
    const all = await h.admin.changes({ since: 0 });
    expect(all.changes.map((c) => [c.change, c.type, c.op, c.id])).toEqual([[1, 'attribute', 'upsert', 'colour'], [2, 'part', 'upsert', 'p1'], [3, 'part', 'upsert', 'p2'], [4, 'part', 'delete', 'p2']]);
    expect(all.changes[0]?.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(all).toMatchObject({ next: 4, latest: 4, more: false });
    const page = await h.admin.changes({ since: 1, limit: 2 });
    expect(page.changes.map((c) => c.change)).toEqual([2, 3]);
    expect(page).toMatchObject({ next: 3, latest: 4, more: true });
    expect((await h.admin.changes({ since: 0, types: ['attribute'] })).changes.map((c) => c.id)).toEqual(['colour']);
  });

  it('refuses a bad request and a since beyond the latest change (400), and says 410 once the changes were pruned', async () => {
    await expectCatalogError(h.admin.changes({ since: -1 }), 'bad_request');
    await expectCatalogError(h.admin.changes({ limit: 1001 }), 'bad_request');
    await expectCatalogError(h.admin.changes({ types: ['nope'] }), 'bad_request');
    await expectCatalogError(h.admin.changes({ since: 5 }), 'bad_request', /since 5 is beyond this catalog's latest change, 0/);
    await h.catalog.service.store.setSetting('change_retention_seconds', '0');
    await h.admin.upsertParts([{ part_id: 'first', name: { en: 'First' } }]);
    await new Promise((r) => setTimeout(r, 5));
    await h.admin.upsertParts(Array.from({ length: 999 }, (_, i) => ({ part_id: `p${i}`, name: { en: 'P' } })));
    const gone = await expectCatalogError(h.admin.changes({ since: 0 }), 'gone', /changes after 0 are no longer kept/);
    expect(gone.status).toBe(410);
    expect((await h.admin.changes({ since: 1000 })).changes).toEqual([]);
  });

  it('shows a reader no values: a change names its item, which the reader reads with its own roles', async () => {
    await h.admin.upsertAttributes([{ attribute_id: 'secret', type: 'text', name: { en: 'Secret' }, visibility: 'superAdmin' }]);
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'One' }, attributes: [{ attribute_id: 'secret', values: [{ value: { en: 'hidden-value' } }] }] }]);
    const worker = await h.as(['factoryWorker']);
    const feed = await worker.changes({});
    expect(JSON.stringify(feed)).not.toContain('hidden-value');
    expect(feed.changes.map((c) => Object.keys(c).sort())).toEqual([['at', 'change', 'id', 'op', 'type'], ['at', 'change', 'id', 'op', 'type']]);
    const changed = await changedItems(worker, 'part', 0);
    const records: Record<string, unknown>[] = [];
    for await (const record of deltaRecords(changed, 'part_id', (ids) => worker.selectParts({ part_ids: ids }) as never)) records.push(record);
    expect(JSON.stringify(records)).not.toContain('hidden-value');
    expect(records).toMatchObject([{ part_id: 'p1', attributes: [] }]);
  });

  it('a delta applied to a copy makes it equal to the source: parts, images, relations, deletions', async () => {
    const copyHarness = await createHarness(mode);
    try {
      const source = h.admin;
      const copy = copyHarness.admin;
      await source.upsertAttributes([{ attribute_id: 'colour', type: 'text', name: { en: 'Colour' } }, { attribute_id: 'old', type: 'text', name: { en: 'Old' } }]);
      await source.upsertParts(['a', 'b', 'c', 'd'].map((id) => ({ part_id: id, name: { en: `Part ${id}` }, attributes: [{ attribute_id: 'colour', values: [{ value: { en: `red ${id}` } }] }] })));
      await source.createRelations([{ anchor_part_id: 'a', related_part_id: 'b', type: 'substitute' }, { anchor_part_id: 'c', related_part_id: 'd', type: 'duplicate' }]);
      await source.uploadImages([{ image_id: 'penny', part_id: 'a', info: 'display' }, { image_id: 'mars', part_id: 'd', info: 'display' }], [{ filename: 'penny', data: bytesOf('001penny.jpg') }, { filename: 'mars', data: bytesOf('4_mars.jpg') }]);
      // The first delta: everything so far.
      let since = await applyDelta(source, copy, 0);
      expect(await snapshot(copy)).toEqual(await snapshot(source));
      // Then updates, moves and deletions of every kind.
      await source.upsertParts([{ part_id: 'a', name: { en: 'Part A, renamed' } }, { part_id: 'e', name: { en: 'Part e' } }]);
      await source.deleteImages(['mars']);
      await source.deleteParts(['d']);
      await source.createRelations([{ anchor_part_id: 'b', related_part_id: 'a', type: 'equivalent' }, { anchor_part_id: 'e', related_part_id: 'c', type: 'substitute' }]);
      await source.uploadImages([{ image_id: 'penny', part_id: 'e', info: 'display weight=2' }, { image_id: 'mars2', part_id: 'c', info: 'searchable' }], [{ filename: 'mars2', data: bytesOf('4_mars.jpg') }]);
      await source.deleteAttributes(['old']);
      expect(await snapshot(copy)).not.toEqual(await snapshot(source));
      since = await applyDelta(source, copy, since);
      expect(await snapshot(copy)).toEqual(await snapshot(source));
      // Nothing changed: an empty delta, the same number.
      expect(await applyDelta(source, copy, since)).toBe(since);
    } finally {
      await copyHarness.close();
    }
  });
});
