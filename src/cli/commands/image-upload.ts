/**
 * `catalog images upload` (design/cli.md): a CSV/JSON/NDJSON manifest `{image_id?, part_id, info,
 * position?, file}` with files relative to `--dir` (default: the manifest's directory), or files
 * for one part with `--part` and `--info`.
 *
 * The manifest is streamed; rows are grouped into batches of at most `--batch-size` files and
 * `--batch-mb` megabytes, and `--concurrency` batches are in flight at once, each one multipart
 * request whose files the client streams from disk. Rejected rows (bad row, missing file, per-item
 * error from the service) go to the errors file in the manifest's own format; `--resume` skips the
 * batches a checkpoint says are done; Ctrl-C finishes the batches in flight, flushes both and exits
 * 130; `--dry-run` checks each file exists and is an image (its first bytes) and uploads nothing.
 * Exit 3 when rows were rejected.
 */
import { open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CatalogError } from '../../api/errors.js';
import type { BulkWriteResult } from '../../api/schemas.js';
import { detectImageType, IMAGE_TYPE_HEAD_BYTES } from '../../core/images/file-type.js';
import { parseImageInfo, validateImagePosition } from '../../core/images/info-tokens.js';
import type { CommandContext } from '../context.js';
import { Checkpoint, defaultCheckpointPath } from '../import/checkpoint.js';
import { createErrorsFile, defaultErrorsPath, type ErrorsFile } from '../import/errors-file.js';
import { mapRecord, validateImageManifestItem, type ImageManifestItem } from '../import/map-rows.js';
import { formatFromPath, locationLabel, readRecords, type ImportFormat } from '../import/read-records.js';
import type { Progress } from '../output/progress.js';
import { UsageError } from '../output/usage-error.js';
import type { ImportSummary } from '../import/run-import.js';
import { describeImport, summaryDocument } from '../import/summary.js';
import { emitJson } from '../output/json.js';

export interface UploadFlags {
  dir?: string;
  part?: string;
  info?: string;
  position?: number;
  format?: string;
  concurrency?: number;
  batchSize?: number;
  batchMb?: number;
  dryRun?: boolean;
  errors?: string;
  maxErrors?: number;
  resume?: boolean;
}

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_BATCH_FILES = 50;
export const DEFAULT_BATCH_MB = 32;
const EXIT_PARTIAL = 3;
const EXIT_INTERRUPTED = 130;
/** At most this many rejected rows are listed in the summary itself (all are in the errors file). */
const MAX_SUMMARY_ERRORS = 1000;

/** A manifest row on its way: where it came from, and the item and file once valid. */
interface Row {
  line: number;
  record: Record<string, unknown> | undefined;
  raw?: string;
  item?: ImageManifestItem;
  path?: string;
  size?: number;
  problems?: string[];
}

