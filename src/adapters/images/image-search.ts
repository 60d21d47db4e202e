/**
 * Image search adapters (decisions §8): features of reference images computed at upload (the
 * ImageFeatureIndexer hook of the image service) and the similarity ranking of a query image
 * against them. sharp is loaded on first use only, so commands that never touch images do not pay
 * its start-up cost (measurements.md: ~80 ms).
 */
import { availableParallelism } from 'node:os';
import { CatalogError } from '../../api/errors.js';
import { detectImageType } from '../../core/images/file-type.js';
import type { ImageFeatureIndexer, ImageSimilaritySearch, ReferenceFeatureStore } from '../../core/ports.js';
import type { LocalFeatures } from '../../core/search/photo/local-features.js';
import { decodePhotoFeatures, mergeLooks, PhotoReferenceIndex, wantsSecondLook, type PhotoReference } from '../../core/search/photo/photo-search.js';
import type { ImageMatch } from '../../core/model.js';
import type { PhotoIndexOptions } from '../../core/search/photo/photo-index.js';
import type { Vocabulary } from '../../core/search/photo/vocabulary.js';
import { DecodePool, DecodeQueueFullError } from './decode-pool.js';
import { PhotoIndexSnapshots, SNAPSHOT_BYTES_PER_REFERENCE, type PhotoIndexSnapshotOptions } from './photo-index-snapshots.js';
import { SmallLookAhead, type AheadLook } from './small-look-ahead.js';
import { shippedAkazeVocabulary, shippedVocabulary } from './local-features/shipped-vocabulary.js';
import type { PhotoPartHit } from '../../core/search/photo/confidence.js';
import type { GreyRaster } from './local-features/extract.js';
import type { ExtractedPhotoQuery } from './local-features/photo-features.js';

/** Limits of image decoding for image search (docs/api.md, Search). */
export interface ImageSearchLimits {
  /**
   * Largest query image, width × height in pixels (default 50,000,000, e.g. 8660 × 5773); larger
   * is a 415 naming the limit, found from the header before any decoding.
   */
  maxQueryPixels: number;
  /** Image decodes (query images and uploads) running at once (default: half the CPUs, 1 to 3). */
  decodeConcurrency: number;
  /** Query images that may wait for a decode slot (default 16); beyond, a search is a 503 with Retry-After. */
  maxQueuedDecodes: number;
}

/** The defaults of {@link ImageSearchLimits}. */
export const DEFAULT_IMAGE_SEARCH_LIMITS: Readonly<ImageSearchLimits> = Object.freeze({
  maxQueryPixels: 50_000_000,
  // Below libuv's 4 threads, so file reads (GET original, uploads) always find one free.
  decodeConcurrency: Math.min(3, Math.max(1, Math.floor(availableParallelism() / 2))),
  maxQueuedDecodes: 16,
});

/** 415 naming the limit when the header says the image has more than `maxPixels` pixels. */
async function assertPixels(bytes: Uint8Array, maxPixels: number): Promise<void> {
  const { imageSize } = await import('./sharp-features.js');
  const size = await imageSize(bytes);
  if (size && size.width * size.height > maxPixels) {
    throw new CatalogError(
      'unsupported_media_type',
      `the query image is too large for image search: ${size.width} × ${size.height} = ${(size.width * size.height).toLocaleString('en-US')} pixels, ` +
        `over the limit of ${maxPixels.toLocaleString('en-US')} pixels (width × height); scale it down`,
    );
  }
}

/**
 * The feature indexer of uploads: computes the stored features of a searchable reference image
 * in `pool` (waiting for a slot however long the queue: uploads are bounded by the upload limits).
 * Throws when sharp cannot decode the image.
 */
export function createSharpFeatureIndexer(pool: DecodePool): ImageFeatureIndexer {
  return {
    async index(_imageId, _partId, image) {
      // Feature version 2 (photo search): the global descriptor and local features.
      // On a feature thread (feature-threads.ts): ORB is synchronous wasm and must not hold the event loop.
      const { extractReferenceOffThread } = await import('./local-features/feature-threads.js');
      return pool.run(() => extractReferenceOffThread(image instanceof Uint8Array ? image : image.path), { bounded: false });
    },
    async remove() {
      // Nothing to do: features live in the images row, which the image service updates or deletes.
    },
  };
}

