/**
 * The image search's own steps, on the adapter alone (no catalog, no client): the confidence of a
 * hit, the second look at an unconfident photo, the small look (AKAZE) for small references, and
 * start-up. Whatever the store, these run the same code, so they run once, not per backend (the
 * contract suite's photo search, test/contract/photo-search.test.ts, covers both modes and stores).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeatureIndexSimilaritySearch, secondLookWanted, smallLookWanted, type QueryFeatureExtractor } from '../../src/adapters/images/image-search.js';
import { decodePhotoFeatures } from '../../src/core/search/photo/photo-search.js';
import { LOCAL_SETTINGS } from '../../src/adapters/images/local-features/extract.js';
import { extractPhotoQuery, extractSecondLook, extractSmallLook } from '../../src/adapters/images/local-features/photo-features.js';
import { CONFIDENT_SCORE } from '../../src/core/search/photo/confidence.js';
import type { ReferenceFeatures, ReferenceFeatureStore } from '../../src/core/ports.js';
import { PARTS, read, referenceFeatures, scene } from '../helpers/photo-scenes.js';

/** A reference store over `rows`, which are only ever added: any change since a load asks for a full reload. */
function growingStore(rows: ReferenceFeatures[]): ReferenceFeatureStore {
  return {
    fingerprint: async () => String(rows.length),
    async *all() {
      yield* rows;
    },
    changeVersion: async () => rows.length,
    changesSince: async (since) => ({ version: rows.length, complete: since === rows.length, more: false, upserted: [], removed: [] }),
  };
}

