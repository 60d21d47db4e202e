/**
 * The generic verbs of a bulk resource (import, list, get, delete; design/cli.md), shared by the
 * verb files of attributes, parts, images and relations: each verb file declares its command with
 * one of the `declare*` helpers and runs with one of the `run*` helpers. The declarations are light
 * (commander only); the run helpers load the output writers and the bulk loop when they run.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { UsageError } from '../output/usage-error.js';
import { positiveInt, type Invoke } from '../runner.js';
import type { BulkRow } from '../bulk/run-bulk.js';
import type { MapperName } from '../import/entries-protocol.js';
import type { ImportSpec, ResourceNames, ResourceSpec } from './resource.js';

/** Items per request at most (decisions §9), for help texts. */
const MAX_BATCH = 1000;

/**
 * Batches a local import writes per transaction, for the resources that can (ImportSpec.sendBatches):
 * every transaction appends to the last posting block of each word it touches and commits those
 * pages, so three batches of 1,000 parts in one transaction cost less than three transactions
 * (issue 12, 1,000,000 parts: 7–13 % less CPU with the rest of that change; bench/results.md).
 * Not four: peak RSS 192–196 MB against 174–176 with three (the goal is ≤ 200), for no CPU
 * difference this machine could measure. Batches, checkpoints and `--resume` stay those of
 * `--batch-size` (each batch is recorded once its transaction commits).
 */
export const LOCAL_GROUP_BATCHES = 3;

/** Options of every `import` verb. */
export interface ImportFlags {
  format?: string;
  dryRun?: boolean;
  errors?: string;
  maxErrors?: number;
  batchSize?: number;
  resume?: boolean;
}

/** Options of `list`. */
export interface ListFlags {
  limit?: number;
  after?: string;
  /** Every record, also on a terminal (which otherwise shows one page of 30). */
  all?: boolean;
  pageSize?: number;
  /** The parsed command, for the next-page command line printed on a terminal. */
  command?: Command;
}

/** Declares `<noun> import <file|->` with the bulk import options of cli.md; `run` does it. */
export function declareImport(noun: Command, names: ResourceNames, invoke: Invoke, description: string, run: (ctx: CommandContext, file: string, flags: ImportFlags, resumeCommand: string) => Promise<number>): Command {
  return noun
    .command('import')
    .description(description)
    .argument('<file>', 'CSV, TSV, JSON or NDJSON file, or - for stdin (then --format is required)')
    .option('--format <format>', 'csv, tsv, json or ndjson (default: from the file extension)')
    .option('--dry-run', 'validate and count would-create / would-update / rejected; write nothing')
    .option('--errors <file>', 'where rejected rows go (default <input>.errors.<ext>)')
    .option('--max-errors <n>', 'stop after this many rejected rows', positiveInt)
    .option('--batch-size <n>', `items per request (at most ${MAX_BATCH})`, positiveInt)
    .option('--resume', 'skip the batches a previous interrupted run finished')
    .action(async (file: string, _opts: unknown, command: Command) => {
      const flags = command.opts<ImportFlags>();
      // The resume command repeats the global options in force and this command's own, shell-quoted.
      const { commandLine } = await import('../command-line.js');
      await invoke(command, (ctx) => run(ctx, file, flags, commandLine(command, ctx, { args: [file], set: { resume: true } })));
    });
}

