/**
 * Worker-thread entry of photo-feature extraction (issue 14; docs/search.md, "Photo search"): sharp
 * decodes and OpenCV's WebAssembly ORB runs here, so a query photo (50–150 ms of synchronous wasm)
 * or an upload never blocks the main thread's event loop. Loaded by piscina (feature-threads.ts),
 * once per thread; OpenCV loads on the thread's first task.
 */
import type { PhotoQuery } from '../../../core/search/photo/photo-search.js';
import { extractPhotoQuery, extractPhotoReference } from './photo-features.js';

/** A task: the features of a query photo, or the stored features of a reference image (bytes or a file path). */
export type FeatureTask = { kind: 'query'; input: Uint8Array } | { kind: 'reference'; input: Uint8Array | string };

/**
 * Runs one task. Errors are returned, not thrown, so their `name` (PixelLimitError, …) and message
 * cross the thread unchanged.
 */
export default async function run(task: FeatureTask): Promise<{ ok: true; value: PhotoQuery | Uint8Array } | { ok: false; name: string; message: string }> {
  try {
    const value = task.kind === 'query' ? await extractPhotoQuery(task.input) : await extractPhotoReference(task.input);
    return { ok: true, value };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { ok: false, name: e.name, message: e.message };
  }
}
