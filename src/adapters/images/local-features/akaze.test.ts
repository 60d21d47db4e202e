import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_WORDS } from '../../../core/search/photo/hamming.js';
import { trainVocabulary } from '../../../core/search/photo/vocabulary.js';
import { AKAZE_SETTINGS, akazeFeaturesFromGrey, SMALL_REFERENCE_SIDE } from './akaze.js';
import { decodeGrey } from './extract.js';
import { openCv } from './opencv.js';

const IMAGES = join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'data', 'images');
/** A 32 × 32 icon of the bench data set: the kind of reference the AKAZE record is for. */
const ICON = readFileSync(join(IMAGES, '0.jpg'));
/** A 640-px photo (decoded for the query role at 640 px, over AKAZE's 480). */
const PHOTO = readFileSync(join(IMAGES, 'photo_rocket.jpg'));

describe('AKAZE local features', () => {
  it('describes a small reference with 256-bit descriptors, deterministically', async () => {
    const cv = await openCv();
    const raster = await decodeGrey(ICON, 'reference');
    const a = akazeFeaturesFromGrey(cv, raster, 'reference');
    expect(SMALL_REFERENCE_SIDE).toBeGreaterThanOrEqual(32);
    expect(a.count).toBeGreaterThan(20);
    expect(a.count).toBeLessThanOrEqual(AKAZE_SETTINGS.reference.keypoints + AKAZE_SETTINGS.reference.backdropKeypoints);
    expect(a.descriptors.length).toBe(a.count * DESCRIPTOR_WORDS);
    expect([a.xs.length, a.ys.length, a.angles.length, a.sizes.length]).toEqual([a.count, a.count, a.count, a.count]);
    // The reference raster is used as decoded (320–480 px + border).
    expect([a.width, a.height]).toEqual([raster.width, raster.height]);
    // Descriptors are not all zero (the bytes were copied out of the wasm heap).
    expect(a.descriptors.some((w) => w !== 0)).toBe(true);
    expect(a.words.length).toBe(0);
    expect(a.vocabulary).toBe(0);
    const b = akazeFeaturesFromGrey(cv, await decodeGrey(ICON, 'reference'), 'reference');
    expect(b.count).toBe(a.count);
    expect([...b.descriptors]).toEqual([...a.descriptors]);
    expect([...b.xs]).toEqual([...a.xs]);
  });

  it('adds the grey-backdrop keypoints of a reference on a plain background', async () => {
    const cv = await openCv();
    const raster = await decodeGrey(ICON, 'reference');
    const withBackdrop = akazeFeaturesFromGrey(cv, raster, 'reference');
    const plainOnly = akazeFeaturesFromGrey(cv, raster, 'query');
    // The query role has no backdrop and a grid: fewer or as many keypoints on this raster.
    expect(withBackdrop.count).toBeGreaterThan(Math.min(plainOnly.count, AKAZE_SETTINGS.reference.keypoints));
  });

  it('runs a query photo at most 480 px on its long side, coordinates in that raster', async () => {
    const cv = await openCv();
    const raster = await decodeGrey(PHOTO, 'query');
    expect(Math.max(raster.width, raster.height)).toBeGreaterThan(AKAZE_SETTINGS.query.maxSide);
    const f = akazeFeaturesFromGrey(cv, raster, 'query');
    expect(Math.max(f.width, f.height)).toBe(AKAZE_SETTINGS.query.maxSide);
    // Aspect kept (±1 px of rounding).
    expect(Math.abs(f.width / f.height - raster.width / raster.height)).toBeLessThan(0.01);
    expect(f.count).toBeGreaterThan(50);
    expect(f.count).toBeLessThanOrEqual(AKAZE_SETTINGS.query.keypoints);
    for (let i = 0; i < f.count; i++) {
      expect(f.xs[i]).toBeLessThan(f.width);
      expect(f.ys[i]).toBeLessThan(f.height);
    }
  });

  it('finds nothing on a blank raster', async () => {
    const cv = await openCv();
    const blank = { data: new Uint8Array(400 * 300).fill(180), width: 400, height: 300 };
    for (const role of ['reference', 'query'] as const) {
      const f = akazeFeaturesFromGrey(cv, blank, role);
      expect(f.count).toBe(0);
      expect(f.descriptors.length).toBe(0);
      expect([f.width, f.height]).toEqual([400, 300]);
    }
  });

  it('assigns visual words with a vocabulary', async () => {
    const cv = await openCv();
    const ref = akazeFeaturesFromGrey(cv, await decodeGrey(ICON, 'reference'), 'reference');
    const vocabulary = trainVocabulary(ref.descriptors, 4, 4, 2, 7, 2);
    const f = akazeFeaturesFromGrey(cv, await decodeGrey(ICON, 'reference'), 'reference', vocabulary);
    expect(f.vocabulary).toBe(2);
    expect(f.words.length).toBe(f.count);
    expect([...f.words]).toEqual([...vocabulary.assign(f.descriptors)]);
    expect(new Set(f.words).size).toBeGreaterThan(1);
  });
});
