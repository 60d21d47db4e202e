/**
 * Streaming readers for bulk imports (cli.md, Bulk import): CSV through csv-parse, NDJSON line by line,
 * JSON arrays element by element. Each yields one entry per record or per broken record, with the
 * record's position, so a bad row is reported and skipped instead of ending the import.
 * Memory is bounded by the largest single record, never by the file.
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { CsvError, parse } from 'csv-parse';
import { unguardFormula } from '../output/formula-guard.js';
import { UsageError } from '../output/usage-error.js';

/** Input formats of `import` commands and image manifests. */
export const IMPORT_FORMATS = ['csv', 'tsv', 'json', 'ndjson'] as const;

/** One of `csv | tsv | json | ndjson`. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * Where records come from: a file, or an already open stream (stdin for `-`). `onBytes` hears of
 * every chunk read from the file, by its length (an import's progress against the file's size).
 */
export type RecordSource = { path: string; onBytes?: (bytes: number) => void } | { stdin: NodeJS.ReadableStream };

/** A record that was read. CSV/TSV values are all strings, exactly as written; JSON/NDJSON values are as parsed. */
export interface RecordEntry {
  /** CSV/NDJSON: 1-based line where the record starts (the header is line 1). JSON: 1-based item index. */
  line: number;
  record: Record<string, unknown>;
}

/** A record that could not be read. Reading continues after it unless the input cannot be parsed further. */
export interface ErrorEntry {
  /** As in {@link RecordEntry}; 0 means the input as a whole (e.g. a JSON document that is not an array). */
  line: number;
  /** The reason, without the position, e.g. `Invalid Record Length: columns length is 3, got 2`. */
  error: string;
  /** The source text of the broken record when known (CSV raw row, NDJSON line, JSON item text). */
  raw?: string;
}

/** What {@link readRecords} yields. Distinguish with `'error' in entry`. */
export type ReadEntry = RecordEntry | ErrorEntry;

/** Tuning of {@link readRecords}; the defaults suit real use. */
export interface ReadOptions {
  /**
   * CSV: the largest record accepted, in characters (default 8 MiB). A larger one, typically an
   * unclosed quote swallowing the rest of the file, yields an error and stops reading.
   */
  maxRecordBytes?: number;
}

const DEFAULT_MAX_RECORD = 8 * 1024 * 1024;

/**
 * How a position is called in messages for a format: `line 12` for CSV/NDJSON, `item 3` for JSON,
 * `input` for position 0.
 */
export function locationLabel(format: ImportFormat, line: number): string {
  if (line === 0) return 'input';
  return format === 'json' ? `item ${line}` : `line ${line}`;
}

/**
 * Decides the input format from `--format` or else the file extension.
 *
 * @param path the input path as given; `-` is stdin.
 * @param flag the `--format` value when given: `csv`, `tsv`, `json`, `ndjson` (alias `jsonl`), case-insensitive.
 * @returns the format; by extension `.csv` → csv, `.tsv` → tsv, `.json` → json, `.ndjson`/`.jsonl` → ndjson.
 * @throws UsageError for an invalid flag value, for stdin without a flag, and for an unknown extension.
 */
export function formatFromPath(path: string, flag?: string): ImportFormat {
  if (flag !== undefined) {
    const f = flag.trim().toLowerCase();
    if (f === 'csv' || f === 'tsv' || f === 'json' || f === 'ndjson') return f;
    if (f === 'jsonl') return 'ndjson';
    throw new UsageError(`invalid --format '${flag}'; valid formats: ${IMPORT_FORMATS.join(', ')}`);
  }
  if (path === '-') throw new UsageError(`reading stdin (-) needs --format ${IMPORT_FORMATS.join('|')}`);
  const format = formatOfExtension(extname(path));
  if (format === undefined) {
    throw new UsageError(
      `cannot tell the format of '${path}' from its extension (.csv, .tsv, .json, .ndjson, .jsonl); pass --format ${IMPORT_FORMATS.join('|')}`,
    );
  }
  return format;
}

/** The import format of a file extension (`.csv`, `.tsv`, `.json`, `.ndjson`, `.jsonl`; any case), or undefined. */
export function formatOfExtension(ext: string): ImportFormat | undefined {
  switch (ext.toLowerCase()) {
    case '.csv':
      return 'csv';
    case '.tsv':
      return 'tsv';
    case '.json':
      return 'json';
    case '.ndjson':
    case '.jsonl':
      return 'ndjson';
    default:
      return undefined;
  }
}

