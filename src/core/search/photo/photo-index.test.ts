import { describe, expect, it } from 'vitest';
import { randomFeatures } from '../../../../test/helpers/photo-features.js';
import { rng } from '../../../../test/helpers/random.js';
import { featuresFromRgb } from '../image-similarity.js';
import { CONFIDENT_SCORE, fuse, globalConfidence, localConfidence } from './confidence.js';
import { matchSet, verify } from './geometry.js';
import { DESCRIPTOR_WORDS } from './hamming.js';
import { decodeLocalFeatures, encodeLocalFeatures, type LocalFeatures } from './local-features.js';
import { DEFAULT_SPLIT_PROBES, PhotoIndex, type PhotoIndexOptions } from './photo-index.js';
import { decodePhotoFeatures, encodePhotoFeatures, PhotoReferenceIndex } from './photo-search.js';
import { trainVocabulary } from './vocabulary.js';

/**
 * A "photo" of `ref`: its keypoints turned by `deg`, scaled by `scale` and moved by (tx, ty), with
 * `flip` descriptor bits flipped each, and `clutter` random keypoints added.
 */
function photoOf(ref: LocalFeatures, deg: number, scale: number, tx: number, ty: number, flip: number, clutter: number, seed: number): LocalFeatures {
  const r = rng(seed);
  const extra = randomFeatures(clutter, 640, 480, seed + 1);
  const n = ref.count + clutter;
  const out = randomFeatures(n, 640, 480, seed + 2);
  const c = Math.cos((deg * Math.PI) / 180) * scale;
  const s = Math.sin((deg * Math.PI) / 180) * scale;
  for (let i = 0; i < ref.count; i++) {
    const x = ref.xs[i] ?? 0;
    const y = ref.ys[i] ?? 0;
    out.xs[i] = c * x - s * y + tx + (r() - 0.5);
    out.ys[i] = s * x + c * y + ty + (r() - 0.5);
    out.angles[i] = ((ref.angles[i] ?? 0) + deg + 360) % 360;
    out.sizes[i] = (ref.sizes[i] ?? 0) * scale;
    out.descriptors.set(ref.descriptors.subarray(i * DESCRIPTOR_WORDS, (i + 1) * DESCRIPTOR_WORDS), i * DESCRIPTOR_WORDS);
    for (let b = 0; b < flip; b++) {
      const bit = Math.floor(r() * 256);
      const at = i * DESCRIPTOR_WORDS + (bit >>> 5);
      out.descriptors[at] = ((out.descriptors[at] ?? 0) ^ (1 << (bit & 31))) >>> 0;
    }
  }
  for (let i = 0; i < clutter; i++) {
    const o = ref.count + i;
    out.xs[o] = extra.xs[i] ?? 0;
    out.ys[o] = extra.ys[i] ?? 0;
    out.angles[o] = extra.angles[i] ?? 0;
    out.sizes[o] = extra.sizes[i] ?? 0;
    out.descriptors.set(extra.descriptors.subarray(i * DESCRIPTOR_WORDS, (i + 1) * DESCRIPTOR_WORDS), o * DESCRIPTOR_WORDS);
  }
  return out;
}

const refs = Array.from({ length: 30 }, (_, i) => randomFeatures(150, 400, 300, 100 + i));
const training = new Uint32Array(refs.flatMap((f) => [...f.descriptors]));
const vocabulary = trainVocabulary(training, 8, 8, 3, 7, 99);

