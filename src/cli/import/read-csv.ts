/**
 * CSV and TSV records of a bulk import (cli.md, Bulk import), read with csv-parse. A broken row is
 * reported with its line, csv-parse's reason and its whole text (`raw`, the errors file's `_raw`),
 * and reading goes on. A quote that never closes where a field ends would make csv-parse read every
 * following line into one value until some later quote; instead the row where the quote opened is
 * reported, with the lines up to the next line that reads as a row on its own, and a fresh parser
 * starts at that line (csv-parse has no way to resume a stream elsewhere).
 * Memory is bounded by the largest single record (`maxRecordBytes`), never by the file.
 */
import { CsvError, parse, type Parser } from 'csv-parse';
import { parse as parseLine } from 'csv-parse/sync';
import { unguardFormula } from '../output/formula-guard.js';
import { ByteWindow, LineSplitter, type LinePosition } from './byte-window.js';
import type { ErrorEntry, ReadEntry } from './read-entries.js';

class HeaderError extends Error {}

const LINE_BREAK = /\r\n|\n|\r/g;
/** Line breaks and whitespace-only lines at the end of a broken row's text: not part of the row. */
const TRAILING_BLANK_LINES = /(?:(?:\r\n|\n|\r)[ \t]*)+$/;

/** csv-parse errors after which it reads the following lines as part of an open quoted value. */
const RUNAWAY = new Set(['CSV_QUOTE_NOT_CLOSED', 'CSV_INVALID_CLOSING_QUOTE', 'CSV_MAX_RECORD_SIZE']);

/** Line where a record starts, from the line where it ends and its raw text (which may begin with skipped blank lines). */
function startLine(endLine: number, raw: string | undefined): number {
  if (raw === undefined) return endLine;
  // Fast path, the common case: one line, no blank lines before it.
  const firstBreak = raw.search(/[\r\n]/);
  if (firstBreak === -1 || (firstBreak > 0 && /^(?:\r\n|\n|\r)$/.test(raw.slice(firstBreak)))) return endLine;
  const body = raw.replace(/^(?:[ \t]*(?:\r\n|\n|\r))+/, '').replace(/(?:\r\n|\n|\r)$/, '');
  return endLine - (body.match(LINE_BREAK)?.length ?? 0);
}

/**
 * How many lines more csv-parse counted in a record's text than there are: it counts a `\r\n`
 * inside a quoted value (or ending a value before a `\n` record delimiter) as two lines.
 */
function extraLines(raw: string | undefined): number {
  if (raw === undefined || !raw.includes('\r')) return 0;
  return raw.replace(/^(?:[ \t]*(?:\r\n|\n|\r))+/, '').split('\r\n').length - 1;
}

/** csv-parse's message without its own (end-of-record) line reference, which would contradict ours. */
function csvReason(error: CsvError): string {
  return error.message.replace(/ (?:on|at) line \d+/g, '');
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
function checkHeader(header: unknown, tsv: boolean): string[] {
  const names = Array.isArray(header) ? header.map((h: unknown) => (tsv ? tsvUnescape(String(h)) : String(h)).trim()) : [];
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '') throw new HeaderError(`column ${i + 1} of the header has no name`);
    if (seen.has(name)) throw new HeaderError(`column '${name}' appears twice in the header`);
    seen.add(name);
  });
  return names;
}

/** Whether one line, read alone, is one CSV row (any number of cells) without a quoting problem. */
function readsAsRow(line: string): boolean {
  try {
    return parseLine(line, { relax_column_count: true, skip_empty_lines: true }).length === 1;
  } catch {
    return false;
  }
}

/** A chunk of input bytes, pulled on demand, with room to put back what was read too far. */
class ChunkSource {
  private readonly iterator: AsyncIterator<Buffer | string>;
  private readonly returned: Buffer[] = [];

  constructor(input: NodeJS.ReadableStream) {
    this.iterator = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  }

  /** The next chunk, or undefined at the end. @throws the input's I/O error. */
  async read(): Promise<Buffer | undefined> {
    const back = this.returned.pop();
    if (back !== undefined) return back;
    const next = await this.iterator.next();
    if (next.done === true) return undefined;
    return typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
  }

  /** Makes `chunk` the next one read. */
  unread(chunk: Buffer): void {
    if (chunk.length > 0) this.returned.push(chunk);
  }
}

interface CsvChunk {
  record: Record<string, string>;
  raw: string;
  /** The line the record ends on (set when csv-parse pushes it). */
  endLine: number;
}

