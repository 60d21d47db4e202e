/**
 * Local features (ORB keypoints and descriptors) of an encoded image, for photo search: sharp
 * decodes to a grey raster, OpenCV's WebAssembly build detects and describes. The index, the
 * matching and the scoring are pure code in src/core/search/photo/.
 */
import sharp from 'sharp';
import type { OutputInfo } from 'sharp';
import { DESCRIPTOR_WORDS, hamming256 } from '../../../core/search/photo/hamming.js';
import { emptyLocalFeatures, MAX_KEYPOINTS, type LocalFeatures } from '../../../core/search/photo/local-features.js';
import type { Vocabulary } from '../../../core/search/photo/vocabulary.js';
import { openSharp, type ImageInput } from '../sharp-features.js';
import { plainBackground } from './plain-background.js';
import { openCv, withMats, type OpenCv } from './opencv.js';

/** Which side of the search an image is on: they differ in raster size and keypoint budget. */
export type LocalRole = 'reference' | 'query';

/**
 * Raster and detector settings per role.
 * - `maxSide`: long side of the grey raster (larger images are shrunk);
 * - `minSide`: smaller images are enlarged to this long side (ORB's 31-px patches need room: a
 *   64-px icon has no keypoints at its own size);
 * - `keypoints`: ORB's budget. A query photo spends much of it on the clutter around the part, so it
 *   gets more than a reference (whose size also bounds the index memory): at 4,000 the grid keeps
 *   nearly every FAST corner of a 640-px photo, so a part in a small share of the frame keeps all
 *   of its own; 21-px patches reach inside small parts instead of straddling their outline, whose
 *   background changes from the reference's to the bench's (the measurements: decisions/0007);
 * - `grid` (query only): keypoints spread over an 8 × 8 grid ({@link gridSelect}); 40 scenes at
 *   514 references: 22 → 27 found first (scene + camera effects 20 → 21), for ~10 ms more ORB. Not
 *   on references (their part fills the picture; a 4 × 4 grid there measured no gain), so stored
 *   features are unchanged;
 * - `pad`: pixels of replicated border added before detection (ORB ignores a 31-px margin; a
 *   reference's part often touches its edges, a photo's rarely matters there);
 * - `backdrop` (reference only): keypoints also of the picture on a grey backdrop ({@link
 *   BackdropSettings}; 40 scenes / scenes with camera effects at 514 references, found first:
 *   30 / 29 → 34 / 32);
 * - `lowLight` (query only): an underexposed photo (99th-percentile grey below 170) is smoothed
 *   (σ 0.8 px) and detected with FAST threshold 7 instead of 12 ({@link LowLightSettings}; 40 dark
 *   scenes found first at 514 / 10,000 references: 29 → 33 / 27 → 32, no other answer lost);
 * - `secondLook` (query only): a photo whose first answer has no confident hit is detected again
 *   at 0.6 × its working size (plain detection, FAST 12) and searched again ({@link
 *   SecondLookSettings}; nine scene conditions of 40 at 514 / 10,000 references, found first:
 *   276 → 288 / 268 → 279, no condition lost one, distractors ≥ 0.5 3 → 3 / 4 of 100); used
 *   only when the search asks for it (image-search.ts `secondLookWanted`: off by default).
 */
export const LOCAL_SETTINGS: Record<LocalRole, LocalSettings> = {
  reference: { maxSide: 480, minSide: 320, keypoints: 400, pad: 24, patch: 21, fast: 12, backdrop: { grey: 100, keypoints: 300, tolerance: 16, plainBorder: 0.6 } },
  query: {
    maxSide: 640, minSide: 320, keypoints: 4000, pad: 0, patch: 21, fast: 12, grid: 8, oversample: 10, lowLight: { highlights: 170, blur: 0.8, fast: 7 },
    secondLook: { normal: { blur: 0, fast: 12, scale: 0.6 }, lowLight: { blur: 0, fast: 12, scale: 0.6 } },
  },
};

