/**
 * Writes records to stdout (or any writable) in one of the five output formats of cli.md, streaming
 * where the format allows it and honouring backpressure. The only module that knows cli-table3.
 */
import type { OutputFormat } from './format.js';
import { isEpipe } from './epipe.js';
import { guardFormula } from './formula-guard.js';

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
  /**
   * table only: the width to fit, in terminal columns (e.g. `process.stdout.columns`). Columns wider
   * than their share are cut with `…`; undefined means no limit.
   */
  width?: number | undefined;
  /**
   * csv/tsv only: write cells exactly as stored. Default false: a text cell that a spreadsheet
   * would run as a formula gets a leading `'` (formula-guard.ts), which imports remove.
   */
  rawCells?: boolean;
  /**
   * table only: the columns are a command's defaults, in order of importance: on a terminal too
   * narrow for all of them at a readable width, the last ones are left out rather than every
   * column cut to a few characters. Columns the user named (--fields) are never left out.
   */
  droppable?: boolean;
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

/** One attribute of a part as the API returns it (decisions §5): `{attribute_id, values: [{organization, value}]}`. */
interface AttributeValues {
  attribute_id: string;
  values: { organization?: unknown; value?: unknown }[];
}

function isAttributeValues(value: unknown): value is AttributeValues {
  return isPlainObject(value) && typeof value.attribute_id === 'string' && Array.isArray(value.values) && value.values.every(isPlainObject);
}

/** `class: Ethernet controller; stock_bin@acme: R0-0` (see {@link renderCell}). */
function renderAttributeValues(attributes: AttributeValues[]): string {
  return attributes
    .map((attribute) => {
      const byOrganization = new Map<string, string[]>();
      for (const v of attribute.values) {
        const organization = typeof v.organization === 'string' ? v.organization : '';
        const text = isPlainObject(v.value) && isLangMap(v.value) && Object.keys(v.value).length > 1
          ? Object.entries(v.value).map(([lang, t]) => `${lang}: ${t}`).join(' / ')
          : isPlainObject(v.value) && isLangMap(v.value) ? Object.values(v.value).join('') : renderCell(v.value);
        byOrganization.set(organization, [...(byOrganization.get(organization) ?? []), text]);
      }
      if (byOrganization.size === 0) return `${attribute.attribute_id}:`;
      return [...byOrganization].map(([organization, texts]) => `${attribute.attribute_id}${organization ? `@${organization}` : ''}: ${texts.join(', ')}`).join('; ');
    })
    .join('; ');
}

/**
 * Renders one value as the text of a table/csv/tsv cell.
 * - undefined, null → `""`; strings as they are; numbers, booleans, bigints via `String`; Dates as ISO 8601.
 * - language maps `{en: "x", de: "y"}` → `en: x; de: y`; an empty object → `""`.
 * - a part's attribute values `[{attribute_id, values: [{organization, value}]}]` → `id: value`
 *   pairs joined by `; `, e.g. `class: Ethernet controller; stock_bin@acme: R0-0` (an
 *   organization's value carries `@organization`; several values of one attribute are joined by
 *   `, `; a value in several languages reads `en: x / de: y`).
 * - other arrays → their elements rendered the same way, joined by `|` (a nested array as compact JSON).
 * - other objects → compact JSON.
 */
export function renderCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every(isAttributeValues)) return renderAttributeValues(value);
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

/** One TSV line (with `\n`) from already rendered cell texts, escaped as `-o tsv` does. Shared with the errors file. */
export function tsvRow(values: readonly string[]): string {
  return `${values.map(tsvField).join('\t')}\n`;
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

/**
 * The record cut down to `fields` for json/ndjson, keeping its shape so the output stays importable:
 * `name.en` gives `{name: {en}}` (an own key with a dot, e.g. a flat CSV column, stays a key).
 */
function project(record: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  if (fields.length === 0) return record;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = lookup(record, f);
    if (v === undefined) continue;
    if (Object.hasOwn(record, f)) {
      out[f] = v;
      continue;
    }
    const path = f.split('.');
    let target = out;
    for (const part of path.slice(0, -1)) {
      const next = target[part];
      if (!isPlainObject(next)) {
        if (next !== undefined) break; // a whole value (`name`) selected too: it holds this one already
        target[part] = {};
      }
      target = target[part] as Record<string, unknown>;
    }
    const leaf = path[path.length - 1] ?? f;
    if (isPlainObject(target) && !Object.hasOwn(target, leaf)) target[leaf] = v;
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
 * - csv and tsv: a text that a spreadsheet would take for a formula gets a leading `'`
 *   (formula-guard.ts) unless `rawCells`.
 * - `table`: cli-table3 with `fields` as the columns, fitted to `width`, no lines between rows,
 *   streamed in chunks (the first rows fix the column widths).
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
      // Numbers and booleans are never formulas (-5 stays -5); every text may be.
      const text = options.rawCells === true
        ? (value: unknown) => renderCell(value)
        : (value: unknown) => (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? renderCell(value) : guardFormula(renderCell(value)));
      let headerDone = false;
      for await (const r of records) {
        if (!headerDone) {
          if (fields.length === 0) fields = Object.keys(r);
          if (!(await sink.write(line(fields)))) return;
          headerDone = true;
        }
        if (!(await sink.write(line(fields.map((f) => text(lookup(r, f))))))) return;
      }
      if (!headerDone && fields.length > 0) await sink.write(line(fields));
      return;
    }
    case 'table': {
      await writeTable(sink, records, fields, options);
      return;
    }
  }
}

