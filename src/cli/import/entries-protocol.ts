/**
 * What the reader thread of an import (./entries-worker.ts) and the import loop (./entries-thread.ts)
 * send each other. Plain data only: everything crosses the thread by structured clone (the arrays
 * of prepared search documents are transferred).
 */
import type { Attribute } from '../../api/schemas.js';
import type { PackedBlock } from '../../core/search/engine/prepared-documents.js';
import type { ImportFormat } from './read-records.js';

/**
 * Words the reader's dictionary holds at most (ShippedBlock.prepared; ~1.5 MB on each side). The
 * words that repeat (Zipf) are the few frequent ones, shipped again at most once per reset.
 */
export const DICTIONARY_WORDS = 16_384;

/** The resources whose rows the reader thread maps (./mapped-entries.ts CSV_MAPPERS). */
export type MapperName = 'attributes' | 'parts' | 'relations' | 'synonyms' | 'organizations';

/** The reader thread's `workerData`. */
export interface ReaderOptions {
  /** The input file (absolute). stdin is read on the main thread. */
  path: string;
  format: ImportFormat;
  mapper: MapperName;
  /** READ_ONLY_FIELDS of the resource (ignored fields of listings). */
  readOnly: readonly string[];
  /**
   * Parts only: validate each mapped item as the service does (core/validation.ts
   * validateBulkItem), so the main thread sends them with `upsertValidatedParts`.
   */
  validate?: boolean;
  /**
   * Parts with `validate`, local catalogs only: the attribute definitions as the import began. Each
   * valid item then also gets the search documents it would have as a new part
   * (core/search/engine/prepared-documents.ts), which the writer uses while its definitions are
   * still these (and builds them itself otherwise).
   */
  definitions?: Attribute[];
  /**
   * A sync's rows known to equal the stored part (src/cli/sync/part-hashes.ts): the rowHash of
   * each. A row whose mapped item hashes to one of them is not validated (it was, when stored,
   * and the sync does not send it).
   */
  known?: string[];
  /** `--id-replace`: replacements applied to the resource's id fields as each row is read (./mapped-entries.ts). */
  idReplace?: { from: string; to: string }[];
  /** A block is sent once it holds this many rows ... */
  blockRows: number;
  /** ... or this many characters of JSON (items and records) plus bytes of prepared documents, whichever comes first. */
  blockChars: number;
}

/** One row the mapper rejected (or that could not be read), at `index` within its block. */
export interface ShippedRejection {
  index: number;
  problems: string[];
  record?: Record<string, unknown>;
  raw?: string;
}

/** A mapped row the service's schema refuses (`validate`): batched as in the in-thread path, never sent. */
export interface ShippedRefusal {
  index: number;
  /** The error key the service would use: the item's id when valid, else null (`items[<i>]`). */
  key: string | null;
  messages: string[];
}

/**
 * Consecutive rows of the input. `lines[i]` is row i's line; `items` is the JSON array of the
 * mapped items (null for a rejected row), `records` the JSON array of the records as read (null
 * when none): records are parsed on the main thread only when a row is rejected after sending.
 */
export interface ShippedBlock {
  type: 'block';
  lines: number[];
  items: string;
  records: string;
  rejected: ShippedRejection[];
  /** Ascending by index; their items are in `items` as mapped (unvalidated). */
  refused: ShippedRefusal[];
  /** The other items were validated (`validate`). */
  validated: boolean;
  /** With `known`: the rowHash of each row's item as mapped ('' for a rejected row), and the rows found known (not validated), ascending. */
  hashes?: string[];
  knownRows?: number[];
  /** Bytes of the input read so far (progress against the file's size). */
  bytesRead: number;
  /**
   * With `definitions`: the search documents of the block's new parts, packed
   * (core/search/engine/prepared-documents.ts PreparedDocumentsPacker; `ints` is transferred, not
   * copied), `offsets[i]` row i's place in them (-1: none, e.g. a row the part rules refuse), and
   * the definitionsKey they were built with.
   */
  prepared?: PackedBlock & { offsets: Int32Array; definitions: string };
}

/** The reader thread failed: the error's own fields, so the main thread can explain it as the in-thread path does. */
export interface ShippedFailure {
  type: 'failure';
  message: string;
  name?: string;
  code?: string;
  path?: string;
  syscall?: string;
  errno?: number;
}

/** Reader thread -> main thread. `end`: every row was sent. */
export type ReaderMessage = ShippedBlock | ShippedFailure | { type: 'end' };

/** Main thread -> reader thread: the main thread took `credit` blocks; the reader may send that many more. */
export interface CreditMessage {
  credit: number;
}
