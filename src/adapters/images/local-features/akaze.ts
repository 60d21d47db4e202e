/**
 * AKAZE local features of small references and of query photos (
 * docs/search.md): a second feature family beside ORB (extract.ts) for the
 * scene photos of tiny references — a 32-px icon enlarged 6–15× in a scene — that ORB misses.
 * AKAZE's nonlinear scale space finds the same blobs and corners on a 32-px icon blown up to a
 * 480-px raster as on the icon enlarged in a photo, where ORB's FAST corners on the blurry outline
 * do not repeat. The descriptor is OpenCV's MLDB subsampled to 256 bits, so a record has the shape
 * of an ORB record (local-features.ts: 8 uint32 words a keypoint) and the product's index, words
 * and geometry take it unchanged (with its own vocabulary, shipped-vocabulary.ts).
 *
 * Measured at 10,000 references (bench/results.md): used only when the ORB answer
 * has no hit ≥ 0.5, the brute force of bench/photo-akaze-probe.js found scenes first 31 → 35 of 40
 * and scenes with camera effects 33 → 38; the product's index with small-look.ts (its options and
 * scoring) 31 → 37 and 33 → 38, distractors with a hit ≥ 0.5 3 → 4 of 100. Cost a record (CPU, a
 * shared 2-core machine): query p50 82–87 ms, reference (plain + backdrop) p50 89–110 ms.
 */
import { DESCRIPTOR_BITS, DESCRIPTOR_WORDS } from '../../../core/search/photo/hamming.js';
import { emptyLocalFeatures, MAX_KEYPOINTS, type LocalFeatures } from '../../../core/search/photo/local-features.js';
import type { Vocabulary } from '../../../core/search/photo/vocabulary.js';
import { backdropVariant, gridSelect, LOCAL_SETTINGS, resizeGrey, unrepeatedKeypoints, type GreyRaster, type LocalRole } from './extract.js';
import { withMats, type CvAkaze, type CvKeyPointVector, type OpenCv } from './opencv.js';

/**
 * References whose ORIGINAL image is at most this many px on its long side get an AKAZE record
 * beside their ORB one. Why: the scene photos ORB misses are those of tiny references (32–70-px
 * icons and drawings, enlarged 6–15× in the photo: a scene shows them far larger than the picture
 * itself, and ORB's corners of the blurry enlargement do not repeat on the reference's raster);
 * larger references ORB already finds, and an AKAZE record for every reference would about double
 * the index memory (639 keypoints a reference against ORB's 609) and take ~5× ORB's extraction time
 * for no gain (bench/photo-akaze-probe.js at 514 references: scenes of the larger references found
 * first 25 / 24 with AKAZE, 25 / 25 with ORB).
 */
export const SMALL_REFERENCE_SIDE = 70;

/**
 * AKAZE settings of one role (see {@link AKAZE_SETTINGS}).
 * - `maxSide`: the raster (decodeGrey of extract.ts) is shrunk to at most this long side first
 *   (Infinity: as decoded);
 * - `threshold`: AKAZE's detector response threshold (OpenCV's default 0.001 finds a handful of
 *   keypoints on an enlarged icon);
 * - `keypoints`: the budget, the strongest by response (over the grid when `grid` > 0);
 * - `grid`: cells per side of the query's keypoint grid (extract.ts `gridSelect`; 0: global ranking);
 * - `backdropKeypoints`: reference only, the budget on the grey-backdrop variant (extract.ts
 *   `backdropVariant`, LOCAL_SETTINGS.reference.backdrop), its keypoints merged without repeats
 *   (0: no variant);
 * - `repeatBits`: a variant keypoint within 1 px and 0.5 px of size of a plain one whose descriptor
 *   differs by at most this many bits of 256 repeats it and is left out (the probe's 30 of 512,
 *   scaled).
 */
export interface AkazeSettings {
  maxSide: number;
  threshold: number;
  keypoints: number;
  grid: number;
  backdropKeypoints: number;
  repeatBits: number;
}

