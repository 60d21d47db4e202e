/**
 * Printing records of a resource in the chosen format: table with the resource's columns; csv/tsv as
 * flat rows that `import` reads back (cli.md); json as ONE array; ndjson streamed.
 */
import type { CommandContext } from '../context.js';
import { selectFields } from './format.js';
import { writeRecords } from './write.js';

export interface EmitSpec<T> {
  fields: string[];
  defaultFields: string[];
  /** Flat CSV form of a record; when absent csv/tsv use the nested fields. */
  toCsvRow?: (record: T) => Record<string, string>;
}

/**
 * Writes `records` to stdout. For csv/tsv without --fields the rows are buffered so the header can
 * hold every column any row has (e.g. every `name.<lang>`); other formats stream.
 */
export async function emitRecords<T extends Record<string, unknown>>(ctx: CommandContext, spec: EmitSpec<T>, records: AsyncIterable<T> | Iterable<T>): Promise<void> {
  const flat = (ctx.format === 'csv' || ctx.format === 'tsv') && spec.toCsvRow !== undefined;
  if (flat && spec.toCsvRow) {
    const toRow = spec.toCsvRow;
    const rows: Record<string, string>[] = [];
    const columns = new Set<string>();
    for await (const record of records) {
      const row = toRow(record);
      for (const key of Object.keys(row)) columns.add(key);
      rows.push(row);
    }
    const fields = ctx.flags.fields !== undefined ? selectFields(ctx.flags.fields, [...columns, ...spec.fields], []) : [...columns];
    await writeRecords(ctx.io.stdout, ctx.format, rows, { fields });
    return;
  }
  const fields = selectFields(ctx.flags.fields, spec.fields, ctx.format === 'json' || ctx.format === 'ndjson' ? [] : spec.defaultFields);
  await writeRecords(ctx.io.stdout, ctx.format, records as AsyncIterable<Record<string, unknown>>, { fields, color: ctx.color });
}

export { emitJson } from './json.js';