/** Settings of one role (see {@link LOCAL_SETTINGS}); `patch` is ORB's patch size, `fast` its FAST threshold. */
export interface LocalSettings {
  maxSide: number;
  minSide: number;
  keypoints: number;
  pad: number;
  patch: number;
  fast: number;
  /**
   * CLAHE clip limit applied to the grey raster before detection (0 or absent: none). Off in both
   * roles: a measurement knob (bench/photo-profile.js PHOTO_SETTINGS); clip 2 on both sides found
   * 23 / 16 of 40 scenes / scenes with effects against 22 / 20 without.
   */
  clahe?: number;
  /**
   * Gaussian σ in px of the working raster applied before detection (0 or absent: none). Off in
   * both roles: a measurement knob against sensor noise.
   */
  blur?: number;
  /**
   * Low light (absent: none, {@link LowLightSettings}): a raster whose
   * 99th-percentile grey is below `highlights` is smoothed with a Gaussian of σ `blur` px (instead
   * of `blur`) and detected with FAST threshold `fast` (instead of the role's).
   */
  lowLight?: LowLightSettings;
  /**
   * An exposure-adaptive FAST threshold (absent: `fast` always, a
   * measurement knob, off: {@link AdaptiveFastSettings}). Not applied to a low-light raster.
   */
  adaptiveFast?: AdaptiveFastSettings;
  /**
   * Query only: how a photo is looked at again when its first answer has no confident hit
   * ({@link SecondLookSettings}; absent: no second look).
   */
  secondLook?: SecondLookSettings;
  /**
   * A linear contrast stretch before detection (0 or absent: none):
   * when the raster's 1st-to-99th-percentile grey range is narrower than this many grey levels, it
   * is mapped onto 0–255 by one lookup table (global, not CLAHE's tiles). A measurement knob, off:
   * 140 found fewer dark scenes (29 → 25 of 40 at 514 references).
   */
  stretch?: number;
  /** ORB pyramid levels (default 8). */
  levels?: number;
  /** ORB pyramid scale factor between levels (default 1.2). */
  scaleFactor?: number;
  /**
   * References only: keypoints also detected with the picture's plain background replaced by a
   * mid-grey backdrop ({@link backdropVariant}). Absent: none.
   */
  backdrop?: BackdropSettings;
  /** Cells per side of the keypoint grid (0 or absent: ORB's own global ranking). */
  grid?: number;
  /**
   * With a grid: candidates detected, as a multiple of the budget (default 3). ORB keeps its best
   * candidates over the whole picture, so with too few a dense texture still takes them all (the
   * unit test's noise half); 10 keeps every FAST corner of a 640-px photo for ~1 ms more.
   */
  oversample?: number;
}

/**
 * The backdrop variant of a reference (docs/search.md). A
 * catalog picture shows its part on a plain background (white, mostly); a photo shows it on a bench
 * that is darker than the part as often as lighter. An ORB descriptor on the part's outline compares
 * pixels inside the part with pixels of the background, so a light part photographed on a dark bench
 * flips those bits, and a small or flat part (an icon, a line drawing) has almost only outline
 * keypoints: its scene photos found no match. So a reference is described twice: as it is, and with
 * its plain background (the pixels reached by a flood fill from the border within `tolerance` grey
 * levels of the border's median) set to `grey`; the second set's keypoints that repeat one of the
 * first (same place, size and nearly the same descriptor: those inside the part) are left out.
 * - `grey`: the backdrop's grey level (100, a bench's mid tone; black, 128 and black + 128 found
 *   about as many scenes, docs/search.md);
 * - `keypoints`: ORB's budget on the variant, before the repeats are left out (300: 400 found as
 *   many scenes at 514 references and held 318 MB at 10,000, over the 300-MB budget);
 * - `tolerance`: grey levels from the border's median that still count as background;
 * - `plainBorder`: the share of the border's pixels that must be background for the picture to
 *   count as "on a plain background" (a part may touch the picture's edges).
 */
export interface BackdropSettings {
  grey: number;
  keypoints: number;
  tolerance: number;
  plainBorder: number;
}

