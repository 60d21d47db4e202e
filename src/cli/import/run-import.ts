/**
 * The bulk import loop shared by every `<noun> import` (design/cli.md, "Bulk import"): streams the
 * input, maps rows to API items, sends them in batches, records every rejected row (with its line
 * and ALL its problems) in an errors file in the input's own format, keeps a resume checkpoint, and
 * stops cleanly on Ctrl-C. Nothing here knows the resource: an ImportSpec says how to map and send.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CatalogError } from '../../api/errors.js';
import type { BulkWriteResult } from '../../api/schemas.js';
import type { CatalogClient } from '../../client/types.js';
import { UsageError } from '../output/usage-error.js';
import { Checkpoint, defaultCheckpointPath } from './checkpoint.js';
import { createErrorsFile, defaultErrorsPath, type ErrorsFile } from './errors-file.js';
import { mapEntries, type MapperName } from './mapped-entries.js';
import { formatFromPath, locationLabel, type ImportFormat } from './read-records.js';

/** How one resource is imported. */
export interface ImportSpec {
  /** Resource name for messages, e.g. `attributes`. */
  noun: string;
  /** The id field of an item, e.g. `attribute_id`. */
  idField: string;
  /**
   * Maps a CSV record (all strings) to an API item, or lists every problem of the row. With
   * `validate: false` the schema check may be skipped (the service validates every item anyway);
   * rows the service rejects are mapped again with validation so messages name the CSV columns.
   */
  mapCsvRow(record: Record<string, string>, options?: { validate?: boolean }): { item: Record<string, unknown> } | { problems: string[] };
  /** Sends one batch; a bulk result with per-item errors keyed by id or `items[<index>]`. */
  send(client: CatalogClient, items: Record<string, unknown>[]): Promise<BulkWriteResult>;
  /** Dry run: which of these ids exist already (for would-create / would-update). */
  existing?(client: CatalogClient, ids: string[]): Promise<Set<string>>;
  /** Largest batch the API accepts. */
  maxBatch: number;
  /** Which of CSV_MAPPERS mapCsvRow is (for messages and tooling). */
  mapper?: MapperName;
}

export interface ImportOptions {
  /** Path, or `-` for stdin. */
  file: string;
  format?: string | undefined;
  dryRun?: boolean;
  /** Errors file path; default `<input>.errors.<ext>`. */
  errors?: string | undefined;
  /** Stop after this many rejected rows. */
  maxErrors?: number | undefined;
  batchSize?: number | undefined;
  /** Skip the batches a checkpoint says are done. */
  resume?: boolean;
  /** Called after each batch with running totals (progress display). */
  onProgress?: (summary: ImportSummary) => void;
  /** Aborted on Ctrl-C: the loop finishes the batch in flight, flushes and returns `interrupted`. */
  signal?: AbortSignal;
}

/** The result of an import (the `-o json` summary of cli.md plus bookkeeping). */
export interface ImportSummary {
  created: number;
  updated: number;
  rejected: number;
  /** Rows read (including rejected ones and those skipped by --resume). */
  rows: number;
  /** Batches skipped because the checkpoint says they are done. */
  skippedBatches: number;
  /** id (or `line:<n>`) -> messages; at most {@link MAX_SUMMARY_ERRORS} entries (all are in the errors file). */
  errors: Record<string, string[]>;
  errorsFile: string | null;
  dryRun: boolean;
  interrupted: boolean;
  /** True when --max-errors stopped the import early. */
  stoppedEarly: boolean;
}

/** At most this many rejected rows are listed in the summary itself. */
export const MAX_SUMMARY_ERRORS = 1000;

interface PendingRow {
  line: number;
  record: Record<string, unknown>;
  item: Record<string, unknown>;
}