/**
 * Per role. Reference: threshold 0.0003, the 1,500 strongest keypoints of the decoded raster
 * (320–480 px + 24 px border) plus 0.75 × that on its grey-backdrop variant (the probe's `akaze-bd`
 * family: the backdrop found 2 more scenes than the plain raster alone). Query: threshold 0.0003,
 * 2,000 keypoints over an 8 × 8 grid, on the photo shrunk to 480 px (the probe: 36 of 36 scenes it
 * found at 640 px also found at 480, extraction much cheaper).
 */
export const AKAZE_SETTINGS: Record<LocalRole, AkazeSettings> = {
  reference: { maxSide: Infinity, threshold: 0.0003, keypoints: 1500, grid: 0, backdropKeypoints: 1125, repeatBits: 15 },
  query: { maxSide: 480, threshold: 0.0003, keypoints: 2000, grid: 8, backdropKeypoints: 0, repeatBits: 15 },
};

/** Keypoints and descriptors detected on one raster (before packing). */
interface Detected {
  n: number;
  xs: Float32Array;
  ys: Float32Array;
  angles: Float32Array;
  sizes: Float32Array;
  descriptors: Uint32Array;
}

/** One AKAZE detector per threshold, kept for the process. */
const detectors = new Map<number, CvAkaze>();

function detector(cv: OpenCv, threshold: number): CvAkaze {
  let d = detectors.get(threshold);
  if (!d) {
    // Default construction and setters: the explicit-argument constructor asserts in this build.
    d = new cv.AKAZE();
    d.setThreshold(threshold);
    d.setDescriptorSize(DESCRIPTOR_BITS);
    detectors.set(threshold, d);
  }
  return d;
}

/**
 * AKAZE keypoints and 256-bit descriptors of a grey raster for `role`. `raster` is what
 * `decodeGrey(input, role)` (extract.ts) returns; a query raster is first shrunk to a long side of
 * at most {@link AKAZE_SETTINGS}.query.maxSide, and the record's coordinates, `width` and `height`
 * are those of the raster AKAZE ran on. Reference role: also the grey-backdrop variant's keypoints
 * that do not repeat one of the plain raster's, at most MAX_KEYPOINTS in all. Descriptors are
 * DESCRIPTOR_WORDS uint32 a keypoint, the layout of ORB's; `words` are assigned with `vocabulary`
 * when given (`vocabulary` then its id). A raster without structure gives an empty record.
 * Deterministic: the same raster gives the same record.
 */
export function akazeFeaturesFromGrey(cv: OpenCv, raster: GreyRaster, role: LocalRole, vocabulary?: Vocabulary): LocalFeatures {
  const settings = AKAZE_SETTINGS[role];
  const long = Math.max(raster.width, raster.height);
  const input = long > settings.maxSide ? resizeGrey(cv, raster, settings.maxSide / long) : raster;
  let found = detect(cv, input.data, input.width, input.height, settings.threshold, settings.keypoints, settings.grid);
  const backdrop = LOCAL_SETTINGS.reference.backdrop;
  if (settings.backdropKeypoints > 0 && backdrop) {
    const variant = backdropVariant(input, backdrop);
    if (variant) found = merge(found, detect(cv, variant, input.width, input.height, settings.threshold, settings.backdropKeypoints, 0), settings.repeatBits, MAX_KEYPOINTS);
  }
  const f = emptyLocalFeatures(input.width, input.height);
  const n = Math.min(found.n, MAX_KEYPOINTS);
  if (n === 0) return f;
  f.count = n;
  f.xs = found.xs.slice(0, n);
  f.ys = found.ys.slice(0, n);
  f.angles = found.angles.slice(0, n);
  f.sizes = found.sizes.slice(0, n);
  f.descriptors = found.descriptors.slice(0, n * DESCRIPTOR_WORDS);
  if (vocabulary) {
    f.words = vocabulary.assign(f.descriptors);
    f.vocabulary = vocabulary.id;
  }
  return f;
}