/** An import summary (src/cli/import/run-import.ts) plus the bytes sent. */
interface UploadSummary extends ImportSummary {
  bytes: number;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** Reads the rows of the input: manifest records, or one synthetic row per file given with --part. */
async function* readRows(inputs: string[], flags: UploadFlags, io: { cwd: string; stdin: NodeJS.ReadableStream }, format: ImportFormat | undefined): AsyncGenerator<Row> {
  if (format === undefined) {
    for (const [index, file] of inputs.entries()) {
      const record: Record<string, unknown> = { part_id: flags.part, info: flags.info, file };
      if (flags.position !== undefined) record.position = flags.position;
      const mapped = validateImageManifestItem(record);
      yield 'item' in mapped ? { line: index + 1, record, item: mapped.item } : { line: index + 1, record, problems: mapped.problems };
    }
    return;
  }
  const input = inputs[0] ?? '';
  for await (const entry of readRecords(input === '-' ? { stdin: io.stdin } : { path: resolve(io.cwd, input) }, format)) {
    if ('error' in entry) {
      yield { line: entry.line, record: undefined, ...(entry.raw !== undefined ? { raw: entry.raw } : {}), problems: [entry.error] };
      continue;
    }
    const mapped = mapRecord('images', format, entry.record);
    yield 'item' in mapped ? { line: entry.line, record: entry.record, item: mapped.item } : { line: entry.line, record: entry.record, problems: mapped.problems };
  }
}

/** The service's pure rules a dry run can check without asking: info tokens and position. */
function ruleProblems(item: ImageManifestItem): string[] {
  const info = parseImageInfo(item.info);
  return [...(info.ok ? [] : info.messages), ...validateImagePosition(item.position, info.ok ? info.info : undefined)];
}

/** Checks that a row's file exists (and, for a dry run, the service's rules and that its first bytes are an image). */
async function checkFile(row: Row, baseDir: string, sniff: boolean): Promise<void> {
  const item = row.item;
  if (!item) return;
  if (sniff) {
    const problems = ruleProblems(item);
    if (problems.length > 0) {
      row.problems = problems;
      return;
    }
  }
  const path = resolve(baseDir, item.file);
  try {
    const info = await stat(path);
    if (!info.isFile()) {
      row.problems = [`file: ${item.file} is not a file`];
      return;
    }
    row.path = path;
    row.size = info.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    row.problems = [`file: ${item.file} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (error as Error).message})`}${code === 'ENOENT' ? ` (looked in ${baseDir})` : ''}`];
    return;
  }
  if (!sniff) return;
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(IMAGE_TYPE_HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (detectImageType(head.subarray(0, bytesRead)) === undefined) {
      row.problems = [`file: ${item.file} is not a supported image: its bytes are not JPEG, PNG, WebP, GIF, TIFF or AVIF`];
    }
  } finally {
    await handle.close();
  }
}

/** Runs `images upload`; returns the exit code. */
export async function runImagesUpload(ctx: CommandContext, inputs: string[], flags: UploadFlags, resumeCommand: string): Promise<number> {
  const cwd = ctx.io.cwd;
  const filesMode = flags.part !== undefined || flags.info !== undefined;
  if (filesMode && (flags.part === undefined || flags.info === undefined)) throw new UsageError('uploading files needs both --part <part_id> and --info "<tokens>"');
  if (!filesMode && inputs.length !== 1) {
    throw new UsageError('give one manifest (CSV, JSON or NDJSON), or image files with --part <part_id> --info "<tokens>"');
  }
  if (!filesMode && flags.position !== undefined) throw new UsageError('--position applies to --part uploads; a manifest has a position column');
  const format = filesMode ? undefined : formatFromPath(inputs[0] ?? '', flags.format);
  const fromStdin = !filesMode && inputs[0] === '-';
  const manifestPath = filesMode || fromStdin ? undefined : resolve(cwd, inputs[0] ?? '');
  let manifestStat: { size: number; mtimeMs: number } | undefined;
  if (manifestPath) {
    try {
      manifestStat = await stat(manifestPath);
    } catch (error) {
      throw new UsageError(`cannot read ${inputs[0] ?? ''}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  }
  const baseDir = flags.dir !== undefined ? resolve(cwd, flags.dir) : manifestPath ? dirname(manifestPath) : cwd;
  const concurrency = flags.concurrency ?? DEFAULT_CONCURRENCY;
  const batchFiles = flags.batchSize ?? DEFAULT_BATCH_FILES;
  const batchBytes = (flags.batchMb ?? DEFAULT_BATCH_MB) * 1024 * 1024;
  const dryRun = flags.dryRun === true;

  const errorsFormat: ImportFormat = format ?? 'ndjson';
  const errorsPath = flags.errors !== undefined
    ? resolve(cwd, flags.errors)
    : manifestPath || fromStdin ? resolve(cwd, defaultErrorsPath(manifestPath ?? null, errorsFormat)) : undefined;
  const errorsFile: ErrorsFile | undefined = errorsPath !== undefined ? createErrorsFile(errorsPath, errorsFormat) : undefined;
  const openCheckpoint = () =>
    manifestPath && manifestStat && !dryRun
      ? Checkpoint.open(defaultCheckpointPath(manifestPath), { inputPath: manifestPath, inputSize: manifestStat.size, inputMtimeMs: manifestStat.mtimeMs, batchSize: batchFiles })
      : Promise.resolve(undefined);
  let checkpoint = await openCheckpoint();
  if (checkpoint && !flags.resume && checkpoint.doneCount > 0) {
    // A fresh run (no --resume) redoes everything: uploads are upserts by image_id.
    await checkpoint.remove();
    checkpoint = await openCheckpoint();
  }

  const client = await ctx.client();
  const summary: UploadSummary = {
    created: 0, updated: 0, rejected: 0, rows: 0, bytes: 0, skippedBatches: 0, errors: {}, errorsFile: null, dryRun, interrupted: false, stoppedEarly: false,
  };
  const label = (line: number) => locationLabel(format ?? 'ndjson', line).replace(/^line /, filesMode ? 'file ' : 'line ');
  const reject = async (row: Row, key: string | undefined, messages: string[]) => {
    summary.rejected++;
    const summaryKey = key ?? `line:${row.line}`;
    if (Object.keys(summary.errors).length < MAX_SUMMARY_ERRORS || summary.errors[summaryKey]) {
      (summary.errors[summaryKey] ??= []).push(...messages.map((m) => `${label(row.line)}: ${m}`));
    }
    if (errorsFile) await errorsFile.write({ line: row.line, error: messages, ...(row.record ? { record: row.record } : {}), ...(row.raw !== undefined ? { raw: row.raw } : {}) });
  };

  // ora (and its dependencies) load only when a person is watching: start-up counts in short uploads.
  const watching = !ctx.flags.quiet && (ctx.io.stderr as NodeJS.WriteStream).isTTY === true;
  const progress: Pick<Progress, 'update' | 'stop'> = watching
    ? (await import('../output/progress.js')).createProgress(ctx.io.stderr as NodeJS.WriteStream, true, ctx.io.env)
    : { update: () => undefined, stop: () => undefined };
  const started = performance.now();
  const report = () => {
    const seconds = Math.max((performance.now() - started) / 1000, 0.001);
    const stored = summary.created + summary.updated;
    progress.update(`images: ${stored.toLocaleString('en-US')} ${dryRun ? 'checked' : 'uploaded'} · ${formatBytes(summary.bytes)} · ${formatBytes(summary.bytes / seconds)}/s · ${(stored / seconds).toFixed(0)} images/s · ${summary.rejected} rejected`);
  };
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);

