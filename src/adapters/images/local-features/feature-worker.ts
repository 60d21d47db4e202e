/**
 * Worker-thread entry of photo-feature extraction (docs/search.md, "Photo search"): sharp
 * decodes and OpenCV's WebAssembly ORB runs here, so a query photo (50–150 ms of synchronous wasm)
 * or an upload never blocks the main thread's event loop. Loaded by piscina (feature-threads.ts),
 * once per thread; OpenCV loads on the thread's first task.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import type { LocalFeatures } from '../../../core/search/photo/local-features.js';
import type { GreyRaster } from './extract.js';
import { extractPhotoQuery, extractPhotoReference, extractSecondLook, extractSmallLook, type ExtractedPhotoQuery } from './photo-features.js';

/** What a pool may pass its threads: `nice`, this thread's scheduling priority (feature-threads.ts `SMALL_LOOK_NICE`). */
export interface FeatureWorkerData {
  nice?: number;
}

/**
 * Lowers this thread's scheduling priority to `nice` (Linux: a thread is a task of its own, named
 * by /proc/thread-self). Elsewhere, or when not permitted, the thread keeps the process's priority:
 * the work is the same, only its share of a busy CPU differs.
 */
export function lowerThreadPriority(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

const data = workerData as FeatureWorkerData | null | undefined;
if (typeof data?.nice === 'number') lowerThreadPriority(data.nice);

/**
 * A task: the features of a query photo, the stored features of a reference image (bytes or a file
 * path), the second look at a query photo's raster, or a query photo's
 * AKAZE features for the small references.
 */
export type FeatureTask =
  | { kind: 'query'; input: Uint8Array; raster?: boolean }
  | { kind: 'reference'; input: Uint8Array | string }
  | { kind: 'second-look'; raster: GreyRaster }
  | { kind: 'small-look'; input: Uint8Array };

/**
 * What a task returns: by kind, the query's features, the reference's record, the second look's
 * local features (undefined: none configured), the small look's AKAZE features.
 */
export type FeatureValue = ExtractedPhotoQuery | Uint8Array | LocalFeatures | undefined;

/** Runs one task in this thread. @throws Error when the image cannot be decoded. */
export function runTask(task: FeatureTask): Promise<FeatureValue> {
  if (task.kind === 'query') return extractPhotoQuery(task.input, { raster: task.raster === true });
  if (task.kind === 'reference') return extractPhotoReference(task.input);
  if (task.kind === 'small-look') return extractSmallLook(task.input);
  return extractSecondLook(task.raster);
}

/**
 * Runs one task. Errors are returned, not thrown, so their `name` (PixelLimitError, …) and message
 * cross the thread unchanged.
 */
export default async function run(task: FeatureTask): Promise<{ ok: true; value: FeatureValue } | { ok: false; name: string; message: string }> {
  try {
    const value = await runTask(task);
    return { ok: true, value };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { ok: false, name: e.name, message: e.message };
  }
}