describe('geometry.verify', () => {
  it('finds every match of a rotated, scaled, shifted copy among random matches', () => {
    const ref = refs[0] as LocalFeatures;
    const photo = photoOf(ref, 37, 0.8, 120, 40, 0, 0, 5);
    const set = matchSet(ref.count + 50);
    const r = rng(3);
    for (let i = 0; i < ref.count + 50; i++) {
      const inlier = i < ref.count;
      set.qx[i] = inlier ? (photo.xs[i] ?? 0) : r() * 640;
      set.qy[i] = inlier ? (photo.ys[i] ?? 0) : r() * 480;
      set.qa[i] = inlier ? (photo.angles[i] ?? 0) : r() * 360;
      set.qs[i] = inlier ? (photo.sizes[i] ?? 0) : 21;
      const j = inlier ? i : Math.floor(r() * ref.count);
      set.rx[i] = ref.xs[j] ?? 0;
      set.ry[i] = ref.ys[j] ?? 0;
      set.ra[i] = ref.angles[j] ?? 0;
      set.rs[i] = ref.sizes[j] ?? 0;
      set.dist[i] = inlier ? 10 : 40;
      set.qi[i] = i;
      set.ri[i] = inlier ? i : 1000 + i;
    }
    set.n = ref.count + 50;
    const v = verify(set, { tolerance: 6 });
    expect(v.inliers).toBeGreaterThanOrEqual(ref.count - 2);
    expect(v.inliers).toBeLessThanOrEqual(ref.count + 2);
    expect(v.scale).toBeCloseTo(0.8, 1);
    expect(v.rotation).toBeGreaterThan(30);
    expect(v.rotation).toBeLessThan(44);
  });

  /** Matches of `ref` seen at an angle: its far (top) side 30 % shorter and shifted 8 % sideways, plus `chance` random matches. */
  function tiltedMatches(ref: LocalFeatures, chance: number, seed: number): ReturnType<typeof matchSet> {
    // Homography taking the reference's 400 × 300 frame to a trapezoid of a 640 × 480 photo.
    const h = [0.8, -0.1, 0.2, 0.7, 120, 60, 0, -0.001];
    const [a11 = 0, a12 = 0, a21 = 0, a22 = 0, tx = 0, ty = 0, p1 = 0, p2 = 0] = h;
    const r = rng(seed);
    const n = ref.count + chance;
    const set = matchSet(n);
    for (let i = 0; i < n; i++) {
      const inlier = i < ref.count;
      const j = inlier ? i : Math.floor(r() * ref.count);
      const x = ref.xs[j] ?? 0;
      const y = ref.ys[j] ?? 0;
      const w = p1 * x + p2 * y + 1;
      set.qx[i] = inlier ? (a11 * x + a12 * y + tx) / w + (r() - 0.5) : r() * 640;
      set.qy[i] = inlier ? (a21 * x + a22 * y + ty) / w + (r() - 0.5) : r() * 480;
      set.qa[i] = inlier ? (ref.angles[j] ?? 0) : r() * 360;
      set.qs[i] = (ref.sizes[j] ?? 0) * (inlier ? 1 / w : 1);
      set.rx[i] = x;
      set.ry[i] = y;
      set.ra[i] = ref.angles[j] ?? 0;
      set.rs[i] = ref.sizes[j] ?? 0;
      set.dist[i] = inlier ? 10 + r() * 20 : 10 + r() * 30;
      set.qi[i] = i;
      set.ri[i] = inlier ? i : 1000 + i;
    }
    set.n = n;
    return set;
  }

  it('keeps nearly every match of a part seen at an angle (a homography, not one similarity)', () => {
    const ref = refs[1] as LocalFeatures;
    const v = verify(tiltedMatches(ref, 100, 11), { tolerance: 6.4 });
    expect(v.inliers).toBeGreaterThanOrEqual(ref.count * 0.9);
    expect(v.homography).toBeDefined();
  });

  it('does not bend chance matches into a hit: random matches keep few inliers', () => {
    const ref = refs[2] as LocalFeatures;
    const set = tiltedMatches(ref, 300, 12);
    // Every match a chance one: drop the true ones.
    set.qx.copyWithin(0, ref.count);
    for (const a of [set.qy, set.qa, set.qs, set.rx, set.ry, set.ra, set.rs, set.dist]) a.copyWithin(0, ref.count);
    set.qi.copyWithin(0, ref.count);
    set.ri.copyWithin(0, ref.count);
    set.n = 300;
    expect(verify(set, { tolerance: 6.4 }).inliers).toBeLessThan(8);
  });
});