/** Declares `<noun> list [--limit n] [--after id]`. */
export function declareList(noun: Command, names: ResourceNames, invoke: Invoke, run: (ctx: CommandContext, flags: ListFlags) => Promise<number>): Command {
  return noun
    .command('list')
    .description(`list ${names.noun} in ${names.idField} order: on a terminal one page of 30 and the command for the next; in a pipe all of them, streamed page by page`)
    .option('--limit <n>', 'at most this many', positiveInt)
    .option('--after <id>', `start after this ${names.idField}`)
    .option('--all', 'every one, also on a terminal')
    .action(async (_opts: unknown, command: Command) => {
      const flags = { ...command.opts<ListFlags>(), command };
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** Declares `<noun> get <id...>`. */
export function declareGet(noun: Command, names: ResourceNames, invoke: Invoke, run: (ctx: CommandContext, ids: string[]) => Promise<number>): Command {
  return noun
    .command('get')
    .description(`fetch ${names.noun} by id (exit 6 if any is unknown)`)
    .argument('<id...>', names.idField)
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      await invoke(command, (ctx) => run(ctx, ids));
    });
}

/** Declares `<noun> delete <id...>` (the caller may add options, e.g. `--with-images`). */
export function declareDelete<F extends object>(noun: Command, names: ResourceNames, invoke: Invoke, run: (ctx: CommandContext, ids: string[], flags: F) => Promise<number>, description?: string): Command {
  return noun
    .command('delete')
    .description(description ?? `delete ${names.noun} by id (exit 3 if some are rejected)`)
    .argument('<id...>', names.idField)
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      const flags = command.opts<F>();
      await invoke(command, (ctx) => run(ctx, ids, flags));
    });
}

/**
 * `<noun> import <file|->` through the bulk loop: exit 0 when every row was stored, 3 when some
 * were rejected, 130 when interrupted (after printing the resume command).
 */