/**
 * Reads records from a file or stdin, streaming.
 *
 * - csv: csv-parse with the header as columns, BOM removed, header names trimmed, values kept exactly
 *   as written (leading/trailing spaces, tabs, NBSP are data: `trim` is off), empty lines skipped,
 *   a fixed column count. A broken row (wrong column count, bad or unclosed quote) yields an
 *   {@link ErrorEntry} with its line and csv-parse's reason, and reading continues with the next row
 *   csv-parse can find. A header with an empty or duplicate column, or a record over
 *   `maxRecordBytes`, yields an error and stops. The line is where the record starts (csv-parse's
 *   `info.lines` is where it ends; they differ only for quoted multi-line values).
 * - ndjson: node:readline, one JSON object per line; blank lines skipped; a line that is not JSON or
 *   not an object yields an error and reading continues.
 * - json: a top-level array of objects, parsed element by element (the file is never held whole; one
 *   element at a time is). `line` is the 1-based item index. A bad element yields an error and reading
 *   continues; a document that is not an array (line 0), is cut off, or has content after the array
 *   yields an error and stops.
 *
 * Breaking out of the loop closes the file (stdin is only unpiped/left alone).
 *
 * @throws the I/O error when the file cannot be opened or read (ENOENT, EISDIR, ...); never for bad content.
 */
export async function* readRecords(
  source: RecordSource,
  format: ImportFormat,
  options: ReadOptions = {},
): AsyncGenerator<ReadEntry, void, undefined> {
  let input: NodeJS.ReadableStream;
  let close: () => void = () => undefined;
  if ('path' in source) {
    const handle = await open(source.path, 'r');
    const stream = handle.createReadStream();
    const { onBytes } = source;
    // A listener, not a stream in between: the file's own errors still reach the readers below.
    if (onBytes !== undefined) stream.on('data', (chunk: Buffer | string) => onBytes(chunk.length));
    input = stream;
    close = () => {
      stream.destroy();
    };
  } else {
    input = source.stdin;
  }
  try {
    switch (format) {
      case 'csv':
        yield* readCsv(input, options.maxRecordBytes ?? DEFAULT_MAX_RECORD, false);
        break;
      case 'tsv':
        yield* readCsv(input, options.maxRecordBytes ?? DEFAULT_MAX_RECORD, true);
        break;
      case 'ndjson':
        yield* readNdjson(input);
        break;
      case 'json':
        yield* readJsonArray(input);
        break;
    }
  } finally {
    close();
  }
}

// ---------------------------------------------------------------------------------------------
// CSV

class HeaderError extends Error {}

const LINE_BREAK = /\r\n|\n|\r/g;

/** Line where a record starts, from the line where it ends and its raw text (which may begin with skipped blank lines). */
function startLine(endLine: number, raw: string | undefined): number {
  if (raw === undefined) return endLine;
  // Fast path, the common case: one line, no blank lines before it.
  const firstBreak = raw.search(/[\r\n]/);
  if (firstBreak === -1 || (firstBreak > 0 && /^(?:\r\n|\n|\r)$/.test(raw.slice(firstBreak)))) return endLine;
  const body = raw.replace(/^(?:[ \t]*(?:\r\n|\n|\r))+/, '').replace(/(?:\r\n|\n|\r)$/, '');
  return endLine - (body.match(LINE_BREAK)?.length ?? 0);
}

/** csv-parse's message without its own (end-of-record) line reference, which would contradict ours. */
function csvReason(error: CsvError): string {
  const text = error.message.replace(/ (?:on|at) line \d+/g, '');
  return error.code === 'CSV_QUOTE_NOT_CLOSED' ? `${text} (a quote opened in this row is never closed)` : text;
}

/**
 * TSV as `-o tsv` writes it (src/cli/output/write.ts): fields separated by tabs, no quoting, and
 * `\\`, `\t`, `\n`, `\r` standing for a backslash, tab, newline and carriage return. Any other
 * backslash is kept as it is.
 */
export function tsvUnescape(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\([\\tnr])/g, (_m, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : '\\'));
}

/** Removes the formula guard of every guarded value of a CSV record, in place (formula-guard.ts). */
function unguardRecord(record: Record<string, unknown>): void {
  for (const key in record) {
    const value = record[key];
    if (typeof value === 'string' && value.charCodeAt(0) === 39) record[key] = unguardFormula(value);
  }
}