/** Where a parser pass starts, and what it knows from the passes before it. */
interface PassStart {
  /** The header's names; undefined for the first pass, which reads them from line 1. */
  columns?: string[];
  /** Position of the pass's first byte. */
  at: LinePosition;
}

/** A row whose quote never closed where a field ends: where it starts, and csv-parse's reason. */
interface Runaway {
  at: LinePosition;
  reason: string;
}

/**
 * Reads CSV (or TSV, which has no quoting) records: csv-parse with the header as columns, BOM
 * removed, header names trimmed, values kept exactly as written, empty lines skipped, a fixed
 * column count. See read-records.ts `readRecords` for the entries' contract.
 */
export async function* readCsv(input: NodeJS.ReadableStream, maxRecordBytes: number, tsv: boolean): AsyncGenerator<ReadEntry, void, undefined> {
  const source = new ChunkSource(input);
  let start: PassStart | undefined = { at: { byte: 0, line: 1 } };
  while (start !== undefined) {
    const pass = readPass(source, start, maxRecordBytes, tsv);
    let next: IteratorResult<ReadEntry, { columns: string[]; runaway?: Runaway; window: ByteWindow } | undefined>;
    while (!(next = await pass.next()).done) yield next.value;
    const end = next.value;
    start = undefined;
    if (end?.runaway !== undefined) {
      const resumed = await skipRunaway(source, end.window, end.runaway, maxRecordBytes);
      yield resumed.entry;
      if (resumed.at !== undefined) start = { columns: end.columns, at: resumed.at };
    }
  }
}

/**
 * After a quote that never closes at line L: the broken row is line L and every following line up to
 * the first that reads as a row on its own ({@link readsAsRow}); its text is the row's `raw`.
 *
 * @returns the broken row's entry, and where the next pass starts (undefined at the end of the input).
 */
async function skipRunaway(source: ChunkSource, window: ByteWindow, runaway: Runaway, maxRecordBytes: number): Promise<{ entry: ErrorEntry; at?: LinePosition }> {
  const lines = new LineSplitter(window.slice(runaway.at.byte), () => source.read());
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let cut = false;
  let lastLine = runaway.at.line;
  let at: LinePosition = runaway.at;
  let resume: LinePosition | undefined;
  for (let line = await lines.line(maxRecordBytes); line !== undefined; line = await lines.line(maxRecordBytes)) {
    const text = line.bytes.toString('utf8');
    if (at.line > runaway.at.line && !line.long && readsAsRow(text)) {
      source.unread(lines.rest());
      source.unread(line.bytes);
      resume = at;
      break;
    }
    if (at.line === runaway.at.line || text.trim() !== '') lastLine = at.line;
    const room = maxRecordBytes - keptBytes;
    if (line.long || line.bytes.length > room) cut = true;
    if (room > 0) {
      kept.push(line.bytes.subarray(0, room));
      keptBytes += Math.min(room, line.bytes.length);
    }
    at = { byte: at.byte + line.length, line: at.line + 1 };
  }
  const raw = Buffer.concat(kept).toString('utf8').replace(TRAILING_BLANK_LINES, '');
  const span = lastLine > runaway.at.line ? `lines ${runaway.at.line}-${lastLine} are this broken row` : 'this line is the broken row';
  const next = resume === undefined ? 'no row follows' : `reading goes on at line ${resume.line}`;
  const error = `${runaway.reason} (a quote opened in this row is not closed where a field ends; ${span}${cut ? ', its text cut' : ''}; ${next})`;
  return { entry: { line: runaway.at.line, error, raw }, ...(resume === undefined ? {} : { at: resume }) };
}

/**
 * One csv-parse parser over the input from `start` on. Yields records and broken rows in line order;
 * stops early at a quote that never closes, returning it (the lines it swallowed are in `window`).
 */
