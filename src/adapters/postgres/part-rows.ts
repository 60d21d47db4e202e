/** The PostgreSQL `parts` row (migrations.ts) and its mapping to the core's StoredPart. */
import type { LangMap, PartAttribute } from '../../api/schemas.js';
import type { StoredPart } from '../../core/model.js';

/** A `parts` row: names and attribute values as JSON text, times in microseconds. */
export interface PgPartRow {
  pk: number;
  part_id: string;
  service_id: string;
  name: string;
  attributes: string;
  created_at: number;
  modified_at: number;
}

/** Parses a `parts` row into a StoredPart. */
export function partFromPgRow(row: PgPartRow): StoredPart {
  return {
    part_id: row.part_id,
    serviceId: row.service_id,
    name: JSON.parse(row.name) as LangMap,
    attributes: JSON.parse(row.attributes) as PartAttribute[],
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}
