/**
 * Search documents prepared on an import's reader thread (src/core/search/engine/prepared-documents.ts)
 * on the PostgreSQL store: used for a new part when they were built with the definitions its
 * transaction reads, built by the store otherwise (stale definitions, an update, no documents).
 * Either way the index holds exactly what plain upserts give. Skipped, loudly (global-setup.ts),
 * when PostgreSQL cannot be started.
 */
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Attribute, PartInput } from '../../src/api/schemas.js';
import { openPostgresStores } from '../../src/adapters/postgres/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import { decidePartUpsert } from '../../src/core/catalog/parts.js';
import { definitionsKey, PREPARED_DOCUMENTS, PreparedDictionary, PreparedDocumentsPacker, preparePartDocuments, type PreparedPartInput } from '../../src/core/search/engine/prepared-documents.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

const available = postgresAvailable();

const ATTRIBUTES: Attribute[] = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true, visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: false },
  { attribute_id: 'bin', type: 'text', name: { en: 'Bin' }, searchable: true, filterable: false, visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: true },
];

const PARTS: PartInput[] = [
  { part_id: 'pci:8086:1539', name: { en: 'Ethernet Controller I211', de: 'Ethernet-Steuerung' }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel Corporation' } }] }] },
  { part_id: 'x-2', name: { en: 'Crème brûlée torch' }, attributes: [{ attribute_id: 'bin', values: [{ organization: 'acme', value: { en: 'Shelf A-1' } }] }, { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Torch Works' } }] }] },
  { part_id: 'a-3', name: { en: 'Torch head' } },
];

/** `parts` (copies), each carrying what preparePartDocuments gives under `definitions`, one packed block for all. */
function prepared(parts: PartInput[], definitions: Attribute[]): PreparedPartInput[] {
  const map = new Map(definitions.map((a) => [a.attribute_id, a]));
  const packer = new PreparedDocumentsPacker(1000);
  const at = parts.map((part) => {
    const documents = preparePartDocuments(part, map);
    return documents === undefined ? -1 : packer.add(documents);
  });
  const block = new PreparedDictionary().block(packer.take());
  return parts.map((part, i) => {
    const item: PreparedPartInput = structuredClone(part);
    if ((at[i] ?? -1) >= 0) item[PREPARED_DOCUMENTS] = { definitions: definitionsKey(definitions), block, at: at[i] ?? 0 };
    return item;
  });
}

describe.skipIf(!available)('prepared search documents (PostgreSQL store)', () => {
  let database = '';
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('prepared');
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(attributes: Attribute[] = ATTRIBUTES) {
    const { url, schema } = await createTestSchema(database);
    const stores = await openPostgresStores(url, { clock: systemClock(), max: 2 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanups.push(async () => {
      await client.end();
      await stores.close();
      await dropTestSchema(database, schema);
    });
    await stores.catalog.upsertAttributes(attributes.map((a) => ({ attribute_id: a.attribute_id })), (item) => ({ kind: 'write', value: attributes.find((a) => a.attribute_id === item.attribute_id) as Attribute, created: true }));
    const upsert = (items: PartInput[]) => stores.catalog.upsertParts(items, (item, existing, defs) => decidePartUpsert(item, existing, defs, 1, () => 'service-id'));
    const q = (word: string) => ({ words: [{ tokens: [word], prefix: false, typo: false }], visibleValues: ['factoryWorker' as const], filters: [], ctx: { principal: { name: 'x', roles: ['factoryWorker'], organization: null } as never, attributes: new Map(), organizations: new Map(), organization: undefined } });
    const ids = async (word: string) => (await stores.searchIndex.readCards((await stores.searchIndex.searchText(q(word), 10)).cardIds)).map((c) => c.partId).sort();
    /** The index's tables, by term and part (ids and pks are the same when the same parts are written in the same order). */
    const tables = async () => ({
      postings: (await client.query('SELECT t.term, p.first_doc, p.data FROM engine_postings p JOIN engine_terms t ON t.id = p.term_id ORDER BY t.term, p.first_doc')).rows,
      docs: (await client.query('SELECT chunk, data FROM engine_docs ORDER BY chunk')).rows,
      stats: (await client.query('SELECT n, len0, len1, len2, len3 FROM engine_stats')).rows,
      current: (await client.query('SELECT part_pk, holder, org_doc FROM search_current ORDER BY part_pk')).rows,
      orgDocs: (await client.query('SELECT c.part_id, d.doc::text FROM search_org_docs d JOIN search_cards c ON c.id = d.card_id ORDER BY 1')).rows,
      vocabulary: (await client.query('SELECT term FROM search_terms ORDER BY term')).rows,
    });
    return { stores, upsert, ids, tables };
  }

  it('new parts with prepared documents: the index is the one plain upserts build, table by table', async () => {
    const withDocuments = await open();
    const plain = await open();
    await withDocuments.upsert(prepared(PARTS, ATTRIBUTES));
    await plain.upsert(PARTS);
    const tables = await withDocuments.tables();
    expect(tables).toEqual(await plain.tables());
    expect(tables.orgDocs).toHaveLength(1);
    expect(await withDocuments.ids('torch')).toEqual(['a-3', 'x-2']);
  });

  it('uses the documents an item brings when their definitions match (so the test above compares the prepared path)', async () => {
    const { upsert, ids } = await open();
    // Documents of another part than the item's: the store does not build its own then.
    const [item] = prepared([{ part_id: 'z', name: { en: 'Zebra' } }], ATTRIBUTES);
    await upsert([{ ...(item as PreparedPartInput), name: { en: 'Alpha' } }]);
    expect(await ids('zebra')).toEqual(['z']);
    expect(await ids('alpha')).toEqual([]);
  });

  it('stale definitions, an update, or a second write of the part in the same call: the store builds the documents itself', async () => {
    const { upsert, ids } = await open();
    // Built while vendor was not searchable; the catalog's vendor is.
    const stale = ATTRIBUTES.map((a) => (a.attribute_id === 'vendor' ? { ...a, searchable: false } : a));
    await upsert(prepared([PARTS[0] as PartInput], stale));
    expect(await ids('intel')).toEqual(['pci:8086:1539']);
    // As a new part this input has no vendor; merged with what is stored, it keeps Intel.
    await upsert(prepared([{ part_id: 'pci:8086:1539', name: { en: 'Network adapter' } }], ATTRIBUTES));
    expect(await ids('intel')).toEqual(['pci:8086:1539']);
    expect(await ids('adapter')).toEqual(['pci:8086:1539']);
    // The same new part twice in one call: the second merges into the first, so its documents (of the input alone) do not hold.
    await upsert(prepared([{ part_id: 'q', name: { en: 'Quartz' }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Epson' } }] }] }, { part_id: 'q', name: { en: 'Quartz crystal' } }], ATTRIBUTES));
    expect(await ids('epson')).toEqual(['q']);
    expect(await ids('crystal')).toEqual(['q']);
  });
});