/**
 * The `budget` strongest keypoints of one raster (over a `grid` × `grid` grid when `grid` > 0,
 * strongest by response otherwise, ties by detection order) with their descriptors, from ONE
 * detectAndCompute call: this build's AKAZE `compute` builds the scale space again, so detecting
 * then describing the chosen keypoints costs ~1.6× as much as describing all of them at once.
 */
function detect(cv: OpenCv, data: Uint8Array, width: number, height: number, threshold: number, budget: number, grid: number): Detected {
  const image = cv.matFromArray(height, width, cv.CV_8UC1, data);
  const mask = new cv.Mat();
  const kps = new cv.KeyPointVector();
  const desc = new cv.Mat();
  return withMats([image, mask, kps, desc], () => {
    detector(cv, threshold).detectAndCompute(image, mask, kps, desc);
    const total = Math.min(kps.size(), desc.rows);
    const bytesPer = DESCRIPTOR_WORDS * 4;
    if (total === 0 || desc.cols !== bytesPer) return detected(0);
    const chosen = choose(kps, total, width, height, budget, grid);
    const out = detected(chosen.length);
    const bytes = new Uint8Array(out.descriptors.buffer);
    const all = desc.data;
    chosen.forEach((i, k) => {
      const p = kps.get(i);
      out.xs[k] = p.pt.x;
      out.ys[k] = p.pt.y;
      out.angles[k] = p.angle;
      out.sizes[k] = p.size;
      // Copied out of the wasm heap (the Mat's buffer is freed with it).
      bytes.set(all.subarray(i * bytesPer, (i + 1) * bytesPer), k * bytesPer);
    });
    return out;
  });
}

/** Indexes of the keypoints kept of the first `total` of `kps` (see {@link detect}). */
function choose(kps: CvKeyPointVector, total: number, width: number, height: number, budget: number, grid: number): number[] {
  const view = { size: () => total, get: (i: number) => kps.get(i) };
  if (grid > 0) return gridSelect(view, width, height, grid, budget);
  const response = Float64Array.from({ length: total }, (_, i) => kps.get(i).response);
  const order = Array.from({ length: total }, (_, i) => i);
  order.sort((a, b) => (response[b] ?? 0) - (response[a] ?? 0) || a - b);
  return order.slice(0, budget);
}

/** Empty arrays for `n` keypoints. */
function detected(n: number): Detected {
  return { n, xs: new Float32Array(n), ys: new Float32Array(n), angles: new Float32Array(n), sizes: new Float32Array(n), descriptors: new Uint32Array(n * DESCRIPTOR_WORDS) };
}

/**
 * `base` followed by the keypoints of `extra` that do not repeat one of `base`'s (extract.ts
 * `unrepeatedKeypoints`, `repeatBits` of 256), `limit` keypoints in all.
 */
function merge(base: Detected, extra: Detected, repeatBits: number, limit: number): Detected {
  const kept = unrepeatedKeypoints({ ...base, count: base.n }, { ...extra, count: extra.n }, repeatBits, limit);
  if (kept.length === 0) return base;
  const out = detected(base.n + kept.length);
  out.xs.set(base.xs);
  out.ys.set(base.ys);
  out.angles.set(base.angles);
  out.sizes.set(base.sizes);
  out.descriptors.set(base.descriptors);
  kept.forEach((i, k) => {
    const to = base.n + k;
    out.xs[to] = extra.xs[i] ?? 0;
    out.ys[to] = extra.ys[i] ?? 0;
    out.angles[to] = extra.angles[i] ?? 0;
    out.sizes[to] = extra.sizes[i] ?? 0;
    out.descriptors.set(extra.descriptors.subarray(i * DESCRIPTOR_WORDS, (i + 1) * DESCRIPTOR_WORDS), to * DESCRIPTOR_WORDS);
  });
  return out;
}