/** The feature indexer over a pool of its own with the default limits. */
export const sharpFeatureIndexer: ImageFeatureIndexer = createSharpFeatureIndexer(
  new DecodePool({ concurrency: DEFAULT_IMAGE_SEARCH_LIMITS.decodeConcurrency, maxQueue: DEFAULT_IMAGE_SEARCH_LIMITS.maxQueuedDecodes }),
);

/**
 * How a query photo's features are computed (default: on the feature threads, feature-threads.ts).
 * `query` returns the first look's features and, when `keepRaster` asks for it and a second look is
 * configured, the raster to look at again; `secondLook` computes that look's local features
 * (undefined: none configured).
 */
export interface QueryFeatureExtractor {
  query(image: Uint8Array, keepRaster: boolean): Promise<ExtractedPhotoQuery>;
  secondLook(raster: GreyRaster): Promise<LocalFeatures | undefined>;
  /** The photo's AKAZE features for the small references. */
  smallLook(image: Uint8Array): Promise<LocalFeatures>;
  /** Whether a small look may run beside the first look (on a thread of its own), not after it. */
  concurrent(): Promise<boolean>;
  /** Loads the decoders of every thread that describes query photos (and of the small look's, when `smallLook`); optional. */
  warm?(smallLook: boolean): Promise<void>;
}

/** The extractor of the feature threads (loaded on first use: sharp and OpenCV only when a photo is searched). */
const threadExtractor: QueryFeatureExtractor = {
  async query(image, keepRaster) {
    const { extractQueryOffThread } = await import('./local-features/feature-threads.js');
    return extractQueryOffThread(image, { raster: keepRaster });
  },
  async secondLook(raster) {
    const { secondLookOffThread } = await import('./local-features/feature-threads.js');
    return secondLookOffThread(raster);
  },
  async smallLook(image) {
    const { smallLookOffThread } = await import('./local-features/feature-threads.js');
    return smallLookOffThread(image);
  },
  async warm(smallLook) {
    const { warmFeatureThreads } = await import('./local-features/feature-threads.js');
    await warmFeatureThreads(smallLook);
  },
  async concurrent() {
    const { featureThreadsAvailable } = await import('./local-features/feature-threads.js');
    return featureThreadsAvailable();
  },
};

/**
 * Whether a server looks a second time at a query photo whose first answer has no confident hit
 * (docs/search.md): `CATALOG_PHOTO_SECOND_LOOK=1` turns it on. Off by
 * default: it finds more scene photos (nine scene conditions at 10,000 references 268 → 279 of 360
 * found first) but the unconfident fifth of the queries pay both looks, and at 10,000 references
 * the query p99 then measured 248–278 ms against the goal's 250 (179 with one look).
 */
export function secondLookWanted(env: NodeJS.ProcessEnv): boolean {
  return env.CATALOG_PHOTO_SECOND_LOOK === '1';
}

/**
 * Whether a server matches an unconfident query photo against the small references' AKAZE
 * features (docs/search.md): on unless `CATALOG_PHOTO_SMALL_LOOK=0`.
 */
export function smallLookWanted(env: NodeJS.ProcessEnv): boolean {
  return env.CATALOG_PHOTO_SMALL_LOOK !== '0';
}

/** What {@link FeatureIndexSimilaritySearch} did to keep its index current (tests, diagnostics). */
export interface ImageIndexSyncStats {
  /** Loads of every reference (the first query, or a reader further behind than the change log). */
  fullLoads: number;
  /** Loads from the snapshot file (photo-index-snapshots.ts). */
  snapshotLoads: number;
  /** Images added, replaced or removed one by one from the change log since the last full load. */
  changesApplied: number;
}

/** Changes read per change-log call: bounds the features held at once (≈17 KB a reference). */
const CHANGE_BATCH = 500;

/**
 * Ranks parts by the similarity of their best searchable image to a query image. The reference
 * features are decoded once into an in-memory index (first query), then kept current from the
 * store's change log (ReferenceFeatureStore.changesSince): an upload, a replacement, a move, a
 * deletion or a backfill batch, by this process or by another server on the same catalog, costs
 * the changed references only (docs/search.md, "Photo search").
 */