/**
 * An exposure-adaptive FAST threshold (a measurement knob, off): ORB's
 * FAST test asks for `fast` grey levels between a corner and its ring, so a photo with half the
 * contrast keeps fewer corners. The threshold is scaled by the raster's contrast, its 1st-to-99th
 * percentile grey range: `fast × range / normal`, rounded, clamped to [`min`, `fast`] (a photo of
 * `normal` range or more keeps `fast`). Alone it found no more dark scenes (docs/search.md): the lower threshold also finds the noise's corners; {@link LowLightSettings}
 * smooths first.
 */
export interface AdaptiveFastSettings {
  normal: number;
  min: number;
}

/**
 * How a dark photo is detected. An underexposed photo has no bright
 * pixels, its contrast is the scene's × its exposure, and it carries the noise of a raised sensor
 * gain: ORB's fixed FAST threshold then misses the part's softer corners, and a lower one alone
 * finds the noise's. Smoothing first and lowering the threshold together keeps the corners of the
 * picture and not those of the noise.
 * - `highlights`: a raster whose 99th-percentile grey level is below this counts as dark (its
 *   brightest 1 % is no brighter than a light grey: underexposed). Not a narrow grey range:
 *   pale pictures (a light part on white) have one too, and lost matches to the blur;
 * - `blur`: Gaussian σ in px of the working raster;
 * - `fast`: FAST threshold.
 */
export interface LowLightSettings {
  highlights: number;
  blur: number;
  fast: number;
}

/**
 * The second look at a query photo (docs/search.md "Photo search", decisions/0008). When the
 * first search of a photo finds no confident hit, its raster is detected again
 * with other settings and searched again (image-search.ts); the two answers are merged per part by
 * the better score (photo-search.ts `mergeLooks`). A blur helps noisy photos and costs others a
 * few answers, and no statistic of the photo tells which is which; a photo whose
 * first answer is confident keeps it, so only the unconfident ones get the other detection.
 * Taken: the raster shrunk to 0.6 × (area interpolation), detected as usual (no blur, FAST 12),
 * for both kinds of photo. Shrinking averages the noise away like a blur and also moves the
 * part's corners to other pyramid levels: a 32-px icon enlarged 6–15× in a scene comes nearer its
 * reference's size. It found more than a blur with FAST 7 (the low-light rule's treatment of noise) or
 * 0.75 × and cost least (docs/search.md).
 * - `normal`: the look at a photo the low-light rule left alone;
 * - `lowLight`: the look at a photo the low-light rule smoothed ({@link LowLightSettings}).
 */
export interface SecondLookSettings {
  normal: LookSettings;
  lowLight: LookSettings;
}

/**
 * One look's detection: Gaussian σ `blur` in px of the working raster (0: none), FAST threshold
 * `fast`, the raster resized by `scale` first (absent or 1: as decoded), and at most `keypoints`
 * keypoints (absent: the role's budget).
 */
