/**
 * Global-descriptor features of a query photo seen upright and turned by 90°, 180° and 270°: a phone
 * photo is often taken sideways or upside down, and the global descriptor (image-similarity.ts) is
 * not rotation-invariant. The raster is decoded once, exactly as sharp-features.ts decodes a
 * reference (so view 0 equals extractFeatures()), and turned in memory.
 */
import type { OutputInfo } from 'sharp';
import { featuresFromRgb, type Features } from '../../../core/search/image-similarity.js';
import { openSharp, WORKING_SIZE, type ImageInput } from '../sharp-features.js';

/** Turns an RGB raster (w × h) by 90° clockwise; returns the h × w raster. */
function turn90(src: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      // (x, y) → (h − 1 − y, x) in a raster of width h.
      const o = (x * h + (h - 1 - y)) * 3;
      out[o] = src[i] ?? 0;
      out[o + 1] = src[i + 1] ?? 0;
      out[o + 2] = src[i + 2] ?? 0;
    }
  }
  return out;
}

/**
 * Features of the upright image and of its 90°, 180°, 270° turns (in that order).
 * @throws Error "image features: cannot decode image (…)".
 */
export async function rotatedGlobalFeatures(input: ImageInput): Promise<Features[]> {
  let raw: { data: Buffer; info: OutputInfo };
  try {
    raw = await openSharp(input, 0x3fff * 0x3fff)
      .rotate()
      .flatten({ background: { r: 255, g: 255, b: 255 } })
      .toColourspace('srgb')
      .resize({ width: WORKING_SIZE, height: WORKING_SIZE, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`image features: cannot decode image (${reason})`, { cause: err });
  }
  const { width, height, channels } = raw.info;
  let rgb: Uint8Array = new Uint8Array(width * height * 3);
  for (let i = 0, o = 0; o < rgb.length; i += channels, o += 3) {
    rgb[o] = raw.data[i] ?? 0;
    rgb[o + 1] = raw.data[channels >= 3 ? i + 1 : i] ?? 0;
    rgb[o + 2] = raw.data[channels >= 3 ? i + 2 : i] ?? 0;
  }
  const out: Features[] = [];
  let w = width;
  let h = height;
  for (let turn = 0; turn < 4; turn++) {
    out.push(featuresFromRgb(rgb, w, h, 3));
    if (turn < 3) {
      rgb = turn90(rgb, w, h);
      [w, h] = [h, w];
    }
  }
  return out;
}
