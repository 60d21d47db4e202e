/**
 * Local features (ORB keypoints and descriptors) of an encoded image, for photo search: sharp
 * decodes to a grey raster, OpenCV's WebAssembly build detects and describes. The index, the
 * matching and the scoring are pure code in src/core/search/photo/.
 */
import sharp from 'sharp';
import type { OutputInfo } from 'sharp';
import { DESCRIPTOR_WORDS } from '../../../core/search/photo/hamming.js';
import { emptyLocalFeatures, type LocalFeatures } from '../../../core/search/photo/local-features.js';
import type { Vocabulary } from '../../../core/search/photo/vocabulary.js';
import { openSharp, type ImageInput } from '../sharp-features.js';
import { openCv, withMats, type OpenCv } from './opencv.js';

/** Which side of the search an image is on: they differ in raster size and keypoint budget. */
export type LocalRole = 'reference' | 'query';

/**
 * Raster and detector settings per role.
 * - `maxSide`: long side of the grey raster (larger images are shrunk);
 * - `minSide`: smaller images are enlarged to this long side (ORB's 31-px patches need room: a
 *   64-px icon has no keypoints at its own size);
 * - `keypoints`: ORB's budget. A query photo spends much of it on the clutter around the part, so it
 *   gets more than a reference (whose size also bounds the index memory). Measured on 40 scene
 *   queries (bench/tmp diagnostics): 1,000 query keypoints verified 20 true parts with ≥ 10 inliers,
 *   2,000 → 31, 2,000 with 21-px patches → 36 (smaller patches reach inside small parts instead of
 *   straddling their outline, whose background changes from the reference's to the bench's);
 * - `pad`: pixels of replicated border added before detection (ORB ignores a 31-px margin; a
 *   reference's part often touches its edges, a photo's rarely matters there).
 */
export const LOCAL_SETTINGS: Record<LocalRole, LocalSettings> = {
  reference: { maxSide: 480, minSide: 320, keypoints: 400, pad: 24, patch: 21, fast: 12 },
  query: { maxSide: 640, minSide: 320, keypoints: 2000, pad: 0, patch: 21, fast: 12 },
};

/** Settings of one role (see {@link LOCAL_SETTINGS}); `patch` is ORB's patch size, `fast` its FAST threshold. */
export interface LocalSettings {
  maxSide: number;
  minSide: number;
  keypoints: number;
  pad: number;
  patch: number;
  fast: number;
}

/** A decoded grey raster, 1 byte per pixel, row-major. */
export interface GreyRaster {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * Decodes an image to the grey raster of `role`: EXIF orientation applied, transparency flattened on
 * white, long side brought into [minSide, maxSide], then `pad` pixels of replicated border.
 * @throws Error "local features: cannot decode image (…)".
 */
export async function decodeGrey(input: ImageInput, role: LocalRole): Promise<GreyRaster> {
  const { maxSide, minSide, pad } = LOCAL_SETTINGS[role];
  let raw: { data: Buffer; info: OutputInfo };
  try {
    // A raw raster (predecode) is upright already and its size known.
    const meta = typeof input === 'object' && 'raw' in input ? { width: input.width, height: input.height, orientation: 1 } : await sharp(input, { failOn: 'error', limitInputPixels: 0x3fff * 0x3fff }).metadata();
    const swap = (meta.orientation ?? 1) >= 5;
    const w0 = (swap ? meta.height : meta.width) ?? 1;
    const h0 = (swap ? meta.width : meta.height) ?? 1;
    const long = Math.max(w0, h0, 1);
    const target = long > maxSide ? maxSide : long < minSide ? minSide : long;
    let pipeline = openSharp(input, 0x3fff * 0x3fff)
      .rotate()
      .flatten({ background: '#ffffff' })
      .greyscale();
    if (target !== long) pipeline = pipeline.resize({ width: target, height: target, fit: 'inside', kernel: 'cubic' });
    raw = await pipeline.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`local features: cannot decode image (${reason})`, { cause: err });
  }
  const { width, height, channels } = raw.info;
  let grey: Uint8Array = new Uint8Array(width * height);
  for (let i = 0; i < grey.length; i++) grey[i] = raw.data[i * channels] ?? 0;
  if (pad > 0) grey = padReplicate(grey, width, height, pad);
  return { data: grey, width: width + 2 * pad, height: height + 2 * pad };
}

