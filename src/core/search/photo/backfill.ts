/**
 * Feature backfill: when a catalog whose reference images carry features of an older
 * version (feature version 1: the global descriptor only) is opened, their photo-search features are
 * recomputed from the stored originals, a batch at a time, in the background.
 *
 * Resumable by construction: progress is the data itself (a row is stale while its features do not
 * start with the current prefix), so a backfill stopped by a crash or a close continues where it
 * stopped at the next open. An image uploaded meanwhile is written with current features by the
 * upload path and is never overwritten (the store replaces only still-stale rows of the same blob).
 * Stale rows stay searchable by their global descriptor until upgraded.
 */
import type { ReferenceFeatureStore } from '../../ports.js';

/** Progress of a backfill: images upgraded, failed (undecodable: left as they are), still stale. */
export interface BackfillProgress {
  done: number;
  failed: number;
  remaining: number;
}

/** What {@link backfillFeatures} needs. */
export interface BackfillDeps {
  store: ReferenceFeatureStore;
  /** The first bytes of current records (photo-search.ts currentPhotoPrefix). */
  prefix: Uint8Array;
  /** Computes current features from an image's blob; undefined when the blob is gone. Throws when undecodable. */
  extract(sha256: string): Promise<Uint8Array | undefined>;
  /** Called after every batch, and once at the end. */
  onProgress?(progress: BackfillProgress): void;
  /** Stops after the current image when it returns true (catalog closing). */
  stopped?(): boolean;
  /** Images per batch (default 32). */
  batch?: number;
}

/**
 * Upgrades every stale image's features; resolves with the final progress. A store without the
 * optional backfill methods has nothing to do. Errors of single images are counted, not thrown.
 */
export async function backfillFeatures(deps: BackfillDeps): Promise<BackfillProgress> {
  const progress: BackfillProgress = { done: 0, failed: 0, remaining: 0 };
  const { store } = deps;
  if (!store.staleFeatures || !store.replaceStaleFeatures) return progress;
  let after = '';
  for (;;) {
    const { images, remaining } = await store.staleFeatures(deps.prefix, after, deps.batch ?? 32);
    progress.remaining = remaining;
    if (images.length === 0) break;
    for (const image of images) {
      if (deps.stopped?.()) {
        deps.onProgress?.(progress);
        return progress;
      }
      after = image.image_id;
      try {
        const features = await deps.extract(image.sha256);
        if (features && (await store.replaceStaleFeatures(image.image_id, image.sha256, deps.prefix, features))) progress.done++;
        else progress.failed++;
      } catch {
        progress.failed++;
      }
      progress.remaining = Math.max(0, progress.remaining - 1);
    }
    deps.onProgress?.(progress);
  }
  deps.onProgress?.(progress);
  return progress;
}