async function* readPass(
  source: ChunkSource,
  start: PassStart,
  maxRecordBytes: number,
  tsv: boolean,
): AsyncGenerator<ReadEntry, { columns: string[]; runaway?: Runaway; window: ByteWindow } | undefined, undefined> {
  const window = new ByteWindow(start.at.byte);
  const lineOffset = start.at.line - 1;
  let columns = start.columns;
  /** Everything before `settled` is yielded or about to be: the window may forget it. */
  let settled: LinePosition = start.at;
  /** The last broken row seen, whose text ends where the next row starts (not known yet). */
  let open: ErrorEntry | undefined;
  const queue: ErrorEntry[] = [];
  let runaway: Runaway | undefined;
  /** Lines csv-parse counted that are not there (extraLines), up to the last record. */
  let drift = 0;

  const parser: Parser = parse({
    columns: columns ?? ((header: unknown) => (columns = checkHeader(header, tsv))),
    bom: start.columns === undefined,
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
    // 100k rows 0.9 s -> 0.5 s). The record's end line and byte are taken from the parser's live
    // counters at the moment it pushes the record (below).
    raw: true,
    max_record_size: maxRecordBytes,
  });

  /** Gives the open broken row its text, up to `end` (a byte offset), and queues it. */
  const close = (end: number): void => {
    if (open === undefined) return;
    open.raw = window.slice(settled.byte, end).toString('utf8').replace(TRAILING_BLANK_LINES, '');
    queue.push(open);
    open = undefined;
  };

  // push() runs synchronously inside the parse loop, right after the record's last line was read.
  const push = parser.push.bind(parser);
  parser.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk !== null && runaway !== undefined) return true;
    if (chunk !== null && typeof chunk === 'object') {
      const record = chunk as CsvChunk;
      drift += extraLines(record.raw);
      record.endLine = lineOffset + parser.info.lines - drift;
      const end = start.at.byte + parser.info.bytes;
      if (open !== undefined) close(window.lineStart(settled, startLine(record.endLine, record.raw)).byte);
      settled = { byte: end, line: record.endLine + 1 };
    }
    return push(chunk, encoding);
  };
  parser.on('skip', (error: CsvError) => {
    if (runaway !== undefined) return;
    const raw = typeof error.raw === 'string' ? error.raw : undefined;
    // A line of only spaces in a file of several columns is a blank line, not a broken row (in a
    // file of one column it is a value, and csv-parse never reports it here).
    if ((error.code === 'CSV_RECORD_INCONSISTENT_COLUMNS' || error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') && raw !== undefined && /^[ \t]*(?:\r?\n|\r)?$/.test(raw)) return;
    const line = startLine(lineOffset + (typeof error.lines === 'number' ? error.lines : 0) - drift - extraLines(raw), raw);
    // csv-parse may report one broken row several times (each bad quote): keep the first.
    if (open !== undefined && line <= open.line) return;
    const at = window.lineStart(settled, line);
    close(at.byte);
    settled = at;
    if (RUNAWAY.has(error.code)) {
      runaway = { at, reason: error.code === 'CSV_MAX_RECORD_SIZE' ? `record larger than ${maxRecordBytes} characters` : csvReason(error) };
      return;
    }
    open = { line, error: csvReason(error), ...(raw === undefined ? {} : { raw }) };
  });

  let failure: unknown;
  const pump = (async () => {
    try {
      for (;;) {
        const chunk = runaway === undefined && !parser.destroyed ? await source.read() : undefined;
        if (chunk === undefined) break;
        if (runaway !== undefined || parser.destroyed) {
          source.unread(chunk);
          break;
        }
        window.dropBefore(settled.byte);
        window.append(chunk);
        if (!parser.write(chunk)) await drained(parser);
      }
      if (!parser.destroyed) parser.end();
    } catch (error) {
      failure = error;
      parser.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  })();

  function* flush(before: number): Generator<ErrorEntry> {
    while (queue.length > 0 && (queue[0] as ErrorEntry).line < before) yield queue.shift() as ErrorEntry;
  }

  try {
    for await (const chunk of parser as AsyncIterable<CsvChunk>) {
      const line = startLine(chunk.endLine, chunk.raw);
      if (queue.length > 0) yield* flush(line);
      if (!tsv && chunk.raw.includes("'")) unguardRecord(chunk.record);
      yield { line, record: chunk.record };
    }
  } catch (error) {
    if (error instanceof HeaderError) {
      yield { line: 1, error: error.message };
      return undefined;
    }
    if (error instanceof CsvError) {
      close(window.end);
      yield* flush(Number.POSITIVE_INFINITY);
      const line = lineOffset + (typeof error.lines === 'number' ? error.lines : 0);
      yield { line, error: `${csvReason(error)}; reading stopped` };
      return undefined;
    }
    throw failure ?? error;
  } finally {
    if (!parser.destroyed) parser.destroy();
  }
  await pump;
  if (failure !== undefined) throw failure;
  close(window.end);
  yield* flush(Number.POSITIVE_INFINITY);
  if (columns === undefined && runaway !== undefined) yield { line: runaway.at.line, error: `${runaway.reason}; reading stopped` };
  return columns === undefined ? undefined : { columns, window, ...(runaway === undefined ? {} : { runaway }) };
}

/** Resolves when `stream` takes more writes, or is closed. */
function drained(stream: Parser): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