/** Runs an import. Throws UsageError for a bad format/path, CatalogError when the service refuses a whole batch. */
export async function runImport(client: CatalogClient, spec: ImportSpec, options: ImportOptions, io: { stdin: NodeJS.ReadableStream; cwd: string }): Promise<ImportSummary> {
  const fromStdin = options.file === '-';
  if (fromStdin && options.format === undefined) throw new UsageError('reading stdin (-) needs --format csv|json|ndjson');
  const format: ImportFormat = formatFromPath(options.file, options.format);
  const inputPath = fromStdin ? undefined : resolve(io.cwd, options.file);
  const batchSize = Math.min(options.batchSize ?? spec.maxBatch, spec.maxBatch);
  let inputStat: { size: number; mtimeMs: number } | undefined;
  if (inputPath) {
    try {
      inputStat = await stat(inputPath);
    } catch (error) {
      throw new UsageError(`cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  }
  const errorsPath = options.errors !== undefined ? resolve(io.cwd, options.errors) : resolve(io.cwd, defaultErrorsPath(inputPath ?? null, format));
  const errorsFile: ErrorsFile = createErrorsFile(errorsPath, format);
  const openCheckpoint = async () =>
    inputPath && inputStat && !options.dryRun
      ? Checkpoint.open(defaultCheckpointPath(inputPath), { inputPath, inputSize: inputStat.size, inputMtimeMs: inputStat.mtimeMs, batchSize })
      : undefined;
  let checkpoint = await openCheckpoint();
  if (checkpoint && !options.resume && checkpoint.doneCount > 0) {
    // A fresh run (no --resume) redoes everything: upserts are idempotent.
    await checkpoint.remove();
    checkpoint = await openCheckpoint();
  }

  const summary: ImportSummary = {
    created: 0, updated: 0, rejected: 0, rows: 0, skippedBatches: 0, errors: {}, errorsFile: null,
    dryRun: options.dryRun === true, interrupted: false, stoppedEarly: false,
  };
  const reject = async (line: number, key: string | undefined, messages: string[], record?: Record<string, unknown>, raw?: string) => {
    summary.rejected++;
    const summaryKey = key ?? `line:${line}`;
    if (Object.keys(summary.errors).length < MAX_SUMMARY_ERRORS || summary.errors[summaryKey]) {
      (summary.errors[summaryKey] ??= []).push(...messages.map((m) => `${locationLabel(format, line)}: ${m}`));
    }
    await errorsFile.write({ line, error: messages, ...(record ? { record } : {}), ...(raw !== undefined ? { raw } : {}) });
  };
  const idOf = (item: Record<string, unknown>): string | undefined => {
    const id = item[spec.idField];
    return typeof id === 'string' && id.length > 0 && id.length <= 256 ? id : undefined;
  };

  let batchIndex = 0;
  const flush = async (rows: PendingRow[]) => {
    const index = batchIndex++;
    if (checkpoint?.isDone(index) && options.resume) {
      summary.skippedBatches++;
      return;
    }
    const items = rows.map((r) => r.item);
    if (options.dryRun) {
      const ids = items.map(idOf).filter((id): id is string => id !== undefined);
      const known = spec.existing ? await spec.existing(client, ids) : new Set<string>();
      for (const id of ids) if (known.has(id)) summary.updated++; else summary.created++;
      return;
    }
    const result = await spec.send(client, items);
    summary.created += result.created.length;
    summary.updated += result.updated.length;
    for (const [key, messages] of Object.entries(result.errors)) {
      const indexed = /^items\[(\d+)\]$/.exec(key);
      const matching = indexed ? [rows[Number(indexed[1])]] : rows.filter((r) => idOf(r.item) === key);
      if (matching.length === 0) {
        await reject(0, key, messages);
        continue;
      }
      for (const row of matching) {
        if (!row) continue;
        // Prefer the mapper's messages, which name CSV columns, over the service's item paths.
        const explained = format === 'csv' ? spec.mapCsvRow(row.record as Record<string, string>, { validate: true }) : undefined;
        const own = explained && 'problems' in explained ? explained.problems : messages;
        await reject(row.line, indexed ? undefined : key, own, row.record);
      }
    }
    await checkpoint?.markDone(index);
  };

  let pending: PendingRow[] = [];
  try {
    const entries = mapEntries(fromStdin ? { stdin: io.stdin } : { path: inputPath ?? '' }, format, spec.mapCsvRow);
    for await (const entry of entries) {
      if (options.signal?.aborted) {
        summary.interrupted = true;
        break;
      }
      summary.rows++;
      if ('problems' in entry) await reject(entry.line, undefined, entry.problems, entry.record, entry.raw);
      else pending.push(entry);
      if (pending.length >= batchSize) {
        const rows = pending;
        pending = [];
        await flush(rows);
        options.onProgress?.(summary);
      }
      if (options.maxErrors !== undefined && summary.rejected >= options.maxErrors) {
        summary.stoppedEarly = true;
        break;
      }
    }
    if (pending.length > 0 && !summary.interrupted && !summary.stoppedEarly) await flush(pending);
    if (!summary.interrupted && !summary.stoppedEarly) await checkpoint?.remove();
  } catch (error) {
    if (error instanceof CatalogError || error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') throw new UsageError(`cannot read ${options.file}: ${(error as Error).message}`);
    throw error;
  } finally {
    await checkpoint?.flush();
    await errorsFile.close();
  }
  summary.errorsFile = errorsFile.count > 0 ? errorsFile.path : null;
  return summary;
}