export class FeatureIndexSimilaritySearch implements ImageSimilaritySearch {
  readonly limits: ImageSearchLimits;
  /** Where query images are decoded (shared with the upload indexer by the composition root). */
  readonly pool: DecodePool;
  /** Counters of the index's loads and incremental changes. */
  readonly syncStats: ImageIndexSyncStats = { fullLoads: 0, snapshotLoads: 0, changesApplied: 0 };
  /** The index's snapshot file, when it has one (photo-index-snapshots.ts). */
  readonly snapshots: PhotoIndexSnapshots | undefined;
  /** Query photos looked at a second time: their first answer had no confident hit (diagnostics). */
  secondLooks = 0;
  /** Small looks used (diagnostics): their photo's first answer was not confident. */
  smallLooksUsed = 0;
  private readonly references: ReferenceFeatureStore;
  /** The change number the index is current to (-1: not loaded). */
  private version = -1;
  /** Changes applied to the index since it was read from or written to its snapshot file. */
  private changesSinceSnapshot = 0;
  /** The change number when this search was made (with a snapshot file only; undefined: unknown). */
  private readonly versionAtOpen: Promise<number | undefined> | undefined;
  private index: PhotoReferenceIndex | undefined;
  /** Syncs run one after the other: two overlapping ones would apply the same changes twice. */
  private syncing: Promise<void> = Promise.resolve();
  private readonly extractor: QueryFeatureExtractor;
  /** Whether unconfident photos get a second look ({@link secondLookWanted}). */
  private readonly secondLookOn: boolean;
  /** Whether unconfident photos are matched against the small references ({@link smallLookWanted}). */
  private readonly smallLookOn: boolean;
  /** Photo queries in this search between their start and their answer. */
  private inFlight = 0;
  /** Small looks started beside first looks (small-look-ahead.ts). */
  readonly ahead: SmallLookAhead;
  /** The extractor's {@link QueryFeatureExtractor.concurrent}, once known. */
  private concurrent: boolean | undefined;

  /**
   * `options.extractor`: how query photos are described (default: the feature threads; tests wrap
   * it); `options.secondLook`: whether an unconfident photo is looked at a second time (default:
   * {@link secondLookWanted} of the process environment, off); `options.smallLook`: whether an
   * unconfident photo is matched against the small references (default: {@link smallLookWanted},
   * on); `options.snapshot`: the index's snapshot file (none by default: every start-up builds
   * the index from the records).
   */
  constructor(
    references: ReferenceFeatureStore,
    options: { limits?: Partial<ImageSearchLimits>; pool?: DecodePool; extractor?: QueryFeatureExtractor; secondLook?: boolean; smallLook?: boolean; snapshot?: PhotoIndexSnapshotOptions } = {},
  ) {
    this.snapshots = options.snapshot ? new PhotoIndexSnapshots(options.snapshot) : undefined;
    this.versionAtOpen = options.snapshot ? references.changeVersion().catch(() => undefined) : undefined;
    this.references = references;
    this.extractor = options.extractor ?? threadExtractor;
    this.secondLookOn = options.secondLook ?? secondLookWanted(process.env);
    this.smallLookOn = options.smallLook ?? smallLookWanted(process.env);
    const extractor = this.extractor;
    this.ahead = new SmallLookAhead((image) => extractor.smallLook(image));
    this.limits = { ...DEFAULT_IMAGE_SEARCH_LIMITS, ...options.limits };
    this.pool = options.pool ?? new DecodePool({ concurrency: this.limits.decodeConcurrency, maxQueue: this.limits.maxQueuedDecodes });
  }

  /** Number of reference images in the in-memory index after the last sync. */
  get size(): number {
    return this.index?.size ?? 0;
  }