/** The raster with `pad` pixels of replicated border on every side. */
function padReplicate(src: Uint8Array, w: number, h: number, pad: number): Uint8Array {
  const W = w + 2 * pad;
  const out = new Uint8Array(W * (h + 2 * pad));
  for (let y = 0; y < h + 2 * pad; y++) {
    const sy = Math.min(h - 1, Math.max(0, y - pad));
    for (let x = 0; x < W; x++) {
      const sx = Math.min(w - 1, Math.max(0, x - pad));
      out[y * W + x] = src[sy * w + sx] ?? 0;
    }
  }
  return out;
}

/** One ORB detector per role and budget, kept for the process (creating one costs ~1 ms). */
const detectors = new Map<string, { delete(): void; detectAndCompute: OpenCvOrb['detectAndCompute'] }>();
type OpenCvOrb = InstanceType<OpenCv['ORB']>;

/**
 * ORB keypoints and descriptors of a grey raster (coordinates in that raster). `words` are assigned
 * with `vocabulary` when given.
 */
export function localFeaturesFromGrey(cv: OpenCv, raster: GreyRaster, settings: LocalSettings, vocabulary?: Vocabulary): LocalFeatures {
  const key = `${settings.keypoints}/${settings.patch}/${settings.fast}`;
  let orb = detectors.get(key);
  if (!orb) {
    // 8 levels at ×1.2 cover a 4.3× scale range; a low FAST threshold finds corners on low-contrast
    // and flat-coloured parts.
    orb = new cv.ORB(settings.keypoints, 1.2, 8, settings.patch, 0, 2, cv.ORB_HARRIS_SCORE, settings.patch, settings.fast);
    detectors.set(key, orb);
  }
  const detector = orb;
  const image = cv.matFromArray(raster.height, raster.width, cv.CV_8UC1, raster.data);
  const mask = new cv.Mat();
  const kps = new cv.KeyPointVector();
  const desc = new cv.Mat();
  return withMats([image, mask, kps, desc], () => {
    detector.detectAndCompute(image, mask, kps, desc);
    const n = Math.min(kps.size(), desc.rows);
    if (n === 0 || desc.cols !== DESCRIPTOR_WORDS * 4) return emptyLocalFeatures(raster.width, raster.height);
    const f = emptyLocalFeatures(raster.width, raster.height);
    f.count = n;
    f.xs = new Float32Array(n);
    f.ys = new Float32Array(n);
    f.angles = new Float32Array(n);
    f.sizes = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const k = kps.get(i);
      f.xs[i] = k.pt.x;
      f.ys[i] = k.pt.y;
      f.angles[i] = k.angle;
      f.sizes[i] = k.size;
    }
    // Copy out of the wasm heap (the Mat's buffer is freed with it).
    const bytes = desc.data.slice(0, n * DESCRIPTOR_WORDS * 4);
    f.descriptors = new Uint32Array(bytes.buffer, bytes.byteOffset, n * DESCRIPTOR_WORDS);
    if (vocabulary) {
      f.words = vocabulary.assign(f.descriptors);
      f.vocabulary = vocabulary.id;
    }
    return f;
  });
}

/**
 * Decodes an image and computes its local features for `role`.
 * @throws Error "local features: cannot decode image (…)" when sharp cannot decode it.
 */
export async function extractLocalFeatures(input: ImageInput, role: LocalRole, vocabulary?: Vocabulary): Promise<LocalFeatures> {
  const [cv, raster] = await Promise.all([openCv(), decodeGrey(input, role)]);
  return localFeaturesFromGrey(cv, raster, LOCAL_SETTINGS[role], vocabulary);
}
