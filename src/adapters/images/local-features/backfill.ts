/**
 * Starts the photo-feature backfill of a catalog (core/search/photo/backfill.ts) over its blob store,
 * extracting in the catalog's decode pool so that it never competes with more than the pool's share
 * of the CPUs. It starts after a short delay, so short-lived CLI commands close before it begins;
 * a server upgrades everything in the background and the next open resumes an interrupted run.
 */
import type { BlobStore, ReferenceFeatureStore } from '../../../core/ports.js';
import { backfillFeatures, type BackfillProgress } from '../../../core/search/photo/backfill.js';
import { currentPhotoPrefix } from '../../../core/search/photo/photo-search.js';
import { shippedAkazeVocabularyId, shippedVocabularyId } from './shipped-vocabulary.js';
import type { DecodePool } from '../decode-pool.js';

/** A running backfill: `stop()` resolves once the image in hand is finished. */
export interface FeatureBackfill {
  stop(): Promise<void>;
}

/** Milliseconds between opening the catalog and the first backfill query. */
export const BACKFILL_DELAY_MS = 2000;

/** Schedules the backfill; `onProgress` sees every batch (done, failed, remaining). */
export function startFeatureBackfill(
  store: ReferenceFeatureStore, blobs: BlobStore, pool: DecodePool, onProgress?: (p: BackfillProgress) => void,
): FeatureBackfill {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setTimeout(() => {
    running = Promise.all([shippedVocabularyId(), shippedAkazeVocabularyId()]).then(([local, small]) => backfillFeatures({
      store,
      prefix: currentPhotoPrefix({ local, small }),
      stopped: () => stopped,
      ...(onProgress ? { onProgress } : {}),
      async extract(sha256) {
        const source = blobs.localPath?.(sha256) ?? (await blobs.read(sha256));
        if (source === undefined) return undefined;
        const { extractReferenceOffThread } = await import('./feature-threads.js');
        return pool.run(() => extractReferenceOffThread(source), { bounded: false });
      },
    })).catch(() => undefined);
  }, BACKFILL_DELAY_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