describe('photo search confidence', () => {
  const rows: ReferenceFeatures[] = [];
  const store = growingStore(rows);
  const search = new FeatureIndexSimilaritySearch(store);
  beforeAll(async () => {
    for (const file of PARTS) rows.push({ image_id: file, part_id: `photo:${file}`, features: await referenceFeatures(file) });
  });

  it('scores the true part of a scene above the threshold and a scene of something else below it', async () => {
    const hit = await search.rankParts(await scene('broccoli.jpg', 3), 5);
    expect(hit[0]?.part_id).toBe('photo:broccoli.jpg');
    expect(hit[0]?.score ?? 0).toBeGreaterThanOrEqual(CONFIDENT_SCORE);
    for (const [i, other] of ['tiger.jpg', 'violin.jpg', 'pizza.jpg'].entries()) {
      const hits = await search.rankParts(await scene(other, 20 + i), 5);
      expect(hits[0]?.score ?? 0, other).toBeLessThan(CONFIDENT_SCORE);
      for (const m of hits) {
        expect(m.score).toBeGreaterThanOrEqual(0);
        expect(m.score).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe('a second look at a photo whose first answer is not confident', () => {
  const rows: ReferenceFeatures[] = [];
  const store = growingStore(rows);
  /** In this thread (so the test can turn the second look off), counting the second looks asked for. */
  const calls = { query: 0, secondLook: 0 };
  const extractor: QueryFeatureExtractor = {
    query: async (image, keepRaster) => {
      calls.query++;
      return extractPhotoQuery(image, { raster: keepRaster });
    },
    secondLook: async (raster) => {
      calls.secondLook++;
      return extractSecondLook(raster);
    },
    smallLook: (image) => extractSmallLook(image),
    concurrent: async () => false,
  };
  // The small look off: these tests are about the second look alone.
  const search = new FeatureIndexSimilaritySearch(store, { extractor, secondLook: true, smallLook: false });
  const saved = LOCAL_SETTINGS.query.secondLook;
  beforeAll(async () => {
    // A party hat: a soft, flat drawing whose few corners noise hides (in a noisy scene its first look is not confident).
    for (const file of [...PARTS, 'party-hat.jpg']) rows.push({ image_id: file, part_id: `photo:${file}`, features: await referenceFeatures(file) });
  });
  afterAll(() => {
    LOCAL_SETTINGS.query.secondLook = saved;
  });

  it('is off by default in a server, on with CATALOG_PHOTO_SECOND_LOOK=1; its settings are there either way', () => {
    expect(saved).toBeDefined();
    expect(secondLookWanted({})).toBe(false);
    expect(secondLookWanted({ CATALOG_PHOTO_SECOND_LOOK: '1' })).toBe(true);
    expect(secondLookWanted({ CATALOG_PHOTO_SECOND_LOOK: '0' })).toBe(false);
  });

  it('off: an unconfident photo is not looked at again', async () => {
    const off = new FeatureIndexSimilaritySearch(store, { extractor, secondLook: false, smallLook: false });
    calls.secondLook = 0;
    const hits = await off.rankParts(await scene('party-hat.jpg', 3, 15), 5);
    expect(calls.secondLook).toBe(0);
    expect(hits[0]?.score ?? 0).toBeLessThan(CONFIDENT_SCORE);
  });

  it('finds the part of a noisy scene that its first look did not find confidently', async () => {
    // First look: the party hat first, at 0.01; with the second look 1.00.
    const photo = await scene('party-hat.jpg', 3, 15);
    calls.secondLook = 0;
    const hits = await search.rankParts(photo, 5);
    expect(calls.secondLook).toBe(1);
    expect(hits[0]?.part_id).toBe('photo:party-hat.jpg');
    expect(hits[0]?.score ?? 0).toBeGreaterThanOrEqual(CONFIDENT_SCORE);
    expect([...hits].sort((a, b) => b.score - a.score)).toEqual(hits);
    // Without the second look (no raster kept) the same photo gets no confident hit.
    LOCAL_SETTINGS.query.secondLook = undefined;
    try {
      const first = await search.rankParts(photo, 5);
      expect(first[0]?.score ?? 0).toBeLessThan(CONFIDENT_SCORE);
      expect(calls.secondLook).toBe(1);
    } finally {
      LOCAL_SETTINGS.query.secondLook = saved;
    }
  });

  it('does not look again at a photo whose first answer is confident', async () => {
    calls.secondLook = 0;
    const hits = await search.rankParts(await scene('broccoli.jpg', 3), 5);
    expect(hits[0]?.part_id).toBe('photo:broccoli.jpg');
    expect(hits[0]?.score ?? 0).toBeGreaterThanOrEqual(CONFIDENT_SCORE);
    expect(calls.secondLook).toBe(0);
  });

  it('a photo of something else is looked at again and still gets no confident hit', async () => {
    calls.secondLook = 0;
    const hits = await search.rankParts(await scene('tiger.jpg', 20, 12), 5);
    expect(calls.secondLook).toBe(1);
    expect(hits[0]?.score ?? 0).toBeLessThan(CONFIDENT_SCORE);
  });
});

describe('the small look: AKAZE features of small references', () => {
  const rows: ReferenceFeatures[] = [];
  const store = growingStore(rows);
  // Small references (at most 70 px on the long side): a 32 × 70 banana and a 46-px party hat
  // beside the 32-px `9` the tests look for, and the 32-px × of PARTS.
  const SMALL = ['9.jpg', 'banana.jpg', 'party-hat.jpg'];
  /** In this thread, counting the small looks asked for (`fail`: they throw). */
  const calls = { smallLook: 0, fail: false };
  const extractor: QueryFeatureExtractor = {
    query: (image, keepRaster) => extractPhotoQuery(image, { raster: keepRaster }),
    secondLook: (raster) => extractSecondLook(raster),
    smallLook: async (image) => {
      calls.smallLook++;
      if (calls.fail) throw new Error('the small look failed');
      return extractSmallLook(image);
    },
    concurrent: async () => false,
  };
  const search = new FeatureIndexSimilaritySearch(store, { extractor, smallLook: true });
  const off = new FeatureIndexSimilaritySearch(store, { extractor, smallLook: false });
  /** As `search`, with an extractor whose small looks may run beside a first look (threads). */
  const ahead = new FeatureIndexSimilaritySearch(store, { extractor: { ...extractor, concurrent: async () => true }, smallLook: true });
  beforeAll(async () => {
    for (const file of [...PARTS, ...SMALL]) rows.push({ image_id: file, part_id: `photo:${file}`, features: await referenceFeatures(file) });
  }, 120_000);
  const reset = (fail = false): void => {
    calls.smallLook = 0;
    calls.fail = fail;
  };

  it('is on by default in a server, off with CATALOG_PHOTO_SMALL_LOOK=0', () => {
    expect(smallLookWanted({})).toBe(true);
    expect(smallLookWanted({ CATALOG_PHOTO_SMALL_LOOK: '0' })).toBe(false);
    expect(smallLookWanted({ CATALOG_PHOTO_SMALL_LOOK: '1' })).toBe(true);
  });

  it('stores AKAZE features for a small reference only', () => {
    const small = rows.find((r) => r.image_id === '9.jpg');
    const large = rows.find((r) => r.image_id === 'broccoli.jpg');
    expect(decodePhotoFeatures(small!.features).small?.count ?? 0).toBeGreaterThan(50);
    expect(decodePhotoFeatures(large!.features).small).toBeUndefined();
  });

  it('finds the 32-px icon of a scene that ORB ranks another part first for', async () => {
    reset();
    // ORB alone: the banana first at 0.00 (checked when the test was written); the small look: `9` at 0.99.
    const photo = await scene('9.jpg', 5);
    const first = await off.rankParts(photo, 5);
    expect(first[0]?.part_id).not.toBe('photo:9.jpg');
    expect(first[0]?.score ?? 0).toBeLessThan(CONFIDENT_SCORE);
    expect(calls.smallLook).toBe(0);
    const hits = await search.rankParts(photo, 5);
    expect(calls.smallLook).toBe(1);
    expect(hits[0]?.part_id).toBe('photo:9.jpg');
    expect(hits[0]?.image_id).toBe('9.jpg');
    expect(hits[0]?.score ?? 0).toBeGreaterThanOrEqual(CONFIDENT_SCORE);
    expect([...hits].sort((a, b) => b.score - a.score)).toEqual(hits);
  });

  it('asks for no small look when the first answer is confident, unless it was started ahead (then its answer is unchanged)', async () => {
    const photo = await scene('broccoli.jpg', 3);
    reset();
    const hits = await search.rankParts(photo, 5);
    expect(hits[0]?.part_id).toBe('photo:broccoli.jpg');
    expect(hits[0]?.score ?? 0).toBeGreaterThanOrEqual(CONFIDENT_SCORE);
    expect(calls.smallLook).toBe(0);
    reset();
    // Loaded first: a search's very first photo starts no small look ahead (the index is not there yet).
    await ahead.sync();
    expect(await ahead.rankParts(photo, 5)).toEqual(hits);
    expect(calls.smallLook).toBe(1);
    expect(ahead.ahead.started).toBe(1);
    expect(ahead.smallLooksUsed).toBe(0);
  });

  it('starts a small look ahead only while one photo is in flight: of two at once, the second takes its look after its first answer', async () => {
    const [a, b] = [await scene('9.jpg', 5), await scene('tiger.jpg', 21)];
    reset();
    const before = { started: ahead.ahead.started, used: ahead.smallLooksUsed };
    const [ha] = await Promise.all([ahead.rankParts(a, 5), ahead.rankParts(b, 5)]);
    expect(ahead.ahead.started).toBe(before.started + 1);
    expect(ahead.smallLooksUsed).toBe(before.used + 2);
    // The other unconfident photo took its small look after its first answer: two in all.
    expect(calls.smallLook).toBe(2);
    expect(ha[0]?.part_id).toBe('photo:9.jpg');
  });

  it('a failed small look leaves the first answer', async () => {
    reset(true);
    const photo = await scene('9.jpg', 5);
    expect(await search.rankParts(photo, 5)).toEqual(await off.rankParts(photo, 5));
    expect(calls.smallLook).toBe(1);
  });

  it('a photo of something else gets a small look and still no confident hit', async () => {
    reset();
    for (const [i, other] of ['tiger.jpg', 'violin.jpg', 'pizza.jpg'].entries()) {
      const hits = await search.rankParts(await scene(other, 20 + i), 5);
      expect(hits[0]?.score ?? 0, other).toBeLessThan(CONFIDENT_SCORE);
    }
    expect(calls.smallLook).toBe(3);
  });
});

describe('image search made ready before the first query photo (start-up)', () => {
  const warmed: boolean[] = [];
  const extractor: QueryFeatureExtractor = {
    query: (image, keepRaster) => extractPhotoQuery(image, { raster: keepRaster }),
    secondLook: (raster) => extractSecondLook(raster),
    smallLook: (image) => extractSmallLook(image),
    concurrent: async () => false,
    warm: async (smallLook) => {
      warmed.push(smallLook);
    },
  };

  it('prepare loads the index and warms the extractor for the small look when references exist; a catalog without any warms nothing', async () => {
    const rows: ReferenceFeatures[] = [{ image_id: '9.jpg', part_id: 'photo:9.jpg', features: await referenceFeatures('9.jpg') }];
    const search = new FeatureIndexSimilaritySearch(growingStore(rows), { extractor, smallLook: true });
    await search.prepare();
    expect(search.syncStats.fullLoads).toBe(1);
    expect(search.size).toBe(1);
    expect(warmed).toEqual([true]);
    // The first query then loads nothing more.
    expect((await search.rankParts(read('9.jpg'), 3))[0]?.part_id).toBe('photo:9.jpg');
    expect(search.syncStats.fullLoads).toBe(1);

    const empty = new FeatureIndexSimilaritySearch(growingStore([]), { extractor, smallLook: false });
    await empty.prepare();
    expect(empty.syncStats.fullLoads).toBe(1);
    expect(warmed).toEqual([true]);
  });
});
