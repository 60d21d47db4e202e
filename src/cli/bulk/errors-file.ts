/**
 * The `--errors <file>` of bulk imports (cli.md): failed rows in the input's own format plus `_line`,
 * `_error` and, for a row that could not be read as a record, `_raw` (its text as written), so the
 * file can be fixed and imported again (the row mappers ignore `_line`, `_error` and `_raw`).
 * Created only when a row fails; written as a stream.
 */
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { csvRow, renderCell, tsvRow } from '../output/write.js';
import type { ImportFormat } from '../import/read-records.js';
import { formatOfExtension } from '../import/read-records.js';

/** Columns the errors file adds; ignored when such a file is imported again. */
export const META_COLUMNS = ['_line', '_error', '_raw'] as const;
const META = new Set<string>(META_COLUMNS);

/** One failed row. */
export interface FailedRow {
  /** The row's line (CSV/NDJSON) or item index (JSON), as read. */
  line: number;
  /** The problem(s); several are joined with `; `. */
  error: string | string[];
  /** The record as read, when it could be read. */
  record?: Record<string, unknown>;
  /** The source text, for rows that could not be read as a record (see ErrorEntry.raw). */
  raw?: string;
}

/** A lazily created errors file. */
export interface ErrorsFile {
  /** Where the file is (or would be) written. */
  readonly path: string;
  /** Failed rows recorded so far; 0 means no file is created. */
  readonly count: number;
  /**
   * Appends one failed row, opening the file (and writing the CSV header / JSON `[`) on the first call.
   * Resolves when the stream accepted the data (waits for 'drain' when its buffer is full).
   * Concurrent calls are fine: each row is handed to the stream in one synchronous write.
   * @throws the stream's I/O error (e.g. EACCES, ENOENT for a missing directory); Error after close().
   */
  write(row: FailedRow): Promise<void>;
  /**
   * CSV/TSV: the input's columns, from any record read (a row that could not be read has none), for
   * a file whose header is not written yet; no effect otherwise.
   */
  noteColumns(record: Record<string, unknown>): void;
  /** Finishes the file (JSON `]`) and waits until it is flushed and closed. No-op when nothing was written. @throws the I/O error. */
  close(): Promise<void>;
}

/** CSV: how many unreadable rows are held back waiting for a record that tells the header. */
const HOLD_LIMIT = 1000;

const EXT: Record<ImportFormat, string> = { csv: 'csv', tsv: 'tsv', json: 'json', ndjson: 'ndjson' };


/**
 * The default `--errors` path: `<dir>/<name without extension>.errors.<ext>` next to the input
 * (`data/parts.csv` → `data/parts.errors.csv`). `<ext>` is the input's own extension when it matches
 * `format`, else the format's (`csv`, `json`, `ndjson`). For stdin (`-`, null or undefined):
 * `import.errors.<ext>` in the current directory, `ndjson` unless `format` says otherwise.
 */
export function defaultErrorsPath(inputPath: string | null | undefined, format?: ImportFormat): string {
  if (inputPath === null || inputPath === undefined || inputPath === '-') return `import.errors.${EXT[format ?? 'ndjson']}`;
  const ext = extname(inputPath);
  const stem = basename(inputPath, ext);
  const inputFormat = formatOfExtension(ext);
  const outExt = inputFormat !== undefined && (format === undefined || format === inputFormat) ? ext.slice(1) : EXT[format ?? inputFormat ?? 'ndjson'];
  return join(dirname(inputPath), `${stem}.errors.${outExt}`);
}

function withoutMeta(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!META.has(k)) out[k] = v;
  return out;
}

/**
 * Creates an errors file writer; nothing touches the disk until the first {@link ErrorsFile.write}.
 *
 * - csv, tsv: header = `columns` (or else the first failed record's keys; unreadable rows before it,
 *   up to 1,000, are held back until then) without `_line/_error/_raw`, then `_line`, `_error`,
 *   `_raw`. A row that could not be read as a record gets empty data cells and its text in `_raw`
 *   (to be fixed into the cells); `_raw` is empty for the others.
 * - ndjson: one object per line: the record's fields, then `_line`, `_error` (`_raw` for unreadable rows).
 *
 * A record read from an earlier errors file keeps its `_raw` when it is rejected again (a row not
 * fixed yet loses nothing).
 * - json: the same objects as one array, streamed: `[` on open, items, `]` on close.
 *
 * @param path the file to write (truncated when opened).
 * @param format the input's format.
 * @param columns CSV: the input's header, in order (recommended; otherwise the first failed record's keys).
 */
