/**
 * The generic verbs of a bulk resource: import, list, get, delete (design/cli.md), parameterised by
 * a ResourceSpec. Returns exit codes; src/cli/main.ts sets them.
 */
import type { CommandContext } from '../context.js';
import { runImport, type ImportSpec, type ImportSummary } from '../import/run-import.js';
import { describeImport, summaryDocument } from '../import/summary.js';
import { emitJson, emitRecords } from '../output/emit.js';
import { createProgress } from '../output/progress.js';
import type { ResourceSpec } from '../resources/resource.js';

/** Options of every `import` verb. */
export interface ImportFlags {
  format?: string;
  dryRun?: boolean;
  errors?: string;
  maxErrors?: number;
  batchSize?: number;
  resume?: boolean;
}

const EXIT_PARTIAL = 3;
const EXIT_INTERRUPTED = 130;

/**
 * `<noun> import <file|->`: exit 0 when every row was stored, 3 when some were rejected,
 * 130 when interrupted (after printing the resume command).
 */
export async function runImportCommand(ctx: CommandContext, spec: ImportSpec, file: string, flags: ImportFlags, resumeCommand: string): Promise<number> {
  const client = await ctx.client();
  const progress = createProgress(ctx.io.stderr as NodeJS.WriteStream, !ctx.flags.quiet, ctx.io.env);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  let summary: ImportSummary;
  try {
    summary = await runImport(
      client,
      spec,
      {
        file,
        format: flags.format,
        dryRun: flags.dryRun === true,
        errors: flags.errors,
        maxErrors: flags.maxErrors,
        batchSize: flags.batchSize,
        resume: flags.resume === true,
        signal: controller.signal,
        onProgress: (s) => progress.update(`${spec.noun}: ${s.rows.toLocaleString('en-US')} rows read, ${(s.created + s.updated).toLocaleString('en-US')} stored, ${s.rejected} rejected`),
      },
      ctx.io,
    );
  } finally {
    process.off('SIGINT', onSigint);
    progress.stop();
  }
  if (ctx.format === 'json') {
    emitJson(ctx, summaryDocument(summary));
  }
  ctx.info(describeImport(`${spec.noun} import`, summary));
  if (summary.interrupted) {
    ctx.io.stderr.write(`interrupted: resume with\n  ${resumeCommand} --resume\n`);
    return EXIT_INTERRUPTED;
  }
  return summary.rejected > 0 ? EXIT_PARTIAL : 0;
}

/** Options of `list`. */
export interface ListFlags {
  limit?: number;
  after?: string;
  pageSize?: number;
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
  const client = await ctx.client();
  await emitRecords(ctx, spec, walkPages((request) => spec.list(client, request), flags));
  return 0;
}

/** `<noun> get <id...>`: the records found; exit 6 when any id is unknown (after printing the others). */
export async function runGet(ctx: CommandContext, spec: ResourceSpec, ids: string[]): Promise<number> {
  const client = await ctx.client();
  const found = await spec.select(client, ids);
  const foundIds = new Set(found.map((r) => String(r[spec.idField])));
  await emitRecords(ctx, spec, found);
  const missing = ids.filter((id) => !foundIds.has(id));
  if (missing.length > 0) {
    ctx.io.stderr.write(`not found: ${missing.map((id) => `${spec.singular} '${id}'`).join(', ')}\n`);
    return 6;
  }
  return 0;
}

/** `<noun> delete <id...>`: exit 3 when some ids were rejected. */
export async function runDelete(ctx: CommandContext, spec: ResourceSpec, ids: string[]): Promise<number> {
  const client = await ctx.client();
  const result = await spec.delete(client, ids);
  const rejected = Object.keys(result.errors).length;
  if (ctx.format === 'json') {
    emitJson(ctx, { created: 0, updated: 0, deleted: result.deleted.length, rejected, errors: result.errors, errorsFile: null });
  }
  ctx.info(`${spec.noun} delete: ${result.deleted.length} deleted, ${rejected} rejected`);
  for (const [id, messages] of Object.entries(result.errors)) ctx.io.stderr.write(`  ${id}: ${messages.join('; ')}\n`);
  return rejected > 0 ? EXIT_PARTIAL : 0;
}
