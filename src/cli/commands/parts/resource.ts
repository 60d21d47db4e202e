/** Part types as a CLI resource (decisions §5). */
import { MAX_BULK_ITEMS, MAX_PAGE_LIMIT, PART_PROJECTION } from '../../../api/schemas.js';
import type { Attribute, PartInput } from '../../../api/schemas.js';
import type { PartView } from '../../../client/types.js';
import { escapeAttrId, partRowColumns, partToRow } from '../../import/map-rows.js';
import { CSV_MAPPERS } from '../../import/mapped-entries.js';
import type { ImportSpec, ResourceSpec } from '../resource.js';
import { walkPages } from '../resource-verbs.js';

export const partsResource: ResourceSpec<PartView> & ImportSpec = {
  noun: 'parts',
  singular: 'part',
  idField: 'part_id',
  changeType: 'part',
  maxBatch: MAX_BULK_ITEMS,
  fields: ['part_id', ...PART_PROJECTION],
  // The values are what a person looks for; timestamps are one --fields away.
  defaultFields: ['part_id', 'name', 'attributes'],
  mapCsvRow: CSV_MAPPERS.parts as ImportSpec['mapCsvRow'],
  send: (client, items) => client.upsertParts(items),
  sendValidated: (client, items) => client.upsertValidatedParts(items as unknown as PartInput[]),
  sendBatches: (client, batches) => client.upsertPartBatches(batches.map((b) => (b.validated ? { items: b.items as unknown as PartInput[], validated: true } : { items: b.items }))),
  async definitions(client) {
    const all: Attribute[] = [];
    for await (const attribute of walkPages((request) => client.listAttributes(request), { pageSize: MAX_PAGE_LIMIT })) all.push(attribute as Attribute);
    return all;
  },
  async existing(client, ids) {
    const found = await client.selectParts({ part_ids: ids, projection: ['serviceId'] });
    return new Set(found.map((p) => p.part_id));
  },
  list: (client, request) => client.listParts(request),
  select: (client, ids) => client.selectParts({ part_ids: ids }),
  delete: (client, ids) => client.deleteParts(ids),
  toCsvRow: partToRow,
  csvColumns: (keys) => partRowColumns([Object.fromEntries(keys.map((k) => [k, '']))]),
  async knownColumns(client) {
    return attributeColumns(await (partsResource.definitions as NonNullable<ImportSpec['definitions']>)(client));
  },
};

/**
 * The columns the attribute list implies: `attr:<id>.<lang>` for every language an attribute's name
 * or default value is written in, and `name.<lang>` for every one of those languages.
 */
export function attributeColumns(definitions: readonly Attribute[]): string[] {
  const names = new Set<string>();
  const attrs: string[] = [];
  for (const a of definitions) {
    for (const lang of new Set([...Object.keys(a.name), ...Object.keys(a.default_value ?? {})])) {
      names.add(`name.${lang}`);
      attrs.push(`attr:${escapeAttrId(a.attribute_id)}.${lang}`);
    }
  }
  return [...names, ...attrs];
}