export async function runImport(ctx: CommandContext, spec: ImportSpec, file: string, flags: ImportFlags, resumeCommand: string): Promise<number> {
  const fromStdin = file === '-';
  if (fromStdin && flags.format === undefined) throw new UsageError('reading stdin (-) needs --format csv|tsv|json|ndjson');
  const [{ formatFromPath, locationLabel }, { mapEntries }, { mapBlocksInThread, readerThreadWanted }, { defaultErrorsPath }, { runBulk }, { headerProblem }] = await Promise.all([
    import('../import/read-records.js'),
    import('../import/mapped-entries.js'),
    import('../import/entries-thread.js'),
    import('../bulk/errors-file.js'),
    import('../bulk/run-bulk.js'),
    import('../output/did-you-mean.js'),
  ]);
  const format = formatFromPath(file, flags.format);
  // Read-only fields of listings (serviceId, createdAt ...) are accepted and ignored: a listing imports again.
  const readOnly = (await import('../import/map-rows.js')).READ_ONLY_FIELDS[spec.noun as 'attributes' | 'parts' | 'relations' | 'synonyms' | 'organizations'] ?? [];
  const inputPath = fromStdin ? undefined : resolve(ctx.io.cwd, file);
  // Opened on the first request, not before: a refused --resume must not create a data directory.
  const client = () => ctx.client();
  // Rows validated on the reader thread are sent without a second schema pass (parts).
  const validated = (batch: BulkRow<Record<string, unknown>>[]): boolean => spec.sendValidated !== undefined && batch.every((r) => r.validated === true);
  const idOf = (item: Record<string, unknown>): string | undefined => {
    const id = item[spec.idField];
    return typeof id === 'string' && id.length > 0 && id.length <= 256 ? id : undefined;
  };
  // A large file is read and mapped on a reader thread while this one writes (issue 12; the rows
  // are the same either way): the thread's start-up (~30 ms) pays only for large files.
  const threaded = inputPath !== undefined && await readerThreadWanted(ctx.io.env.CATALOG_IMPORT_THREAD, inputPath);
  // The reader thread's rows come a block at a time (one step of the async iteration per block).
  type Rows = BulkRow<Record<string, unknown>> | BulkRow<Record<string, unknown>>[];
  // A local catalog's writer can use search documents the reader thread prepares (parts; the
  // writer's CPU is the import's bottleneck, issue 12): the thread gets the attribute definitions,
  // read when the first row is asked for (after --resume was accepted). A server builds its own.
  const local = ctx.config.remote.value === undefined && !flags.dryRun;
  const entries = (): AsyncIterable<Rows> => threaded && inputPath !== undefined
    ? (async function* () {
        const definitions = local && spec.definitions !== undefined && spec.sendValidated !== undefined ? await spec.definitions(await client()) : undefined;
        yield* mapBlocksInThread({ path: inputPath, inputName: file, format, mapper: spec.noun as MapperName, readOnly, validate: spec.sendValidated !== undefined, ...(definitions !== undefined ? { definitions } : {}) });
      })()
    : (async function* () {
        for await (const entry of mapEntries(fromStdin ? { stdin: ctx.io.stdin } : { path: inputPath ?? '' }, format, spec.mapCsvRow, readOnly)) {
          yield 'problems' in entry
            ? { line: entry.line, record: entry.record, problems: entry.problems, ...(entry.raw !== undefined ? { raw: entry.raw } : {}) }
            : { line: entry.line, record: entry.record, item: entry.item };
        }
      })();
  async function* rows(): AsyncGenerator<Rows> {
    let first = format === 'csv' || format === 'tsv';
    for await (const next of entries()) {
      const row = Array.isArray(next) ? next[0] : next;
      if (first && row?.problems !== undefined && row.record !== undefined) {
        // An unknown column in the header rejects every row: say so once, before any row (exit 2).
        const problem = headerProblem(row.problems, file === '-' ? 'stdin' : file);
        if (problem !== undefined) throw new UsageError(problem);
      }
      if (row !== undefined) first = false;
      yield next;
    }
  }
  return runBulk<Record<string, unknown>>(ctx, {
    what: `${spec.noun} import`,
    rows: rows(),
    format,
    inputPath,
    inputName: file,
    errorsPath: flags.errors !== undefined ? resolve(ctx.io.cwd, flags.errors) : resolve(ctx.io.cwd, defaultErrorsPath(inputPath ?? null, format)),
    batchSize: Math.min(flags.batchSize ?? spec.maxBatch, spec.maxBatch),
    idOf,
    send: async (batch) => (validated(batch) ? (spec.sendValidated ?? spec.send) : spec.send)(await client(), batch.map((r) => r.item ?? {})),
    // A local catalog writes several batches per transaction (see LOCAL_GROUP_BATCHES); a server
    // commits each request on its own, so remote imports send one batch per request as before.
    // --max-errors asks to stop soon after the service rejects rows: a group would learn of them
    // only once its last batch is read, so such a run sends its batches one by one.
    ...(spec.sendBatches !== undefined && ctx.config.remote.value === undefined && flags.maxErrors === undefined
      ? {
          groupSize: LOCAL_GROUP_BATCHES,
          sendGroup: async (batches: BulkRow<Record<string, unknown>>[][]) => (spec.sendBatches as NonNullable<ImportSpec['sendBatches']>)(await client(), batches.map((batch) => ({ items: batch.map((r) => r.item ?? {}), validated: validated(batch) }))),
        }
      : {}),
    async dryRun(batch) {
      const problems = spec.dryRunProblems ? await spec.dryRunProblems(await client(), batch.map((r) => r.item ?? {})) : new Map<number, string[]>();
      const rejected = [...problems].flatMap(([i, messages]) => (batch[i] ? [{ row: batch[i], key: undefined, messages }] : []));
      const passing = batch.filter((_, i) => !problems.has(i));
      const ids = passing.flatMap((r) => (r.item !== undefined ? [idOf(r.item)] : [])).filter((id): id is string => id !== undefined);
      const known = spec.existing ? await spec.existing(await client(), ids) : new Set<string>();
      const updated = ids.filter((id) => known.has(id)).length;
      return { created: ids.length - updated, updated, rejected };
    },
    // Prefer the mapper's messages, which name CSV columns, over the service's item paths.
    explain(row, messages) {
      if ((format !== 'csv' && format !== 'tsv') || row.record === undefined) return messages;
      const explained = spec.mapCsvRow(row.record as Record<string, string>, { validate: true });
      return 'problems' in explained ? explained.problems : messages;
    },
    label: (line) => locationLabel(format, line),
    progressLine: (s) => `${spec.noun}: ${s.rows.toLocaleString('en-US')} rows read, ${(s.created + s.updated).toLocaleString('en-US')} stored, ${s.rejected} rejected`,
    dryRunMode: flags.dryRun === true,
    resume: flags.resume === true,
    maxErrors: flags.maxErrors,
    // What decides the batches. The column mapping is the header, covered by the input's first-block hash.
    options: { format, batchSize: Math.min(flags.batchSize ?? spec.maxBatch, spec.maxBatch) },
    resumeCommand,
  });
}

