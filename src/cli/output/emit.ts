/**
 * Printing records of a resource in the chosen format (design/cli.md, "Output"): table with the
 * resource's columns, fitted to the terminal; csv/tsv as flat rows that `import` reads back; json as
 * ONE array; ndjson streamed. `--fields` means the same in every format: top-level fields, nested
 * paths (`name.en`) and, for resources with a flat CSV form, its columns (`attr:class.en`).
 * `list` on a terminal prints one page and says how to get more; in a pipe it streams every page.
 */
import type { CommandContext } from '../context.js';
import { selectFields } from './format.js';
import { UsageError } from './usage-error.js';
import { writeRecords } from './write.js';

/** How a command's records print. */
export interface EmitSpec<T> {
  /** Every top-level field a record may have (for --fields; nested paths below them are valid too). */
  fields: string[];
  /** Columns of the table (and of csv/tsv without a flat form) without --fields. */
  defaultFields: string[];
  /** Flat CSV form of a record; when absent csv/tsv use the nested fields. */
  toCsvRow?: (record: T) => Record<string, string>;
  /**
   * The header order of the flat columns `keys` (every column some row has): e.g. `part_id`,
   * `name.*`, `attr:*`, then the read-only ones; columns it leaves out follow in the order seen.
   */
  csvColumns?: (keys: string[]) => string[];
}

/** The flat columns `keys` in the resource's header order (EmitSpec.csvColumns), none lost. */
function headerOrder<T>(spec: EmitSpec<T>, keys: string[]): string[] {
  if (spec.csvColumns === undefined) return keys;
  const ordered = spec.csvColumns(keys);
  const placed = new Set(ordered);
  return [...ordered, ...keys.filter((k) => !placed.has(k))];
}

/** A listing as `list` walks it: the resource's names, for the hint of a terminal page. */
export interface ListSpec<T> extends EmitSpec<T> {
  /** The noun, e.g. `parts`. */
  noun: string;
  /** The id field, e.g. `part_id` (the next page starts after the last one shown). */
  idField: string;
}

/** One page of the paging envelope (spec 2.4). */
export interface ListPage<T> {
  result: T[];
  last_object_id: string;
  more_data: boolean;
}

/** Fetches one page: `paging.limit` items after `paging.last_object_id`. */
export type FetchPage<T> = (request: { paging: { limit: number; last_object_id?: string } }) => Promise<ListPage<T>>;

/** Options of `list` (resource-verbs.ts) that decide how much is printed. */
export interface ListOptions {
  limit?: number | undefined;
  after?: string | undefined;
  /** Every record even on a terminal. */
  all?: boolean | undefined;
  /** Items per request (default 1000). */
  pageSize?: number | undefined;
  /** csv/tsv of a flat form: columns known before any record is read (ResourceSpec.knownColumns). */
  knownColumns?: (() => Promise<string[]>) | undefined;
  /**
   * This command line with some of its options changed (`{after: id}`, `{all: true, after:
   * undefined}`), as src/cli/command-line.ts builds it: the hint's commands repeat the global
   * options and the command's own. Without it the hint names the bare command.
   */
  commandLine?: ((set: Readonly<Record<string, string | number | boolean | undefined>>) => string) | undefined;
}

/** Rows a terminal shows without --limit or --all (like gh). */
export const TERMINAL_PAGE = 30;
const PAGE_SIZE = 1000;