export interface LookSettings {
  blur: number;
  fast: number;
  scale?: number;
  keypoints?: number;
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
const detectors = new Map<string, OpenCvOrb>();
type OpenCvOrb = InstanceType<OpenCv['ORB']>;
/** One CLAHE operator per clip limit, kept for the process. */
const equalisers = new Map<number, InstanceType<OpenCv['CLAHE']>>();

function detector(cv: OpenCv, keypoints: number, settings: LocalSettings): OpenCvOrb {
  const key = `${keypoints}/${settings.patch}/${settings.fast}/${settings.levels ?? 8}/${settings.scaleFactor ?? 1.2}`;
  let orb = detectors.get(key);
  if (!orb) {
    // 8 levels at ×1.2 cover a 4.3× scale range; a low FAST threshold finds corners on low-contrast
    // and flat-coloured parts.
    orb = new cv.ORB(keypoints, settings.scaleFactor ?? 1.2, settings.levels ?? 8, settings.patch, 0, 2, cv.ORB_HARRIS_SCORE, settings.patch, settings.fast);
    detectors.set(key, orb);
  }
  return orb;
}

/** Keypoints and descriptors of one 8-bit raster, appended to `out` (coordinates in the raster). */
function detectInto(cv: OpenCv, data: Uint8Array, width: number, height: number, keypoints: number, settings: LocalSettings, out: Detected): void {
  if (keypoints <= 0) return;
  const orb = detector(cv, keypoints, settings);
  const image = cv.matFromArray(height, width, cv.CV_8UC1, data);
  const mask = new cv.Mat();
  const kps = new cv.KeyPointVector();
  const desc = new cv.Mat();
  const objects: { delete(): void }[] = [image, mask, kps, desc];
  withMats(objects, () => {
    let src = image;
    const clip = settings.clahe ?? 0;
    if (clip > 0) {
      let eq = equalisers.get(clip);
      if (!eq) {
        eq = new cv.CLAHE(clip, new cv.Size(8, 8));
        equalisers.set(clip, eq);
      }
      src = new cv.Mat();
      objects.push(src);
      eq.apply(image, src);
    }
    const sigma = settings.blur ?? 0;
    if (sigma > 0) {
      const smoothed = new cv.Mat();
      objects.push(smoothed);
      cv.GaussianBlur(src, smoothed, new cv.Size(0, 0), sigma, sigma, cv.BORDER_REPLICATE);
      src = smoothed;
    }
    const cells = settings.grid ?? 0;
    if (cells > 0) {
      const wide = detector(cv, Math.round(keypoints * (settings.oversample ?? 3)), settings);
      const all = new cv.KeyPointVector();
      objects.push(all);
      wide.detect(src, all, mask);
      for (const i of gridSelect(all, width, height, cells, keypoints)) kps.push_back(all.get(i));
      orb.compute(src, kps, desc);
    } else orb.detectAndCompute(src, mask, kps, desc);
    const n = Math.min(kps.size(), desc.rows);
    if (n === 0 || desc.cols !== DESCRIPTOR_WORDS * 4) return;
    for (let i = 0; i < n; i++) {
      const k = kps.get(i);
      out.xs.push(k.pt.x);
      out.ys.push(k.pt.y);
      out.angles.push(k.angle);
      out.sizes.push(k.size);
    }
    // Copy out of the wasm heap (the Mat's buffer is freed with it).
    out.descriptors.push(desc.data.slice(0, n * DESCRIPTOR_WORDS * 4));
  });
}

/**
 * Indexes of at most `budget` keypoints spread over a `cells` × `cells` grid: each cell keeps its
 * strongest keypoints up to an equal share, and the budget left by sparse cells goes to the
 * strongest of the rest. Why: in a photo the clutter's hard edges outrank a part's softer ones, so
 * a global ranking leaves parts of the picture without any keypoint.
 */
export function gridSelect(kps: { size(): number; get(i: number): { pt: { x: number; y: number }; response: number } }, width: number, height: number, cells: number, budget: number): number[] {
  const n = kps.size();
  if (n <= budget) return Array.from({ length: n }, (_, i) => i);
  const items: { i: number; cell: number; r: number }[] = [];
  for (let i = 0; i < n; i++) {
    const k = kps.get(i);
    const cx = Math.min(cells - 1, Math.max(0, Math.floor((k.pt.x / width) * cells)));
    const cy = Math.min(cells - 1, Math.max(0, Math.floor((k.pt.y / height) * cells)));
    items.push({ i, cell: cy * cells + cx, r: k.response });
  }
  items.sort((a, b) => b.r - a.r || a.i - b.i);
  const share = Math.max(1, Math.floor(budget / (cells * cells)));
  const taken = new Int32Array(cells * cells);
  const chosen: number[] = [];
  const rest: number[] = [];
  for (const it of items) {
    if ((taken[it.cell] ?? 0) < share) {
      taken[it.cell] = (taken[it.cell] ?? 0) + 1;
      chosen.push(it.i);
    } else rest.push(it.i);
  }
  for (const i of rest) {
    if (chosen.length >= budget) break;
    chosen.push(i);
  }
  return chosen.slice(0, budget);
}

/**
 * The raster with its plain background set to `settings.grey`, or undefined when it has none
 * (see {@link plainBackground}).
 */
export function backdropVariant(raster: GreyRaster, settings: BackdropSettings): Uint8Array | undefined {
  const background = plainBackground(raster, settings);
  if (!background) return undefined;
  const out = Uint8Array.from(raster.data);
  for (let p = 0; p < out.length; p++) if (background[p]) out[p] = settings.grey;
  return out;
}


/**
 * Keypoints with their 256-bit descriptors (DESCRIPTOR_WORDS uint32 each), as {@link
 * unrepeatedKeypoints} compares them.
 */
export interface DescribedKeypoints {
  count: number;
  xs: ArrayLike<number>;
  ys: ArrayLike<number>;
  sizes: ArrayLike<number>;
  descriptors: Uint32Array;
}

/**
 * The indexes of the keypoints of `extra` that do not repeat one of `base`'s (a keypoint within
 * 1 px, of the same size ± 0.5 px, whose descriptor differs by at most `repeatBits` of 256 bits:
 * inside the part the grey backdrop changes nothing), in order, as many as keep `base` and them
 * within `limit` keypoints. The merge of a reference's backdrop variant, ORB's ({@link appendNew})
 * and AKAZE's (akaze.ts).
 */
export function unrepeatedKeypoints(base: DescribedKeypoints, extra: DescribedKeypoints, repeatBits: number, limit: number): number[] {
  const kept: number[] = [];
  for (let i = 0; i < extra.count && base.count + kept.length < limit; i++) {
    const x = extra.xs[i] ?? 0;
    const y = extra.ys[i] ?? 0;
    const size = extra.sizes[i] ?? 0;
    let repeated = false;
    for (let j = 0; j < base.count && !repeated; j++) {
      if (Math.abs((base.xs[j] ?? 0) - x) > 1 || Math.abs((base.ys[j] ?? 0) - y) > 1 || Math.abs((base.sizes[j] ?? 0) - size) > 0.5) continue;
      repeated = hamming256(base.descriptors, j * DESCRIPTOR_WORDS, extra.descriptors, i * DESCRIPTOR_WORDS) <= repeatBits;
    }
    if (!repeated) kept.push(i);
  }
  return kept;
}

/**
 * Appends to `base` the keypoints of `extra` that do not repeat one of `base`'s ({@link
 * unrepeatedKeypoints}, 16 of 256 bits), up to `limit` keypoints in all.
 */
function appendNew(base: Detected, extra: Detected, limit: number): void {
  const extraDesc = concatDescriptors(extra.descriptors);
  const kept = unrepeatedKeypoints(
    { count: base.xs.length, xs: base.xs, ys: base.ys, sizes: base.sizes, descriptors: concatDescriptors(base.descriptors) },
    { count: extra.xs.length, xs: extra.xs, ys: extra.ys, sizes: extra.sizes, descriptors: extraDesc },
    16,
    limit,
  );
  if (kept.length === 0) return;
  const bytes = new Uint8Array(kept.length * DESCRIPTOR_WORDS * 4);
  const extraBytes = new Uint8Array(extraDesc.buffer, extraDesc.byteOffset, extraDesc.byteLength);
  kept.forEach((i, k) => {
    base.xs.push(extra.xs[i] ?? 0);
    base.ys.push(extra.ys[i] ?? 0);
    base.angles.push(extra.angles[i] ?? 0);
    base.sizes.push(extra.sizes[i] ?? 0);
    bytes.set(extraBytes.subarray(i * DESCRIPTOR_WORDS * 4, (i + 1) * DESCRIPTOR_WORDS * 4), k * DESCRIPTOR_WORDS * 4);
  });
  base.descriptors.push(bytes);
}

/** The descriptor chunks of a {@link Detected} as one word array (a copy). */
function concatDescriptors(chunks: Uint8Array[]): Uint32Array {
  const total = chunks.reduce((sum, c) => sum + c.length, 0);
  const bytes = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    bytes.set(c, o);
    o += c.length;
  }
  return new Uint32Array(bytes.buffer, 0, total / 4);
}

