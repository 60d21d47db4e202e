/**
 * Writes records to stdout (or any writable) in one of the five output formats of cli.md, streaming
 * where the format allows it and honouring backpressure. The only module that knows cli-table3.
 */
import Table from 'cli-table3';
import type { OutputFormat } from './format.js';
import { isEpipe } from './epipe.js';

export { installEpipeHandler, isEpipe } from './epipe.js';

/** Records to write: an array, a generator, or an async generator (e.g. a paged listing). */
export type RecordStream = AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>;

/** Options of {@link writeRecords}. */
export interface WriteOptions {
  /**
   * The columns, in order. table/csv/tsv print exactly these (a missing value is an empty cell);
   * json/ndjson project each record onto these keys (absent keys stay absent). A name is looked up as
   * an own key first, then as a dotted path (`name.en` reads `record.name.en`).
   * An empty array means "no selection": json/ndjson print whole records, table/csv/tsv use the keys
   * of the first record.
   */
  fields: string[];
  /** json only: wraps the items into one document, e.g. a search page `{sessionId, ..., results: items}`. */
  jsonEnvelope?: (items: unknown[]) => unknown;
  /** table only: colour the header (cli-table3's style). Default false; pass `colorEnabled(...)`. */
  color?: boolean;
}

const LANG_KEY = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A non-empty object whose keys are language tags and whose values are strings: `{en: "x", de: "y"}`. */
function isLangMap(value: Record<string, unknown>): value is Record<string, string> {
  const entries = Object.entries(value);
  return entries.length > 0 && entries.every(([k, v]) => LANG_KEY.test(k) && typeof v === 'string');
}

/**
 * Renders one value as the text of a table/csv/tsv cell.
 * - undefined, null → `""`; strings as they are; numbers, booleans, bigints via `String`; Dates as ISO 8601.
 * - language maps `{en: "x", de: "y"}` → `en: x; de: y`; an empty object → `""`.
 * - arrays → their elements rendered the same way, joined by `|` (a nested array as compact JSON).
 * - other objects → compact JSON.
 */
export function renderCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    return value.map((v: unknown) => (Array.isArray(v) ? JSON.stringify(v) : renderCell(v))).join('|');
  }
  if (isPlainObject(value)) {
    if (Object.keys(value).length === 0) return '';
    if (isLangMap(value)) return Object.entries(value).map(([k, v]) => `${k}: ${v}`).join('; ');
  }
  return JSON.stringify(value) ?? '';
}

