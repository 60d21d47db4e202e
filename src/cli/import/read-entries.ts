/** What the import readers (read-records.ts, read-csv.ts) yield: a record, or a record that could not be read. */

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

/** What `readRecords` (read-records.ts) yields. Distinguish with `'error' in entry`. */
export type ReadEntry = RecordEntry | ErrorEntry;
