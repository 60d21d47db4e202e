/**
 * Image-search features from encoded image bytes, decoded with sharp (libvips). The feature maths is
 * pure and lives in src/core/search/image-similarity.ts; this adapter only decodes.
 */
import sharp from 'sharp';
import type { Metadata, OutputInfo, Sharp } from 'sharp';
import { featuresFromRgb } from '../../core/search/image-similarity.js';
import type { Features } from '../../core/search/image-similarity.js';

/**
 * Long side, in pixels, of the RGB raster the features are computed from. The features are 16×16 /
 * 8×8 thumbnails, so a larger raster adds time but no accuracy; smaller images are used as they are
 * (never enlarged), so tiny images stay exact.
 */
export const WORKING_SIZE = 128;

/** Largest input accepted by default, in pixels (width × height): sharp's own default limit, ≈268 MP. */
export const LIMIT_INPUT_PIXELS = 0x3fff * 0x3fff;

/** Thrown by {@link extractFeatures} for an image over its pixel limit (checked from the header, before decoding). */
export class PixelLimitError extends Error {
  constructor(readonly limit: number, readonly width: number | undefined, readonly height: number | undefined) {
    const size = width !== undefined && height !== undefined ? `${width} × ${height} = ${(width * height).toLocaleString('en-US')} pixels` : 'more pixels than that';
    super(`image features: the image has ${size}, over the limit of ${limit.toLocaleString('en-US')} pixels (width × height)`);
    this.name = 'PixelLimitError';
  }
}

// Every image is decoded once: libvips' operation cache (50 MB by default) would only hold memory
// in a long-running server; one libvips worker per decode keeps a busy server's memory flat.
sharp.cache(false);
sharp.concurrency(1);

/**
 * An image already decoded to 8-bit sRGB, 3 channels, row-major, EXIF orientation applied and
 * transparency flattened on white ({@link predecode}): accepted wherever an encoded image is.
 */
export interface RawRgb {
  raw: Uint8Array;
  width: number;
  height: number;
}

/** An encoded image (bytes, or the path of a file holding them) or a {@link RawRgb} raster. */
export type ImageInput = Uint8Array | string | RawRgb;

/** sharp over `input` (a raw raster is described to sharp, which then skips decoding). */
export function openSharp(input: ImageInput, limitInputPixels: number): Sharp {
  if (typeof input === 'object' && 'raw' in input) {
    return sharp(input.raw, { raw: { width: input.width, height: input.height, channels: 3 } });
  }
  return sharp(input, { failOn: 'error', limitInputPixels });
}

/**
 * Images whose long side exceeds this many pixels are decoded once for all their features
 * ({@link predecode}); smaller ones (every image of the bench set) keep exactly their former
 * features.
 */
export const SHARED_DECODE_ABOVE = 1280;

/**
 * Decodes a large image once, for every feature computed from it (upload extraction):
 * an image whose long side exceeds {@link SHARED_DECODE_ABOVE} comes back as a {@link RawRgb}
 * whose long side is `side` (the largest raster the features use: the grey raster of ORB), so
 * JPEG and WebP shrink on load and the global descriptor and the grey raster no longer decode a
 * 12-MP photo (or a PNG, which has no shrink-on-load) each; anything smaller comes back as it was.
 * @throws PixelLimitError over {@link LIMIT_INPUT_PIXELS}; Error "image features: cannot decode
 *   image (…)" when the header or the pixels cannot be read.
 */