interface Detected {
  xs: number[];
  ys: number[];
  angles: number[];
  sizes: number[];
  descriptors: Uint8Array[];
}

/** The grey level below which a share `q` (0–1) of the raster's pixels lie, from its histogram. */
function greyPercentile(histogram: Float64Array, total: number, q: number): number {
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += histogram[v] ?? 0;
    if (seen >= q * total) return v;
  }
  return 255;
}

/** The 256-bin grey histogram of a raster. */
function greyHistogram(data: Uint8Array): Float64Array {
  const histogram = new Float64Array(256);
  for (let i = 0; i < data.length; i++) {
    const v = data[i] ?? 0;
    histogram[v] = (histogram[v] ?? 0) + 1;
  }
  return histogram;
}

/** The grey levels between a raster's 1st and 99th percentile. */
function greyRange(histogram: Float64Array, total: number): number {
  return greyPercentile(histogram, total, 0.99) - greyPercentile(histogram, total, 0.01);
}

/** The FAST threshold of a raster under `settings` ({@link AdaptiveFastSettings}). */
function fastThreshold(histogram: Float64Array, total: number, settings: LocalSettings): number {
  const adaptive = settings.adaptiveFast;
  if (!adaptive) return settings.fast;
  const scaled = Math.round((settings.fast * greyRange(histogram, total)) / adaptive.normal);
  return Math.min(settings.fast, Math.max(adaptive.min, scaled));
}

