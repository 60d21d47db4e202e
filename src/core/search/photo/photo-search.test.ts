import { describe, expect, it } from 'vitest';
import { noisyPhotoOf, olderPhotoRecord, randomFeatures } from '../../../../test/helpers/photo-features.js';
import { encodeFeatures, featuresFromRgb, type ImageHit } from '../image-similarity.js';
import { CONFIDENT_SCORE, fuse, localConfidence, type PhotoPartHit } from './confidence.js';
import type { LocalHit } from './photo-index.js';
import { currentPhotoPrefix, decodePhotoFeatures, encodePhotoFeatures, mergeLooks, PHOTO_FEATURE_VERSION, PHOTO_LOCAL_DEFAULTS, PhotoReferenceIndex, wantsSecondLook } from './photo-search.js';
import { trainVocabulary } from './vocabulary.js';


const refs = Array.from({ length: 30 }, (_, i) => randomFeatures(150, 400, 300, 300 + i));
const vocabulary = trainVocabulary(new Uint32Array(refs.flatMap((f) => [...f.descriptors])), 8, 8, 3, 7, 99);
const views = [featuresFromRgb(new Uint8Array(64 * 64 * 3).fill(128), 64, 64, 3)];

describe('PhotoReferenceIndex local defaults (turned and blurred keypoints)', () => {
  const index = new PhotoReferenceIndex(vocabulary);
  refs.forEach((f, i) => index.add(`img${i}`, `part${i}`, { global: views[0]!, local: f }));

  it('matches a keypoint whose descriptor moved into a neighbouring word (2 words scanned by default)', () => {
    expect(PHOTO_LOCAL_DEFAULTS.multiAssign).toBe(2);
    for (const i of [2, 11, 25]) {
      // 14 of 256 bits changed per keypoint: within the 40-bit match distance, but many keypoints
      // now sit nearer another of the 64 words than their reference's.
      const photo = noisyPhotoOf(refs[i]!, 40, 30, 14, 300, 70 + i);
      const hits = index.query({ views, local: photo }, 5);
      const single = index.query({ views, local: photo }, 5, { local: { multiAssign: 1, shortlist: 40 } });
      expect(hits[0]?.part_id).toBe(`part${i}`);
      expect(hits[0]?.inliers ?? 0).toBeGreaterThan((single.find((h) => h.part_id === `part${i}`)?.inliers ?? 0) + 20);
    }
  });
});

describe('local confidence uses the share of tentative matches the geometry explains', () => {
  it('ranks 10 inliers of 12 tentative matches above 11 of 300 and only the former is confident', () => {
    const parts = fuse(
      [
        { image_id: 'b', part_id: 'B', inliers: 11, matches: 300, votes: 9, rotation: 0, scale: 1, model: [1, 0, 0, 1, 0, 0] },
        { image_id: 'a', part_id: 'A', inliers: 10, matches: 12, votes: 2, rotation: 0, scale: 1, model: [1, 0, 0, 1, 0, 0] },
      ],
      [],
    );
    expect(parts.map((p) => p.part_id)).toEqual(['A', 'B']);
    expect(parts[0]?.score).toBeGreaterThan(CONFIDENT_SCORE);
    expect(parts[1]?.score).toBeLessThan(CONFIDENT_SCORE);
    // A handful of matches that all agree is not enough on its own.
    expect(localConfidence(4, 4)).toBeLessThan(CONFIDENT_SCORE);
  });
});

describe('look-alike parts: past certainty, the picture decides', () => {
  const local = (part_id: string, inliers: number, matches: number): LocalHit => ({ image_id: part_id.toLowerCase(), part_id, inliers, matches, votes: 1, rotation: 0, scale: 1, model: [1, 0, 0, 1, 0, 0] });
  const global = (part_id: string, score: number): ImageHit => ({ image_id: part_id.toLowerCase(), part_id, score });

  it('a copy of the headphones ranks them above the headset that adds a microphone (more keypoints, more inliers, a lower cosine)', () => {
    const parts = fuse([local('HEADSET', 60, 80), local('HEADPHONES', 45, 60)], [global('HEADPHONES', 0.97), global('HEADSET', 0.9)]);
    expect(parts.map((p) => p.part_id)).toEqual(['HEADPHONES', 'HEADSET']);
    expect(parts[0]?.image_id).toBe('headphones');
    // Both stay certain: the score a user sees is unchanged.
    for (const p of parts) expect(p.score).toBeGreaterThan(0.999);
  });

  it('below certainty the inliers still rank: a field photo with more agreeing matches wins over a likelier-looking thumbnail', () => {
    const parts = fuse([local('A', 14, 40), local('B', 22, 40)], [global('A', 0.96), global('B', 0.5)]);
    expect(parts.map((p) => p.part_id)).toEqual(['B', 'A']);
  });
});