/** Walks the paging envelope (spec 2.4) from `after`, yielding at most `limit` records. */
export async function* walkPages<T extends Record<string, unknown>>(
  fetchPage: (request: { paging: { limit: number; last_object_id?: string } }) => Promise<{ result: T[]; last_object_id: string; more_data: boolean }>,
  options: { limit?: number | undefined; after?: string | undefined; pageSize?: number | undefined },
): AsyncGenerator<T> {
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  let last = options.after;
  const pageSize = options.pageSize ?? 1000;
  while (remaining > 0) {
    const page = await fetchPage({ paging: { limit: Math.min(pageSize, remaining), ...(last !== undefined ? { last_object_id: last } : {}) } });
    for (const item of page.result) {
      yield item;
      remaining--;
    }
    if (!page.more_data || page.result.length === 0) return;
    last = page.last_object_id;
  }
}

/** `<noun> list`: every record (or --limit of them), streamed page by page. */
export async function runList(ctx: CommandContext, spec: ResourceSpec, flags: ListFlags): Promise<number> {
  const [{ emitList }, { commandLine }] = await Promise.all([import('../output/emit.js'), import('../command-line.js')]);
  const client = await ctx.client();
  const { command } = flags;
  await emitList(ctx, spec, (request) => spec.list(client, request), { ...flags, ...(command ? { commandLine: (set) => commandLine(command, ctx, { set }) } : {}) });
  return EXIT.OK;
}

/** `<noun> get <id...>`: the records found; exit 6 when any id is unknown (after printing the others). */
export async function runGet(ctx: CommandContext, spec: ResourceSpec, ids: string[]): Promise<number> {
  const { emitRecords } = await import('../output/emit.js');
  const client = await ctx.client();
  const found = await spec.select(client, ids);
  const foundIds = new Set(found.map((r) => String(r[spec.idField])));
  await emitRecords(ctx, spec, found);
  const missing = ids.filter((id) => !foundIds.has(id));
  if (missing.length > 0) {
    ctx.io.stderr.write(`not found: ${missing.map((id) => `${spec.singular} '${id}'`).join(', ')}\n`);
    return EXIT.NOT_FOUND;
  }
  return EXIT.OK;
}

/** `<noun> delete <id...>`: exit 3 when some ids were rejected. */
export async function runDelete(ctx: CommandContext, spec: ResourceSpec, ids: string[]): Promise<number> {
  const { emitJson } = await import('../output/json.js');
  const client = await ctx.client();
  const result = await spec.delete(client, ids);
  const rejected = Object.keys(result.errors).length;
  if (ctx.format === 'json') {
    emitJson(ctx, { created: 0, updated: 0, deleted: result.deleted.length, rejected, errors: result.errors, errorsFile: null });
  }
  ctx.info(`${spec.noun} delete: ${result.deleted.length} deleted, ${rejected} rejected`);
  for (const [id, messages] of Object.entries(result.errors)) ctx.io.stderr.write(`  ${id}: ${messages.join('; ')}\n`);
  return rejected > 0 ? EXIT.PARTIAL : EXIT.OK;
}
