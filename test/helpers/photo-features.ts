/** Synthetic local features for the photo-search unit tests. */
import { DESCRIPTOR_WORDS } from '../../src/core/search/photo/hamming.js';
import { encodeFeatures, type Features } from '../../src/core/search/image-similarity.js';
import { encodeLocalFeatures, LOCAL_FEATURE_VERSION, type LocalFeatures } from '../../src/core/search/photo/local-features.js';
import { rng } from './random.js';

/** n random keypoints with random descriptors on a w × h raster (no words: the index assigns them). */
export function randomFeatures(n: number, w: number, h: number, seed: number): LocalFeatures {
  const r = rng(seed);
  const f: LocalFeatures = {
    width: w, height: h, count: n, xs: new Float32Array(n), ys: new Float32Array(n), angles: new Float32Array(n),
    sizes: new Float32Array(n), descriptors: new Uint32Array(n * DESCRIPTOR_WORDS), words: new Uint16Array(0), vocabulary: 0,
  };
  for (let i = 0; i < n; i++) {
    f.xs[i] = r() * w;
    f.ys[i] = r() * h;
    f.angles[i] = r() * 360;
    f.sizes[i] = 21 * 1.2 ** Math.floor(r() * 4);
    for (let k = 0; k < DESCRIPTOR_WORDS; k++) f.descriptors[i * DESCRIPTOR_WORDS + k] = Math.floor(r() * 2 ** 32) >>> 0;
  }
  return f;
}

/**
 * A stored record in the layout of feature versions 2 and 3 (no AKAZE record for small references):
 * "PF", `version`, the local format version, the ORB vocabulary id (uint16 LE), the global record's
 * length (uint32 LE), the global record, the local record — what catalogs written before version 4
 * hold.
 */
export function olderPhotoRecord(global: Features, local: LocalFeatures, version: 2 | 3): Uint8Array {
  const g = encodeFeatures(global);
  const l = encodeLocalFeatures(local);
  const out = new Uint8Array(10 + g.length + l.length);
  out.set([0x50, 0x46, version, LOCAL_FEATURE_VERSION, local.vocabulary & 0xff, (local.vocabulary >>> 8) & 0xff]);
  new DataView(out.buffer).setUint32(6, g.length, true);
  out.set(g, 10);
  out.set(l, 10 + g.length);
  return out;
}

/** `ref`'s keypoints shifted by (tx, ty) with `flip` descriptor bits flipped each, then `clutter` random keypoints. */
export function noisyPhotoOf(ref: LocalFeatures, tx: number, ty: number, flip: number, clutter: number, seed: number): LocalFeatures {
  const r = rng(seed);
  const out = randomFeatures(ref.count + clutter, 640, 480, seed + 1);
  for (let i = 0; i < ref.count; i++) {
    out.xs[i] = (ref.xs[i] ?? 0) + tx;
    out.ys[i] = (ref.ys[i] ?? 0) + ty;
    out.angles[i] = ref.angles[i] ?? 0;
    out.sizes[i] = ref.sizes[i] ?? 0;
    out.descriptors.set(ref.descriptors.subarray(i * DESCRIPTOR_WORDS, (i + 1) * DESCRIPTOR_WORDS), i * DESCRIPTOR_WORDS);
    for (let b = 0; b < flip; b++) {
      const bit = Math.floor(r() * 256);
      const at = i * DESCRIPTOR_WORDS + (bit >>> 5);
      out.descriptors[at] = ((out.descriptors[at] ?? 0) ^ (1 << (bit & 31))) >>> 0;
    }
  }
  return out;
}