describe('stored features of version 4 (AKAZE features of small references)', () => {
  const local = { ...randomFeatures(20, 400, 300, 5), vocabulary: vocabulary.id };
  const small = { ...randomFeatures(12, 368, 368, 6), vocabulary: 2 };

  it('writes version 4 with both vocabularies in the prefix, with or without a small-reference record', () => {
    expect(PHOTO_FEATURE_VERSION).toBe(4);
    const prefix = currentPhotoPrefix({ local: vocabulary.id, small: 2 });
    expect([...prefix]).toEqual([0x50, 0x46, 4, 1, vocabulary.id & 0xff, vocabulary.id >>> 8, 2, 0]);
    const withSmall = encodePhotoFeatures(views[0]!, local, { vocabulary: 2, features: small });
    const without = encodePhotoFeatures(views[0]!, local, { vocabulary: 2 });
    for (const record of [withSmall, without]) expect([...record.subarray(0, prefix.length)]).toEqual([...prefix]);
    const back = decodePhotoFeatures(withSmall);
    expect(back.local?.descriptors).toEqual(local.descriptors);
    expect(back.small?.count).toBe(12);
    expect(back.small?.descriptors).toEqual(small.descriptors);
    expect(back.small?.width).toBe(368);
    expect(decodePhotoFeatures(without).small).toBeUndefined();
    expect(decodePhotoFeatures(without).local?.count).toBe(20);
    // A record made without the AKAZE vocabulary (or with another) is stale for the backfill.
    const other = encodePhotoFeatures(views[0]!, local);
    expect(prefix.every((byte, i) => other[i] === byte)).toBe(false);
  });

  it('still reads records of versions 3 and 2 (6-byte prefix, no small record) until the backfill rewrites them', () => {
    for (const version of [3, 2] as const) {
      const v3 = olderPhotoRecord(views[0]!, local, version);
      const decoded = decodePhotoFeatures(v3);
      expect(decoded.local?.count).toBe(20);
      expect(decoded.local?.descriptors).toEqual(local.descriptors);
      expect(decoded.small).toBeUndefined();
      expect(currentPhotoPrefix({ local: vocabulary.id, small: 2 }).every((byte, i) => v3[i] === byte)).toBe(false);
    }
    const v5 = olderPhotoRecord(views[0]!, local, 3);
    v5[2] = 5;
    expect(() => decodePhotoFeatures(v5)).toThrow(/known version/);
  });

  it('rejects a record whose local length runs past its end', () => {
    const record = encodePhotoFeatures(views[0]!, local, { vocabulary: 2, features: small });
    expect(() => decodePhotoFeatures(record.subarray(0, 8 + 4 + encodeFeatures(views[0]!).length + 2))).toThrow(/corrupt/);
  });
});

describe('small references in the photo index', () => {
  const smallRefs = Array.from({ length: 12 }, (_, i) => randomFeatures(120, 368, 368, 900 + i));
  const smallVocabulary = trainVocabulary(new Uint32Array(smallRefs.flatMap((f) => [...f.descriptors])), 8, 8, 3, 11, 2);

  it('finds a small reference from its AKAZE features, and nothing without an AKAZE vocabulary', () => {
    const index = new PhotoReferenceIndex(vocabulary, {}, smallVocabulary);
    const plain = new PhotoReferenceIndex(vocabulary);
    smallRefs.forEach((f, i) => {
      const ref = { global: views[0]!, local: refs[i]!, small: f };
      index.add(`s${i}`, `small${i}`, ref);
      plain.add(`s${i}`, `small${i}`, ref);
    });
    expect(index.smallSize).toBe(12);
    expect(plain.smallSize).toBe(0);
    const photo = noisyPhotoOf(smallRefs[7]!, 60, 20, 6, 300, 77);
    const hits = index.querySmall(photo, 5);
    expect(hits[0]?.part_id).toBe('small7');
    expect(hits[0]?.image_id).toBe('s7');
    expect(hits[0]?.score ?? 0).toBeGreaterThanOrEqual(CONFIDENT_SCORE);
    expect(plain.querySmall(photo, 5)).toEqual([]);
    // Removing the image removes its small record too; replacing it without one as well.
    index.remove('s7');
    expect(index.querySmall(photo, 5).find((h) => h.part_id === 'small7')).toBeUndefined();
    index.add('s3', 'small3', { global: views[0]!, local: refs[3]! });
    expect(index.smallSize).toBe(10);
    // A bulk load keeps the small records as add does.
    const bulk = new PhotoReferenceIndex(vocabulary, {}, smallVocabulary);
    bulk.addMany(smallRefs.map((f, i) => ({ imageId: `s${i}`, partId: `small${i}`, ref: { global: views[0]!, local: refs[i]!, small: f } })));
    expect(bulk.smallSize).toBe(12);
    expect(bulk.querySmall(photo, 5)[0]?.part_id).toBe('small7');
  });
});