/**
 * The raster stretched linearly from its [1st, 99th] grey percentiles onto 0–255 when that range
 * is narrower than `below` grey levels (the same raster otherwise; see {@link LocalSettings}
 * `stretch`).
 */
function stretchContrast(raster: GreyRaster, below: number): GreyRaster {
  const histogram = greyHistogram(raster.data);
  const low = greyPercentile(histogram, raster.data.length, 0.01);
  const high = greyPercentile(histogram, raster.data.length, 0.99);
  if (high - low >= below || high <= low) return raster;
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) lut[v] = Math.max(0, Math.min(255, Math.round(((v - low) * 255) / (high - low))));
  const data = new Uint8Array(raster.data.length);
  for (let i = 0; i < data.length; i++) data[i] = lut[raster.data[i] ?? 0] ?? 0;
  return { data, width: raster.width, height: raster.height };
}

/**
 * The detector settings of a raster's first look: the role's, with the low-light rule (or the
 * adaptive FAST threshold) applied when it asks for them ({@link LowLightSettings}).
 */
function firstLookSettings(raster: GreyRaster, settings: LocalSettings): LocalSettings {
  if (!settings.lowLight && !settings.adaptiveFast) return settings;
  const histogram = greyHistogram(raster.data);
  const dark = isLowLight(histogram, raster.data.length, settings) ? settings.lowLight : undefined;
  const fast = dark ? dark.fast : fastThreshold(histogram, raster.data.length, settings);
  const blur = dark ? dark.blur : settings.blur;
  return fast === settings.fast && blur === settings.blur ? settings : { ...settings, fast, blur };
}

/** True when `settings.lowLight` applies to a raster of this histogram (its 99th percentile below `highlights`). */
function isLowLight(histogram: Float64Array, total: number, settings: LocalSettings): boolean {
  return settings.lowLight !== undefined && greyPercentile(histogram, total, 0.99) < settings.lowLight.highlights;
}

/**
 * ORB keypoints and descriptors of a grey raster (coordinates in that raster). `words` are assigned
 * with `vocabulary` when given.
 */
export function localFeaturesFromGrey(cv: OpenCv, input: GreyRaster, settings: LocalSettings, vocabulary?: Vocabulary): LocalFeatures {
  const raster = settings.stretch ? stretchContrast(input, settings.stretch) : input;
  return detectFeatures(cv, raster, firstLookSettings(raster, settings), vocabulary);
}