describe('PhotoIndex', () => {
  const index = new PhotoIndex(vocabulary);
  refs.forEach((f, i) => index.add(`img${i}`, `part${i}`, f));

  it('finds the reference of a turned, zoomed photo with clutter first, with many inliers', () => {
    for (const i of [0, 7, 21]) {
      const photo = photoOf(refs[i] as LocalFeatures, 90 + i, 1.3, 30, 20, 12, 400, 50 + i);
      const hits = index.query(photo, { multiAssign: 3 });
      expect(hits[0]?.part_id).toBe(`part${i}`);
      expect(hits[0]?.inliers ?? 0).toBeGreaterThan(40);
      expect(localConfidence(hits[0]?.inliers ?? 0)).toBeGreaterThan(CONFIDENT_SCORE);
    }
  });

  it('gives a photo of something else no confident hit', () => {
    const hits = index.query(randomFeatures(1000, 640, 480, 999));
    expect(localConfidence(hits[0]?.inliers ?? 0)).toBeLessThan(CONFIDENT_SCORE);
  });

  it('forgets a removed image', () => {
    const photo = photoOf(refs[3] as LocalFeatures, 10, 1, 0, 0, 0, 0, 8);
    expect(index.query(photo)[0]?.image_id).toBe('img3');
    expect(index.remove('img3')).toBe(true);
    expect(index.query(photo).map((h) => h.image_id)).not.toContain('img3');
    expect(index.size).toBe(29);
  });
});

describe('PhotoIndex consistentVotes', () => {
  const index = new PhotoIndex(vocabulary);
  refs.forEach((f, i) => index.add(`img${i}`, `part${i}`, f));

  /**
   * A photo in which part 5 keeps 10 keypoints, all turned by 20°, and ten other parts 14 each,
   * at random places, orientations and sizes (the clutter sharing their words).
   */
  function coveredPhoto(): LocalFeatures {
    const kept = photoOf(refs[5] as LocalFeatures, 20, 1, 60, 40, 0, 0, 77);
    const n = 10 + 10 * 14;
    const out = randomFeatures(n, 640, 480, 78);
    const r = rng(79);
    for (let i = 0; i < 10; i++) {
      out.xs[i] = kept.xs[i] ?? 0;
      out.ys[i] = kept.ys[i] ?? 0;
      out.angles[i] = kept.angles[i] ?? 0;
      out.sizes[i] = kept.sizes[i] ?? 0;
      out.descriptors.set(kept.descriptors.subarray(i * DESCRIPTOR_WORDS, (i + 1) * DESCRIPTOR_WORDS), i * DESCRIPTOR_WORDS);
    }
    for (let p = 0; p < 10; p++) {
      const other = refs[10 + p] as LocalFeatures;
      for (let k = 0; k < 14; k++) {
        const o = 10 + p * 14 + k;
        out.sizes[o] = (other.sizes[k] ?? 21) * 2 ** (r() * 2 - 1);
        out.descriptors.set(other.descriptors.subarray(k * DESCRIPTOR_WORDS, (k + 1) * DESCRIPTOR_WORDS), o * DESCRIPTOR_WORDS);
      }
    }
    return out;
  }

  it('shortlists the image whose few votes agree on one turn and size over images with more, scattered votes', () => {
    const photo = coveredPhoto();
    expect(index.query(photo, { shortlist: 3 }).map((h) => h.part_id)).not.toContain('part5');
    expect(index.query(photo, { shortlist: 3, consistentVotes: 30 })[0]?.part_id).toBe('part5');
  });
});

