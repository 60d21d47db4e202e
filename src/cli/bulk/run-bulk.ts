/**
 * The ONE bulk loop of the CLI (design/cli.md, "Bulk import"), shared by every `<noun> import` and by
 * `images upload`: reads rows, groups the valid ones into batches (by count, by bytes, and never the
 * same id twice in one request), keeps `concurrency` batches in flight, records every rejected row
 * (with its line and ALL its problems) in an errors file in the input's own format, keeps the resume
 * checkpoint (`--resume` skips finished batches), shows progress on a terminal, stops early at
 * `--max-errors`, and on Ctrl-C finishes the batches in flight, flushes both files and exits 130.
 * Prints the summary (stderr line, or the `-o json` document) and returns the exit code.
 *
 * Nothing here knows the resource: a {@link BulkJob} says how to read, check, send and dry-run.
 */
import type { BulkWriteResult } from '../../api/schemas.js';
import type { CommandContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { locationLabel, type ImportFormat } from '../import/read-records.js';
import { emitJson } from '../output/json.js';
import type { Progress, ProgressAmount } from '../output/progress.js';
import { UsageError } from '../output/usage-error.js';
import { Checkpoint, defaultCheckpointPath, describeInput, identityDifferences, type CheckpointInput, type CheckpointOptions, type CheckpointTarget } from './checkpoint.js';
import { createErrorsFile, type ErrorsFile } from './errors-file.js';
import { InputOrder } from './input-order.js';
import { describeImport, summaryDocument, type BulkSummary } from './summary.js';

export type { BulkSummary };

/** One input row on its way: where it came from, and its item once mapped. */
export interface BulkRow<I> {
  /** Line (CSV/NDJSON), item index (JSON) or file number, from 1. */
  line: number;
  /** The record as read, for the errors file. */
  record?: Record<string, unknown> | undefined;
  /** The source text of a row that could not be read as a record. */
  raw?: string;
  /** The item to send, when the row mapped. */
  item?: I;
  /** Why the row is rejected before sending (all of its problems). */
  problems?: string[];
  /** Bytes the row adds to a request (image files), for `batchBytes`. */
  size?: number;
  /**
   * The item was validated before batching (an import's reader thread) and the service would
   * refuse it with this error key and these messages: it stays in its batch, so batches (and
   * checkpoints) are those of a run that sends it, but it is not sent; it is rejected as the
   * service's answer would have rejected it. Dry runs ignore it, as they do not validate either.
   */
  refused?: { key: string | undefined; messages: string[] };
  /** The item was validated before batching and the service would accept it (see `refused`). */
  validated?: boolean;
  /** A sync's hash of the item as mapped (src/cli/sync/row-hash.ts), when the reader thread computed it. */
  hash?: string;
}

/** What sending one batch answered: the service's result, and what the job found itself. */
export type SentResult = BulkWriteResult & { moved?: string[]; unchanged?: number };

/** Per-row outcome of a dry run of one batch. */
export interface DryRunOutcome<I> {
  created: number;
  updated: number;
  /** Rows a sync would not send: equal to what is stored. */
  unchanged?: number;
  /** Of `updated`: images that now belong to another part. */
  moved?: number;
  rejected: { row: BulkRow<I>; key: string | undefined; messages: string[] }[];
}

/** What a bulk run does, for one resource. */
export interface BulkJob<I> {
  /** How the summary names the run, e.g. `parts import`, `images upload`. */
  what: string;
  /**
   * The rows, in input order: one by one, or in blocks (an import's reader thread hands its rows
   * over ~1,000 at a time; a step of an async iteration per row cost the writing thread ~1.5 KB of
   * garbage a row).
   */
  rows: AsyncIterable<BulkRow<I> | readonly BulkRow<I>[]>;
  /** Format of the input: for row labels and the errors file. */
  format: ImportFormat;
  /** The input file when it can be resumed (not stdin): the checkpoint lives next to it. */
  inputPath?: string | undefined;
  /** The input as the user named it, for messages (default `inputPath`). */
  inputName?: string | undefined;
  /** The errors file; undefined = none (rejected rows are listed in the summary). */
  errorsPath?: string | undefined;
  /** Items per request at most. */
  batchSize: number;
  /** Bytes per request at most (rows' `size`). */
  batchBytes?: number;
  /** Requests in flight at once (default 1). */
  concurrency?: number;
  /** The id of an item (summary keys, repeated-id batch split). */
  idOf(item: I): string | undefined;
  /** Checks a valid row before batching (may set `problems` or `size`). */
  check?(row: BulkRow<I>): Promise<void>;
  /**
   * Sends one batch; per-item errors keyed by id or `items[<index>]` (an index into `rows`).
   * `unchanged`: rows a sync found equal to what is stored and did not send.
   */
  send(rows: BulkRow<I>[]): Promise<SentResult>;
  /**
   * Batches sent together at most (default 1), through {@link sendGroup}: consecutive batches are
   * held until this many are full (or the input ends, or the run stops) and sent in one call. Each
   * batch keeps its index, checkpoint entry and result, so batches, checkpoints and `--resume` are
   * those of a run that sends them one by one; a batch is recorded as finished only once its whole
   * group is answered. Not with `concurrency` > 1.
   */
  groupSize?: number;
  /**
   * Sends consecutive batches (each non-empty) in one call, in order; returns each batch's result as
   * `send` would. A local catalog writes them in one transaction: all stored, or none and it throws.
   */
  sendGroup?(batches: BulkRow<I>[][]): Promise<SentResult[]>;
  /** Counts one batch of a dry run. */
  dryRun(rows: BulkRow<I>[]): Promise<DryRunOutcome<I>>;
  /** Better messages for a row the service rejected (e.g. naming CSV columns); default the service's. */
  explain?(row: BulkRow<I>, messages: string[]): string[];
  /** Label of a row in messages; default `line <n>` / `item <n>` by format. */
  label?(line: number): string;
  /** The progress line; `seconds` since the start. */
  progressLine(summary: BulkSummary, seconds: number): string;
  /** How much of an input of known size is read (an import of a file): the progress line gets a bar, rate and time left. */
  progressAmount?: () => ProgressAmount;
  /** Extra text after the counts of a real run's summary line (e.g. bytes and rate). */
  detail?(summary: BulkSummary, seconds: number): string;
  /**
   * Runs once every row was read and answered (not after an interrupt, --max-errors or a failure),
   * before the summary is printed: a sync's prune. It may add counts to the summary; its `notes`
   * are printed after the summary line and its `exitCode` replaces the run's when higher.
   */
  finish?(summary: BulkSummary): Promise<{ notes: string[]; exitCode?: number }>;
  /** What to print after an interrupt of a run without a resumable input (default `interrupted`). */
  interruptedHint?: string;
  dryRunMode: boolean;
  resume: boolean;
  maxErrors?: number | undefined;
  /**
   * The options that decide which rows make up each batch (format, batch size, batch bytes, the
   * files' directory ...): the checkpoint is bound to them, and `--resume` refuses other values.
   */
  options: CheckpointOptions;
  /** The command to print for resuming, `--resume` included, shell-quoted (src/cli/command-line.ts). */
  resumeCommand: string;
}

/** A block of rows (BulkJob.rows), not one row. */
function isBlock<I>(next: BulkRow<I> | readonly BulkRow<I>[]): next is readonly BulkRow<I>[] {
  return Array.isArray(next);
}

/** At most this many rejected rows are listed in the summary itself (all are in the errors file). */
const MAX_SUMMARY_ERRORS = 1000;

/**
 * Opens the checkpoint of the input (design/cli.md: a checkpoint belongs to its input, its options
 * and its target catalog). A fresh run (no --resume) starts a new one: writes are upserts. With
 * --resume the stored checkpoint must match in every respect, else the run is refused before it
 * writes anything and the checkpoint is kept.
 *
 * @throws UsageError (exit 2) when the input cannot be read, for --resume on stdin, and for --resume
 *   with an unusable or mismatched checkpoint (naming each difference).
 */
async function openCheckpoint<I>(ctx: CommandContext, job: BulkJob<I>): Promise<Checkpoint | undefined> {
  const name = job.inputName ?? job.inputPath ?? 'stdin';
  if (job.inputPath === undefined) {
    if (job.resume && !job.dryRunMode) throw new UsageError('--resume needs an input file: a run from stdin (-) cannot be resumed');
    return undefined;
  }
  let input: CheckpointInput;
  try {
    input = await describeInput(job.inputPath);
  } catch (error) {
    throw new UsageError(`cannot read ${name}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (job.dryRunMode) return undefined;
  const path = defaultCheckpointPath(job.inputPath);
  const location = ctx.config.remote.value !== undefined ? { remote: ctx.config.remote.value } : { dataDir: ctx.config.dataDir.value };
  const target = async (): Promise<CheckpointTarget> => ({ catalogId: (await (await ctx.client()).getCatalogInfo()).catalogId, ...location });
  const identity = { input, options: job.options };
  if (!job.resume) {
    // Starting over while an interrupted run's checkpoint waits is said, not done silently.
    const previous = await Checkpoint.inspect(path);
    if (previous.state === 'found' && previous.doneCount > 0) {
      ctx.info(`note: ${path} records ${previous.doneCount.toLocaleString('en-US')} finished batches of an interrupted run; this run imports everything again (writes are upserts) and replaces it. To skip them instead: Ctrl-C, then add --resume`);
    }
    return Checkpoint.fresh(path, identity, target);
  }
  const stored = await Checkpoint.inspect(path);
  const refuse = (why: string): never => {
    throw new UsageError(
      `cannot resume ${job.what} of ${name}: ${why}\nnothing was imported and the checkpoint is kept. ` +
        'Resume with the options and target of that run, or run without --resume to import everything again (writes are upserts).',
    );
  };
  if (stored.state === 'missing') {
    ctx.info(`--resume: no checkpoint for ${name} (${path}); nothing to skip, importing from the start`);
    return Checkpoint.fresh(path, identity, target);
  }
  if (stored.state === 'unusable') return refuse(`the checkpoint ${path} is ${stored.reason}`);
  // The location first: another data directory or server is refused without opening it.
  let differences = identityDifferences(stored.identity, { ...identity, target: location });
  if (differences.length === 0) differences = identityDifferences(stored.identity, { ...identity, target: await target() });
  if (differences.length > 0) refuse(`the checkpoint ${path} belongs to another run:\n  ${differences.join('\n  ')}`);
  ctx.info(`resuming ${job.what} of ${name}: ${stored.doneCount.toLocaleString('en-US')} finished batches are skipped`);
  return Checkpoint.resume(path, stored);
}

/**
 * Runs `job`: prints progress and the summary, returns the exit code (0, 3 when rows were
 * rejected, 130 when interrupted).
 *
 * @throws UsageError when the input cannot be read; the service's CatalogError when it refuses a
 *   request (after the batches in flight finished and the checkpoint was saved).
 */
export async function runBulk<I>(ctx: CommandContext, job: BulkJob<I>): Promise<number> {
  const checkpoint = await openCheckpoint(ctx, job);
  const errorsFile: ErrorsFile | undefined = job.errorsPath !== undefined ? createErrorsFile(job.errorsPath, job.format) : undefined;
  const summary: BulkSummary = {
    created: 0, updated: 0, rejected: 0, rows: 0, bytes: 0, skippedBatches: 0, errors: {}, errorsFile: null,
    dryRun: job.dryRunMode, interrupted: false, stoppedEarly: false,
  };
  const label = job.label ?? ((line: number) => locationLabel(job.format, line));
  // Batches in flight finish in any order: the summary's errors and the errors file follow the input's.
  const order = new InputOrder();
  const reject = async (row: BulkRow<I>, key: string | undefined, messages: string[]) => {
    summary.rejected++;
    await order.add(row.line, async () => {
      const summaryKey = key ?? `line:${row.line}`;
      if (Object.keys(summary.errors).length < MAX_SUMMARY_ERRORS || summary.errors[summaryKey]) {
        (summary.errors[summaryKey] ??= []).push(...messages.map((m) => (row.line > 0 ? `${label(row.line)}: ${m}` : m)));
      }
      await errorsFile?.write({ line: row.line, error: messages, ...(row.record ? { record: row.record } : {}), ...(row.raw !== undefined ? { raw: row.raw } : {}) });
    });
  };

  // ora (and its dependencies) load only when a person is watching: start-up counts in short runs.
  const watching = !ctx.flags.quiet && (ctx.io.stderr as NodeJS.WriteStream).isTTY === true;
  const progress: Pick<Progress, 'update' | 'stop'> = watching
    ? await (await import('../output/progress.js')).createProgress(ctx.io.stderr as NodeJS.WriteStream, true, ctx.io.env)
    : { update: () => undefined, stop: () => undefined };
  const started = performance.now();
  const seconds = () => Math.max((performance.now() - started) / 1000, 0.001);
  const controller = new AbortController();
  // `on`, not `once`: ora's cursor restorer (signal-exit) re-raises SIGINT when it sees no other
  // listener, which killed the process on a terminal before the summary. A second Ctrl-C is ignored
  // too: the batches in flight finish and both files are flushed.
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);

  /** The rows of a batch that are sent: those validated before batching and refused stay behind. */
  const sentRows = (rows: BulkRow<I>[]): BulkRow<I>[] => (rows.some((r) => r.refused !== undefined) ? rows.filter((r) => r.refused === undefined) : rows);

  /** Folds one batch's answer into the summary, rejects its refused rows and records it as finished. */
  const settle = async (index: number, rows: BulkRow<I>[], sent: BulkRow<I>[], result: SentResult & { deleted?: string[] }): Promise<void> => {
    summary.created += result.created.length;
    summary.updated += result.updated.length;
    if (result.unchanged !== undefined) summary.unchanged = (summary.unchanged ?? 0) + result.unchanged;
    if (result.deleted !== undefined && result.deleted.length > 0) summary.deleted = (summary.deleted ?? 0) + result.deleted.length;
    if (result.moved !== undefined) summary.moved = (summary.moved ?? 0) + result.moved.length;
    for (const row of rows) if (row.refused) await reject(row, row.refused.key, job.explain ? job.explain(row, row.refused.messages) : row.refused.messages);
    for (const [key, messages] of Object.entries(result.errors)) {
      const indexed = /^items\[(\d+)\]$/.exec(key);
      const matching = indexed ? [sent[Number(indexed[1])]] : sent.filter((r) => r.item !== undefined && job.idOf(r.item) === key);
      if (matching.length === 0 || matching[0] === undefined) {
        await reject({ line: 0 }, key, messages);
        continue;
      }
      for (const row of matching) if (row) await reject(row, indexed ? undefined : key, job.explain ? job.explain(row, messages) : messages);
    }
    summary.bytes += rows.reduce((n, r) => n + (r.size ?? 0), 0);
    await checkpoint?.markDone(index);
  };

  /** Sends (or dry-runs) consecutive batches, together when there are several, and folds their results into the summary. */
  const send = async (batches: { index: number; rows: BulkRow<I>[] }[]): Promise<void> => {
    if (job.dryRunMode) {
      for (const { rows } of batches) {
        const outcome = await job.dryRun(rows);
        summary.created += outcome.created;
        summary.updated += outcome.updated;
        if (outcome.unchanged !== undefined) summary.unchanged = (summary.unchanged ?? 0) + outcome.unchanged;
        if (outcome.moved !== undefined) summary.moved = (summary.moved ?? 0) + outcome.moved;
        for (const r of outcome.rejected) await reject(r.row, r.key, r.messages);
      }
      progress.update(job.progressLine(summary, seconds()), job.progressAmount?.());
      return;
    }
    const sent = batches.map(({ rows }) => sentRows(rows));
    const nonEmpty = sent.filter((rows) => rows.length > 0);
    let results: (SentResult & { deleted?: string[] })[];
    if (nonEmpty.length > 1 && job.sendGroup) results = await job.sendGroup(nonEmpty);
    else results = nonEmpty.length === 1 ? [await job.send(nonEmpty[0] as BulkRow<I>[])] : [];
    let next = 0;
    for (const [i, { index, rows }] of batches.entries()) {
      const batchSent = sent[i] ?? [];
      const result = batchSent.length > 0 ? results[next++] : undefined;
      await settle(index, rows, batchSent, result ?? { created: [], updated: [], errors: {} });
    }
    progress.update(job.progressLine(summary, seconds()), job.progressAmount?.());
  };

  let fatal: unknown;
  let finished: { notes: string[]; exitCode?: number } | undefined;
  const inFlight = new Set<Promise<void>>();
  const concurrency = job.concurrency ?? 1;
  const dispatch = async (batches: { index: number; rows: BulkRow<I>[] }[]): Promise<void> => {
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (fatal !== undefined) {
      for (const { index } of batches) await order.end(index);
      return;
    }
    for (const { index, rows } of batches) order.begin(index, rows[0]?.line ?? 0);
    const task = send(batches)
      .then(async () => {
        for (const { index } of batches) await order.end(index);
      })
      .catch((error: unknown) => {
        fatal ??= error;
      })
      .finally(() => {
        inFlight.delete(task);
      });
    inFlight.add(task);
  };

  const groupSize = job.sendGroup && (job.concurrency ?? 1) === 1 ? Math.max(1, job.groupSize ?? 1) : 1;
  /** Full batches held for the next group (see BulkJob.groupSize). */
  let group: { index: number; rows: BulkRow<I>[] }[] = [];
  const flushGroup = async (): Promise<void> => {
    if (group.length === 0) return;
    const batches = group;
    group = [];
    await dispatch(batches);
  };
  let batchIndex = 0;
  let batch: BulkRow<I>[] = [];
  let batchBytes = 0;
  let batchIds = new Set<string>();
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    const index = batchIndex++;
    batch = [];
    batchBytes = 0;
    batchIds = new Set();
    if (job.resume && checkpoint?.isDone(index)) {
      summary.skippedBatches++;
      await order.end(index);
      return;
    }
    group.push({ index, rows });
    if (group.length >= groupSize) await flushGroup();
  };

  let columnsNoted = job.format !== 'csv' && job.format !== 'tsv';
  try {
    reading: for await (const next of job.rows) {
      for (const row of isBlock(next) ? next : [next]) {
      if (controller.signal.aborted) {
        summary.interrupted = true;
        break reading;
      }
      if (fatal !== undefined) break reading;
      summary.rows++;
      // The errors file's CSV header, should the rejected rows all be unreadable (no record of their own).
      if (!columnsNoted && row.record !== undefined && errorsFile !== undefined) {
        errorsFile.noteColumns(row.record);
        columnsNoted = true;
      }
      if (!row.problems && row.item !== undefined && job.check) await job.check(row);
      if (row.problems || row.item === undefined) {
        await reject(row, undefined, row.problems ?? ['invalid row']);
      } else {
        const size = row.size ?? 0;
        const id = job.idOf(row.item);
        // An id repeated within one request would be ambiguous: it starts a new batch (processed in order).
        const full = batch.length >= job.batchSize || (job.batchBytes !== undefined && batch.length > 0 && batchBytes + size > job.batchBytes);
        if (full || (id !== undefined && batchIds.has(id))) await flush();
        // The batch being filled holds its lines back too: a row rejected while reading after it
        // waits until the batch has been sent and answered (else it ran ahead of the batch's errors).
        if (batch.length === 0) order.begin(batchIndex, row.line);
        batch.push(row);
        batchBytes += size;
        if (id !== undefined) batchIds.add(id);
      }
      if (job.maxErrors !== undefined && summary.rejected >= job.maxErrors) {
        summary.stoppedEarly = true;
        break reading;
      }
      }
    }
    if (!summary.interrupted && !summary.stoppedEarly && fatal === undefined) await flush();
    // Full batches held for a group are sent whatever stopped the run, as they would have been sent
    // one by one as soon as they were full; the batch being filled is not (as before).
    if (fatal === undefined) await flushGroup();
    else for (const { index } of group) await order.end(index);
    await Promise.all(inFlight);
    if (fatal !== undefined) throw fatal;
    if (controller.signal.aborted) summary.interrupted = true;
    if (!summary.interrupted && !summary.stoppedEarly) await checkpoint?.remove();
    if (!summary.interrupted && !summary.stoppedEarly && job.finish) {
      progress.stop();
      finished = await job.finish(summary);
    }
  } catch (error) {
    await Promise.all(inFlight);
    // The progress line goes before any message, or the message lands on it.
    progress.stop();
    if (checkpoint && checkpoint.doneCount > 0) ctx.io.stderr.write(`${job.what} stopped; finished batches are recorded. Resume with\n  ${job.resumeCommand}\n`);
    // A read error of the input (not of a request) is the user's: name the input.
    const code = (error as NodeJS.ErrnoException).code;
    if (error !== fatal && (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES')) throw new UsageError(`cannot read ${job.inputName ?? job.inputPath ?? 'the input'}: ${(error as Error).message}`);
    throw error;
  } finally {
    process.off('SIGINT', onSigint);
    progress.stop();
    await checkpoint?.flush();
    await order.drain();
    await errorsFile?.close();
  }
  summary.errorsFile = errorsFile && errorsFile.count > 0 ? errorsFile.path : null;

  if (ctx.format === 'json') emitJson(ctx, summaryDocument(summary));
  let line = describeImport(job.what, summary, job.detail?.(summary, seconds()));
  if (!errorsFile && summary.rejected > 0) {
    for (const [key, messages] of Object.entries(summary.errors)) line += `\n  ${key}: ${messages.join('; ')}`;
  }
  ctx.info(line);
  for (const note of finished?.notes ?? []) ctx.info(note);
  // -q silences the summary, not where the rejected rows went: a script needs that path.
  if (ctx.flags.quiet && summary.errorsFile) ctx.io.stderr.write(`${summary.rejected.toLocaleString('en-US')} rejected rows with their errors: ${summary.errorsFile}\n`);
  if (summary.interrupted) {
    ctx.io.stderr.write(job.inputPath !== undefined && !job.dryRunMode ? `interrupted: resume with\n  ${job.resumeCommand}\n` : `${job.interruptedHint ?? 'interrupted'}\n`);
    return EXIT.INTERRUPTED;
  }
  return Math.max(summary.rejected > 0 ? EXIT.PARTIAL : EXIT.OK, finished?.exitCode ?? EXIT.OK);
}
