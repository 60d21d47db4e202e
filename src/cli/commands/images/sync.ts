/**
 * `catalog images sync <folder>` (docs/cli.md, "Sync"): the photos of a folder, bound to parts by
 * a naming convention (or `--part-from`), each an image whose image_id is its path. A photo whose
 * bytes are the stored original (SHA-256 against the stored ETag) is not sent; one whose info
 * changed alone is sent without its bytes. Photos naming no existing part are listed, not guessed.
 * With `--prune`, stored images in scope that the folder no longer holds are deleted (listed first
 * by `--dry-run`, refused above `--max-delete`).
 *
 * The rows go through the bulk loop (src/cli/bulk/run-bulk.ts): batches, concurrency, the errors
 * file, progress, Ctrl-C. A sync resumes by running again: every photo already stored is skipped
 * at the cost of hashing it (or, for a photo whose size and time the last finished run remembered,
 * of a stat: src/cli/sync/photo-hashes.ts), and the ids are the paths, so nothing is stored twice.
 */
import { readFileSync } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { BulkRow, SentResult } from '../../bulk/run-bulk.js';
import type { BulkSummary } from '../../bulk/summary.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../output/usage-error.js';
import type { PhotoHashes } from '../../sync/photo-hashes.js';
import { positiveInt, type Invoke } from '../../runner.js';

/** Options of `images sync`. */
export interface SyncFlags {
  partFrom?: string;
  info?: string;
  prune?: boolean;
  scope?: string;
  maxDelete?: string;
  dryRun?: boolean;
  errors?: string;
  unmatched?: string;
  concurrency?: number;
  batchSize?: number;
  batchMb?: number;
  maxErrors?: number;
  /** false (`--no-sync-state`): hash every photo, whatever the last run saw. */
  syncState?: boolean;
}

const DEFAULT_INFO = 'display';
const DEFAULT_CONCURRENCY = 4;
const DEFAULT_BATCH_FILES = 100;
const DEFAULT_BATCH_MB = 32;
/** Ids per select request (decisions §9). */
const MAX_BATCH_FILES = 1000;
/** Unmatched photos named in the summary itself (all are in the unmatched file). */
const SHOWN_UNMATCHED = 10;

/** One photo on its way: its image definition, where it is, and its content hash once read. */
interface Photo {
  image_id: string;
  part_id: string;
  info: string;
  /** Path relative to the folder, `/`-separated. */
  file: string;
  path: string;
  /** Whether the folder holds its side-car `<photo>.info`. */
  sideCar: boolean;
  sha256?: string;
  /** Whether `sha256` is the last run's (size and time unchanged) rather than read now. */
  remembered?: boolean;
}

type Row = BulkRow<Photo>;

/** Request-level refusals that reject the batch's rows instead of stopping the sync (a re-run retries them). */
const BATCH_REFUSALS = ['bad_request', 'payload_too_large', 'unsupported_media_type', 'not_found'];

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('sync')
    .description(
      'make the catalog\'s images those of a folder of photos: a photo named <part_id>.<ext> or <part_id>_<n>.<ext> (or as --part-from says) ' +
        'is the image <path with / as ~> of that part; unchanged photos are not sent (SHA-256 = stored ETag), photos of unknown parts are listed; ' +
        'running again resumes',
    )
    .argument('<folder>', 'folder of photos (.jpg .jpeg .png .webp .gif .tif .tiff .avif), read recursively; hidden files are skipped')
    .option('--part-from <regex>', 'regular expression with a named group part_id, matched against the file name (or the relative path when it contains /), e.g. \'^(?<part_id>[^_]+)_(?<n>\\d+)\\.jpg$\'')
    .option('--info <tokens>', `info tokens of every photo without a side-car <photo>.info file (default "${DEFAULT_INFO}")`)
    .option('--prune', 'delete the stored images in scope that the folder does not hold (list them first with --dry-run)')
    .option('--scope <scope>', 'with --prune: the images of parts part_id=<prefix>* or <attribute_id>=<value> (default: every image)')
    .option('--max-delete <n|p%>', 'with --prune: refuse to delete more than n images or p % of those in scope (default 10%)')
    .option('--dry-run', 'hash and compare every photo, count would-create / would-update / unchanged / unmatched, list what --prune would delete; change nothing')
    .option('--errors <file>', 'where rejected photos go (default <folder>.errors.ndjson)')
    .option('--unmatched <file>', 'where photos naming no existing part are listed (default <folder>.unmatched.txt)')
    .option('--concurrency <n>', `requests in flight (default ${DEFAULT_CONCURRENCY})`, positiveInt)
    .option('--batch-size <n>', `photos per request (default ${DEFAULT_BATCH_FILES}, at most ${MAX_BATCH_FILES})`, positiveInt)
    .option('--batch-mb <n>', `megabytes per request, at most (default ${DEFAULT_BATCH_MB})`, positiveInt)
    .option('--max-errors <n>', 'stop after this many rejected photos', positiveInt)
    .option('--no-sync-state', 'hash every photo: ignore the hashes the last run remembered by path, size and time (a photo rewritten with its size and time kept is otherwise taken as unchanged)')
    .action(async (folder: string, _opts: unknown, command: Command) => {
      const flags = command.opts<SyncFlags>();
      await invoke(command, (ctx) => run(ctx, folder, flags));
    });
}