  let fatal: unknown;
  const inFlight = new Set<Promise<void>>();

  /** Sends one batch and folds its result into the summary. */
  const send = async (index: number, rows: Row[]): Promise<void> => {
    const items = rows.map((r) => r.item as ImageManifestItem);
    if (dryRun) {
      const [known, parts] = await Promise.all([
        client.selectImages({ image_ids: items.map((i) => i.image_id), projection: ['part_id'] }),
        client.selectParts({ part_ids: [...new Set(items.map((i) => i.part_id))], projection: ['serviceId'] }),
      ]);
      const existing = new Set(known.map((i) => i.image_id));
      const partIds = new Set(parts.map((p) => p.part_id));
      for (const row of rows) {
        const item = row.item as ImageManifestItem;
        if (!partIds.has(item.part_id)) await reject(row, item.image_id, [`part_id: part '${item.part_id}' does not exist`]);
        else if (existing.has(item.image_id)) summary.updated++;
        else summary.created++;
      }
      return;
    }
    const definitions = items.map((i) => ({ image_id: i.image_id, part_id: i.part_id, info: i.info, ...(i.position !== undefined ? { position: i.position } : {}) }));
    // The filename is the image_id itself: it matches its definition exactly (decisions §4).
    const files = rows.map((r) => ({ filename: (r.item as ImageManifestItem).image_id, path: r.path ?? '' }));
    let result: BulkWriteResult;
    try {
      result = await client.uploadImages(definitions, files);
    } catch (error) {
      if (error instanceof CatalogError && ['bad_request', 'payload_too_large', 'unsupported_media_type', 'not_found'].includes(error.code)) {
        // The service refused the request as a whole: its rows are rejected (and retried by --resume).
        for (const row of rows) await reject(row, row.item?.image_id, [error.detail]);
        return;
      }
      throw error;
    }
    summary.created += result.created.length;
    summary.updated += result.updated.length;
    for (const [key, messages] of Object.entries(result.errors)) {
      const indexed = /^items\[(\d+)\]$/.exec(key);
      const matching = indexed ? [rows[Number(indexed[1])]] : rows.filter((r) => r.item?.image_id === key);
      if (matching.length === 0) {
        summary.rejected++;
        (summary.errors[key] ??= []).push(...messages);
        continue;
      }
      for (const row of matching) if (row) await reject(row, indexed ? undefined : key, messages);
    }
    summary.bytes += rows.reduce((n, r) => n + (r.size ?? 0), 0);
    await checkpoint?.markDone(index);
    report();
  };

