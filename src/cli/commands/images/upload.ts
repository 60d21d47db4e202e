/**
 * `catalog images upload` (design/cli.md): a CSV/JSON/NDJSON manifest `{image_id?, part_id, info,
 * position?, file}` with files relative to `--dir` (default: the manifest's directory), or files
 * for one part with `--part` and `--info`.
 *
 * The rows go through the bulk loop every import uses (src/cli/bulk/run-bulk.ts): batches of at most
 * `--batch-size` files and `--batch-mb` megabytes, `--concurrency` batches in flight, each one
 * multipart request whose files the client streams from disk. Rejected rows (bad row, missing file,
 * per-item error from the service) go to the errors file in the manifest's own format; `--resume`
 * skips the batches a checkpoint says are done; Ctrl-C finishes the batches in flight and exits 130;
 * `--dry-run` checks each file exists and is an image (its first bytes) and uploads nothing.
 * Exit 3 when rows were rejected.
 */
import { open, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { imageExistsMessage } from '../../../api/image-schemas.js';
import type { BulkWriteResult } from '../../../api/schemas.js';
import type { BulkRow } from '../../bulk/run-bulk.js';
import type { CommandContext } from '../../context.js';
import type { ImageManifestItem } from '../../import/map-rows.js';
import type { ImportFormat } from '../../import/read-records.js';
import { UsageError } from '../../output/usage-error.js';
import { positiveInt, type Invoke } from '../../runner.js';

/** Options of `images upload`. */
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
  replace?: boolean;
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_BATCH_FILES = 50;
const DEFAULT_BATCH_MB = 32;

/** A manifest row on its way: its item once valid, and the file's path and size once checked. */
type Row = BulkRow<ImageManifestItem> & { path?: string };

/** Request-level refusals that reject the batch's rows instead of stopping the upload (--resume retries them). */
const BATCH_REFUSALS = ['bad_request', 'payload_too_large', 'unsupported_media_type', 'not_found'];

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('upload')
    .description(
      'upload images: a CSV/JSON/NDJSON manifest (image_id, part_id, info, position, file) with files relative to --dir, ' +
        'or files for one part with --part and --info (image_id = file name without extension). ' +
        'Create-only: a row whose image_id exists with another part, file or info is rejected and the stored image stays, unless --replace',
    )
    .argument('<inputs...>', 'one manifest file, or image files with --part and --info')
    .option('--dir <dir>', "where manifest files are found (default: the manifest's directory)")
    .option('--part <part_id>', 'upload the given files for this part')
    .option('--info <tokens>', 'info tokens for --part uploads, e.g. "display weight=2"')
    .option('--position <n>', 'position for --part uploads (dataContributor/dataValidator only)', positiveInt)
    .option('--format <format>', 'manifest format: csv, tsv, json or ndjson (default: from the extension)')
    .option('--concurrency <n>', `requests in flight (default ${DEFAULT_CONCURRENCY})`, positiveInt)
    .option('--batch-size <n>', `files per request (default ${DEFAULT_BATCH_FILES})`, positiveInt)
    .option('--batch-mb <n>', `megabytes per request, at most (default ${DEFAULT_BATCH_MB})`, positiveInt)
    .option('--dry-run', 'check every row and file (exists, is an image) and count would-create / would-update; upload nothing')
    .option('--errors <file>', 'where rejected manifest rows go (default <manifest>.errors.<ext>)')
    .option('--max-errors <n>', 'stop after this many rejected rows', positiveInt)
    .option('--resume', 'skip the batches a previous interrupted run finished')
    .option('--replace', 'replace, re-token or move images whose image_id exists (default: create only; such a row is rejected unless it is exactly what is stored)')
    .action(async (inputs: string[], _opts: unknown, command: Command) => {
      const flags = command.opts<UploadFlags>();
      const { commandLine } = await import('../../command-line.js');
      await invoke(command, (ctx) => run(ctx, inputs, flags, commandLine(command, ctx, { args: inputs, set: { resume: true } })));
    });
}

