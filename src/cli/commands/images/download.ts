/**
 * `catalog images download <id> [-O <file|->]`: the exact bytes, written to a temp file and renamed
 * into place (no half-written file under the final name), or to stdout with `-O -` (not to a terminal).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import { extensionFor } from './extensions.js';
import type { Invoke } from '../../runner.js';

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('download')
    .description('download the original file of an image (default: ./<image_id>.<ext>)')
    .argument('<id>', 'image_id')
    .option('-O, --output-file <file>', 'where to write it; - for stdout')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const flags = command.opts<{ outputFile?: string }>();
      await invoke(command, (ctx) => run(ctx, id, flags));
    });
}

/** The default download name: `<image_id>.<ext>` unless the id already ends with an image extension. */
function downloadName(imageId: string, contentType: string): string {
  const ext = extensionFor(contentType);
  const current = extname(imageId).slice(1).toLowerCase();
  if (ext === undefined || current === ext || (ext === 'jpg' && current === 'jpeg') || (ext === 'tiff' && current === 'tif')) return basename(imageId);
  return `${basename(imageId)}.${ext}`;
}

/** Downloads the image; exit 6 for an unknown image. */
export async function run(ctx: CommandContext, imageId: string, flags: { outputFile?: string }): Promise<number> {
  if (flags.outputFile === '-' && ctx.io.stdout.isTTY === true) {
    throw new UsageError('refusing to write image bytes to a terminal; use -O <file> or pipe the output');
  }
  const client = await ctx.client();
  const download = await client.downloadImage(imageId);
  if (flags.outputFile === '-') {
    await pipeline(download.stream as Readable, ctx.io.stdout);
    return EXIT.OK;
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
  return EXIT.OK;
}