/** The terminal width a table fits: stdout's columns on a terminal, else $COLUMNS, else no limit. */
export function outputWidth(ctx: Pick<CommandContext, 'io'>): number | undefined {
  const out = ctx.io.stdout as { isTTY?: boolean; columns?: number };
  if (out.isTTY === true && typeof out.columns === 'number' && out.columns > 0) return out.columns;
  const env = Number(ctx.io.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : undefined;
}

/** A name that is a flat CSV column rather than a path into the record (`attr:class.en`). */
const isFlatColumn = (name: string): boolean => name.startsWith('attr:');

/**
 * The flat columns printed for `requested` (csv/tsv with a flat form): a flat column as it is, a
 * top-level field expanded to its flat columns (`name` → `name.en`, `name.de`; `attributes` → every
 * `attr:` column), any other name as it is.
 */
function flatFields(requested: string[], columns: string[]): string[] {
  const out: string[] = [];
  for (const name of requested) {
    if (columns.includes(name)) out.push(name);
    else if (name === 'attributes') out.push(...columns.filter(isFlatColumn));
    else {
      const nested = columns.filter((c) => c.startsWith(`${name}.`));
      out.push(...(nested.length > 0 ? nested : [name]));
    }
  }
  return [...new Set(out)];
}

/** The --fields of a run, validated (a usage error names the unknown ones and lists the valid ones). */
function requestedFields<T>(ctx: CommandContext, spec: EmitSpec<T>): string[] | undefined {
  if (ctx.flags.fields === undefined) return undefined;
  return selectFields(ctx.flags.fields, spec.fields, [], (name) => spec.toCsvRow !== undefined && isFlatColumn(name));
}

/**
 * Records for table/json/ndjson: when --fields names flat columns (`attr:class.en`), each record
 * carries them too, so every format prints the same values.
 */
async function* withFlatColumns<T extends Record<string, unknown>>(records: AsyncIterable<T> | Iterable<T>, spec: EmitSpec<T>, fields: string[]): AsyncGenerator<Record<string, unknown>> {
  const flat = spec.toCsvRow !== undefined ? fields.filter(isFlatColumn) : [];
  for await (const record of records) {
    if (flat.length === 0 || spec.toCsvRow === undefined) {
      yield record;
      continue;
    }
    const row = spec.toCsvRow(record);
    const extra: Record<string, unknown> = {};
    for (const f of flat) if (row[f] !== undefined) extra[f] = row[f];
    yield { ...record, ...extra };
  }
}

/**
 * Writes `records` to stdout. csv/tsv of a resource with a flat form are buffered so the header can
 * hold every column any row has (e.g. every `name.<lang>`): meant for a bounded set (`get`, one
 * page); `list` uses {@link emitList}, which streams. Other formats stream. `jsonEnvelope` wraps
 * the json items into one document (a search page), --fields applied to the items.
 *
 * @throws UsageError for an unknown --fields name.
 */
export async function emitRecords<T extends Record<string, unknown>>(
  ctx: CommandContext,
  spec: EmitSpec<T>,
  records: AsyncIterable<T> | Iterable<T>,
  jsonEnvelope?: (items: unknown[]) => unknown,
): Promise<void> {
  const requested = requestedFields(ctx, spec);
  if ((ctx.format === 'csv' || ctx.format === 'tsv') && spec.toCsvRow !== undefined) {
    const toRow = spec.toCsvRow;
    const rows: Record<string, string>[] = [];
    const columns = new Set<string>();
    for await (const record of records) {
      const row = toRow(record);
      for (const key of Object.keys(row)) columns.add(key);
      rows.push(row);
    }
    const fields = requested !== undefined ? flatFields(requested, headerOrder(spec, [...columns])) : headerOrder(spec, [...columns]);
    await writeRecords(ctx.io.stdout, ctx.format, rows, { fields, rawCells: ctx.flags.rawCsv === true });
    return;
  }
  const fields = requested ?? (ctx.format === 'json' || ctx.format === 'ndjson' ? [] : [...spec.defaultFields]);
  await writeRecords(ctx.io.stdout, ctx.format, withFlatColumns(records, spec, fields), { fields, color: ctx.color, width: outputWidth(ctx), droppable: requested === undefined, rawCells: ctx.flags.rawCsv === true, ...(jsonEnvelope ? { jsonEnvelope } : {}) });
}

/** Walks the paging envelope from `after`, at most `limit` records; `state` tells where it stopped. */
async function* walk<T>(fetchPage: FetchPage<T>, limit: number | undefined, after: string | undefined, pageSize: number, state: { last?: string | undefined; more: boolean }): AsyncGenerator<T> {
  let remaining = limit ?? Number.POSITIVE_INFINITY;
  let last = after;
  state.more = false;
  while (remaining > 0) {
    const page = await fetchPage({ paging: { limit: Math.min(pageSize, remaining), ...(last !== undefined ? { last_object_id: last } : {}) } });
    for (const item of page.result) {
      yield item;
      remaining--;
    }
    if (page.result.length > 0) last = page.last_object_id;
    state.last = last;
    state.more = page.more_data && page.result.length > 0;
    if (!state.more) return;
  }
}

/**
 * `<noun> list`: prints the records page by page as they arrive (first line after the first page,
 * memory bounded by a page). On a terminal without --limit or --all it prints {@link TERMINAL_PAGE}
 * records and, when there are more, the commands that print the next page and all of them (stderr).
 * csv/tsv of a flat form print their header from the columns known up front (`knownColumns`: parts,
 * from the attribute list) and those of the first page, then every row as it is read: `| head`
 * sees its first lines after one page, whatever the catalog's size.
 *
 * @throws UsageError for an unknown --fields name, or (without --fields) when a later row has a
 *   value in a column the header does not have (printing on would drop values).
 */
export async function emitList<T extends Record<string, unknown>>(ctx: CommandContext, spec: ListSpec<T>, fetchPage: FetchPage<T>, options: ListOptions): Promise<void> {
  const terminal = ctx.io.stdout.isTTY === true;
  const limit = options.limit ?? (terminal && options.all !== true ? TERMINAL_PAGE : undefined);
  const pageSize = Math.min(options.pageSize ?? PAGE_SIZE, limit ?? PAGE_SIZE);
  const state: { last?: string | undefined; more: boolean } = { more: false };
  const records = () => walk(fetchPage, limit, options.after, pageSize, state);
  if ((ctx.format === 'csv' || ctx.format === 'tsv') && spec.toCsvRow !== undefined) {
    const toRow = spec.toCsvRow;
    const requested = requestedFields(ctx, spec);
    // The header: the columns known up front and those of the first page; then every row as it arrives.
    const seen = new Set<string>();
    const iterator = records()[Symbol.asyncIterator]();
    const first: Record<string, string>[] = [];
    let done = false;
    while (first.length < pageSize) {
      const next = await iterator.next();
      if (next.done === true) {
        done = true;
        break;
      }
      const row = toRow(next.value);
      for (const key of Object.keys(row)) seen.add(key);
      first.push(row);
    }
    // After the first page: a listing that cannot be read is reported as such, not as its attribute list.
    if (options.knownColumns !== undefined) for (const column of await options.knownColumns()) seen.add(column);
    const columns = headerOrder(spec, [...seen]);
    const fields = requested !== undefined ? flatFields(requested, columns) : columns;
    let printed = first.length;
    async function* rows(): AsyncGenerator<Record<string, string>> {
      yield* first.splice(0);
      while (!done) {
        const next = await iterator.next();
        if (next.done === true) return;
        const row = toRow(next.value);
        if (requested === undefined) {
          const added = Object.keys(row).find((key) => !seen.has(key));
          if (added !== undefined) {
            throw new UsageError(
              `${spec.noun} list: the ${spec.idField} '${String(next.value[spec.idField])}' has a value in the column '${added}', which the header (from the attribute list and the first ${pageSize.toLocaleString('en-US')} rows) does not have; ${printed.toLocaleString('en-US')} rows were printed. Name the columns with --fields (e.g. --fields ${[...columns.slice(0, 2), added].join(',')}) or use -o ndjson`,
            );
          }
        }
        printed += 1;
        yield row;
      }
    }
    await writeRecords(ctx.io.stdout, ctx.format, rows(), { fields, rawCells: ctx.flags.rawCsv === true });
  } else {
    await emitRecords(ctx, spec, records());
  }
  if (terminal && state.more && state.last !== undefined && options.all !== true) {
    const fields = ctx.flags.fields;
    const next = options.commandLine ? options.commandLine({ after: state.last, fields }) : `catalog ${spec.noun} list --after ${state.last}`;
    const all = options.commandLine ? options.commandLine({ after: undefined, limit: undefined, all: true, fields }) : `catalog ${spec.noun} list --all`;
    ctx.info(`more ${spec.noun} follow; the next page:\n  ${next}\nall of them (or pipe the output):\n  ${all}`);
  }
}

export { emitJson } from './json.js';
