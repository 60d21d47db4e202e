/**
 * The paging envelope (spec 2.4, decisions §1) and projections, shared by every list operation.
 */
import { DEFAULT_PAGE_LIMIT, type Page } from '../api/schemas.js';
import type { KeysetPage } from './model.js';

/** The store request for a page: `limit + 1` rows are read so `more_data` is exact. */
export function keysetFor(paging: { limit?: number | undefined; last_object_id?: string | undefined } | undefined): KeysetPage & { pageSize: number } {
  const pageSize = paging?.limit ?? DEFAULT_PAGE_LIMIT;
  return { after: paging?.last_object_id, limit: pageSize + 1, pageSize };
}

/** Builds the envelope from up to `pageSize + 1` rows ordered by id. */
export function toPage<T, R>(rows: readonly T[], pageSize: number, idOf: (row: T) => string, view: (row: T) => R, after: string | undefined): Page<R> {
  const pageRows = rows.slice(0, pageSize);
  const last = pageRows[pageRows.length - 1];
  return {
    result: pageRows.map(view),
    last_object_id: last !== undefined ? idOf(last) : (after ?? ''),
    more_data: rows.length > pageSize,
  };
}

/** Keeps the id field plus the projected fields (all fields when no projection is given). */
export function project<T extends object>(full: T, idField: keyof T, projection: readonly string[] | undefined): Partial<T> {
  if (!projection) return full;
  const out: Partial<T> = { [idField]: full[idField] } as Partial<T>;
  for (const field of projection) {
    if (field in full) (out as Record<string, unknown>)[field] = (full as Record<string, unknown>)[field];
  }
  return out;
}