/**
 * The second look at a query photo's raster ({@link SecondLookSettings}):
 * ORB keypoints and descriptors detected with the settings of `settings.secondLook` that fit the
 * raster (`lowLight` for a raster the low-light rule smoothed in its first look, `normal` for any
 * other), or undefined when `settings` has no second look.
 */
export function secondLookFeatures(cv: OpenCv, input: GreyRaster, settings: LocalSettings, vocabulary?: Vocabulary): LocalFeatures | undefined {
  const second = settings.secondLook;
  if (!second) return undefined;
  const raster = settings.stretch ? stretchContrast(input, settings.stretch) : input;
  const dark = settings.lowLight !== undefined && isLowLight(greyHistogram(raster.data), raster.data.length, settings);
  const look = dark ? second.lowLight : second.normal;
  const scaled = look.scale !== undefined && look.scale !== 1 ? resizeGrey(cv, raster, look.scale) : raster;
  return detectFeatures(cv, scaled, { ...settings, lowLight: undefined, adaptiveFast: undefined, blur: look.blur, fast: look.fast, keypoints: look.keypoints ?? settings.keypoints }, vocabulary);
}

/** The raster resized by `factor` (OpenCV's area interpolation shrinking, cubic enlarging). */
export function resizeGrey(cv: OpenCv, raster: GreyRaster, factor: number): GreyRaster {
  const width = Math.max(1, Math.round(raster.width * factor));
  const height = Math.max(1, Math.round(raster.height * factor));
  const src = cv.matFromArray(raster.height, raster.width, cv.CV_8UC1, raster.data);
  const dst = new cv.Mat();
  return withMats([src, dst], () => {
    cv.resize(src, dst, new cv.Size(width, height), 0, 0, factor < 1 ? cv.INTER_AREA : cv.INTER_CUBIC);
    return { data: Uint8Array.from(dst.data as Uint8Array), width, height };
  });
}

/** Keypoints of `raster` detected with exactly `settings` (the backdrop variant included), packed as {@link LocalFeatures}. */
function detectFeatures(cv: OpenCv, raster: GreyRaster, settings: LocalSettings, vocabulary?: Vocabulary): LocalFeatures {
  const found: Detected = { xs: [], ys: [], angles: [], sizes: [], descriptors: [] };
  detectInto(cv, raster.data, raster.width, raster.height, settings.keypoints, settings, found);
  const variant = settings.backdrop ? backdropVariant(raster, settings.backdrop) : undefined;
  if (variant && settings.backdrop) {
    const extra: Detected = { xs: [], ys: [], angles: [], sizes: [], descriptors: [] };
    detectInto(cv, variant, raster.width, raster.height, settings.backdrop.keypoints, { ...settings, grid: 0 }, extra);
    appendNew(found, extra, MAX_KEYPOINTS);
  }
  const n = found.xs.length;
  const f = emptyLocalFeatures(raster.width, raster.height);
  if (n === 0) return f;
  f.count = n;
  f.xs = Float32Array.from(found.xs);
  f.ys = Float32Array.from(found.ys);
  f.angles = Float32Array.from(found.angles);
  f.sizes = Float32Array.from(found.sizes);
  const bytes = new Uint8Array(n * DESCRIPTOR_WORDS * 4);
  let o = 0;
  for (const d of found.descriptors) {
    bytes.set(d, o);
    o += d.length;
  }
  f.descriptors = new Uint32Array(bytes.buffer, 0, n * DESCRIPTOR_WORDS);
  if (vocabulary) {
    f.words = vocabulary.assign(f.descriptors);
    f.vocabulary = vocabulary.id;
  }
  return f;
}

/**
 * Decodes an image and computes its local features for `role`.
 * @throws Error "local features: cannot decode image (…)" when sharp cannot decode it.
 */
export async function extractLocalFeatures(input: ImageInput, role: LocalRole, vocabulary?: Vocabulary): Promise<LocalFeatures> {
  const [cv, raster] = await Promise.all([openCv(), decodeGrey(input, role)]);
  return localFeaturesFromGrey(cv, raster, LOCAL_SETTINGS[role], vocabulary);
}
