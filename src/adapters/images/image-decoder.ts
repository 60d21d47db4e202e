/**
 * The {@link ImageDecoder} port on sharp: the decode check of uploaded originals and thumbnails
 * (docs/api.md, "Part images"). Both run in the catalog's one {@link DecodePool}, so however many
 * thumbnails or uploads arrive at once, at most `concurrency` images are being decoded (each on one
 * libvips thread: sharp-features.ts sets `sharp.concurrency(1)` and no operation cache) and the
 * process's memory stays bounded; sharp's `limitInputPixels` refuses an image over the pixel limit
 * from its header, before any pixel is decoded.
 */
import type { Sharp } from 'sharp';
import { CatalogError } from '../../api/errors.js';
import type { ImageDecoder } from '../../core/ports.js';
import type { DecodePool } from './decode-pool.js';

type SharpFactory = (typeof import('sharp'))['default'];
let loaded: Promise<SharpFactory> | undefined;

/**
 * sharp, loaded on the first decode: a command that decodes nothing (a local search, a listing)
 * starts without libvips. sharp-features.js comes with it for its process-wide settings (one
 * libvips thread per decode, no operation cache).
 */
function loadSharp(): Promise<SharpFactory> {
  loaded ??= import('./sharp-features.js').then(async () => (await import('sharp')).default);
  return loaded;
}

/** Why a decode was refused: the image is over the pixel limit, or its bytes do not decode. */
class DecodeRefused extends Error {
  constructor(readonly kind: 'pixels' | 'corrupt', message: string) {
    super(message);
    this.name = 'DecodeRefused';
  }
}

/** `W × H = N pixels, over the limit of M pixels (width × height)`, from the header alone. */
async function overLimit(input: Buffer | string, maxPixels: number): Promise<string> {
  const sharp = await loadSharp();
  const meta = await sharp(input, { limitInputPixels: false }).metadata().catch(() => undefined);
  const size = meta?.width !== undefined && meta.height !== undefined ? `${meta.width} × ${meta.height} = ${(meta.width * meta.height).toLocaleString('en-US')} pixels` : 'more pixels';
  return `${size}, over the limit of ${maxPixels.toLocaleString('en-US')} pixels (width × height)`;
}

/** Runs a sharp pipeline over `input`, turning its failures into {@link DecodeRefused}. */
async function decode<T>(input: Buffer | string, maxPixels: number, pipeline: (image: Sharp) => Promise<T>): Promise<T> {
  const sharp = await loadSharp();
  try {
    return await pipeline(sharp(input, { failOn: 'error', limitInputPixels: maxPixels }));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(reason)) throw new DecodeRefused('pixels', await overLimit(input, maxPixels));
    // libvips' messages end with ':' or a newline when a detail is missing.
    throw new DecodeRefused('corrupt', reason.replace(/[\s:]+$/, '') || 'unknown decoder error');
  }
}

function inputOf(image: Uint8Array | { path: string }): Buffer | string {
  return image instanceof Uint8Array ? Buffer.from(image.buffer, image.byteOffset, image.byteLength) : image.path;
}

/** Thumbnails that may wait for a decode slot at once (a waiting one holds no bytes); more are a 503. */
export const MAX_QUEUED_THUMBNAILS = 256;

/**
 * The sharp image decoder over `pool`. `verify` decodes the whole image (shrunk on load where the
 * format allows, as JPEG and WebP do) without keeping any pixel, waiting however long the queue;
 * thumbnails wait in the same queue, at most `maxQueuedThumbnails` of them (a page of results asks
 * for dozens at once, more than query images may queue), beyond which one is a 503 with Retry-After.
 */
export function createSharpImageDecoder(pool: DecodePool, options: { maxQueuedThumbnails?: number } = {}): ImageDecoder {
  const maxQueued = options.maxQueuedThumbnails ?? MAX_QUEUED_THUMBNAILS;
  let waiting = 0;
  return {
    async prepare() {
      await loadSharp();
    },
    async verify(image, maxPixels) {
      try {
        await pool.run(() => decode(inputOf(image), maxPixels, (s) => s.resize({ width: 8, height: 8, fit: 'inside' }).raw().toBuffer()), { bounded: false });
        return undefined;
      } catch (error) {
        if (!(error instanceof DecodeRefused)) throw error;
        return error.kind === 'pixels' ? `is ${error.message}` : `cannot be decoded (${error.message})`;
      }
    },
    async thumbnail(open, size, maxPixels) {
      if (waiting >= maxQueued) {
        throw new CatalogError('unavailable', `thumbnails are busy: ${maxQueued} images are already waiting to be decoded; retry in a few seconds`, undefined, { retryAfterSeconds: 2 });
      }
      waiting++;
      let started = false;
      try {
        return await pool.run(
          async () => {
            started = true;
            waiting--;
            // rotate(): honour EXIF orientation, as browsers do for the original.
            return decode(inputOf(await open()), maxPixels, (s) => s.rotate().resize({ width: size, height: size, fit: 'inside', withoutEnlargement: true }).webp({ quality: 78 }).toBuffer());
          },
          { bounded: false },
        );
      } catch (error) {
        if (error instanceof DecodeRefused && error.kind === 'pixels') {
          throw new CatalogError('payload_too_large', `the image is too large for a thumbnail: ${error.message}`);
        }
        if (error instanceof DecodeRefused) throw new CatalogError('unsupported_media_type', `the image cannot be decoded for a thumbnail: ${error.message}`);
        throw error;
      } finally {
        if (!started) waiting--;
      }
    },
  };
}
