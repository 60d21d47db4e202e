import { describe, expect, it } from 'vitest';
import {
  ENCODED_LENGTH,
  FEATURE_VERSION,
  HASH_WORDS,
  ImageFeatureIndex,
  VECTOR_LENGTH,
  VIEW_COUNT,
  decodeFeatures,
  encodeFeatures,
  featuresFromRgb,
  rankParts,
  similarity,
} from './image-similarity.js';
import type { Features, ImageHit } from './image-similarity.js';

/** A synthetic RGB image: white background with a few coloured shapes, parameterised by `seed`. */
function drawing(seed: number, width = 96, height = 80): Uint8Array {
  const px = new Uint8Array(width * height * 3).fill(255);
  let s = seed * 2654435761 + 1;
  const rnd = (): number => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 4294967296;
  };
  for (let shape = 0; shape < 4; shape++) {
    const cx = rnd() * width;
    const cy = rnd() * height;
    const r = 6 + rnd() * 20;
    const colour = [rnd() * 255, rnd() * 255, rnd() * 255];
    const disc = rnd() < 0.5;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const inside = disc ? (x - cx) ** 2 + (y - cy) ** 2 < r * r : Math.abs(x - cx) < r && Math.abs(y - cy) < r / 2;
        if (!inside) continue;
        const o = (y * width + x) * 3;
        px[o] = colour[0] ?? 0;
        px[o + 1] = colour[1] ?? 0;
        px[o + 2] = colour[2] ?? 0;
      }
    }
  }
  return px;
}

/** Crops `fraction` of the width and height off each edge of an RGB image (pure JS). */
function crop(px: Uint8Array, width: number, height: number, fraction: number): { px: Uint8Array; width: number; height: number } {
  const left = Math.round(width * fraction);
  const top = Math.round(height * fraction);
  const w = width - 2 * left;
  const h = height - 2 * top;
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) out.set(px.subarray(((y + top) * width + left) * 3, ((y + top) * width + left + w) * 3), y * w * 3);
  return { px: out, width: w, height: h };
}

/** Multiplies every sample by `factor` (clipped), like a brightness change. */
function brighten(px: Uint8Array, factor: number): Uint8Array {
  return px.map((v) => Math.min(255, Math.round(v * factor)));
}

const W = 96;
const H = 80;
const features = (seed: number): Features => featuresFromRgb(drawing(seed), W, H);

describe('featuresFromRgb', () => {
  it('produces arrays of the documented shape', () => {
    const f = features(1);
    expect(f.vectors).toHaveLength(VIEW_COUNT * VECTOR_LENGTH);
    expect(f.invNorms).toHaveLength(VIEW_COUNT);
    expect(f.hashes).toHaveLength(VIEW_COUNT * HASH_WORDS);
    expect(f.meanRgb).toHaveLength(3);
    expect(f.flat).toBe(false);
  });

  it('accepts RGBA and ignores the alpha samples', () => {
    const rgb = drawing(2);
    const rgba = new Uint8Array(W * H * 4);
    for (let i = 0; i < W * H; i++) rgba.set([rgb[i * 3] ?? 0, rgb[i * 3 + 1] ?? 0, rgb[i * 3 + 2] ?? 0, i % 256], i * 4);
    expect(featuresFromRgb(rgba, W, H, 4)).toEqual(featuresFromRgb(rgb, W, H, 3));
  });

  it('rejects bad sizes and short buffers', () => {
    expect(() => featuresFromRgb(new Uint8Array(10), 0, 5)).toThrow(RangeError);
    expect(() => featuresFromRgb(new Uint8Array(10), 4, 4)).toThrow(/bytes/);
  });

  it('marks a uniform image as flat; flat images match by colour only', () => {
    const white = featuresFromRgb(new Uint8Array(32 * 32 * 3).fill(255), 32, 32);
    const grey = featuresFromRgb(new Uint8Array(32 * 32 * 3).fill(128), 32, 32);
    expect(white.flat).toBe(true);
    expect(similarity(white, white)).toBe(1);
    expect(similarity(white, grey)).toBeLessThan(1);
    expect(similarity(white, features(3))).toBe(0);
  });
});

describe('encodeFeatures / decodeFeatures', () => {
  it('round-trips', () => {
    const f = features(4);
    const bytes = encodeFeatures(f);
    expect(bytes).toHaveLength(ENCODED_LENGTH);
    expect(bytes[2]).toBe(FEATURE_VERSION);
    const back = decodeFeatures(bytes);
    expect(back).toEqual(f);
    expect(similarity(back, f)).toBeCloseTo(1, 6);
  });

  it('decodes from a view at an unaligned offset', () => {
    const bytes = encodeFeatures(features(5));
    const padded = new Uint8Array(bytes.length + 3);
    padded.set(bytes, 3);
    expect(decodeFeatures(padded.subarray(3))).toEqual(decodeFeatures(bytes));
  });

  it('throws on a bad magic, version or length', () => {
    const bytes = encodeFeatures(features(6));
    const wrongVersion = bytes.slice();
    wrongVersion[2] = 99;
    expect(() => decodeFeatures(wrongVersion)).toThrow(/version 99/);
    expect(() => decodeFeatures(bytes.subarray(0, bytes.length - 1))).toThrow(/bytes/);
    expect(() => decodeFeatures(new Uint8Array([1, 2, 3]))).toThrow(/not an image feature record/);
    const wrongViews = bytes.slice();
    wrongViews[3] = 7;
    expect(() => decodeFeatures(wrongViews)).toThrow(/views/);
  });

  it('refuses to encode features of the wrong shape', () => {
    const f = features(7);
    expect(() => encodeFeatures({ ...f, invNorms: new Float32Array(1) })).toThrow(RangeError);
  });
});

