/**
 * `catalog images list|get|download|delete|order` (design/cli.md). Upload lives in image-upload.ts.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { CommandContext } from '../context.js';
import { emitJson, emitRecords } from '../output/emit.js';
import { UsageError } from '../output/usage-error.js';
import { imagesResource } from '../resources/images.js';
import { runDelete, runGet, walkPages } from './resource-commands.js';

/** File extension for a detected image type (the inverse of file-type.ts). */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
  'image/avif': 'avif',
};

/** `images list [--part <id>...]`: every image (or of these parts), streamed page by page. */
export async function runImagesList(ctx: CommandContext, flags: { part?: string[]; limit?: number; after?: string }): Promise<number> {
  const client = await ctx.client();
  const query = flags.part !== undefined ? { query: { part_ids: flags.part } } : {};
  await emitRecords(ctx, imagesResource, walkPages((request) => client.listImages({ ...request, ...query }), flags));
  return 0;
}

/** `images get <id...>`: exit 6 when any id is unknown (after printing the others). */
export function runImagesGet(ctx: CommandContext, ids: string[]): Promise<number> {
  return runGet(ctx, imagesResource, ids);
}

/** `images delete <id...>`: exit 3 when some ids were rejected. */
export function runImagesDelete(ctx: CommandContext, ids: string[]): Promise<number> {
  return runDelete(ctx, imagesResource, ids);
}

/** The default download name: `<image_id>.<ext>` unless the id already ends with an image extension. */
export function downloadName(imageId: string, contentType: string): string {
  const ext = EXTENSIONS[contentType.split(';')[0]?.trim().toLowerCase() ?? ''];
  const current = extname(imageId).slice(1).toLowerCase();
  if (ext === undefined || current === ext || (ext === 'jpg' && current === 'jpeg') || (ext === 'tiff' && current === 'tif')) return basename(imageId);
  return `${basename(imageId)}.${ext}`;
}

/**
 * `images download <id> [-O <file|->]`: the exact bytes, written to a temp file and renamed into
 * place (no half-written file under the final name), or to stdout with `-O -` (not to a terminal).
 */
export async function runImagesDownload(ctx: CommandContext, imageId: string, flags: { outputFile?: string }): Promise<number> {
  if (flags.outputFile === '-' && ctx.io.stdout.isTTY === true) {
    throw new UsageError('refusing to write image bytes to a terminal; use -O <file> or pipe the output');
  }
  const client = await ctx.client();
  const download = await client.downloadImage(imageId);
  if (flags.outputFile === '-') {
    await pipeline(download.stream as Readable, ctx.io.stdout);
    return 0;
  }
  const target = resolve(ctx.io.cwd, flags.outputFile ?? downloadName(imageId, download.contentType));
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.part`);
  let written = 0;
  try {
    const counter = async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        written += chunk.length;
        yield chunk;
      }
    };
    await pipeline(download.stream as Readable, counter, createWriteStream(temp));
    if (Number.isFinite(download.size) && written !== download.size) {
      throw new Error(`download of image '${imageId}' ended after ${written} of ${download.size} bytes`);
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  ctx.info(`saved ${target} (${written.toLocaleString('en-US')} bytes, ${download.contentType}, ETag ${download.etag})`);
  return 0;
}

/**
 * `images order <part_id>`: every display image in display order (spec 2.2 rules 1-3) with a
 * marker on the ones the UI shows (rule 4). json prints the API's object.
 */
export async function runImagesOrder(ctx: CommandContext, partId: string): Promise<number> {
  const client = await ctx.client();
  const order = await client.displayImages(partId);
  if (ctx.format === 'json') {
    emitJson(ctx, order);
    return 0;
  }
  const shown = new Set(order.shown);
  const rows = order.ordered.map((id, i) => ({ rank: i + 1, image_id: id, shown: shown.has(id) ? '*' : '' }));
  const fields = ['rank', 'image_id', 'shown'];
  await emitRecords(ctx, { fields, defaultFields: fields }, rows);
  ctx.info(`${order.shown.length} of ${order.ordered.length} display images shown in the UI (at most ${order.max_display_images}); * = shown`);
  return 0;
}