/** Rows of a table rendered at once: the first batch also fixes the column widths. */
const TABLE_CHUNK = 100;
/** Narrowest column (padding included): one character and `…`. */
const MIN_COLUMN = 4;

/** A cell's text on one line: a table row is one line (tabs and line breaks read as spaces). */
function tableCell(text: string): string {
  return text.replace(/\r\n|[\r\n\t\v\f]/g, ' ');
}

/** Display width of a text, near enough for sharing a width (cli-table3 measures exactly when cutting). */
function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1FAFF}\u{20000}-\u{3FFFD}]/u.test(ch) ? 2 : 1;
  return width;
}

/**
 * Column widths (padding included) that fit `total` terminal columns: columns narrower than their
 * share keep their width, the others share the rest equally (at least {@link MIN_COLUMN}).
 */
export function fitColumns(natural: readonly number[], total: number | undefined): number[] {
  const borders = natural.length + 1;
  const sum = natural.reduce((a, b) => a + b, 0);
  if (total === undefined || sum + borders <= total) return [...natural];
  let budget = Math.max(total - borders, natural.length * MIN_COLUMN);
  const sorted = [...natural].sort((a, b) => a - b);
  let cap = Number.POSITIVE_INFINITY;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(budget / (sorted.length - i));
    const w = sorted[i] ?? 0;
    if (w > share) {
      cap = share;
      break;
    }
    budget -= w;
  }
  return natural.map((w) => Math.max(MIN_COLUMN, Math.min(w, cap)));
}

/** The narrowest a column is worth showing at: its header, and at least this many characters (padding included). */
const READABLE_COLUMN = 10;

/**
 * How many of the leading columns fit `total` terminal columns at a readable width each (the
 * smaller of its natural width and its header's, at least {@link READABLE_COLUMN}); at least one.
 */
export function readableColumns(fields: readonly string[], natural: readonly number[], total: number): number {
  let used = 1;
  for (let i = 0; i < fields.length; i++) {
    const readable = Math.min(natural[i] ?? 0, Math.max(textWidth(fields[i] ?? '') + 2, READABLE_COLUMN));
    used += readable + 1;
    if (used > total) return Math.max(1, i);
  }
  return fields.length;
}

/**
 * A cli-table3 table without lines between rows, fitted to `options.width`, streamed: the first
 * {@link TABLE_CHUNK} rows fix the column widths and print with the header, later rows print as
 * they come in the same widths (a longer value is cut with `…`), the bottom border last.
 */
async function writeTable(sink: Sink, records: RecordStream, initialFields: string[], options: WriteOptions): Promise<void> {
  // Loaded here, not with the module: only table output needs it, and every command's start-up
  // would pay for it and its dependencies (start-up).
  const { default: Table } = await import('cli-table3');
  let fields = initialFields;
  // Bold headers on a colour terminal (cli-table3's default is red, which reads as an error).
  const style = { compact: true, head: options.color === true ? ['bold'] : [], border: [] };
  let colWidths: number[] | undefined;
  let bottom = '';
  let pending: string[][] = [];
  const flush = async (): Promise<boolean> => {
    if (colWidths === undefined) {
      let natural = fields.map((f, i) => Math.max(textWidth(f), ...pending.map((row) => textWidth(row[i] ?? ''))) + 2);
      if (options.droppable === true && options.width !== undefined) {
        const kept = readableColumns(fields, natural, options.width);
        if (kept < fields.length) {
          fields = fields.slice(0, kept);
          natural = natural.slice(0, kept);
          pending = pending.map((row) => row.slice(0, kept));
        }
      }
      colWidths = fitColumns(natural, options.width);
      const table = new Table({ head: fields, colWidths, style });
      table.push(...pending);
      const lines = table.toString().split('\n');
      bottom = lines.pop() ?? '';
      pending = [];
      return sink.write(`${lines.join('\n')}\n`);
    }
    if (pending.length === 0) return true;
    const table = new Table({ colWidths, style });
    table.push(...pending);
    pending = [];
    // Without a header: the top border, the rows, the bottom border; keep the rows only.
    return sink.write(`${table.toString().split('\n').slice(1, -1).join('\n')}\n`);
  };
  for await (const r of records) {
    if (fields.length === 0) fields = Object.keys(r);
    pending.push(fields.map((f) => tableCell(renderCell(lookup(r, f)))));
    if (pending.length >= TABLE_CHUNK && !(await flush())) return;
  }
  if (fields.length === 0) return;
  if (!(await flush())) return;
  await sink.write(`${bottom}\n`);
}
