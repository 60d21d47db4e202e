/**
 * Photo-feature extraction off the main thread (docs/search.md, "Photo search"): a
 * process-wide piscina pool running feature-worker.ts. The decode pool (decode-pool.ts) still
 * decides how many extractions run at once and how many queries may wait; this only moves the
 * work (sharp's decode and OpenCV's synchronous ORB) off the event loop.
 *
 * Without the built worker (TypeScript sources run before `npm run build`) extraction runs in this
 * thread.
 */
import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import type { LocalFeatures } from '../../../core/search/photo/local-features.js';
import { builtWorkerFile } from '../../worker-file.js';
import type { GreyRaster } from './extract.js';
import type { FeatureTask, FeatureValue, FeatureWorkerData } from './feature-worker.js';
import type { ExtractedPhotoQuery } from './photo-features.js';

/** Threads of the pool: as many as decode slots by default (half the CPUs, 1 to 3). */
export const FEATURE_THREADS = Math.min(3, Math.max(1, Math.floor(availableParallelism() / 2)));

/**
 * Scheduling priority (Linux nice value) of the small-look thread: a
 * small look is started beside a photo's first look on speculation and is dropped when the first
 * answer is confident (four photos in five), so it must not slow a first look down. At nice 19
 * the kernel gives it ~1.5 % of a core that a first look or a search also wants, and all of an
 * idle one (what that bought: decisions/0008).
 */
export const SMALL_LOOK_NICE = 19;

let pool: Promise<Piscina | undefined> | undefined;
let smallLookPool: Promise<Piscina | undefined> | undefined;

/**
 * A pool of `threads` threads running feature-worker.ts with `workerData` (feature-worker.ts
 * FeatureWorkerData), or undefined: extract in this thread (no built worker, or
 * CATALOG_FEATURE_THREADS=0).
 */
async function newPool(threads: number, workerData: FeatureWorkerData): Promise<Piscina | undefined> {
  if (process.env.CATALOG_FEATURE_THREADS === '0') return undefined;
  const filename = builtWorkerFile(new URL('./feature-worker.js', import.meta.url));
  if (!filename) return undefined;
  // sharp must be loaded by the main thread before any worker loads it: otherwise a worker's exit
  // unloads its shared libraries while others use them (sharp's documentation, worker threads).
  await import('sharp');
  const { Piscina } = await import('piscina');
  // Idle threads are unref'd by piscina, so a CLI command still exits; they stay alive (OpenCV
  // loaded, ~0.6 s to load again) for the next query.
  return new Piscina({ filename, workerData, minThreads: threads, maxThreads: threads, idleTimeout: Number.POSITIVE_INFINITY, concurrentTasksPerWorker: 1 });
}

/** The pool of first looks, references and second looks, created on first use. */
function threads(): Promise<Piscina | undefined> {
  pool ??= newPool(FEATURE_THREADS, {});
  return pool;
}

/** The small look's own thread, at {@link SMALL_LOOK_NICE}, created on first use. */
function smallLookThread(): Promise<Piscina | undefined> {
  smallLookPool ??= newPool(1, { nice: SMALL_LOOK_NICE });
  return smallLookPool;
}

/** Runs a task on a thread, or here without the built worker. @throws Error with the worker's name and message. */
async function run(task: FeatureTask): Promise<FeatureValue> {
  const p = task.kind === 'small-look' ? await smallLookThread() : await threads();
  if (!p) {
    const { runTask } = await import('./feature-worker.js');
    return runTask(task);
  }
  const result = (await p.run(task)) as { ok: true; value: FeatureValue } | { ok: false; name: string; message: string };
  if (result.ok) return result.value;
  const error = new Error(result.message);
  error.name = result.name;
  throw error;
}

/**
 * Features of a query photo (global views and local features, and its raster when `options.raster`
 * asks for it and a second look is configured), computed on a feature thread.
 * @throws Error when the image cannot be decoded (name PixelLimitError when it is too large).
 */
export async function extractQueryOffThread(input: Uint8Array, options: { raster?: boolean } = {}): Promise<ExtractedPhotoQuery> {
  return (await run({ kind: 'query', input, raster: options.raster === true })) as ExtractedPhotoQuery;
}

/**
 * The second look's local features of a query photo, computed on a
 * feature thread from the raster of its first look; undefined when no second look is configured.
 */
export async function secondLookOffThread(raster: GreyRaster): Promise<LocalFeatures | undefined> {
  return (await run({ kind: 'second-look', raster })) as LocalFeatures | undefined;
}

/**
 * A query photo's AKAZE features for the small references (
 * photo-features.ts `extractSmallLook`), computed from the encoded photo on the small look's own
 * thread, at a background priority ({@link SMALL_LOOK_NICE}).
 * @throws Error when the image cannot be decoded.
 */
export async function smallLookOffThread(input: Uint8Array): Promise<LocalFeatures> {
  return (await run({ kind: 'small-look', input })) as LocalFeatures;
}

/**
 * The stored features (feature version 4) of a reference image, computed on a feature thread.
 * @throws Error when the image cannot be decoded.
 */
export async function extractReferenceOffThread(input: Uint8Array | string): Promise<Uint8Array> {
  return (await run({ kind: 'reference', input })) as Uint8Array;
}

/**
 * Loads sharp and OpenCV on every feature thread (and on the small look's when `smallLook`) by
 * describing a tiny picture on each, so a server's first query photo does not pay for it (~0.6 s a
 * thread). Best effort: a failure is left to the first real query to report.
 */
export async function warmFeatureThreads(smallLook: boolean): Promise<void> {
  const { default: sharp } = await import('sharp');
  // A 64-px grey ramp: something to detect, nothing to find.
  const ramp = Buffer.alloc(64 * 64);
  for (let i = 0; i < ramp.length; i++) ramp[i] = (i % 64) * 4;
  const png = new Uint8Array(await sharp(ramp, { raw: { width: 64, height: 64, channels: 1 } }).png().toBuffer());
  // One task a thread at once: piscina gives each to an idle thread.
  const tasks: Promise<unknown>[] = Array.from({ length: FEATURE_THREADS }, () => extractQueryOffThread(png));
  if (smallLook) tasks.push(smallLookOffThread(png));
  await Promise.allSettled(tasks);
}

/** True when extractions run on feature threads (the built worker exists and threads are not disabled). */
export async function featureThreadsAvailable(): Promise<boolean> {
  return (await threads()) !== undefined;
}

/** Stops the threads (tests, benchmarks); the next extraction starts new ones. */
export async function closeFeatureThreads(): Promise<void> {
  const [p, small] = await Promise.all([pool, smallLookPool]);
  pool = undefined;
  smallLookPool = undefined;
  await Promise.all([p?.destroy(), small?.destroy()]);
}