/** Reads a photo's side-car info (`<photo>.info`), or undefined when the listing showed none. */
function sideCarInfo(photo: Photo): string | undefined {
  try {
    return photo.sideCar ? readFileSync(`${photo.path}.info`, 'utf8').trim() : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads a photo: its side-car info (validated), size and SHA-256 (remembered from the last run when its size and time are unchanged). Problems go on the row. */
async function readPhoto(row: Row, hashes: PhotoHashes): Promise<void> {
  const photo = row.item;
  if (!photo) return;
  const { parseImageInfo } = await import('../../../core/images/info-tokens.js');
  const own = sideCarInfo(photo);
  if (own !== undefined) photo.info = own;
  const info = parseImageInfo(photo.info);
  if (!info.ok) {
    row.problems = info.messages.map((m) => `info${own !== undefined ? ` (${photo.file}.info)` : ''}: ${m}`);
    return;
  }
  const hash = hashes.hash(photo.file, photo.path);
  photo.sha256 = hash.sha256;
  photo.remembered = hash.remembered;
  row.size = hash.size;
}

/** Runs `images sync`; returns the exit code (0; 3 when photos were rejected; 1 when a prune was refused; 130 interrupted). */
export async function run(ctx: CommandContext, folderArg: string, flags: SyncFlags): Promise<number> {
  const [{ compilePartFrom, imageIdFor }, { listPhotos }, scopeModule, { runBulk }, { CatalogError }, { formatBytes }, { PhotoHashes }, { syncStateFile }] = await Promise.all([
    import('../../sync/naming.js'),
    import('../../sync/walk.js'),
    import('../../sync/scope.js'),
    import('../../bulk/run-bulk.js'),
    import('../../../api/errors.js'),
    import('./upload.js'),
    import('../../sync/photo-hashes.js'),
    import('../../sync/state.js'),
  ]);
  const naming = compilePartFrom(flags.partFrom);
  if (flags.prune !== true && (flags.scope !== undefined || flags.maxDelete !== undefined)) throw new UsageError(`${flags.scope !== undefined ? '--scope' : '--max-delete'} applies to --prune`);
  const scope = scopeModule.parseScope(flags.scope);
  const max = scopeModule.parseMaxDelete(flags.maxDelete);
  if ((flags.batchSize ?? 0) > MAX_BATCH_FILES) throw new UsageError(`--batch-size: at most ${MAX_BATCH_FILES} photos per request`);
  const info = flags.info ?? DEFAULT_INFO;
  const folder = resolve(ctx.io.cwd, folderArg);
  let photos: Awaited<ReturnType<typeof listPhotos>>;
  try {
    if (!(await stat(folder)).isDirectory()) throw new UsageError(`${folderArg} is not a folder`);
    photos = await listPhotos(folder);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${folderArg}: ${code === 'ENOENT' ? 'no such folder' : (error as Error).message}`);
  }
  const dryRun = flags.dryRun === true;
  const hashes = await PhotoHashes.load(syncStateFile(ctx.io.env, ctx.config, ctx.io.cwd, 'images', folder), flags.syncState !== false);
  const base = folder.replace(/[/\\]+$/, '');
  const errorsPath = flags.errors !== undefined ? resolve(ctx.io.cwd, flags.errors) : `${base}.errors.ndjson`;
  const unmatchedPath = flags.unmatched !== undefined ? resolve(ctx.io.cwd, flags.unmatched) : `${base}.unmatched.txt`;
  // Every image id the folder holds, matched or not: the prune keeps them all.
  const folderIds = new Set<string>();
  const unmatched: string[] = [];
  const client = () => ctx.client();
  /** Photos looked at so far, for the progress line's rate and time left. */
  let walked = 0;

  async function* rows(): AsyncGenerator<Row> {
    const seen = new Map<string, string>();
    for (const [index, photo] of photos.entries()) {
      const line = index + 1;
      walked = line;
      const imageId = imageIdFor(photo.relativePath);
      folderIds.add(imageId);
      const partId = naming.partOf(photo.relativePath);
      const record = { file: photo.relativePath, image_id: imageId, part_id: partId ?? null };
      if (partId === undefined) {
        unmatched.push(`${photo.relativePath}: the name does not match ${naming.source}`);
        continue;
      }
      const other = seen.get(imageId);
      seen.set(imageId, photo.relativePath);
      if (other !== undefined) yield { line, record, problems: [`image_id: ${photo.relativePath} and ${other} both give the image_id '${imageId}'; rename one`] };
      else if (imageId.length > 256) yield { line, record, problems: [`image_id: the path ${photo.relativePath} is longer than 256 characters, the longest image_id`] };
      else yield { line, record, item: { image_id: imageId, part_id: partId, info, file: photo.relativePath, path: photo.path, sideCar: photo.sideCar } };
    }
  }

  /** What each photo of a batch needs: nothing (unchanged), its definition (info or part changed), or its bytes too; photos of unknown parts are unmatched. */
  const compare = async (batch: Row[]) => {
    const items = batch.map((r) => r.item as Photo);
    const remote = await client();
    const known = await remote.selectImages({ image_ids: items.map((p) => p.image_id), projection: ['part_id', 'info', 'etag'] });
    const stored = new Map(known.map((i) => [i.image_id, i]));
    // A part with an image cannot be deleted: the part of a photo stored on that same part exists.
    // Only the others are looked up (none over an unchanged folder).
    const unsure = [...new Set(items.filter((p) => stored.get(p.image_id)?.part_id !== p.part_id).map((p) => p.part_id))];
    const parts = unsure.length > 0 ? await remote.selectParts({ part_ids: unsure, projection: [] }) : [];
    const partIds = new Set(parts.map((p) => p.part_id));
    for (const photo of items) if (stored.get(photo.image_id)?.part_id === photo.part_id) partIds.add(photo.part_id);
    const out = { unchanged: 0, unmatched: [] as string[], definitionsOnly: [] as Row[], withBytes: [] as Row[], stored };
    for (const row of batch) {
      const photo = row.item as Photo;
      const image = stored.get(photo.image_id);
      if (image?.etag !== undefined && image.etag !== `"${photo.sha256 ?? ''}"` && photo.remembered === true) {
        // The stored ETag is the truth: a remembered hash it disagrees with is read again from the file.
        const fresh = hashes.rehash(photo.file, photo.path);
        photo.sha256 = fresh.sha256;
        photo.remembered = false;
        row.size = fresh.size;
      }
      if (!partIds.has(photo.part_id)) out.unmatched.push(`${photo.file}: part '${photo.part_id}' does not exist`);
      else if (image?.etag !== `"${photo.sha256 ?? ''}"`) out.withBytes.push(row);
      else if (image.part_id !== photo.part_id || image.info !== photo.info) out.definitionsOnly.push(row);
      else out.unchanged++;
    }
    return out;
  };

  const send = async (batch: Row[]): Promise<SentResult> => {
    const plan = await compare(batch);
    unmatched.push(...plan.unmatched);
    // Only bytes sent count toward the summary's bytes and rate.
    const sending = new Set(plan.withBytes);
    for (const row of batch) if (!sending.has(row)) row.size = 0;
    const rows = [...plan.withBytes, ...plan.definitionsOnly];
    if (rows.length === 0) return { created: [], updated: [], errors: {}, unchanged: plan.unchanged };
    const definitions = rows.map((r) => ({ image_id: (r.item as Photo).image_id, part_id: (r.item as Photo).part_id, info: (r.item as Photo).info }));
    // The filename is the image_id itself: it matches its definition exactly (decisions §4).
    const files = plan.withBytes.map((r) => ({ filename: (r.item as Photo).image_id, path: (r.item as Photo).path }));
    try {
      const result = await (await client()).uploadImages(definitions, files);
      // The service keys an item's error by image_id or by its index among the definitions.
      const errors: Record<string, string[]> = {};
      for (const [key, messages] of Object.entries(result.errors)) {
        const indexed = /^items\[(\d+)\]$/.exec(key);
        errors[indexed ? (definitions[Number(indexed[1])]?.image_id ?? key) : key] = messages;
      }
      const moved = result.updated.filter((id) => {
        const before = plan.stored.get(id)?.part_id;
        return before !== undefined && before !== definitions.find((d) => d.image_id === id)?.part_id;
      });
      return { ...result, errors, moved, unchanged: plan.unchanged };
    } catch (error) {
      if (!(error instanceof CatalogError && BATCH_REFUSALS.includes(error.code))) throw error;
      return { created: [], updated: [], errors: Object.fromEntries(rows.map((r) => [(r.item as Photo).image_id, [error.detail]])), unchanged: plan.unchanged };
    }
  };

  const finish = async (summary: BulkSummary): Promise<{ notes: string[]; exitCode?: number }> => {
    const notes: string[] = [];
    let exitCode: number | undefined;
    summary.unmatched = unmatched.length;
    const unsaved = await hashes.save();
    if (unsaved !== undefined) notes.push(unsaved);
    if (unmatched.length > 0) {
      unmatched.sort();
      notes.push(`unmatched photos (no part; not sent): ${unmatched.length.toLocaleString('en-US')}`);
      for (const entry of unmatched.slice(0, SHOWN_UNMATCHED)) notes.push(`  ${entry}`);
      if (unmatched.length > SHOWN_UNMATCHED) notes.push(`  ... and ${(unmatched.length - SHOWN_UNMATCHED).toLocaleString('en-US')} more`);
      await writeFile(unmatchedPath, `${unmatched.join('\n')}\n`, 'utf8');
      notes.push(`all unmatched photos: ${unmatchedPath}`);
    }
    if (flags.prune === true) {
      const { prune } = await import('../../sync/prune.js');
      const pruned = await prune(ctx, summary, { noun: 'images', plan: await prunePlan(), scope, max, dryRun, remove: async (ids) => (await client()).deleteImages(ids) });
      notes.push(...pruned.notes);
      exitCode = pruned.exitCode;
    }
    return { notes, ...(exitCode !== undefined ? { exitCode } : {}) };
  };

  /** The stored images in scope, and those of them the folder no longer holds. */
  const prunePlan = async () => {
    const remote = await client();
    let partsInScope: Set<string> | undefined;
    if (scope.kind === 'attribute') {
      partsInScope = new Set();
      for await (const part of pages((request) => remote.listParts({ ...request, projection: ['attributes'] }))) if (scopeModule.partInScope(part, scope)) partsInScope.add(part.part_id);
    }
    const ids: string[] = [];
    let inScope = 0;
    for await (const image of pages((request) => remote.listImages({ ...request, projection: ['part_id'] }))) {
      const partId = image.part_id ?? '';
      if (partsInScope ? !partsInScope.has(partId) : !scopeModule.partInScope({ part_id: partId }, scope)) continue;
      inScope++;
      if (!folderIds.has(image.image_id)) ids.push(image.image_id);
    }
    return { ids, inScope };
  };

  return runBulk<Photo>(ctx, {
    what: 'images sync',
    rows: rows(),
    format: 'ndjson',
    inputPath: undefined,
    inputName: folderArg,
    errorsPath,
    batchSize: flags.batchSize ?? DEFAULT_BATCH_FILES,
    batchBytes: (flags.batchMb ?? DEFAULT_BATCH_MB) * 1024 * 1024,
    concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
    idOf: (photo) => photo.image_id,
    check: (row) => readPhoto(row, hashes),
    send,
    async dryRun(batch) {
      const plan = await compare(batch);
      unmatched.push(...plan.unmatched);
      const created = plan.withBytes.filter((r) => !plan.stored.has((r.item as Photo).image_id)).length;
      return { created, updated: plan.withBytes.length - created + plan.definitionsOnly.length, unchanged: plan.unchanged, rejected: [] };
    },
    finish,
    label: (line) => `photo ${photos[line - 1]?.relativePath ?? line}`,
    progressLine: (s, seconds) => {
      const rate = walked / seconds;
      const left = rate > 0 ? (photos.length - walked) / rate : 0;
      return `images sync: ${walked.toLocaleString('en-US')} of ${photos.length.toLocaleString('en-US')} photos · ${rate.toFixed(0)} photos/s · ~${formatDuration(left)} left · ` +
        `${(s.created + s.updated).toLocaleString('en-US')} ${dryRun ? 'to send' : 'sent'} (${formatBytes(s.bytes)}) · ${(s.unchanged ?? 0).toLocaleString('en-US')} unchanged · ${s.rejected} rejected`;
    },
    detail: (s, seconds) => `(${formatBytes(s.bytes)} sent in ${seconds.toFixed(1)} s)`,
    dryRunMode: dryRun,
    resume: false,
    maxErrors: flags.maxErrors,
    options: {},
    resumeCommand: '',
    interruptedHint: 'interrupted: run the same command again to continue (photos already stored are skipped)',
  });
}

/** Seconds as `42 s`, `3 min 5 s` or `1 h 2 min`, for the time left. */
function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Every record of a paged listing (spec 2.4), 1,000 a request. */
async function* pages<T>(fetchPage: (request: { paging: { limit: number; last_object_id?: string } }) => Promise<{ result: T[]; last_object_id: string; more_data: boolean }>): AsyncGenerator<T> {
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage({ paging: { limit: MAX_BATCH_FILES, ...(after !== undefined ? { last_object_id: after } : {}) } });
    yield* page.result;
    if (!page.more_data || page.result.length === 0) return;
    after = page.last_object_id;
  }
}
