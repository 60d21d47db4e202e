/**
 * Search documents prepared on an import's reader thread
 * (src/core/search/engine/prepared-documents.ts): the SQLite store uses them for a new part when
 * they were built with the definitions its transaction reads, and builds the documents itself
 * otherwise (stale definitions, an update, no documents). Either way the index holds exactly what
 * plain upserts give.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Attribute, PartInput } from '../../src/api/schemas.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { indexTables, inMemorySqliteCatalog, type InMemorySqliteCatalog } from '../helpers/sqlite-catalog.js';
import { definitionsKey, PREPARED_DOCUMENTS, PreparedDictionary, PreparedDocumentsPacker, preparePartDocuments, type PreparedPartInput } from '../../src/core/search/engine/prepared-documents.js';

const ATTRIBUTES = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
  { attribute_id: 'bin', type: 'text', name: { en: 'Bin' }, searchable: true, per_org_values: true },
];

const PARTS: PartInput[] = [
  { part_id: 'pci:8086:1539', name: { en: 'Ethernet Controller I211', de: 'Ethernet-Steuerung' }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel Corporation' } }] }] },
  { part_id: 'x-2', name: { en: 'Crème brûlée torch' }, attributes: [{ attribute_id: 'bin', values: [{ organization: 'acme', value: { en: 'Shelf A-1' } }] }, { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Torch Works' } }] }] },
  { part_id: 'a-3', name: { en: 'Torch head' } },
  { part_id: 'bad', name: { en: 'Bad' }, attributes: [{ attribute_id: 'nope', values: [{ organization: '', value: { en: 'x' } }] }] },
];

describe('prepared search documents (SQLite store)', () => {
  const opened: InMemorySqliteCatalog[] = [];
  afterEach(async () => {
    for (const catalog of opened.splice(0)) await catalog.close();
  });

  async function open(attributes = ATTRIBUTES) {
    const catalog = inMemorySqliteCatalog();
    const { store, service, search } = catalog;
    opened.push(catalog);
    expect((await service.upsertAttributes(LOCAL_OWNER, attributes)).errors).toEqual({});
    const ids = async (text: string) => (await search.search(LOCAL_OWNER, { matches: { text } })).results.map((r) => r.id);
    return { store, service, ids };
  }

  /** `parts` (copies), each carrying what preparePartDocuments gives under `definitions`. */
  function prepared(parts: PartInput[], definitions: Attribute[]): PreparedPartInput[] {
    const map = new Map(definitions.map((a) => [a.attribute_id, a]));
    const key = definitionsKey(definitions);
    // One block per part, as the reader thread would pack them.
    const packer = new PreparedDocumentsPacker(1000);
    const dictionary = new PreparedDictionary();
    return parts.map((part) => {
      const item: PreparedPartInput = structuredClone(part);
      const documents = preparePartDocuments(part, map);
      if (documents !== undefined) {
        const at = packer.add(documents);
        item[PREPARED_DOCUMENTS] = { definitions: key, block: dictionary.block(packer.take()), at };
      }
      return item;
    });
  }

  it('new parts with prepared documents: the index is the one plain upserts build, table by table', async () => {
    const withDocuments = await open();
    const plain = await open();
    const items = prepared(PARTS, await withDocuments.store.allAttributes());
    expect(items.filter((i) => i[PREPARED_DOCUMENTS] !== undefined)).toHaveLength(3);
    const results = await withDocuments.service.upsertValidatedParts(LOCAL_OWNER, items);
    expect(results).toEqual(await plain.service.upsertValidatedParts(LOCAL_OWNER, PARTS));
    expect(Object.keys(results.errors)).toEqual(['bad']);
    const tables = indexTables(withDocuments.store.db);
    expect(tables).toEqual(indexTables(plain.store.db));
    expect(tables.orgDocs).toHaveLength(1);
    expect(await withDocuments.ids('torch')).toEqual(await plain.ids('torch'));
    expect(await withDocuments.ids('torch')).toHaveLength(2);
  });

  it('uses the documents an item brings when their definitions match (so the test above compares the prepared path)', async () => {
    const { store, service, ids } = await open();
    // Documents of another part than the item's: the store does not build its own then.
    const [item] = prepared([{ part_id: 'z', name: { en: 'Zebra' } }], await store.allAttributes());
    await service.upsertValidatedParts(LOCAL_OWNER, [{ ...(item as PreparedPartInput), name: { en: 'Alpha' } }]);
    expect(await ids('zebra')).toHaveLength(1);
    expect(await ids('alpha')).toHaveLength(0);
  });

  it('stale definitions (an attribute changed since the documents were built): the store builds the documents itself', async () => {
    const { store, service, ids } = await open();
    const plain = await open();
    // Built while vendor was not searchable; the catalog's vendor is.
    const stale = (await store.allAttributes()).map((a) => (a.attribute_id === 'vendor' ? { ...a, searchable: false } : a));
    const items = prepared(PARTS, stale);
    expect(items[0]?.[PREPARED_DOCUMENTS]).toBeDefined();
    await service.upsertValidatedParts(LOCAL_OWNER, items);
    await plain.service.upsertValidatedParts(LOCAL_OWNER, PARTS);
    expect(await ids('intel')).toHaveLength(1);
    expect(indexTables(store.db)).toEqual(indexTables(plain.store.db));
  });

  it('an update ignores them: a merged part is indexed as merged', async () => {
    const { store, service, ids } = await open();
    await service.upsertParts(LOCAL_OWNER, [PARTS[0]]);
    // As a new part this input has no vendor; merged with what is stored, it keeps Intel.
    const [update] = prepared([{ part_id: 'pci:8086:1539', name: { en: 'Network adapter' } }], await store.allAttributes());
    expect(update?.[PREPARED_DOCUMENTS]).toBeDefined();
    await service.upsertValidatedParts(LOCAL_OWNER, [update as PreparedPartInput]);
    expect(await ids('intel')).toHaveLength(1);
    expect(await ids('adapter')).toHaveLength(1);
  });
});
