/**
 * The first stage of an import: read records and map them to API items. Here in the calling
 * thread; ./entries-thread.ts runs this same function on a reader thread for large files.
 */
import type { MapperName } from './entries-protocol.js';
import { mapAttributeRow, mapOrganizationRow, mapPartRow, mapRelationRow, mapSynonymRow, stripMetaColumns, stripReadOnly } from './map-rows.js';
import { readRecords, type ImportFormat, type RecordSource } from './read-records.js';

/** A row ready to send, or one rejected before sending (unreadable, or unmappable CSV). */
export type MappedEntry =
  | { line: number; record: Record<string, unknown>; item: Record<string, unknown> }
  | { line: number; record?: Record<string, unknown>; raw?: string; problems: string[] };

type CsvMapper = (record: Record<string, string>, options?: { validate?: boolean }) => { item: unknown } | { problems: string[] };

export const CSV_MAPPERS: Readonly<Record<MapperName, CsvMapper>> = {
  attributes: (r) => mapAttributeRow(r),
  parts: (r, o) => mapPartRow(r, o),
  relations: (r) => mapRelationRow(r),
  synonyms: (r) => mapSynonymRow(r),
  organizations: (r) => mapOrganizationRow(r),
};

/** One `--id-replace <from>=<to>`: every `from` in an id becomes `to` (`/=:` maps `npm/react` to `npm:react`). */
export interface IdReplacement {
  from: string;
  to: string;
}

/** The id fields `--id-replace` rewrites, per resource: the part ids a row names. */
export const ID_FIELDS: Readonly<Record<MapperName, readonly string[]>> = {
  attributes: [],
  parts: ['part_id'],
  relations: ['anchor_part_id', 'related_part_id'],
  synonyms: [],
  organizations: [],
};

/** `record` with every replacement applied to its string `fields`, in the order given; the record itself when none applies. */
export function replaceIds(record: Record<string, unknown>, fields: readonly string[], replacements: readonly IdReplacement[]): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const field of fields) {
    const value = record[field];
    if (typeof value !== 'string') continue;
    let replaced = value;
    for (const { from, to } of replacements) replaced = replaced.split(from).join(to);
    if (replaced !== value) (out ??= { ...record })[field] = replaced;
  }
  return out ?? record;
}

/** Whether a record carries the errors-file columns (a fixed errors file imported again). */
function hasMetaColumns(record: Record<string, unknown>): boolean {
  return '_line' in record || '_error' in record || '_raw' in record;
}

/**
 * Reads and maps in this thread; `ids`: the `--id-replace` replacements and the id fields they apply to. CSV/TSV rows are mapped without the schema check (`validate: false`:
 * the service validates every item); JSON items pass as they are, minus errors-file columns and the
 * `readOnly` fields listings print (READ_ONLY_FIELDS of ./map-rows.ts: accepted and ignored).
 */
export async function* mapEntries(
  source: RecordSource,
  format: ImportFormat,
  mapCsvRow: CsvMapper,
  readOnly: readonly string[] = [],
  ids: { fields: readonly string[]; replacements: readonly IdReplacement[] } = { fields: [], replacements: [] },
): AsyncGenerator<MappedEntry> {
  for await (const read of readRecords(source, format)) {
    // --id-replace rewrites the ids as read, so the row is validated, stored and reported with them.
    const entry = 'record' in read && ids.replacements.length > 0 ? { ...read, record: replaceIds(read.record, ids.fields, ids.replacements) } : read;
    if ('error' in entry) {
      yield { line: entry.line, problems: [entry.error], ...(entry.raw !== undefined ? { raw: entry.raw } : {}) };
    } else if (format === 'csv' || format === 'tsv') {
      const mapped = mapCsvRow(entry.record as Record<string, string>, { validate: false });
      if ('problems' in mapped) yield { line: entry.line, record: entry.record, problems: mapped.problems };
      else yield { line: entry.line, record: entry.record, item: mapped.item as Record<string, unknown> };
    } else {
      const item = hasMetaColumns(entry.record) ? stripMetaColumns(entry.record) : entry.record;
      yield { line: entry.line, record: entry.record, item: stripReadOnly(item, readOnly) };
    }
  }
}
