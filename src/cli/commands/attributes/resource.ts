/** Attributes as a CLI resource (spec 2.1, 4.1). */
import { ATTRIBUTE_PROJECTION, MAX_BULK_ITEMS } from '../../../api/schemas.js';
import type { AttributeView } from '../../../client/types.js';
import { attributeToRow } from '../../import/map-rows.js';
import { CSV_MAPPERS } from '../../import/mapped-entries.js';
import type { ImportSpec, ResourceSpec } from '../resource.js';

export const attributesResource: ResourceSpec<AttributeView> & ImportSpec = {
  noun: 'attributes',
  singular: 'attribute',
  idField: 'attribute_id',
  changeType: 'attribute',
  maxBatch: MAX_BULK_ITEMS,
  // creation_order is read-only (not an import column), so exports and imports stay symmetrical.
  fields: ['attribute_id', ...ATTRIBUTE_PROJECTION.filter((f) => f !== 'creation_order')],
  // In order of importance: a narrow terminal leaves out the last ones (output/write.ts).
  defaultFields: ['attribute_id', 'name', 'type', 'searchable', 'filterable', 'visibility', 'display_order', 'org_visibility', 'per_org_values', 'labels'],
  mapCsvRow: CSV_MAPPERS.attributes as ImportSpec['mapCsvRow'],
  send: (client, items) => client.upsertAttributes(items),
  async existing(client, ids) {
    const found = await client.selectAttributes({ attribute_ids: ids, projection: ['type'] });
    return new Set(found.map((a) => a.attribute_id));
  },
  list: (client, request) => client.listAttributes(request),
  select: (client, ids) => client.selectAttributes({ attribute_ids: ids }),
  delete: (client, ids) => client.deleteAttributes(ids),
  toCsvRow: attributeToRow,
};
