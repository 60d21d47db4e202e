/**
 * Streaming readers for bulk imports (cli.md, Bulk import): CSV and TSV through csv-parse (read-csv.ts), NDJSON line by line,
 * JSON arrays element by element. Each yields one entry per record or per broken record, with the
 * record's position, so a bad row is reported and skipped instead of ending the import.
 * Memory is bounded by the largest single record, never by the file.
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { UsageError } from '../output/usage-error.js';
import { readCsv } from './read-csv.js';

export { tsvUnescape } from './read-csv.js';

/** Input formats of `import` commands and image manifests. */
export const IMPORT_FORMATS = ['csv', 'tsv', 'json', 'ndjson'] as const;

/** One of `csv | tsv | json | ndjson`. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * Where records come from: a file, or an already open stream (stdin for `-`). `onBytes` hears of
 * every chunk read from the file, by its length (an import's progress against the file's size).
 */
export type RecordSource = { path: string; onBytes?: (bytes: number) => void } | { stdin: NodeJS.ReadableStream };

export type { ErrorEntry, ReadEntry, RecordEntry } from './read-entries.js';
import type { ReadEntry } from './read-entries.js';

/** Tuning of {@link readRecords}; the defaults suit real use. */
export interface ReadOptions {
  /**
   * CSV: the largest record accepted, in bytes (default 8 MiB). A larger one, typically an
   * unclosed quote, is a broken row like any other (read-csv.ts), its `raw` cut to this size.
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
 *   a fixed column count. A broken row (wrong column count, bad quote) yields an
 *   {@link ErrorEntry} with its line, csv-parse's reason and its whole text (`raw`, without its
 *   line break), and reading continues with the next row. A quote that does not close where a field
 *   ends (or a record over `maxRecordBytes`) makes the row where it opened, and the lines after it
 *   up to the next line that reads as a row on its own, one broken row; reading goes on at that line
 *   (read-csv.ts). A header with an empty or duplicate column yields an error and stops. The line is
 *   where the record starts (csv-parse's `info.lines` is where it ends; they differ only for quoted
 *   multi-line values).
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
