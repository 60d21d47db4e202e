/** Synthetic local features for the photo-search unit tests. */
import { DESCRIPTOR_WORDS } from '../../src/core/search/photo/hamming.js';
import type { LocalFeatures } from '../../src/core/search/photo/local-features.js';
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
