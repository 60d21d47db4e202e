/**
 * The `parts` table row (migration 1) and its mapping to the core's StoredPart, shared by every
 * SQLite adapter that reads parts.
 */
import type { LangMap, PartAttribute } from '../../api/schemas.js';
import type { StoredPart } from '../../core/model.js';

/** A `parts` row: names and attribute values as JSON text, times in microseconds. */
export interface PartRow {
  rowid_: number;
  part_id: string;
  service_id: string;
  name: string;
  attributes: string;
  created_at: number;
  modified_at: number;
}

/** Parses a `parts` row into a StoredPart. */
export function partFromRow(row: PartRow): StoredPart {
  return {
    part_id: row.part_id,
    serviceId: row.service_id,
    name: JSON.parse(row.name) as LangMap,
    attributes: JSON.parse(row.attributes) as PartAttribute[],
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}