  const dispatch = async (index: number, rows: Row[]): Promise<void> => {
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (fatal !== undefined) return;
    const task = send(index, rows)
      .catch((error: unknown) => {
        fatal ??= error;
      })
      .finally(() => {
        inFlight.delete(task);
      });
    inFlight.add(task);
  };

  let batchIndex = 0;
  let batch: Row[] = [];
  let batchSize = 0;
  let batchIds = new Set<string>();
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    const index = batchIndex++;
    batch = [];
    batchSize = 0;
    batchIds = new Set();
    if (flags.resume && checkpoint?.isDone(index)) {
      summary.skippedBatches++;
      return;
    }
    await dispatch(index, rows);
  };

  try {
    for await (const row of readRows(inputs, flags, ctx.io, format)) {
      if (controller.signal.aborted) {
        summary.interrupted = true;
        break;
      }
      if (fatal !== undefined) break;
      summary.rows++;
      if (!row.problems) await checkFile(row, filesMode ? cwd : baseDir, dryRun);
      if (row.problems || !row.item) {
        await reject(row, undefined, row.problems ?? ['invalid row']);
      } else {
        const size = row.size ?? 0;
        // An id repeated within one request would be ambiguous: it starts a new batch (processed in order).
        if (batch.length >= batchFiles || (batch.length > 0 && batchSize + size > batchBytes) || batchIds.has(row.item.image_id)) await flush();
        batch.push(row);
        batchSize += size;
        batchIds.add(row.item.image_id);
      }
      if (flags.maxErrors !== undefined && summary.rejected >= flags.maxErrors) {
        summary.stoppedEarly = true;
        break;
      }
    }
    if (!summary.interrupted && !summary.stoppedEarly && fatal === undefined) await flush();
    await Promise.all(inFlight);
    if (fatal !== undefined) throw fatal;
    if (controller.signal.aborted) summary.interrupted = true;
    if (!summary.interrupted && !summary.stoppedEarly) await checkpoint?.remove();
  } catch (error) {
    await Promise.all(inFlight);
    if (manifestPath && checkpoint && !dryRun) ctx.io.stderr.write(`upload stopped; finished batches are recorded. Resume with\n  ${resumeCommand} --resume\n`);
    throw error;
  } finally {
    process.off('SIGINT', onSigint);
    progress.stop();
    await checkpoint?.flush();
    await errorsFile?.close();
  }
  summary.errorsFile = errorsFile && errorsFile.count > 0 ? errorsFile.path : null;

  if (ctx.format === 'json') {
    emitJson(ctx, summaryDocument(summary));
  }
  const seconds = (performance.now() - started) / 1000;
  let line = describeImport('images upload', summary, `(${formatBytes(summary.bytes)} in ${seconds.toFixed(1)} s, ${formatBytes(summary.bytes / Math.max(seconds, 0.001))}/s)`);
  if (!summary.errorsFile && !errorsFile && summary.rejected > 0) {
    for (const [key, messages] of Object.entries(summary.errors)) line += `\n  ${key}: ${messages.join('; ')}`;
  }
  ctx.info(line);
  if (summary.interrupted) {
    if (manifestPath) ctx.io.stderr.write(`interrupted: resume with\n  ${resumeCommand} --resume\n`);
    return EXIT_INTERRUPTED;
  }
  return summary.rejected > 0 ? EXIT_PARTIAL : 0;
}