describe('records', () => {
  it('local features survive encoding (positions to 1/8 px, angles to 0.01°)', () => {
    const f = randomFeatures(20, 400, 300, 1);
    f.words = vocabulary.assign(f.descriptors);
    f.vocabulary = vocabulary.id;
    const back = decodeLocalFeatures(encodeLocalFeatures(f));
    expect(back.count).toBe(20);
    expect([...back.descriptors]).toEqual([...f.descriptors]);
    expect([...back.words]).toEqual([...f.words]);
    expect(back.vocabulary).toBe(99);
    for (let i = 0; i < 20; i++) {
      expect(Math.abs((back.xs[i] ?? 0) - (f.xs[i] ?? 0))).toBeLessThanOrEqual(1 / 16);
      expect(Math.abs((back.angles[i] ?? 0) - (f.angles[i] ?? 0))).toBeLessThan(0.01);
    }
  });

  it('decodes a record inside a larger, odd-offset buffer (a Node Buffer from the database) exactly', () => {
    const f = randomFeatures(30, 400, 300, 3);
    f.words = vocabulary.assign(f.descriptors);
    f.vocabulary = vocabulary.id;
    const encoded = encodeLocalFeatures(f);
    // Buffer.slice() is a view of its pool, so a decoder that copies with it reads the wrong bytes.
    const pool = Buffer.alloc(encoded.length + 101, 0xab);
    pool.set(encoded, 37);
    const back = decodeLocalFeatures(pool.subarray(37, 37 + encoded.length));
    expect([...back.descriptors]).toEqual([...f.descriptors]);
    expect([...back.words]).toEqual([...f.words]);
    expect(back.xs[7]).toBeCloseTo(f.xs[7] ?? 0, 0);
  });

  it('reads version 2 records and version 1 (global only) records', () => {
    const rgb = new Uint8Array(32 * 32 * 3).map((_, i) => (i * 37) % 251);
    const global = featuresFromRgb(rgb, 32, 32);
    const local = randomFeatures(5, 32, 32, 2);
    const v2 = decodePhotoFeatures(encodePhotoFeatures(global, local));
    expect(v2.local?.count).toBe(5);
    expect([...v2.global.vectors]).toEqual([...global.vectors]);
    const index = new PhotoReferenceIndex(vocabulary);
    index.add('a', 'p', v2);
    expect(index.size).toBe(1);
    expect(() => decodePhotoFeatures(Uint8Array.of(1, 2, 3))).toThrow();
  });
});

describe('confidence', () => {
  it('is monotone, in [0, 1], and crosses the threshold at the documented points', () => {
    expect(localConfidence(0)).toBe(0);
    expect(localConfidence(100)).toBeGreaterThan(0.99);
    expect(globalConfidence(0.99)).toBeGreaterThan(0.95);
    expect(globalConfidence(0.8)).toBeLessThan(0.01);
    const parts = fuse(
      [{ image_id: 'a', part_id: 'A', inliers: 30, matches: 50, votes: 1, rotation: 0, scale: 1, model: [1, 0, 0, 1, 0, 0] }],
      [{ image_id: 'b', part_id: 'B', score: 0.7 }, { image_id: 'a', part_id: 'A', score: 0.5 }],
    );
    expect(parts.map((p) => p.part_id)).toEqual(['A', 'B']);
    expect(parts[0]?.score).toBeGreaterThan(CONFIDENT_SCORE);
    expect(parts[1]?.score).toBeLessThan(CONFIDENT_SCORE);
  });
});

