/**
 * The SQLite `parts` row (migration 1): the shared columns (src/adapters/rows.ts) and its rowid key.
 */
import { partFromColumns, type PartColumns } from '../rows.js';

/** A `parts` row as SQLite adapters read it. */
export interface PartRow extends PartColumns {
  rowid_: number;
}

/** Parses a `parts` row into a StoredPart. */
export const partFromRow = partFromColumns;