/**
 * Column names of the header. Outer whitespace of a name is never meaningful (a column is a fixed
 * name, `name.<lang>` or `attr:<id>[@<org>].<lang>`, none of which can start or end with a space), so
 * hand-written headers such as `part_id, name.en` work; values are never trimmed.
 */
function checkHeader(header: unknown, tsv = false): string[] {
  const names = Array.isArray(header) ? header.map((h: unknown) => (tsv ? tsvUnescape(String(h)) : String(h)).trim()) : [];
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '') throw new HeaderError(`column ${i + 1} of the header has no name`);
    if (seen.has(name)) throw new HeaderError(`column '${name}' appears twice in the header`);
    seen.add(name);
  });
  return names;
}

interface CsvChunk {
  record: Record<string, string>;
  raw: string;
  /** The line the record ends on (set when csv-parse pushes it). */
  endLine: number;
}

async function* readCsv(input: NodeJS.ReadableStream, maxRecordBytes: number, tsv: boolean): AsyncGenerator<ReadEntry, void, undefined> {
  const pending: ErrorEntry[] = [];
  /** Set when csv-parse cannot continue: the line of that error; everything after it is dropped. */
  let fatalLine: number | undefined;
  const parser = parse({
    columns: (header: unknown) => checkHeader(header, tsv),
    bom: true,
    // Values are data, spaces included: `trim` would drop leading/trailing whitespace.
    trim: false,
    // TSV has no quoting: a `"` is an ordinary character; tabs and line breaks inside values are escaped.
    // A cell an export guarded against spreadsheet formulas (`'=...`) is read as it was stored
    // (formula-guard.ts): here for TSV, which casts anyway; below for CSV (a csv-parse cast costs ~5x).
    ...(tsv
      ? { delimiter: '\t', quote: false, record_delimiter: ['\n', '\r\n'], cast: (value: string, context: { header: boolean }) => (context.header ? value : unguardFormula(tsvUnescape(value))) }
      : {}),
    relax_column_count: false,
    skip_empty_lines: true,
    skip_records_with_error: true,
    // No `info: true`: it builds an object per record and doubles csv-parse's cost (measured:
    // 100k rows 0.9 s -> 0.5 s). The record's end line is taken from the parser's live counter
    // at the moment it pushes the record (below).
    raw: true,
    max_record_size: maxRecordBytes,
  });
  // push() runs synchronously inside the parse loop, right after the record's last line was read.
  const push = parser.push.bind(parser);
  parser.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk !== null && typeof chunk === 'object') (chunk as CsvChunk).endLine = parser.info.lines;
    return push(chunk, encoding);
  };
  parser.on('skip', (error: CsvError) => {
    const raw = typeof error.raw === 'string' ? error.raw : undefined;
    // A line of only spaces in a file of several columns is a blank line, not a broken row (in a
    // file of one column it is a value, and csv-parse never reports it here).
    if ((error.code === 'CSV_RECORD_INCONSISTENT_COLUMNS' || error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') && raw !== undefined && /^[ \t]*(?:\r?\n|\r)?$/.test(raw)) return;
    const line = startLine(typeof error.lines === 'number' ? error.lines : 0, raw);
    if (fatalLine !== undefined && line > fatalLine) return;
    if (error.code === 'CSV_MAX_RECORD_SIZE') {
      // csv-parse silently drops the rest of the chunk after this error: it cannot go on reliably.
      fatalLine = line;
      pending.push({ line, error: `record larger than ${maxRecordBytes} characters (an unclosed quote?); reading stopped`, ...(raw === undefined ? {} : { raw: raw.slice(0, 200) }) });
      input.unpipe(parser);
      parser.end();
      return;
    }
    pending.push({ line, error: csvReason(error), ...(raw === undefined ? {} : { raw }) });
  });
  const onInputError = (error: unknown): void => {
    parser.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  input.on('error', onInputError);
  input.pipe(parser);

  let lastErrorLine = -1;
  function* flush(before: number): Generator<ErrorEntry> {
    while (pending.length > 0) {
      const next = pending[0];
      if (next === undefined || next.line >= before) return;
      pending.shift();
      // csv-parse may report one broken row several times (each bad quote): keep the first.
      if (next.line === lastErrorLine) continue;
      lastErrorLine = next.line;
      yield next;
    }
  }

  try {
    for await (const chunk of parser as AsyncIterable<CsvChunk>) {
      const line = startLine(chunk.endLine, chunk.raw);
      if (pending.length > 0) yield* flush(line);
      if (fatalLine !== undefined && line > fatalLine) break;
      if (!tsv && chunk.raw.includes("'")) unguardRecord(chunk.record);
      yield { line, record: chunk.record };
    }
  } catch (error) {
    if (error instanceof HeaderError) {
      yield { line: 1, error: error.message };
      return;
    }
    if (error instanceof CsvError) {
      yield* flush(Number.POSITIVE_INFINITY);
      const line = typeof error.lines === 'number' ? error.lines : 0;
      yield { line, error: `${csvReason(error)}; reading stopped` };
      return;
    }
    throw error;
  } finally {
    input.removeListener('error', onInputError);
    input.unpipe(parser);
    parser.destroy();
  }
  yield* flush(Number.POSITIVE_INFINITY);
}

// ---------------------------------------------------------------------------------------------
// NDJSON

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function parseObject(text: string): { record: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  return isRecord(value) ? { record: value } : { error: `expected a JSON object, got ${kindOf(value)}` };
}

async function* readNdjson(input: NodeJS.ReadableStream): AsyncGenerator<ReadEntry, void, undefined> {
  let failure: unknown;
  const rl = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  const onError = (error: unknown): void => {
    failure = error;
    rl.close();
  };
  input.on('error', onError);
  let line = 0;
  try {
    for await (const rawLine of rl) {
      line += 1;
      const text = line === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
      if (text.trim() === '') continue;
      const parsed = parseObject(text);
      yield 'record' in parsed ? { line, record: parsed.record } : { line, error: parsed.error, raw: text };
    }
  } finally {
    input.removeListener('error', onError);
    rl.close();
  }
  if (failure !== undefined) throw failure;
}

// ---------------------------------------------------------------------------------------------
// JSON (a top-level array, split into elements by a small scanner, each element parsed alone)

async function* textChunks(input: NodeJS.ReadableStream): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of input as AsyncIterable<string | Buffer>) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (first && text !== '') {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

const WS = new Set([' ', '\t', '\n', '\r']);

async function* readJsonArray(input: NodeJS.ReadableStream): AsyncGenerator<ReadEntry, void, undefined> {
  type State = 'start' | 'before' | 'element' | 'end';
  let state = 'start' as State;
  let item = 0;
  let parts: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let sawComma = false;

  const finish = (text: string): ReadEntry => {
    const parsed = parseObject(text.trim());
    return 'record' in parsed ? { line: item, record: parsed.record } : { line: item, error: parsed.error, raw: text.trim() };
  };

  for await (const chunk of textChunks(input)) {
    let segStart = 0;
    for (let i = 0; i < chunk.length; i += 1) {
      const c = chunk.charAt(i);
      switch (state) {
        case 'start':
          if (WS.has(c)) continue;
          if (c !== '[') {
            yield { line: 0, error: 'a JSON input must be one array of objects: `[{...}, {...}]`' };
            return;
          }
          state = 'before';
          continue;
        case 'before':
          if (WS.has(c)) continue;
          if (c === ']') {
            if (sawComma) {
              yield { line: item + 1, error: 'invalid JSON: trailing comma before ]' };
            }
            state = 'end';
            continue;
          }
          if (c === ',') {
            item += 1;
            yield { line: item, error: 'invalid JSON: empty item' };
            sawComma = true;
            continue;
          }
          item += 1;
          state = 'element';
          parts = [];
          segStart = i;
          depth = 0;
          inString = false;
          escaped = false;
          i -= 1; // let 'element' see this character
          continue;
        case 'element':
          if (inString) {
            if (escaped) escaped = false;
            else if (c === '\\') escaped = true;
            else if (c === '"') inString = false;
            continue;
          }
          if (c === '"') inString = true;
          else if (c === '{' || c === '[') depth += 1;
          else if ((c === '}' || c === ']') && depth > 0) depth -= 1;
          else if (depth === 0 && (c === ',' || c === ']')) {
            parts.push(chunk.slice(segStart, i));
            yield finish(parts.join(''));
            parts = [];
            sawComma = c === ',';
            state = c === ',' ? 'before' : 'end';
          }
          continue;
        case 'end':
          if (WS.has(c)) continue;
          yield { line: item + 1, error: 'unexpected content after the closing ]; reading stopped' };
          return;
      }
    }
    if (state === 'element') parts.push(chunk.slice(segStart));
  }
  if (state === 'start') return; // empty input: nothing to import
  if (state !== 'end') {
    yield { line: state === 'element' ? item : item + 1, error: 'unexpected end of input: the array is not closed; reading stopped' };
  }
}