describe('PhotoIndex memory layout', () => {
  // References as the index loads them at start-up: decoded from their stored records.
  // Siblings (look-alikes: the same keypoints with 20–35 bits flipped) make queries match several images.
  const siblings = refs.slice(0, 10).map((f, i) => photoOf(f, 3 * i, 1, 5, 5, 20 + i, 40, 300 + i));
  const stored = [...refs, ...siblings].map((f) => {
    const g = { ...f, words: vocabulary.assign(f.descriptors), vocabulary: vocabulary.id };
    return decodeLocalFeatures(encodeLocalFeatures(g));
  });
  const queries = [0, 4, 9, 13, 22, 29, 31, 35].map((i, k) => photoOf(stored[i] as LocalFeatures, 15 + 40 * k, 0.7 + 0.1 * k, 25, 10, 18 + k, 300, 700 + k));

  /** Every hit of every query, rounded past float noise: what the layout must not change. */
  function answers(index: PhotoIndex): string {
    return JSON.stringify(queries.map((q) => index.query(q, { maxDistance: 56, multiAssign: 2, minInliers: 2 }).map((h) => [h.image_id, h.inliers, h.matches, h.votes.toFixed(5), h.rotation.toFixed(3), h.scale.toFixed(4)])));
  }

  it('gives the same matches, inliers and votes as the previous layout on a fixed set', () => {
    const index = new PhotoIndex(vocabulary);
    index.addMany(stored.map((features, i) => ({ imageId: `img${i}`, partId: `part${i}`, features })));
    // Recorded with the previous layout (float32 geometry, commit e257f26) on the same set.
    expect(JSON.parse(answers(index))).toEqual([
      [['img0', 109, 109, '4.62818', '15.022', '0.7000'], ['img30', 71, 71, '1.60990', '15.022', '0.7001']],
      [['img4', 102, 102, '4.22827', '54.994', '0.8004'], ['img34', 68, 68, '1.28552', '42.966', '0.8004']],
      [['img9', 113, 113, '4.55219', '95.000', '0.8997'], ['img39', 54, 70, '1.07860', '67.953', '0.8997']],
      [['img13', 103, 103, '4.07484', '135.017', '0.9998']],
      [['img22', 101, 101, '3.94190', '175.000', '1.1001']],
      [['img29', 97, 97, '3.71789', '-144.977', '1.2001']],
      [['img31', 107, 107, '3.50001', '-104.988', '1.3000'], ['img1', 72, 72, '1.44273', '-102.002', '1.2992']],
      [['img35', 100, 100, '3.21796', '-64.998', '1.4000'], ['img5', 69, 73, '1.22003', '-50.047', '1.3983']],
    ]);
    // The same after removals and one-at-a-time adds (uploads) in another order.
    const upl = new PhotoIndex(vocabulary);
    stored.forEach((features, i) => upl.add(`img${i}`, `part${i}`, features));
    upl.add('gone', 'x', stored[3] as LocalFeatures);
    upl.remove('gone');
    expect(answers(upl)).toBe(answers(index));
  });

  it('answers the same after uploads grew its posting heap, and after they were removed', () => {
    const index = new PhotoIndex(vocabulary);
    index.addMany(stored.map((features, i) => ({ imageId: `img${i}`, partId: `part${i}`, features })));
    const expected = answers(index);
    const heapBefore = index.heapBytes;
    // Uploads of other images (their postings move lists out of the bulk load's arena and grow
    // the heap, which detaches every view of it): the earlier images' answers must not change.
    const extra = Array.from({ length: 60 }, (_, i) => photoOf(refs[i % refs.length] as LocalFeatures, 90, 1.5, 0, 0, 60, 100, 5000 + i));
    extra.forEach((f, i) => index.add(`up${i}`, 'uploads', f));
    expect(index.heapBytes).toBeGreaterThan(heapBefore);
    // Queried while they are there (idf and votes differ then), the uploads are found too.
    expect(index.query(extra[3] as LocalFeatures, { multiAssign: 2 })[0]?.image_id).toBe('up3');
    extra.forEach((_, i) => index.remove(`up${i}`));
    expect(answers(index)).toBe(expected);
  });

  it('holds at most 48 bytes a reference keypoint: descriptor, slot, keypoint number, 16-bit geometry, word', () => {
    const index = new PhotoIndex(vocabulary);
    index.addMany(stored.map((features, i) => ({ imageId: `img${i}`, partId: `part${i}`, features })));
    const keypoints = stored.reduce((n, f) => n + f.count, 0);
    // Before: 54 counted (float32 x, y, angle and size: 16 bytes a keypoint instead of 8), 56 with the words.
    expect((index.memoryBytes - 4 * vocabulary.size) / keypoints).toBeLessThanOrEqual(48);
  });
});

