/**
 * `catalog images export --dir <dir>` (design/cli.md: every export re-imports): writes every image's
 * original file to `<dir>/files/<sha256>.<ext>` (content-addressed: identical files are written
 * once, names never clash whatever the image ids hold) and a manifest `<dir>/images.<format>` with
 * the columns of `images upload` (image_id, part_id, info, position, file). So
 * `catalog images upload <dir>/images.csv` puts the same images back into another catalog.
 *
 * Files are written to a temp name and renamed, the manifest last: an interrupted export leaves no
 * partial file and no manifest naming a missing one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { ImageView } from '../../../api/image-schemas.js';
import type { CommandContext } from '../../context.js';
import { CatalogError } from '../../../api/errors.js';
import { isSha256Hex } from '../../../core/images/blobs.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import { extensionFor } from './extensions.js';
import { collect, type Invoke } from '../../runner.js';

/** The manifest columns, as `images upload` reads them. */
const MANIFEST_FIELDS = ['image_id', 'part_id', 'info', 'position', 'file'];
const MANIFEST_FORMATS = ['csv', 'tsv', 'json', 'ndjson'] as const;
type ManifestFormat = (typeof MANIFEST_FORMATS)[number];

interface ExportFlags {
  dir?: string;
  format?: string;
  part?: string[];
}

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('export')
    .description('write every image (or those of --part) to --dir: the original files and a manifest that `images upload` takes back')
    .requiredOption('--dir <dir>', 'where to write files/<sha256>.<ext> and images.<format>')
    .option('--format <format>', `manifest format: ${MANIFEST_FORMATS.join(', ')} (default csv)`)
    .option('--part <part_id>', 'only images of this part (repeatable)', collect)
    .addHelpText(
      'after',
      `
Examples:
  catalog images export --dir backup
  catalog --data-dir copy images upload backup/images.csv`,
    )
    .action(async (_opts: unknown, command: Command) => {
      const flags = command.opts<ExportFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** The error for an original whose answer no catalog server gives (exit 5, like any answer not from a catalog server). */
function notCatalogAnswer(imageId: string, why: string): CatalogError {
  return new CatalogError('unavailable', `the server's answer for the original of image '${imageId}' is not a catalog server's: ${why}; nothing was written for it`);
}

/** Downloads one original to `target` unless it is there already (same content address). Returns bytes written. */
async function saveOriginal(ctx: CommandContext, image: ImageView, dir: string): Promise<{ file: string; bytes: number }> {
  const client = await ctx.client();
  const download = await client.downloadImage(image.image_id);
  // The file name is the content address, and the ETag only claims it: anything but 64 hex digits
  // (a path, say) is refused before a byte is written, and the bytes must hash to it.
  const sha256 = download.etag.replace(/^W\//, '').replace(/"/g, '').toLowerCase();
  if (!isSha256Hex(sha256)) {
    (download.stream as Readable).on('error', () => undefined);
    (download.stream as Readable).destroy();
    throw notCatalogAnswer(image.image_id, `its ETag ${JSON.stringify(download.etag.slice(0, 100))} is not a SHA-256`);
  }
  const ext = extensionFor(download.contentType) ?? 'bin';
  const file = `files/${sha256}.${ext}`;
  const target = join(dir, file);
  if (await stat(target).then((s) => s.isFile() && s.size === download.size, () => false)) {
    // Already written (the same bytes under another image id): drop the body. Destroying it aborts
    // the request, which the stream reports as an error nobody needs.
    const body = download.stream as Readable;
    body.on('error', () => undefined);
    body.destroy();
    return { file, bytes: 0 };
  }
  const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  let written = 0;
  const hash = createHash('sha256');
  try {
    await pipeline(
      download.stream as Readable,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          written += chunk.length;
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(temp, { flags: 'wx' }),
    );
    if (Number.isFinite(download.size) && written !== download.size) throw new Error(`download of image '${image.image_id}' ended after ${written} of ${download.size} bytes`);
    if (hash.digest('hex') !== sha256) throw notCatalogAnswer(image.image_id, `its bytes do not hash to its ETag ${sha256}`);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { file, bytes: written };
}

/** Exports the images; exit 0 (6 is not possible: only listed images are fetched). */
export async function run(ctx: CommandContext, flags: ExportFlags): Promise<number> {
  const format = (flags.format ?? 'csv').toLowerCase() as ManifestFormat;
  if (!MANIFEST_FORMATS.includes(format)) throw new UsageError(`invalid --format '${flags.format ?? ''}'; valid formats: ${MANIFEST_FORMATS.join(', ')}`);
  const dir = resolve(ctx.io.cwd, flags.dir ?? '.');
  const [{ walkPages }, { writeRecords }] = await Promise.all([import('../resource-verbs.js'), import('../../output/write.js')]);
  const client = await ctx.client();
  await mkdir(join(dir, 'files'), { recursive: true });
  const manifest = join(dir, `images.${format}`);
  const temp = `${manifest}.${randomBytes(4).toString('hex')}.tmp`;
  let count = 0;
  let bytes = 0;
  const query = flags.part !== undefined ? { query: { part_ids: flags.part } } : {};
  async function* rows(): AsyncGenerator<Record<string, unknown>> {
    for await (const image of walkPages((request) => client.listImages({ ...request, ...query }), {})) {
      const saved = await saveOriginal(ctx, image, dir);
      count++;
      bytes += saved.bytes;
      yield { image_id: image.image_id, part_id: image.part_id, info: image.info, ...(image.position !== undefined && image.position !== null ? { position: image.position } : {}), file: saved.file };
    }
  }
  const out = createWriteStream(temp);
  try {
    await writeRecords(out, format, rows(), { fields: MANIFEST_FIELDS, rawCells: ctx.flags.rawCsv === true });
    await new Promise<void>((done, fail) => {
      out.once('error', fail);
      out.end(done);
    });
    await rename(temp, manifest);
  } catch (error) {
    out.destroy();
    await rm(temp, { force: true });
    throw error;
  }
  const { suggestedCommand } = await import('../../command-line.js');
  ctx.info(`images export: ${count.toLocaleString('en-US')} images, ${bytes.toLocaleString('en-US')} bytes of new files in ${join(dir, 'files')}; manifest ${manifest}\nput them back with:\n  ${suggestedCommand(ctx, ['images', 'upload', manifest])}`);
  return EXIT.OK;
}