describe('a second look at an unconfident photo', () => {
  /** A fused answer of local hits (part, image, inliers, tentative matches). */
  const answer = (...hits: [string, string, number, number][]): PhotoPartHit[] =>
    fuse(hits.map(([part_id, image_id, inliers, matches]) => ({ part_id, image_id, inliers, matches, votes: 1, rotation: 0, scale: 1, model: [1, 0, 0, 1, 0, 0] })), []);

  it('is asked for only when no hit of the first answer reaches the confident score', () => {
    expect(wantsSecondLook([])).toBe(true);
    expect(wantsSecondLook(answer(['A', 'a', 6, 200], ['B', 'b', 5, 300]))).toBe(true);
    expect(wantsSecondLook(answer(['A', 'a', 30, 40]))).toBe(false);
  });

  it('keeps every part once with the better look\'s hit, ranked by evidence, at most `limit`', () => {
    const first = answer(['A', 'a1', 6, 100], ['B', 'b1', 8, 200], ['C', 'c1', 4, 50]);
    const second = answer(['A', 'a2', 25, 40], ['B', 'b2', 3, 200], ['D', 'd2', 5, 100]);
    const merged = mergeLooks(first, second, 10);
    // Log-odds: A 25 of 40 (second) ≫ B 8 of 200 (first) −2.6 > D 5 of 100 −4.4 > C 4 of 50 −4.7.
    expect(merged.map((h) => h.part_id)).toEqual(['A', 'B', 'D', 'C']);
    // A: the second look's hit (more inliers), its image and score; B: the first look's.
    expect(merged.find((h) => h.part_id === 'A')).toEqual(second.find((h) => h.part_id === 'A'));
    expect(merged.find((h) => h.part_id === 'B')).toEqual(first.find((h) => h.part_id === 'B'));
    expect(merged[0]?.score).toBeGreaterThanOrEqual(CONFIDENT_SCORE);
    for (let i = 1; i < merged.length; i++) expect(merged[i - 1]!.evidence).toBeGreaterThanOrEqual(merged[i]!.evidence);
    expect(mergeLooks(first, second, 2).map((h) => h.part_id)).toEqual(merged.slice(0, 2).map((h) => h.part_id));
  });

  it('ranks two certain hits (equal evidence) by their inliers, as the first look does', () => {
    const first = answer(['A', 'a', 90, 100]);
    const second = answer(['B', 'b', 120, 130]);
    expect(first[0]?.evidence).toBe(second[0]?.evidence);
    expect(first[0]?.score).toBeGreaterThan(0.9999);
    expect(mergeLooks(first, second, 5).map((h) => h.part_id)).toEqual(['B', 'A']);
  });
});

describe('verification reaches a part that collects fewer votes than many look-alikes', () => {
  it('finds a part first whose matches agree though 120 other references matched more query keypoints at random places', () => {
    // A part half hidden or seen at an angle keeps few matching keypoints; in a cluttered photo many
    // references share more words with the clutter than it does. The clutter's matches land at
    // random places, so only verification tells them apart: the part must reach it.
    const truth = randomFeatures(150, 400, 300, 5000);
    const decoys = Array.from({ length: 120 }, (_, i) => randomFeatures(150, 400, 300, 6000 + i));
    const own = trainVocabulary(new Uint32Array([truth, ...decoys.slice(0, 20)].flatMap((f) => [...f.descriptors])), 8, 8, 3, 7, 99);
    const index = new PhotoReferenceIndex(own);
    index.addMany([truth, ...decoys].map((local, i) => ({ imageId: `img${i}`, partId: `part${i}`, ref: { global: views[0]!, local } })));
    // 18 of the part's keypoints, shifted together; 24 keypoints of every decoy at random places.
    const kept = 18;
    const perDecoy = 24;
    const photo = randomFeatures(kept + decoys.length * perDecoy, 640, 480, 7000);
    const copy = (from: typeof truth, i: number, to: number): void => {
      photo.descriptors.set(from.descriptors.subarray(i * 8, i * 8 + 8), to * 8);
      photo.angles[to] = from.angles[i] ?? 0;
      photo.sizes[to] = from.sizes[i] ?? 0;
    };
    for (let i = 0; i < kept; i++) {
      copy(truth, i * 8, i);
      photo.xs[i] = (truth.xs[i * 8] ?? 0) + 120;
      photo.ys[i] = (truth.ys[i * 8] ?? 0) + 90;
    }
    decoys.forEach((d, k) => {
      for (let i = 0; i < perDecoy; i++) copy(d, i * 6, kept + k * perDecoy + i);
    });
    // The photo's global descriptor is unlike every reference's (a striped picture against grey).
    const stripes = featuresFromRgb(Uint8Array.from({ length: 64 * 64 * 3 }, (_, i) => ((i / 192) & 4 ? 230 : 20)), 64, 64, 3);
    const hits = index.query({ views: [stripes], local: photo }, 5);
    expect(hits[0]?.part_id).toBe('part0');
    expect(hits[0]?.inliers).toBe(kept);
    expect(hits[0]?.score ?? 0).toBeGreaterThanOrEqual(CONFIDENT_SCORE);
  });
});