describe('similarity', () => {
  it('is highest for identical features and symmetric', () => {
    const a = features(10);
    const b = features(11);
    expect(similarity(a, a)).toBeCloseTo(1, 6);
    expect(similarity(a, b)).toBeLessThan(similarity(a, a));
    expect(similarity(a, b)).toBeCloseTo(similarity(b, a), 10);
  });

  it('stays high for a 5 % crop and a brightness change of the same image', () => {
    const px = drawing(12);
    const original = featuresFromRgb(px, W, H);
    const c = crop(px, W, H, 0.05);
    const cropped = featuresFromRgb(c.px, c.width, c.height);
    const bright = featuresFromRgb(brighten(px, 1.1), W, H);
    const other = features(13);
    expect(similarity(original, cropped)).toBeGreaterThan(0.95);
    expect(similarity(original, bright)).toBeGreaterThan(0.95);
    expect(similarity(original, cropped)).toBeGreaterThan(similarity(original, other));
  });
});

describe('ImageFeatureIndex', () => {
  const build = (count: number): ImageFeatureIndex => {
    const index = new ImageFeatureIndex();
    for (let i = 0; i < count; i++) index.add(`img${i}`, `part${i % 5}`, features(100 + i));
    return index;
  };

  it('finds an image by its own features first, best first', () => {
    const index = build(30);
    expect(index.size).toBe(30);
    for (const i of [0, 7, 29]) {
      const hits = index.query(features(100 + i), 5);
      expect(hits).toHaveLength(5);
      expect(hits[0]?.image_id).toBe(`img${i}`);
      expect(hits[0]?.part_id).toBe(`part${i % 5}`);
      expect(hits[0]?.score).toBeCloseTo(1, 6);
      for (let h = 1; h < hits.length; h++) expect(hits[h]?.score ?? 2).toBeLessThanOrEqual(hits[h - 1]?.score ?? -2);
    }
  });

  it('gives the same answer with the shortlist as exhaustively', () => {
    const index = build(300);
    const q = featuresFromRgb(brighten(drawing(100 + 42), 1.1), W, H);
    expect(index.query(q, 3, { shortlist: 20 })).toEqual(index.query(q, 3, { shortlist: 0 }));
  });

  it('removes images, keeping the others findable', () => {
    const index = build(10);
    expect(index.remove('img3')).toBe(true);
    expect(index.remove('img3')).toBe(false);
    expect(index.remove('nope')).toBe(false);
    expect(index.size).toBe(9);
    expect(index.query(features(103), 10).map((h) => h.image_id)).not.toContain('img3');
    // img9 moved into img3's slot: still found with its own part.
    expect(index.query(features(109), 1)[0]).toMatchObject({ image_id: 'img9', part_id: 'part4' });
    for (let i = 0; i < 10; i++) index.remove(`img${i}`);
    expect(index.size).toBe(0);
    expect(index.query(features(100), 3)).toEqual([]);
  });

  it('replaces an image added twice under the same id', () => {
    const index = new ImageFeatureIndex();
    index.add('a', 'p1', features(1));
    index.add('a', 'p2', features(2));
    expect(index.size).toBe(1);
    expect(index.query(features(2), 1)[0]).toMatchObject({ image_id: 'a', part_id: 'p2' });
  });

  it('rejects a bad k', () => {
    expect(() => build(2).query(features(1), 0)).toThrow(RangeError);
  });
});

describe('rankParts', () => {
  it('takes the best image per part, best part first', () => {
    const hits: ImageHit[] = [
      { image_id: 'a1', part_id: 'A', score: 0.7 },
      { image_id: 'b1', part_id: 'B', score: 0.9 },
      { image_id: 'a2', part_id: 'A', score: 0.95 },
      { image_id: 'c1', part_id: 'C', score: 0.2 },
      { image_id: 'b2', part_id: 'B', score: 0.5 },
    ];
    expect(rankParts(hits)).toEqual([
      { part_id: 'A', score: 0.95, image_id: 'a2' },
      { part_id: 'B', score: 0.9, image_id: 'b1' },
      { part_id: 'C', score: 0.2, image_id: 'c1' },
    ]);
    expect(rankParts([])).toEqual([]);
  });
});