describe('PhotoIndex without the postings of stop words (memory)', () => {
  // A finer vocabulary than above (32 × 32 words), so that some words are stop words and most are not.
  const fine = trainVocabulary(training, 32, 32, 3, 11, 98);
  const siblings = refs.slice(0, 10).map((f, i) => photoOf(f, 3 * i, 1, 5, 5, 20 + i, 40, 300 + i));
  const stored = [...refs, ...siblings].map((f) => decodeLocalFeatures(encodeLocalFeatures({ ...f, words: fine.assign(f.descriptors), vocabulary: fine.id })));
  const queries = [0, 4, 9, 13, 22, 31, 35].map((i, k) => photoOf(stored[i] as LocalFeatures, 20 + 45 * k, 0.8 + 0.1 * k, 25, 10, 16 + k, 300, 900 + k));
  // Without split stop words (split-cells.ts): the case this memory layout is for.
  const load = (dropStopWords: boolean): PhotoIndex => {
    const index = new PhotoIndex(fine, { dropStopWords, minStopDf: 6, maxSplitShare: 0.05 });
    index.addMany(stored.map((features, i) => ({ imageId: `img${i}`, partId: `part${i}`, features })));
    return index;
  };
  const answers = (index: PhotoIndex): string => JSON.stringify(queries.map((q) => index.query(q, { minInliers: 2 }).map((h) => [h.image_id, h.inliers, h.matches, h.votes.toFixed(5)])));

  it('answers exactly as the full index, in less memory', () => {
    const full = load(false);
    const lean = load(true);
    expect(lean.droppedWords).toBeGreaterThan(0);
    expect(lean.droppedWords).toBeLessThan(fine.size / 2);
    const expected = answers(full);
    expect(JSON.parse(expected).every((hits: unknown[]) => hits.length > 0)).toBe(true);
    expect(answers(lean)).toBe(expected);
    expect(lean.memoryBytes).toBeLessThan(full.memoryBytes * 0.9);
    // Uploads and removals after the load: still the same answers.
    for (const index of [full, lean]) {
      index.add('extra', 'x', stored[5] as LocalFeatures);
      index.remove('img39');
    }
    expect(lean.complete).toBe(true);
    expect(answers(lean)).toBe(answers(full));
  });

  it('says when a dropped word could be scanned again, and refuses to answer without it', () => {
    const lean = load(true);
    expect(lean.complete).toBe(true);
    // Removing most images brings every dropped word's document frequency under the stop limit.
    for (let i = 0; i < 36; i++) lean.remove(`img${i}`);
    expect(lean.complete).toBe(false);
    expect(() => lean.query(queries[0] as LocalFeatures)).toThrow(/reload/);
  });
});

describe('PhotoIndex bursty query keypoints', () => {
  // A part with 60 keypoints, and 99 other images each holding look-alikes of every one of them (5
  // bits flipped, at random places): every keypoint of a photo of the part then matches 100 images,
  // more than the burst limit of 64 — as the smooth corners of a small, enlarged icon match many
  // references at 10,000 images.
  const part = randomFeatures(60, 320, 320, 4000);
  const others = Array.from({ length: 99 }, (_, k) => {
    const lookAlike = photoOf(part, 0, 1, 0, 0, 5, 0, 5000 + k);
    const r = rng(6000 + k);
    for (let i = 0; i < lookAlike.count; i++) {
      lookAlike.xs[i] = r() * 320;
      lookAlike.ys[i] = r() * 320;
      lookAlike.angles[i] = r() * 360;
    }
    const filler = randomFeatures(60, 320, 320, 7000 + k);
    const both = randomFeatures(120, 320, 320, 0);
    for (const [src, at] of [[lookAlike, 0], [filler, 60]] as const) {
      both.xs.set(src.xs, at);
      both.ys.set(src.ys, at);
      both.angles.set(src.angles, at);
      both.sizes.set(src.sizes, at);
      both.descriptors.set(src.descriptors, at * DESCRIPTOR_WORDS);
    }
    // Stored under the part's own words (a look-alike's word may differ; here every one is scanned).
    both.words = vocabulary.assign(both.descriptors);
    both.words.set(vocabulary.assign(part.descriptors), 0);
    both.vocabulary = vocabulary.id;
    return both;
  });
  const index = new PhotoIndex(vocabulary);
  index.addMany([part, ...others].map((features, i) => ({ imageId: `img${i}`, partId: `part${i}`, features })));
  const photo = photoOf(part, 25, 0.9, 150, 60, 2, 500, 8000);

  it('keeps the nearest matches of a keypoint that matches too many images, so the part is still found', () => {
    const hits = index.query(photo, { multiAssign: 2 });
    expect(hits[0]?.image_id).toBe('img0');
    expect(hits[0]?.inliers ?? 0).toBeGreaterThan(40);
    expect(localConfidence(hits[0]?.inliers ?? 0, hits[0]?.matches)).toBeGreaterThan(CONFIDENT_SCORE);
    // The look-alikes' matches (kept up to the limit) are scattered: none of them lines up.
    for (const h of hits.slice(1)) expect(h.inliers).toBeLessThan(10);
  });

  it('dropping every match of such a keypoint (the rule before) loses the part', () => {
    const hits = index.query(photo, { multiAssign: 2, burstKeep: 0 });
    expect(hits.map((h) => h.image_id)).not.toContain('img0');
  });
});

