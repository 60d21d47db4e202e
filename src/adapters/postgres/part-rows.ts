/** The PostgreSQL `parts` row (migrations.ts): the shared columns (src/adapters/rows.ts) and its key. */
import { partFromColumns, type PartColumns } from '../rows.js';

/** A `parts` row as PostgreSQL adapters read it. */
export interface PgPartRow extends PartColumns {
  pk: number;
}

/** Parses a `parts` row into a StoredPart. */
export const partFromPgRow = partFromColumns;
