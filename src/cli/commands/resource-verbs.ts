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
import { collect, intInRange, positiveInt, type Invoke } from '../runner.js';
import type { BulkRow } from '../bulk/run-bulk.js';
import type { MapperName } from '../import/entries-protocol.js';
import type { Attribute } from '../../api/schemas.js';
import type { ImportSpec, ResourceNames, ResourceSpec } from './resource.js';
import type { FilteredBatch, PartsSync } from '../sync/parts-sync.js';
import type { BulkWriteResult } from '../../api/schemas.js';
import type { BulkSummary } from '../bulk/summary.js';
import type { CatalogClient } from '../../client/types.js';

/** Items per request at most (decisions §9), for help texts. */
const MAX_BATCH = 1000;

/**
 * Batches a local import writes per transaction, for the resources that can (ImportSpec.sendBatches):
 * every transaction appends to the last posting block of each word it touches and commits those
 * pages, so three batches of 1,000 parts in one transaction cost less than three transactions
 * (1,000,000 parts: 7–13 % less CPU with the rest of that change; bench/results.md).
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
  /** `--id-replace <from>=<to>` (repeatable; parts and relations): characters an id may not hold, mapped. */
  idReplace?: string[];
}

/** The nouns whose import takes `--id-replace` (the ones whose rows name part ids). */
const ID_REPLACING: ReadonlySet<string> = new Set(['parts', 'relations']);

/**
 * `--id-replace` values as replacements: `<from>=<to>` split at the first `=` not first (so `==-`
 * replaces `=`); `from` must not be empty.
 * @throws UsageError naming a value without `=` or with nothing to replace.
 */
export function parseIdReplace(values: readonly string[] | undefined): { from: string; to: string }[] {
  return (values ?? []).map((value) => {
    const eq = value.indexOf('=', 1);
    if (eq < 1) throw new UsageError(`--id-replace '${value}' must look like <from>=<to>, e.g. '/=:'`);
    return { from: value.slice(0, eq), to: value.slice(eq + 1) };
  });
}

/** Options of `list`. */
export interface ListFlags {
  limit?: number;
  after?: string;
  /** Every record, also on a terminal (which otherwise shows one page of 30). */
  all?: boolean;
  pageSize?: number;
  /** Only the items changed after this change number, then tombstones of the deleted ones (a delta). */
  changedSince?: number;
  /** The parsed command, for the next-page command line printed on a terminal. */
  command?: Command;
}

/** Declares `<noun> import <file|->` with the bulk import options of cli.md; `run` does it. */
export function declareImport(noun: Command, names: ResourceNames, invoke: Invoke, description: string, run: (ctx: CommandContext, file: string, flags: ImportFlags, resumeCommand: string) => Promise<number>): Command {
  const command = noun
    .command('import')
    .description(description)
    .argument('<file>', 'CSV, TSV, JSON or NDJSON file, or - for stdin (then --format is required)')
    .option('--format <format>', 'csv, tsv, json or ndjson (default: from the file extension)')
    .option('--dry-run', 'validate and count would-create / would-update / rejected; write nothing')
    .option('--errors <file>', 'where rejected rows go (default <input>.errors.<ext>)')
    .option('--max-errors <n>', 'stop after this many rejected rows', positiveInt)
    .option('--batch-size <n>', `items per request (at most ${MAX_BATCH})`, intInRange(1, MAX_BATCH))
    .option('--resume', 'skip the batches a previous interrupted run finished');
  if (ID_REPLACING.has(names.noun)) {
    command.option('--id-replace <from=to>', `replace text in every part id as it is read, e.g. '/=:' (npm/react → npm:react): ids may not hold '/' or control characters (repeatable, applied in order)`, collect);
  }
  return command
    .action(async (file: string, _opts: unknown, command: Command) => {
      const flags = command.opts<ImportFlags>();
      // The resume command repeats the global options in force and this command's own, shell-quoted.
      const { commandLine } = await import('../command-line.js');
      await invoke(command, (ctx) => run(ctx, file, flags, commandLine(command, ctx, { args: [file], set: { resume: true } })));
    });
}