  /**
   * ImageSimilaritySearch.prepare (`catalog serve`, once it listens): loads the index (from its
   * snapshot when there is one: ~0.5 s at 10,000 references on this machine) and, when it holds
   * references, starts loading sharp and OpenCV on the feature threads in the background (~0.8 s,
   * on other cores), so the first query photo pays neither. A catalog without reference images
   * loads nothing more. Resolves once the index is loaded.
   * @throws the store's error when it cannot be read.
   */
  async prepare(): Promise<void> {
    await this.sync();
    // A failed warm-up is left to the first query photo to report.
    if (this.size > 0) void this.extractor.warm?.(this.smallLookOn).catch(() => undefined);
  }

  /**
   * Brings the index up to the store's latest change (what `rankParts` does before it queries).
   * @throws the store's error when it cannot be read (the index stays as it was).
   */
  sync(): Promise<void> {
    const run = this.syncing.then(() => this.syncOnce());
    this.syncing = run.catch(() => undefined);
    return run;
  }

  private async syncOnce(): Promise<void> {
    if (this.index === undefined) {
      const restored = await this.snapshots?.load(this.references, async (reader) => PhotoReferenceIndex.fromSnapshot(reader, ...(await this.vocabularies())));
      if (!restored) return this.loadAll();
      this.index = restored.index;
      this.version = restored.version;
      this.changesSinceSnapshot = 0;
      this.syncStats.snapshotLoads++;
      this.syncStats.changesApplied = 0;
    }
    const applied = await this.applyChanges(this.index);
    if (applied === undefined) return this.loadAll();
    this.changesSinceSnapshot += applied;
    // Many changes since the snapshot (uploads, a backfill): the next start-up should not apply them again.
    if (this.snapshots?.wantsRewrite(this.changesSinceSnapshot, this.index.size)) this.saveSnapshot(this.index);
  }

  /** Starts writing `index`'s snapshot (photo-index-snapshots.ts save); the changes since are then counted from 0. */
  private saveSnapshot(index: PhotoReferenceIndex): void {
    if (this.snapshots?.save(index, this.version, this.references)) this.changesSinceSnapshot = 0;
  }

  /**
   * Applies the store's changes after {@link version} to `index`; the number applied, or undefined
   * when the index must be loaded again (the change log no longer reaches back, or a dropped stop
   * word could be scanned again). Waits for a snapshot write of the index before changing it.
   */
  private async applyChanges(index: PhotoReferenceIndex): Promise<number | undefined> {
    let applied = 0;
    for (;;) {
      const changes = await this.references.changesSince(this.version, CHANGE_BATCH);
      if (!changes.complete) return undefined;
      // The snapshot being written holds views of the index's memory.
      if (changes.removed.length > 0 || changes.upserted.length > 0) await this.snapshots?.idle();
      for (const imageId of changes.removed) index.remove(imageId);
      for (const row of changes.upserted) {
        const ref = decoded(row.features);
        if (ref) index.add(row.image_id, row.part_id, ref);
        else index.remove(row.image_id);
      }
      const count = changes.removed.length + changes.upserted.length;
      applied += count;
      this.syncStats.changesApplied += count;
      this.version = changes.version;
      // A word whose postings were dropped as a stop word could be scanned again: reload.
      if (!index.complete) return undefined;
      if (!changes.more) return applied;
    }
  }

  /**
   * The arguments of a new index: the shipped ORB vocabulary, the index options (stop words'
   * postings are never scanned: not kept, half the postings at 10,000 references) and the AKAZE
   * vocabulary when the small look is on (~38 MB of small references' postings at 10,000).
   */
  private async vocabularies(): Promise<[Vocabulary, PhotoIndexOptions, Vocabulary | undefined]> {
    const [vocabulary, smallVocabulary] = await Promise.all([shippedVocabulary(), this.smallLookOn ? shippedAkazeVocabulary() : undefined]);
    return [vocabulary, { dropStopWords: true }, smallVocabulary];
  }

