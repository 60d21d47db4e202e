import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePhotoFeatures } from '../../../core/search/photo/photo-search.js';
import { closeFeatureThreads, extractQueryOffThread, extractReferenceOffThread, featureThreadsAvailable, secondLookOffThread, SMALL_LOOK_NICE, smallLookOffThread } from './feature-threads.js';
import { extractPhotoQuery, extractPhotoReference, extractSecondLook, extractSmallLook } from './photo-features.js';

const IMAGE = join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'data', 'images', 'b_5_rook.jpg');

describe('feature threads', () => {
  afterAll(closeFeatureThreads);

  it('extract on a thread exactly what this thread extracts (query and reference)', async () => {
    // npm test builds dist/ first, so the worker exists; a bare source checkout falls back in-process.
    const built = existsSync(join(import.meta.dirname, '..', '..', '..', '..', 'dist', 'adapters', 'images', 'local-features', 'feature-worker.js'));
    expect(await featureThreadsAvailable()).toBe(built);
    const bytes = readFileSync(IMAGE);
    const [there, here] = await Promise.all([extractQueryOffThread(bytes), extractPhotoQuery(bytes)]);
    expect(there.local.count).toBeGreaterThan(100);
    expect([...there.local.descriptors]).toEqual([...here.local.descriptors]);
    expect([...there.local.words]).toEqual([...here.local.words]);
    expect(there.views.map((v) => [...v.vectors])).toEqual(here.views.map((v) => [...v.vectors]));
    const ref = decodePhotoFeatures(await extractReferenceOffThread(bytes));
    const refHere = decodePhotoFeatures(await extractPhotoReference(bytes));
    expect([...(ref.local?.descriptors ?? [])]).toEqual([...(refHere.local?.descriptors ?? [])]);
  });

  it('looks a second time on a thread exactly as this thread does, from the raster the first look returned', async () => {
    const bytes = readFileSync(IMAGE);
    // Asked for, the first look keeps its raster for the second; not asked for, none crosses the thread.
    expect((await extractQueryOffThread(bytes)).raster).toBeUndefined();
    const first = await extractQueryOffThread(bytes, { raster: true });
    expect(first.raster?.width).toBe(first.local.width);
    const raster = first.raster!;
    const [there, here] = await Promise.all([secondLookOffThread(raster), extractSecondLook(raster)]);
    expect(there?.count).toBeGreaterThan(100);
    expect([...(there?.descriptors ?? [])]).toEqual([...(here?.descriptors ?? [])]);
    expect([...(there?.words ?? [])]).toEqual([...(here?.words ?? [])]);
  });

  it('describes a photo for the small look on a thread of its own, at a background priority, as this thread does', async () => {
    const bytes = readFileSync(IMAGE);
    const niceOfThreads = (): number[] =>
      readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]));
    const [there, here] = await Promise.all([smallLookOffThread(bytes), extractSmallLook(bytes)]);
    expect(there.count).toBeGreaterThan(100);
    expect([...there.descriptors]).toEqual([...here.descriptors]);
    expect([...there.words]).toEqual([...here.words]);
    if (!(await featureThreadsAvailable())) return;
    // A thread of this process at SMALL_LOOK_NICE (the small look's, perhaps started by an earlier
    // test file of this worker); this one keeps its priority.
    expect(niceOfThreads().filter((n) => n === SMALL_LOOK_NICE).length).toBeGreaterThanOrEqual(1);
    expect(Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]?.split(' ')[16])).not.toBe(SMALL_LOOK_NICE);
  });

  it('reports an undecodable image as an error with the decoder message', async () => {
    await expect(extractQueryOffThread(Uint8Array.of(0xff, 0xd8, 0xff, 0, 1, 2, 3))).rejects.toThrow(/cannot decode image/);
  });
});