export function createErrorsFile(path: string, format: ImportFormat, columns?: string[]): ErrorsFile {
  let stream: WriteStream | undefined;
  let failure: unknown;
  let count = 0;
  let closing: Promise<void> | undefined;
  let drained: Promise<void> | undefined;
  let dataColumns: string[] | undefined = columns?.filter((c) => !META.has(c));

  /** CSV rows without a record that arrived before any header source: held (bounded) until one does. */
  const held: FailedRow[] = [];
  let written = 0;

  const open = (firstRecord: Record<string, unknown> | undefined): WriteStream => {
    const s = createWriteStream(path, { flags: 'w', encoding: 'utf8' });
    s.on('error', (error: unknown) => {
      failure ??= error;
    });
    if (format === 'csv' || format === 'tsv') {
      dataColumns ??= firstRecord === undefined ? [] : Object.keys(firstRecord).filter((c) => !META.has(c));
      s.write((format === 'csv' ? csvRow : tsvRow)([...dataColumns, ...META_COLUMNS]));
    } else if (format === 'json') {
      s.write('[\n');
    }
    for (const row of held.splice(0)) s.write(serialise(row));
    return s;
  };

  const serialise = (row: FailedRow): string => {
    const index = written;
    written += 1;
    const message = Array.isArray(row.error) ? row.error.join('; ') : row.error;
    const earlier = row.record?._raw;
    const raw = row.record === undefined ? row.raw : typeof earlier === 'string' && earlier !== '' ? earlier : undefined;
    if (format === 'csv' || format === 'tsv') {
      const cells = (dataColumns ?? []).map((c) => renderCell(row.record?.[c]));
      return (format === 'csv' ? csvRow : tsvRow)([...cells, String(row.line), message, raw?.replace(/\r?\n$/, '') ?? '']);
    }
    const object: Record<string, unknown> = row.record === undefined ? {} : withoutMeta(row.record);
    object._line = row.line;
    object._error = message;
    if (raw !== undefined) object._raw = raw;
    const json = JSON.stringify(object);
    return format === 'json' ? `${index === 0 ? '' : ',\n'}${json}` : `${json}\n`;
  };

  const check = (): void => {
    if (failure !== undefined) throw failure;
  };

  return {
    path,
    get count() {
      return count;
    },
    noteColumns(record) {
      if (stream === undefined && dataColumns === undefined && (format === 'csv' || format === 'tsv')) dataColumns = Object.keys(record).filter((c) => !META.has(c));
    },
    async write(row) {
      if (closing !== undefined) throw new Error(`errors file ${path} is already closed`);
      check();
      count += 1;
      if (stream === undefined && (format === 'csv' || format === 'tsv') && dataColumns === undefined && row.record === undefined && held.length < HOLD_LIMIT) {
        held.push(row);
        return;
      }
      stream ??= open(row.record);
      const s = stream;
      const text = serialise(row);
      // One shared wait for all concurrent writers, instead of a listener set per writer.
      if (!s.write(text)) {
        drained ??= new Promise<void>((resolve) => {
          const done = (): void => {
            s.removeListener('drain', done);
            s.removeListener('error', done);
            s.removeListener('close', done);
            drained = undefined;
            resolve();
          };
          s.on('drain', done);
          s.on('error', done);
          s.on('close', done);
        });
      }
      if (drained !== undefined) await drained;
      check();
    },
    async close() {
      if (stream === undefined && held.length > 0) stream = open(undefined);
      const s = stream;
      if (s === undefined) return;
      closing ??= new Promise<void>((resolve, reject) => {
        if (format === 'json') s.write('\n]\n');
        s.once('error', reject);
        s.end(() => resolve());
      });
      await closing;
      check();
    },
  };
}