  /** Loads every reference into a new index (start-up, or behind the change log), and snapshots it. */
  private async loadAll(): Promise<void> {
    // The version first: a change committed while all() reads is applied again by the next sync.
    const version = await this.references.changeVersion();
    const index = new PhotoReferenceIndex(...(await this.vocabularies()));
    // Start-up only loads: the stored records carry each keypoint's visual word, so nothing is
    // quantised here, and the postings are built in one bulk pass (photo-index.ts addMany).
    const batch: { imageId: string; partId: string; ref: PhotoReference }[] = [];
    for await (const row of this.references.all()) {
      const ref = decoded(row.features);
      if (ref) batch.push({ imageId: row.image_id, partId: row.part_id, ref });
    }
    // The previous index may still be in a snapshot being written.
    await this.snapshots?.idle();
    index.addMany(batch);
    this.index = index;
    this.version = version;
    this.syncStats.fullLoads++;
    this.syncStats.changesApplied = 0;
    this.changesSinceSnapshot = 0;
    this.saveSnapshot(index);
  }

  /**
   * The catalog's close: brings the snapshot up to date when the catalog changed enough since it
   * was written (photo-index-snapshots.ts `wantsRewrite`: a bulk upload, a backfill, a server's day
   * of uploads), loading the index first if this process never did but the catalog changed that
   * much while it was open — so the next start-up reads it instead of building the index or
   * applying those changes — then waits for the write (a process leaving mid-write would leave its
   * temporary file). Never throws: a snapshot is a cache (a problem is in
   * `snapshots.stats.lastProblem`).
   */
  async close(): Promise<void> {
    const snapshots = this.snapshots;
    if (!snapshots) return;
    try {
      await snapshots.idle();
      await this.syncing;
      const current = await this.references.changeVersion();
      let pending: number;
      let references: number;
      if (this.index) {
        pending = this.changesSinceSnapshot + Math.max(0, current - this.version);
        references = this.index.size;
      } else {
        // Only the changes made while this process had the catalog open (its uploads, a backfill):
        // a command that changed no image builds nothing, whatever the catalog's history.
        const opened = (await this.versionAtOpen) ?? current;
        const file = snapshots.fileInfo();
        const usable = file !== undefined && file.changeVersion <= current;
        pending = current - Math.max(opened, usable ? file.changeVersion : 0);
        // No usable file: at most as many references as changes.
        references = usable ? file.references : current;
      }
      if (snapshots.wantsRewrite(pending, references) && snapshots.writable(references * SNAPSHOT_BYTES_PER_REFERENCE)) {
        await this.sync();
        if (this.index) this.saveSnapshot(this.index);
      }
      await snapshots.idle();
    } catch (error) {
      snapshots.stats.lastProblem = `the photo index snapshot was not brought up to date: ${(error as Error).message}`;
    }
  }

  async rankParts(image: Uint8Array, limit: number): Promise<ImageMatch[]> {
    if (!detectImageType(image.subarray(0, 64))) {
      throw new CatalogError('unsupported_media_type', 'the query image is not a JPEG, PNG, WebP, GIF, TIFF or AVIF image');
    }
    // From the header, before taking a decode slot: a decompression bomb never waits in the queue.
    await assertPixels(image, this.limits.maxQueryPixels);
    this.inFlight++;
    try {
      return await this.rankDecodable(image, limit);
    } finally {
      this.inFlight--;
    }
  }

  /** {@link rankParts} once the image's type and size passed. */
  private async rankDecodable(image: Uint8Array, limit: number): Promise<ImageMatch[]> {
    const ahead = await this.startSmallLookAhead(image);
    try {
      let query: ExtractedPhotoQuery;
      try {
        // Decode and extraction on a feature thread (feature-threads.ts): the event loop stays free.
        // The raster only when a second look may need it (it is ~300 KB to copy across the thread).
        query = await this.pool.run(() => this.extractor.query(image, this.secondLookOn));
      } catch (error) {
        if (error instanceof DecodeQueueFullError) {
          throw new CatalogError('unavailable', `image search is busy: ${error.maxQueue} query images are already waiting to be decoded; retry in a few seconds`, undefined, { retryAfterSeconds: 2 });
        }
        if (error instanceof Error && error.name === 'PixelLimitError') {
          throw new CatalogError('unsupported_media_type', `the query image is too large for image search: ${error.message.replace(/^image features: the image has /, '')}; scale it down`);
        }
        throw new CatalogError('unsupported_media_type', `the query image cannot be decoded: ${(error as Error).message}`);
      }
      await this.sync();
      let hits = this.index?.query(query, limit) ?? [];
      if (this.secondLookOn && query.raster && this.index && wantsSecondLook(hits)) hits = await this.secondLook(query, query.raster, hits, limit);
      if (this.smallLookOn && this.index && this.index.smallSize > 0 && wantsSecondLook(hits)) hits = await this.smallLook(image, ahead, hits, limit);
      // score: the photo-search confidence in [0, 1] (core/search/photo/confidence.ts).
      return hits.map((h) => ({ part_id: h.part_id, image_id: h.image_id, score: h.score }));
    } finally {
      ahead?.drop();
    }
  }