/** Declares `<noun> list [--limit n] [--after id]`. */
export function declareList(noun: Command, names: ResourceNames, invoke: Invoke, run: (ctx: CommandContext, flags: ListFlags) => Promise<number>): Command {
  const list = noun
    .command('list')
    .description(`list ${names.noun} in ${names.idField} order: on a terminal one page of 30 and the command for the next; in a pipe all of them, streamed page by page`)
    .option('--limit <n>', 'at most this many', positiveInt)
    .option('--after <id>', `start after this ${names.idField}`)
    .option('--all', 'every one, also on a terminal');
  if (names.changeType !== undefined) {
    list.option('--changed-since <n>', `only the ${names.noun} changed after change number n (0: every kept change), then {"${names.idField}": ..., "deleted": true} for each deleted one; \`${names.noun} import\` applies the output (json or ndjson)`, intInRange(0));
  }
  return list.action(async (_opts: unknown, command: Command) => {
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
    .description(description ?? `delete ${names.noun} by id (exit 3 if some are rejected, 6 if none of them exists)`)
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
export async function runImport(ctx: CommandContext, spec: ImportSpec, file: string, flags: ImportFlags, resumeCommand: string, sync?: PartsSync): Promise<number> {
  const fromStdin = file === '-';
  if (fromStdin && flags.format === undefined) throw new UsageError('reading stdin (-) needs --format csv|tsv|json|ndjson');
  // Tombstones of a delta (`<noun> list --changed-since`) are deletions, for resources that delete by id.
  const { isTombstone, writeWithTombstones } = await import('./changes/delta.js');
  const deletable = 'delete' in spec && 'select' in spec ? (spec as ImportSpec & ResourceSpec) : undefined;
  type Send = (client: CatalogClient, items: Record<string, unknown>[]) => Promise<BulkWriteResult & { deleted?: string[] }>;
  const withTombstones = (send: Send): Send => deletable === undefined ? send : (c, items) => writeWithTombstones(
    items,
    spec.idField,
    (rest) => send(c, rest),
    (ids) => deletable.delete(c, ids),
    async (ids) => new Set((await deletable.select(c, ids)).map((r) => String(r[spec.idField]))),
  );
  const [{ formatFromPath, locationLabel }, { mapEntries, ID_FIELDS }, { mapBlocksInThread, readerThreadWanted }, { defaultErrorsPath }, { runBulk }, { headerProblem }] = await Promise.all([
    import('../import/read-records.js'),
    import('../import/mapped-entries.js'),
    import('../import/entries-thread.js'),
    import('../bulk/errors-file.js'),
    import('../bulk/run-bulk.js'),
    import('../output/did-you-mean.js'),
  ]);
  // A missing file is named as such before its extension is looked at.
  if (!fromStdin) await assertReadable(resolve(ctx.io.cwd, file), file);
  const format = formatFromPath(file, flags.format);
  const idReplace = parseIdReplace(flags.idReplace);
  const ids = { fields: ID_FIELDS[spec.noun as MapperName] ?? [], replacements: idReplace };
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
  // Bytes of the file read so far: the progress bar's measure against its size.
  let bytesRead = 0;
  const inputSize = inputPath !== undefined ? await fileSize(inputPath) : undefined;
  // A large file is read and mapped on a reader thread while this one writes (the rows
  // are the same either way): the thread's start-up (~30 ms) pays only for large files.
  const threaded = inputPath !== undefined && await readerThreadWanted(ctx.io.env.CATALOG_IMPORT_THREAD, inputPath);
  // The reader thread's rows come a block at a time (one step of the async iteration per block).
  type Rows = BulkRow<Record<string, unknown>> | BulkRow<Record<string, unknown>>[];
  // A local catalog's writer can use search documents the reader thread prepares (parts; the
  // writer's CPU is the import's bottleneck): the thread gets the attribute definitions,
  // read when the first row is asked for (after --resume was accepted). A server builds its own.
  // Not for a sync: most of its rows are equal to the stored part and are not sent, and the reader
  // thread, busy preparing their documents, was what a second run over an unchanged sheet waited for.
  const local = ctx.config.remote.value === undefined && !flags.dryRun && sync === undefined;
  const entries = (): AsyncIterable<Rows> => threaded && inputPath !== undefined
    ? (async function* () {
        const definitions = local && spec.definitions !== undefined && spec.sendValidated !== undefined ? await spec.definitions(await client()) : undefined;
        // A sync's rows known to equal their stored part are not validated by the reader thread (they are not sent).
        const known = sync !== undefined ? await sync.knownHashes() : undefined;
        yield* mapBlocksInThread({ ...(known !== undefined ? { known } : {}), path: inputPath, inputName: file, onBytes: (n) => (bytesRead = n), format, mapper: spec.noun as MapperName, readOnly, validate: spec.sendValidated !== undefined, ...(definitions !== undefined ? { definitions } : {}), ...(idReplace.length > 0 ? { idReplace } : {}) });
      })()
    : (async function* () {
        for await (const entry of mapEntries(fromStdin ? { stdin: ctx.io.stdin } : { path: inputPath ?? '', onBytes: (n) => (bytesRead += n) }, format, spec.mapCsvRow, readOnly, ids)) {
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
      if (first && row?.record !== undefined && spec.definitions !== undefined) {
        // So does a column of an attribute the catalog does not have (`attr:sumary.en`).
        const problem = await unknownAttributeColumns(Object.keys(row.record), async () => (await spec.definitions?.(await client())) ?? [], file === '-' ? 'stdin' : file);
        if (problem !== undefined) throw new UsageError(problem);
      }
      if (row !== undefined) first = false;
      if (sync) for (const r of Array.isArray(next) ? next : [next]) sync.noteRow(r);
      yield next;
    }
  }
  type Row = BulkRow<Record<string, unknown>>;
  const sendOne = async (batch: Row[]) => withTombstones(validated(batch) ? (spec.sendValidated ?? spec.send) : spec.send)(await client(), batch.map((r) => r.item ?? {}));
  const sendGroup = async (batches: Row[][]) => {
    const c = await client();
    // A group with tombstones (a delta) is sent batch by batch: each batch's writes, then its deletions.
    if (deletable !== undefined && batches.some((batch) => batch.some((r) => r.item !== undefined && isTombstone(r.item, spec.idField)))) {
      const results = [];
      for (const batch of batches) results.push(await withTombstones(validated(batch) ? (spec.sendValidated ?? spec.send) : spec.send)(c, batch.map((r) => r.item ?? {})));
      return results;
    }
    return (spec.sendBatches as NonNullable<ImportSpec['sendBatches']>)(c, batches.map((batch) => ({ items: batch.map((r) => r.item ?? {}), validated: validated(batch) })));
  };
  /** A sync sends only the rows that change their part; the service's `items[k]` keys are turned back into indexes of the whole batch. */
  const answerOf = (filtered: FilteredBatch, result: BulkWriteResult | undefined) => {
    const errors: Record<string, string[]> = {};
    for (const [key, messages] of Object.entries(result?.errors ?? {})) {
      const indexed = /^items\[(\d+)\]$/.exec(key);
      errors[indexed ? `items[${filtered.indexes[Number(indexed[1])] ?? -1}]` : key] = messages;
    }
    return { created: result?.created ?? [], updated: result?.updated ?? [], errors, unchanged: filtered.unchanged };
  };
  // A sync over the very sheet its last run read, into a catalog where none of its parts changed since, reads no row.
  const fromState = sync !== undefined && inputPath !== undefined && (await sync.sheetUnchanged(inputPath, JSON.stringify({ format, idReplace: flags.idReplace ?? [] })));
  const grouped = spec.sendBatches !== undefined && ctx.config.remote.value === undefined && flags.maxErrors === undefined;
  return runBulk<Record<string, unknown>>(ctx, {
    what: `${spec.noun} import${sync ? ' --sync' : ''}`,
    rows: fromState ? (async function* () {})() : rows(),
    format,
    inputPath,
    inputName: file,
    errorsPath: flags.errors !== undefined ? resolve(ctx.io.cwd, flags.errors) : resolve(ctx.io.cwd, defaultErrorsPath(inputPath ?? null, format)),
    batchSize: Math.min(flags.batchSize ?? spec.maxBatch, spec.maxBatch),
    idOf,
    send: sync
      ? async (batch) => {
          const filtered = await sync.filter(batch);
          const result = filtered.rows.length > 0 ? await sendOne(filtered.rows) : undefined;
          sync.noteSent(filtered, result);
          return answerOf(filtered, result);
        }
      : sendOne,
    // A local catalog writes several batches per transaction (see LOCAL_GROUP_BATCHES); a server
    // commits each request on its own, so remote imports send one batch per request as before.
    // --max-errors asks to stop soon after the service rejects rows: a group would learn of them
    // only once its last batch is read, so such a run sends its batches one by one.
    ...(grouped
      ? {
          groupSize: LOCAL_GROUP_BATCHES,
          sendGroup: sync
            ? async (batches: Row[][]) => {
                const filtered = await Promise.all(batches.map((batch) => sync.filter(batch)));
                const changed = filtered.filter((f) => f.rows.length > 0);
                const results = changed.length > 0 ? await sendGroup(changed.map((f) => f.rows)) : [];
                let next = 0;
                return filtered.map((f) => {
                  const result = f.rows.length > 0 ? results[next++] : undefined;
                  sync.noteSent(f, result);
                  return answerOf(f, result);
                });
              }
            : sendGroup,
        }
      : {}),
    ...(sync ? { finish: (summary: BulkSummary) => sync.finish(summary, flags.dryRun === true) } : {}),
    async dryRun(whole) {
      const filtered = sync ? await sync.filter(whole) : undefined;
      const batch = filtered ? filtered.rows : whole;
      const problems = spec.dryRunProblems ? await spec.dryRunProblems(await client(), batch.map((r) => r.item ?? {})) : new Map<number, string[]>();
      const rejected = [...problems].flatMap(([i, messages]) => (batch[i] ? [{ row: batch[i], key: undefined, messages }] : []));
      const passing = batch.filter((_, i) => !problems.has(i));
      const ids = passing.flatMap((r) => (r.item !== undefined ? [idOf(r.item)] : [])).filter((id): id is string => id !== undefined);
      const known = spec.existing ? await spec.existing(await client(), ids) : new Set<string>();
      const updated = ids.filter((id) => known.has(id)).length;
      return { created: ids.length - updated, updated, rejected, ...(filtered ? { unchanged: filtered.unchanged } : {}) };
    },
    // Prefer the mapper's messages, which name CSV columns, over the service's item paths.
    explain(row, messages) {
      if ((format !== 'csv' && format !== 'tsv') || row.record === undefined) return messages;
      const explained = spec.mapCsvRow(row.record as Record<string, string>, { validate: true });
      return 'problems' in explained ? explained.problems : messages;
    },
    label: (line) => locationLabel(format, line),
    ...(inputSize !== undefined ? { progressAmount: () => ({ done: bytesRead, total: inputSize }) } : {}),
    progressLine: (s, seconds) => `${spec.noun}: ${s.rows.toLocaleString('en-US')} rows read, ${(s.created + s.updated).toLocaleString('en-US')} stored, ${s.rejected} rejected` +
      (sync ? `, ${(s.unchanged ?? 0).toLocaleString('en-US')} unchanged · ${(s.rows / seconds).toFixed(0)} rows/s` : ''),
    dryRunMode: flags.dryRun === true,
    resume: flags.resume === true,
    maxErrors: flags.maxErrors,
    // What decides the batches. The column mapping is the header, covered by the input's first-block hash.
    // --id-replace decides the ids written: a resume must map them alike (absent when not given, as before).
    options: { format, batchSize: Math.min(flags.batchSize ?? spec.maxBatch, spec.maxBatch), ...(flags.idReplace?.length ? { idReplace: flags.idReplace.join(' ') } : {}) },
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

/**
 * The header problem of `attr:` columns naming attributes the catalog does not have (every row
 * would be rejected for each of them), with a "did you mean" among the catalog's attribute ids;
 * undefined when every one exists. `definitions` is called only when the header has `attr:` columns.
 */
async function unknownAttributeColumns(columns: string[], definitions: () => Promise<Attribute[]>, input: string): Promise<string | undefined> {
  const [{ parseAttrColumn, escapeAttrId }, { closest }] = await Promise.all([import('../import/map-rows.js'), import('../output/did-you-mean.js')]);
  const named = columns.filter((c) => c.startsWith('attr:')).map((column) => ({ column, parsed: parseAttrColumn(column) }));
  if (named.length === 0) return undefined;
  const known = new Set((await definitions()).map((a) => a.attribute_id));
  const unknown = named.flatMap(({ column, parsed }) => ('attributeId' in parsed && !known.has(parsed.attributeId) ? [{ column, parsed }] : []));
  if (unknown.length === 0) return undefined;
  const described = unknown.map(({ column, parsed }) => {
    const near = closest(parsed.attributeId, [...known]);
    const suggestion = near === undefined ? undefined : `attr:${escapeAttrId(near)}${parsed.organization !== '' ? `@${parsed.organization}` : ''}.${parsed.lang}`;
    return `'${column}'${suggestion !== undefined ? ` (did you mean '${suggestion}'?)` : ''}`;
  });
  return `the header of ${input} names ${unknown.length > 1 ? 'attributes' : 'an attribute'} the catalog does not have: ${described.join(', ')}; create ${unknown.length > 1 ? 'them' : 'it'} first (catalog attributes import) or fix the column name. Nothing was imported.`;
}

/** The size of the file at `path` in bytes; undefined when it is not a regular file (a FIFO has none). */
async function fileSize(path: string): Promise<number | undefined> {
  const { stat } = await import('node:fs/promises');
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() === true ? info.size : undefined;
}

/** Throws a UsageError naming `shown` when `path` is not a file that can be read. */
async function assertReadable(path: string, shown: string): Promise<void> {
  const { stat } = await import('node:fs/promises');
  try {
    if ((await stat(path)).isDirectory()) throw new UsageError(`cannot read ${shown}: it is a directory, not a file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${shown}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

/** `<noun> list`: every record (or --limit of them), streamed page by page. */
export async function runList(ctx: CommandContext, spec: ResourceSpec, flags: ListFlags): Promise<number> {
  if (flags.changedSince !== undefined) return runDelta(ctx, spec, flags.changedSince, flags);
  const [{ emitList }, { commandLine }] = await Promise.all([import('../output/emit.js'), import('../command-line.js')]);
  const client = await ctx.client();
  const { command } = flags;
  const { knownColumns } = spec;
  await emitList(ctx, spec, (request) => spec.list(client, request), {
    ...flags,
    ...(command ? { commandLine: (set) => commandLine(command, ctx, { set }) } : {}),
    ...(knownColumns !== undefined ? { knownColumns: () => knownColumns(client) } : {}),
  });
  return EXIT.OK;
}

/**
 * `<noun> list --changed-since N`: the delta of one resource (changes/delta.ts) in json or ndjson
 * (tombstones have no CSV form); stderr says the change number the next delta starts after.
 *
 * @throws UsageError for csv/tsv/table output, --after or --limit with it; CatalogError gone when the changes were pruned.
 */
async function runDelta(ctx: CommandContext, spec: ResourceSpec, since: number, flags: ListFlags): Promise<number> {
  if (spec.changeType === undefined) throw new UsageError(`${spec.noun} list has no --changed-since`);
  if (ctx.format !== 'json' && ctx.format !== 'ndjson') throw new UsageError(`--changed-since prints a delta with deletions: use -o ndjson or -o json (not ${ctx.format})`);
  if (flags.after !== undefined || flags.limit !== undefined) throw new UsageError('--changed-since prints the whole delta: no --after or --limit with it');
  const [{ changedItems, deltaRecords }, { emitRecords }] = await Promise.all([import('./changes/delta.js'), import('../output/emit.js')]);
  const client = await ctx.client();
  const changed = await changedItems(client, spec.changeType, since);
  await emitRecords(ctx, spec, deltaRecords(changed, spec.idField, (ids) => spec.select(client, ids)));
  ctx.info(`${spec.noun} changed after ${since}: ${changed.upserted.length} written, ${changed.deleted.length} deleted; the next delta: --changed-since ${changed.next}`);
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
    // Worded as `show` and every other command word a missing id: `error: part 'x' does not exist`.
    for (const id of missing) ctx.io.stderr.write(`error: ${spec.singular} '${id}' does not exist\n`);
    return EXIT.NOT_FOUND;
  }
  return EXIT.OK;
}

/** True when a per-item error says the item is not in the catalog (the core's wording, both modes). */
const isNotFound = (messages: readonly string[]) => messages.length > 0 && messages.every((m) => m.endsWith('does not exist'));

/** `<noun> delete <id...>`: exit 3 when some ids were rejected; 6 when none was there to delete (as `get`). */
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
  if (rejected === 0) return EXIT.OK;
  return result.deleted.length === 0 && Object.values(result.errors).every(isNotFound) ? EXIT.NOT_FOUND : EXIT.PARTIAL;
}