/** RFC 4180 field quoting; also quotes leading/trailing whitespace, which the importer would trim. */
function csvField(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * One CSV line (with `\n`) from already rendered cell texts, quoted per RFC 4180 (and when a value has
 * leading/trailing whitespace, which the importer would otherwise trim). Shared with the errors file.
 */
export function csvRow(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\n`;
}

/** TSV field: backslash, tab, newline and carriage return escaped as `\\`, `\t`, `\n`, `\r`. */
function tsvField(text: string): string {
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** Reads `field` from a record: an own key first, else a dotted path into nested objects. */
function lookup(record: Record<string, unknown>, field: string): unknown {
  if (Object.hasOwn(record, field)) return record[field];
  if (!field.includes('.')) return undefined;
  let current: unknown = record;
  for (const part of field.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function project(record: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  if (fields.length === 0) return record;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = lookup(record, f);
    if (v !== undefined) out[f] = v;
  }
  return out;
}

/**
 * Wraps a writable: writes with backpressure, notices errors and closing. A closed pipe (EPIPE, or the
 * stream destroyed) makes `write` answer false so the caller stops; any other stream error is thrown.
 */
class Sink {
  private failure: unknown;
  private closed = false;
  private readonly onError = (error: unknown): void => {
    this.failure ??= error;
  };
  private readonly onClose = (): void => {
    this.closed = true;
  };

  constructor(private readonly out: NodeJS.WritableStream) {
    out.on('error', this.onError);
    out.on('close', this.onClose);
  }

  /** false once the stream can take no more (closed pipe); throws a non-EPIPE stream error. */
  private usable(): boolean {
    if (this.failure !== undefined) {
      if (isEpipe(this.failure)) return false;
      throw this.failure;
    }
    const state = this.out as { destroyed?: boolean; writableEnded?: boolean };
    return !(this.closed || state.destroyed === true || state.writableEnded === true);
  }

  /** Writes a chunk, waiting for 'drain' when the stream's buffer is full. Returns false when the reader is gone. */
  async write(chunk: string): Promise<boolean> {
    if (!this.usable()) return false;
    if (!this.out.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.out.removeListener('drain', done);
          this.out.removeListener('error', done);
          this.out.removeListener('close', done);
          resolve();
        };
        this.out.on('drain', done);
        this.out.on('error', done);
        this.out.on('close', done);
      });
    }
    return this.usable();
  }

  /** Detaches the listeners; a later EPIPE is then left to {@link installEpipeHandler}. */
  release(): void {
    this.out.removeListener('error', this.onError);
    this.out.removeListener('close', this.onClose);
    if (this.failure !== undefined && !isEpipe(this.failure)) throw this.failure;
  }
}

/**
 * Writes records in the given format. Data only: no progress or hints (those belong on stderr).
 * - `json`: ONE document. Without `jsonEnvelope` an array, streamed item by item (byte-identical to
 *   `JSON.stringify(items, null, 2)` plus a newline); with `jsonEnvelope` the items are collected
 *   and `jsonEnvelope(items)` is printed (2-space indent).
 * - `ndjson`: one compact JSON object per line, streamed with backpressure (awaits 'drain').
 * - `csv`: header line of `fields`, then rows; RFC 4180 quoting, `\n` line ends.
 * - `tsv`: header line, then rows; `\`, tab, newline, CR escaped as `\\ \t \n \r`.
 * - `table`: cli-table3 with `fields` as the columns (collects all rows: meant for people, not bulk).
 * Nested values in table/csv/tsv cells are rendered by {@link renderCell}.
 *
 * Never ends `out` (it may be process.stdout). When the reader goes away (EPIPE or the stream is
 * destroyed) it stops consuming `records` and resolves quietly.
 *
 * @throws a non-EPIPE error of `out`, or whatever iterating `records` throws.
 */
export async function writeRecords(
  out: NodeJS.WritableStream,
  format: OutputFormat,
  records: RecordStream,
  options: WriteOptions,
): Promise<void> {
  const sink = new Sink(out);
  try {
    await writeAll(sink, format, records, options);
  } finally {
    sink.release();
  }
}

async function writeAll(sink: Sink, format: OutputFormat, records: RecordStream, options: WriteOptions): Promise<void> {
  let fields = options.fields;
  switch (format) {
    case 'json': {
      if (options.jsonEnvelope !== undefined) {
        const items: unknown[] = [];
        for await (const r of records) items.push(project(r, fields));
        await sink.write(`${JSON.stringify(options.jsonEnvelope(items), null, 2)}\n`);
        return;
      }
      let count = 0;
      for await (const r of records) {
        const text = JSON.stringify(project(r, fields), null, 2).replace(/\n/g, '\n  ');
        if (!(await sink.write(`${count === 0 ? '[\n  ' : ',\n  '}${text}`))) return;
        count += 1;
      }
      await sink.write(count === 0 ? '[]\n' : '\n]\n');
      return;
    }
    case 'ndjson': {
      for await (const r of records) {
        if (!(await sink.write(`${JSON.stringify(project(r, fields))}\n`))) return;
      }
      return;
    }
    case 'csv':
    case 'tsv': {
      const cell = format === 'csv' ? csvField : tsvField;
      const sep = format === 'csv' ? ',' : '\t';
      const line = (values: string[]): string => `${values.map(cell).join(sep)}\n`;
      let headerDone = false;
      for await (const r of records) {
        if (!headerDone) {
          if (fields.length === 0) fields = Object.keys(r);
          if (!(await sink.write(line(fields)))) return;
          headerDone = true;
        }
        if (!(await sink.write(line(fields.map((f) => renderCell(lookup(r, f))))))) return;
      }
      if (!headerDone && fields.length > 0) await sink.write(line(fields));
      return;
    }
    case 'table': {
      const rows: string[][] = [];
      for await (const r of records) {
        if (fields.length === 0) fields = Object.keys(r);
        rows.push(fields.map((f) => renderCell(lookup(r, f))));
      }
      const table = new Table({
        head: fields,
        style: options.color === true ? {} : { head: [], border: [] },
      });
      table.push(...rows);
      await sink.write(`${table.toString()}\n`);
      return;
    }
  }
}