  /**
   * The small look of a query photo started beside its first look, when that costs no other query
   * anything (docs/search.md): small references are indexed, the
   * extractions run on threads and no other photo query is in flight. Its AKAZE extraction (~50–90
   * ms) then runs on the core the first look leaves idle, at a background priority
   * (feature-threads.ts), and an unconfident photo (a sixth of scene photos, nearly every photo of
   * something not in the catalog) does not wait for it after its first answer. A confident photo's
   * look is dropped. Undefined when not started.
   */
  private async startSmallLookAhead(image: Uint8Array): Promise<AheadLook | undefined> {
    if (!this.smallLookOn || this.inFlight > 1 || (this.index?.smallSize ?? 0) === 0) return undefined;
    this.concurrent ??= await this.extractor.concurrent();
    return this.concurrent && this.inFlight <= 1 ? this.ahead.start(image) : undefined;
  }

  /**
   * The answer after matching an unconfident photo against the small references
   * (docs/search.md): the photo's AKAZE features (started ahead, or extracted now in
   * the decode pool), searched in the small references' index (photo-search.ts `querySmall`), and
   * merged with `first` ({@link withAnotherLook}).
   */
  private async smallLook(image: Uint8Array, ahead: AheadLook | undefined, first: PhotoPartHit[], limit: number): Promise<PhotoPartHit[]> {
    const merged = await this.withAnotherLook(
      first,
      limit,
      async () => (await ahead?.features) ?? (await this.pool.run(() => this.extractor.smallLook(image))),
      (index, features) => index.querySmall(features, limit),
    );
    if (merged) this.smallLooksUsed++;
    return merged ?? first;
  }

  /**
   * The answer after a second look at a photo whose first answer has no confident hit
   * (docs/search.md): its raster detected again with the second look's settings
   * on a feature thread, searched again (the same global views), and merged with `first` ({@link
   * withAnotherLook}).
   */
  private async secondLook(query: ExtractedPhotoQuery, raster: GreyRaster, first: PhotoPartHit[], limit: number): Promise<PhotoPartHit[]> {
    const merged = await this.withAnotherLook(
      first,
      limit,
      () => this.pool.run(() => this.extractor.secondLook(raster)),
      (index, local) => index.query({ views: query.views, local }, limit),
    );
    if (merged) this.secondLooks++;
    return merged ?? first;
  }

  /**
   * `first` merged per part with the answer of another look at the same photo (photo-search.ts
   * `mergeLooks`: the hit with more evidence): `describe` computes that look's features, `search`
   * answers them. Undefined when there is no other answer — the decode queue is full, the
   * extraction fails or gives nothing, no index: another look is a bonus, never an error.
   */
  private async withAnotherLook(
    first: PhotoPartHit[],
    limit: number,
    describe: () => Promise<LocalFeatures | undefined>,
    search: (index: PhotoReferenceIndex, features: LocalFeatures) => PhotoPartHit[],
  ): Promise<PhotoPartHit[] | undefined> {
    let features: LocalFeatures | undefined;
    try {
      features = await describe();
    } catch {
      return undefined;
    }
    if (!features || !this.index) return undefined;
    return mergeLooks(first, search(this.index, features), limit);
  }
}

/**
 * A stored record decoded, or undefined for features of an older, unknown format (that image is not
 * searchable until re-uploaded). Version 1 records (global descriptor only) stay searchable until
 * the backfill upgrades them.
 */
function decoded(features: Uint8Array): PhotoReference | undefined {
  try {
    return decodePhotoFeatures(features);
  } catch {
    return undefined;
  }
}
