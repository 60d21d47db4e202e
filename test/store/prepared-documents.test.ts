/**
 * Search documents prepared on an import's reader thread (issue 12;
 * src/core/search/engine/prepared-documents.ts): the SQLite store uses them for a new part when
 * they were built with the definitions its transaction reads, and builds the documents itself
 * otherwise (stale definitions, an update, no documents). Either way the index holds exactly what
 * plain upserts give.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Attribute, PartInput } from '../../src/api/schemas.js';
import { SqliteCatalogStore } from '../../src/adapters/sqlite/catalog-store.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteSearchIndex } from '../../src/adapters/sqlite/search/search-index.js';
import { openSessionDatabase, SqliteSessionStore } from '../../src/adapters/sqlite/session-store.js';
import { systemClock, systemIds } from '../../src/adapters/system.js';
import { CatalogService } from '../../src/core/catalog/service.js';
import { createServiceContext } from '../../src/core/context.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { definitionsKey, PREPARED_DOCUMENTS, PreparedDictionary, PreparedDocumentsPacker, preparePartDocuments, type PreparedPartInput } from '../../src/core/search/engine/prepared-documents.js';
import { SearchService } from '../../src/core/search/service.js';

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

/** The index tables in a comparable form (row ids, terms, blocks, docs, vocabulary, org texts). */
function indexTables(store: SqliteCatalogStore): Record<string, unknown[]> {
  const all = (sql: string) => store.db.prepare(sql).raw().all();
  return {
    parts: all('SELECT rowid_, part_id, name, attributes FROM parts ORDER BY rowid_'),
    terms: all('SELECT id, term FROM engine_terms ORDER BY id'),
    postings: all('SELECT term_id, first_doc, hex(data) FROM engine_postings ORDER BY 1, 2'),
    docs: all('SELECT chunk, hex(data) FROM engine_docs ORDER BY 1'),
    changes: all('SELECT version, hex(term_ids) FROM engine_term_changes ORDER BY 1'),
    stats: all('SELECT * FROM engine_stats'),
    current: all('SELECT * FROM search_current ORDER BY 1'),
    vocabulary: all('SELECT * FROM search_terms ORDER BY 1'),
    typoKeys: all('SELECT * FROM search_term_keys ORDER BY 1, 2'),
    orgDocs: all('SELECT rowid, * FROM search_org_docs ORDER BY rowid'),
  };
}

describe('prepared search documents (SQLite store)', () => {
  const opened: { service: CatalogService; search: SearchService }[] = [];
  afterEach(async () => {
    for (const { service, search } of opened.splice(0)) {
      await search.close();
      await service.close();
    }
  });

  async function open(attributes = ATTRIBUTES) {
    const clock = systemClock();
    const store = new SqliteCatalogStore(openDatabase(':memory:'));
    const index = new SqliteSearchIndex(store.db, { clock });
    store.listeners.push(index);
    const context = createServiceContext({ store, clock, ids: systemIds() });
    const service = new CatalogService({ context, store });
    const search = new SearchService({ context, index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
    opened.push({ service, search });
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
    const tables = indexTables(withDocuments.store);
    expect(tables).toEqual(indexTables(plain.store));
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
    expect(indexTables(store)).toEqual(indexTables(plain.store));
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