export async function predecode(input: Uint8Array | string, side: number): Promise<ImageInput> {
  if (typeof input !== 'string' && input.length === 0) throw new Error('image features: cannot decode image (empty input)');
  let meta: Metadata;
  try {
    meta = await sharp(input, { failOn: 'error', limitInputPixels: LIMIT_INPUT_PIXELS }).metadata();
  } catch (err) {
    throw new Error(`image features: cannot decode image (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  if (Math.max(meta.width ?? 0, meta.height ?? 0) <= SHARED_DECODE_ABOVE) return input;
  if ((meta.width ?? 0) * (meta.height ?? 0) > LIMIT_INPUT_PIXELS) throw new PixelLimitError(LIMIT_INPUT_PIXELS, meta.width, meta.height);
  try {
    const { data, info } = await sharp(input, { failOn: 'error', limitInputPixels: LIMIT_INPUT_PIXELS })
      .rotate()
      .flatten({ background: { r: 255, g: 255, b: 255 } })
      .toColourspace('srgb')
      .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true, kernel: 'cubic' })
      .removeAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`${info.channels} channels after conversion to sRGB`);
    return { raw: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  } catch (err) {
    throw new Error(`image features: cannot decode image (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
}

/**
 * Width and height of an encoded image from its header (no pixel is decoded), or undefined when
 * libvips cannot read the header.
 */
export async function imageSize(bytes: Uint8Array): Promise<{ width: number; height: number } | undefined> {
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata().catch(() => undefined);
  return meta?.width !== undefined && meta.height !== undefined ? { width: meta.width, height: meta.height } : undefined;
}

/**
 * Decodes an image and computes its search features.
 *
 * Accepts whatever the bundled libvips decodes: JPEG, PNG, WebP, GIF (first frame), TIFF (first
 * page), AVIF/HEIF (AV1), SVG. EXIF orientation is applied, transparency is flattened onto white,
 * any colour space (grey, CMYK, 16-bit) is converted to 8-bit sRGB, and the image is shrunk to fit
 * {@link WORKING_SIZE} px before the pure feature code runs.
 *
 * Time measured on the 2-core bench machine (bench/image-quality.js, one call at a time, sharp's
 * default thread pool): images of ≤ 640 px take 3–4 ms mean, ≈10 ms at the 95th percentile (decode
 * and shrink ≈2 ms, the pure feature code ≈1 ms); a 6 MP JPEG 21 ms (JPEG shrink-on-load); a 6 MP
 * PNG ≈230 ms (PNG must be decoded in full). sharp.concurrency() is left at its default, so calls
 * may run concurrently.
 *
 * @param bytes the encoded image file.
 * @param options.maxPixels largest width × height accepted (default {@link LIMIT_INPUT_PIXELS});
 *   checked by libvips from the header, so a decompression bomb costs no decoding.
 * @returns the image's {@link Features}.
 * @throws PixelLimitError for an image over `maxPixels`; Error "image features: cannot decode
 *   image (…)" when the bytes are empty, not an image, or a truncated/corrupt image.
 */
export async function extractFeatures(bytes: ImageInput, options: { maxPixels?: number } = {}): Promise<Features> {
  const limit = options.maxPixels ?? LIMIT_INPUT_PIXELS;
  // A string is a file path: libvips then reads only what decoding needs (a JPEG's trailing bytes
  // never enter memory), instead of the whole file as a Buffer.
  if (bytes instanceof Uint8Array && bytes.length === 0) throw new Error('image features: cannot decode image (empty input)');
  let raw: { data: Buffer; info: OutputInfo };
  try {
    raw = await openSharp(bytes, limit)
      .rotate()
      .flatten({ background: { r: 255, g: 255, b: 255 } })
      .toColourspace('srgb')
      .resize({ width: WORKING_SIZE, height: WORKING_SIZE, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (/pixel limit/i.test(reason)) {
      // Name the size: the header alone (no decode) gives it.
      const size = bytes instanceof Uint8Array ? await imageSize(bytes) : undefined;
      throw new PixelLimitError(limit, size?.width, size?.height);
    }
    throw new Error(`image features: cannot decode image (${reason})`, { cause: err });
  }
  const { data, info } = raw;
  const pixels = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (info.channels === 3 || info.channels === 4) return featuresFromRgb(pixels, info.width, info.height, info.channels);
  // Defensive: a single-channel raster (should not happen after toColourspace('srgb')).
  const rgb = new Uint8Array(info.width * info.height * 3);
  for (let i = 0, o = 0; o < rgb.length; i += info.channels, o += 3) {
    const v = pixels[i] ?? 0;
    rgb[o] = v;
    rgb[o + 1] = v;
    rgb[o + 2] = v;
  }
  return featuresFromRgb(rgb, info.width, info.height, 3);
}