/** A byte count (or a rate's bytes per second) for the summary: whole bytes below 1 KB, else one or two decimals. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** Reads the rows of the input: manifest records, or one synthetic row per file given with --part. */
async function* readRows(inputs: string[], flags: UploadFlags, io: { cwd: string; stdin: NodeJS.ReadableStream }, format: ImportFormat | undefined): AsyncGenerator<Row> {
  const [{ readRecords }, { mapRecord, validateImageManifestItem }] = await Promise.all([import('../../import/read-records.js'), import('../../import/map-rows.js')]);
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
async function ruleProblems(item: ImageManifestItem): Promise<string[]> {
  const { parseImageInfo, validateImagePosition } = await import('../../../core/images/info-tokens.js');
  const info = parseImageInfo(item.info);
  return [...(info.ok ? [] : info.messages), ...validateImagePosition(item.position, info.ok ? info.info : undefined)];
}

/** Whether `path` is `dir` itself or under it (both absolute and resolved). */
function isUnder(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/**
 * Why a manifest's `file` leads outside `baseDir` (an absolute path, `..`, or a symbolic link whose
 * target is elsewhere), or undefined when it stays inside. A manifest may come from anyone: it must
 * not make the CLI send /etc/passwd or ~/.ssh to a server.
 */
async function outsideProblem(file: string, path: string, baseDir: string): Promise<string | undefined> {
  const where = `manifest files must be under ${baseDir} (--dir)`;
  if (isAbsolute(file)) return `file: ${file} is outside the manifest's directory (an absolute path): ${where}`;
  if (!isUnder(path, baseDir)) return `file: ${file} is outside the manifest's directory (it goes up with ..): ${where}`;
  const [real, realBase] = await Promise.all([realpath(path).catch(() => path), realpath(baseDir).catch(() => baseDir)]);
  if (!isUnder(real, realBase)) return `file: ${file} is outside the manifest's directory (a symbolic link to ${real}): ${where}`;
  return undefined;
}

/**
 * Checks that a row's file exists (and, for a dry run, the service's rules and that its first bytes
 * are an image); with `confine` (manifest rows), that it lies under `baseDir` (outsideProblem).
 */
async function checkFile(row: Row, baseDir: string, sniff: boolean, confine: boolean): Promise<void> {
  const item = row.item;
  if (!item) return;
  if (sniff) {
    const problems = await ruleProblems(item);
    if (problems.length > 0) {
      row.problems = problems;
      return;
    }
  }
  const path = resolve(baseDir, item.file);
  const outside = confine ? await outsideProblem(item.file, path, baseDir) : undefined;
  if (outside !== undefined) {
    row.problems = [outside];
    return;
  }
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
  const { detectImageType, IMAGE_TYPE_HEAD_BYTES } = await import('../../../core/images/file-type.js');
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

/** Runs `images upload`; returns the exit code (0, 3 when rows were rejected, 130 when interrupted). */
export async function run(ctx: CommandContext, inputs: string[], flags: UploadFlags, resumeCommand: string): Promise<number> {
  const cwd = ctx.io.cwd;
  const filesMode = flags.part !== undefined || flags.info !== undefined;
  if (filesMode && (flags.part === undefined || flags.info === undefined)) throw new UsageError('uploading files needs both --part <part_id> and --info "<tokens>"');
  if (!filesMode && inputs.length !== 1) {
    throw new UsageError('give one manifest (CSV, TSV, JSON or NDJSON), or image files with --part <part_id> --info "<tokens>"');
  }
  if (!filesMode && flags.position !== undefined) throw new UsageError('--position applies to --part uploads; a manifest has a position column');
  const [{ formatFromPath, locationLabel }, { defaultErrorsPath }, { runBulk }, { CatalogError }] = await Promise.all([
    import('../../import/read-records.js'),
    import('../../bulk/errors-file.js'),
    import('../../bulk/run-bulk.js'),
    import('../../../api/errors.js'),
  ]);
  const format = filesMode ? undefined : formatFromPath(inputs[0] ?? '', flags.format);
  const fromStdin = !filesMode && inputs[0] === '-';
  const manifestPath = filesMode || fromStdin ? undefined : resolve(cwd, inputs[0] ?? '');
  const baseDir = flags.dir !== undefined ? resolve(cwd, flags.dir) : manifestPath ? dirname(manifestPath) : cwd;
  const dryRun = flags.dryRun === true;
  const errorsFormat: ImportFormat = format ?? 'ndjson';
  const errorsPath = flags.errors !== undefined
    ? resolve(cwd, flags.errors)
    : manifestPath || fromStdin ? resolve(cwd, defaultErrorsPath(manifestPath ?? null, errorsFormat)) : undefined;
  // Opened on the first request, not before: a refused --resume must not create a data directory.
  const client = () => ctx.client();

  /** Sends one batch: one multipart request; the service refusing it as a whole rejects its rows. */
  const send = async (rows: Row[]): Promise<BulkWriteResult & { moved?: string[] }> => {
    const items = rows.map((r) => r.item as ImageManifestItem);
    const remote = await client();
    // The API does not say which updates moved an image to another part: compare with before.
    // Without --replace the upload is create-only: it never takes another part's image.
    const before = new Map((await remote.selectImages({ image_ids: items.map((i) => i.image_id), projection: ['part_id'] })).map((i) => [i.image_id, i.part_id]));
    const definitions = items.map((i) => ({ image_id: i.image_id, part_id: i.part_id, info: i.info, ...(i.position !== undefined ? { position: i.position } : {}) }));
    // The filename is the image_id itself: it matches its definition exactly (decisions §4).
    const files = rows.map((r) => ({ filename: (r.item as ImageManifestItem).image_id, path: r.path ?? '' }));
    try {
      const result = await remote.uploadImages(definitions, files, { mode: flags.replace === true ? 'upsert' : 'create' });
      const partOf = new Map(items.map((i) => [i.image_id, i.part_id]));
      return { ...result, moved: result.updated.filter((id) => before.has(id) && before.get(id) !== partOf.get(id)) };
    } catch (error) {
      if (!(error instanceof CatalogError && BATCH_REFUSALS.includes(error.code))) throw error;
      return { created: [], updated: [], errors: Object.fromEntries(rows.map((_, i) => [`items[${i}]`, [error.detail]])) };
    }
  };

  return runBulk<ImageManifestItem>(ctx, {
    what: 'images upload',
    rows: readRows(inputs, flags, ctx.io, format),
    format: errorsFormat,
    inputPath: manifestPath,
    inputName: inputs[0],
    errorsPath,
    batchSize: flags.batchSize ?? DEFAULT_BATCH_FILES,
    batchBytes: (flags.batchMb ?? DEFAULT_BATCH_MB) * 1024 * 1024,
    concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
    idOf: (item) => item.image_id,
    check: (row) => checkFile(row, filesMode ? cwd : baseDir, dryRun, !filesMode),
    send,
    async dryRun(rows) {
      const items = rows.map((r) => r.item as ImageManifestItem);
      const remote = await client();
      const [known, parts] = await Promise.all([
        remote.selectImages({ image_ids: items.map((i) => i.image_id), projection: ['part_id'] }),
        remote.selectParts({ part_ids: [...new Set(items.map((i) => i.part_id))], projection: ['serviceId'] }),
      ]);
      const existing = new Map(known.map((i) => [i.image_id, i.part_id]));
      const partIds = new Set(parts.map((p) => p.part_id));
      const outcome = { created: 0, updated: 0, moved: 0, rejected: [] as { row: Row; key: string | undefined; messages: string[] }[] };
      for (const row of rows) {
        const item = row.item as ImageManifestItem;
        if (!partIds.has(item.part_id)) outcome.rejected.push({ row, key: item.image_id, messages: [`part_id: part '${item.part_id}' does not exist`] });
        else if (existing.has(item.image_id) && flags.replace !== true && existing.get(item.image_id) !== item.part_id) {
          outcome.rejected.push({ row, key: item.image_id, messages: [imageExistsMessage(item.image_id, existing.get(item.image_id) ?? '')] });
        } else if (existing.has(item.image_id)) {
          outcome.updated++;
          if (existing.get(item.image_id) !== item.part_id) outcome.moved++;
        } else outcome.created++;
      }
      return outcome;
    },
    label: (line) => locationLabel(errorsFormat, line).replace(/^line /, filesMode ? 'file ' : 'line '),
    progressLine: (s, seconds) => {
      const stored = s.created + s.updated;
      return `images: ${stored.toLocaleString('en-US')} ${dryRun ? 'checked' : 'uploaded'} · ${formatBytes(s.bytes)} · ${formatBytes(s.bytes / seconds)}/s · ${(stored / seconds).toFixed(0)} images/s · ${s.rejected} rejected`;
    },
    detail: (s, seconds) => `(${formatBytes(s.bytes)} in ${seconds.toFixed(1)} s, ${formatBytes(s.bytes / seconds)}/s)`,
    dryRunMode: dryRun,
    resume: flags.resume === true,
    maxErrors: flags.maxErrors,
    // What decides the batches and what they send: --dir changes which files the rows name.
    options: {
      format: format ?? null,
      batchSize: flags.batchSize ?? DEFAULT_BATCH_FILES,
      batchMb: flags.batchMb ?? DEFAULT_BATCH_MB,
      dir: filesMode ? cwd : baseDir,
    },
    resumeCommand,
  });
}