describe('PhotoIndex split stop words', () => {
  // 300 clutter images of 100 random keypoints: with 64 words, every word is held by ~80 % of the
  // images, so every word is a stop word (the limit is max(10, 5 % of the images) here) and a part's
  // keypoints match only through the cells of split words.
  const stored = (f: LocalFeatures): LocalFeatures => ({ ...f, words: vocabulary.assign(f.descriptors), vocabulary: vocabulary.id });
  const clutter = Array.from({ length: 300 }, (_, k) => stored(randomFeatures(100, 320, 320, 20_000 + k)));
  const part = stored(randomFeatures(80, 320, 320, 30_000));
  const photo = photoOf(part, 30, 0.9, 60, 40, 10, 300, 31_000);
  const options: PhotoIndexOptions = { minStopDf: 10, maxSplitShare: 1, splitCellSize: 24 };
  const load = (extra: PhotoIndexOptions = {}): PhotoIndex => {
    const index = new PhotoIndex(vocabulary, { ...options, ...extra });
    index.addMany([part, ...clutter].map((features, i) => ({ imageId: `img${i}`, partId: `part${i}`, features })));
    return index;
  };
  const found = (index: PhotoIndex, splitProbes?: number): number => {
    const hits = index.query(photo, { multiAssign: 2, splitProbes });
    return hits[0]?.image_id === 'img0' ? (hits[0]?.inliers ?? 0) : 0;
  };

  it('finds a part whose keypoints all fall into stop words through the nearest cells, and not without them', () => {
    const index = load();
    expect(index.splitWords).toBe(vocabulary.size);
    expect(found(index)).toBeGreaterThan(30);
    // A probe reads a few cells of each word, not the word.
    const postings = [part, ...clutter].reduce((n, f) => n + f.count, 0);
    expect(index.lastStats.compared).toBeLessThan((photo.count * 2 * postings) / vocabulary.size / 2);
    // Stop words not scanned (the rule before), or not split: the part is not found.
    expect(found(index, 0)).toBe(0);
    expect(found(load({ maxSplitShare: 0.05 }))).toBe(0);
    // Every cell probed: the same as scanning the whole words.
    expect(found(index, 64)).toBeGreaterThanOrEqual(found(index, DEFAULT_SPLIT_PROBES));
  });

  it('adds an upload into the cells with the nearest pivots, rebuilds grown cells, and forgets removed images', () => {
    const index = new PhotoIndex(vocabulary, options);
    index.addMany(clutter.map((features, i) => ({ imageId: `img${i + 1}`, partId: `part${i + 1}`, features })));
    const before = index.splitStats();
    expect(before.words).toBe(vocabulary.size);
    expect(found(index)).toBe(0);
    index.add('img0', 'part0', part);
    expect(found(index)).toBeGreaterThan(30);
    // Uploads of alike images (the part's look-alikes, 3 bits apart) pile into the same cells,
    // which are split again once past twice their size.
    for (let k = 0; k < 40; k++) index.add(`alike${k}`, 'alikes', photoOf(part, 0, 1, 0, 0, 3, 0, 32_000 + k));
    const after = index.splitStats();
    expect(after.cells).toBeGreaterThan(before.cells);
    expect(after.largestCell).toBeLessThanOrEqual(2 * 24);
    expect(after.postings).toBe(before.postings + 41 * part.count);
    expect(index.remove('img0')).toBe(true);
    expect(index.query(photo, { multiAssign: 2 }).map((h) => h.image_id)).not.toContain('img0');
    // Removed images' postings leave the cells when the index compacts.
    for (let k = 0; k < 40; k++) index.remove(`alike${k}`);
    for (let i = 1; i <= 120; i++) index.remove(`img${i}`);
    const live = clutter.slice(120).reduce((n, f) => n + f.count, 0);
    expect(index.splitStats().postings).toBeGreaterThanOrEqual(live);
    expect(index.splitStats().postings).toBeLessThan(live + 1000);
    index.add('img0', 'part0', part);
    expect(found(index)).toBeGreaterThan(30);
  });

  it('splits a word that uploads make a stop word, and scans every cell of a word that is one no longer', () => {
    const index = new PhotoIndex(vocabulary, { ...options, minStopDf: 200 });
    index.add('img0', 'part0', part);
    clutter.slice(0, 150).forEach((features, i) => index.add(`img${i + 1}`, `part${i + 1}`, features));
    expect(index.splitWords).toBe(0);
    clutter.slice(150).forEach((features, i) => index.add(`img${i + 151}`, `part${i + 151}`, features));
    expect(index.splitWords).toBeGreaterThan(0);
    expect(found(index)).toBeGreaterThan(30);
    for (let i = 1; i <= 200; i++) index.remove(`img${i}`);
    // Every word is held by fewer than 200 images again: scanned whole, through all its cells, even
    // when a query would probe just one cell of a stop word.
    expect(found(index, 1)).toBeGreaterThan(30);
    const live = part.count + clutter.slice(200).reduce((n, f) => n + f.count, 0);
    expect(index.lastStats.compared).toBeGreaterThan((photo.count * live) / vocabulary.size);
  });

  it('builds the same lists in a bulk load (arena, fill by word groups) as one image at a time', () => {
    const unsplit: PhotoIndexOptions = { minStopDf: 10, maxSplitShare: 0.05 };
    const bulk = new PhotoIndex(vocabulary, unsplit);
    bulk.addMany([part, ...clutter].map((features, i) => ({ imageId: `img${i}`, partId: `part${i}`, features })));
    const single = new PhotoIndex(vocabulary, unsplit);
    [part, ...clutter].forEach((features, i) => single.add(`img${i}`, `part${i}`, features));
    const probe = photoOf(part, 30, 0.9, 60, 40, 10, 30, 31_500);
    const answer = (index: PhotoIndex): unknown => index.query(probe, { multiAssign: 2, maxWordShare: 1 });
    expect(answer(bulk)).toEqual(answer(single));
    expect(bulk.lastStats).toEqual(single.lastStats);
    // Split, from the same bulk load: the same cells as splitting the one-at-a-time lists.
    expect(load().splitStats()).toEqual(load().splitStats());
    expect(found(load())).toBeGreaterThan(30);
  });

  it('counts the cells and pivots in memoryBytes', () => {
    const split = load();
    const whole = load({ maxSplitShare: 0.05 });
    const dropped = load({ maxSplitShare: 0.05, dropStopWords: true });
    const postings = [part, ...clutter].reduce((n, f) => n + f.count, 0);
    // Every posting (38 bytes) is in a cell, plus a 32-byte pivot a cell.
    expect(split.memoryBytes).toBeGreaterThanOrEqual(whole.memoryBytes + 32 * split.splitStats().cells);
    expect(split.memoryBytes - dropped.memoryBytes).toBeGreaterThanOrEqual(38 * postings);
  });

  it('keeps and splits stop words up to the split limit when dropping, and says when a dropped one must be scanned', () => {
    const lean = new PhotoIndex(vocabulary, { minStopDf: 10, dropStopWords: true, splitCellSize: 24 });
    lean.addMany([part, ...clutter].map((features, i) => ({ imageId: `img${i}`, partId: `part${i}`, features })));
    // Every word is held by ~80 % of the images: above 1.5 × 20 %, dropped.
    expect(lean.droppedWords).toBe(vocabulary.size);
    expect(lean.complete).toBe(true);
    expect(lean.query(photo, { multiAssign: 2 })).toEqual([]);
    for (let i = 1; i <= 280; i++) lean.remove(`img${i}`);
    // 21 images left: every word's df is under the split limit (max(10, 5 % of 21) × 4 = 40).
    expect(lean.complete).toBe(false);
    expect(() => lean.query(photo)).toThrow(/reload/);
  });
});
