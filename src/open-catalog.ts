/**
 * The composition root: wires the SQLite store, the blob store and the system clock/ids into a
 * CatalogService for one data directory. The only module that knows every adapter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileBlobStore } from './adapters/blobs/file-blob-store.js';
import { withStorageFullErrors } from './adapters/storage-full.js';
import type { DecodePool } from './adapters/images/decode-pool.js';
import { createSharpImageDecoder } from './adapters/images/image-decoder.js';
import { createSharpFeatureIndexer, FeatureIndexSimilaritySearch, type ImageSearchLimits } from './adapters/images/image-search.js';
import { createSharpReferenceProbe } from './adapters/images/photo-conditions.js';
import { ImageAudit } from './core/images/audit.js';
import { photoIndexFileOf } from './adapters/images/photo-index-snapshots.js';
import { startFeatureBackfill } from './adapters/images/local-features/backfill.js';
import type { BackfillProgress } from './core/search/photo/backfill.js';
import type { SearchIndexOptions } from './adapters/sqlite/search/search-index.js';
import { openSqliteStores } from './adapters/sqlite/stores.js';
import { systemClock, systemIds } from './adapters/system.js';
import { CatalogService } from './core/catalog/service.js';
import { createServiceContext, MAINTENANCE_KEY, type CatalogLimits } from './core/context.js';
import { checkReadiness } from './core/operations/readiness.js';
import type { DisplayOrderConfig } from './core/images/display-order.js';
import { ImageService, type ImageLimits } from './core/images/service.js';
import type { BlobStore, CatalogStores, Clock, Ids, SessionSink, SessionStore } from './core/ports.js';
import { RelationService } from './core/relations/service.js';
import { ChangeService } from './core/changes/service.js';
import { SearchService, type SearchLimits } from './core/search/service.js';
import { RANKING_SETTINGS_KEY } from './core/search/ranking-settings.js';
import type { Catalog, CatalogOperations } from './core/services.js';
import type { MigrationEnd } from './core/migration/copy-catalog.js';

export { DATABASE_FILE } from './adapters/sqlite/stores.js';

export interface OpenCatalogOptions {
  /** Data directory (created if missing); `undefined` = an in-memory catalog (tests). */
  dataDir: string | undefined;
  limits?: Partial<CatalogLimits>;
  /** Image upload limits (decisions §9). */
  imageLimits?: Partial<ImageLimits>;
  /** The catalog image configuration (decisions §4). */
  displayConfig?: Partial<DisplayOrderConfig>;
  clock?: Clock;
  ids?: Ids;
  /** Search limits (decisions §8, §9). */
  searchLimits?: Partial<SearchLimits>;
  /** Ranking work per search (docs/search.md). */
  searchTuning?: Omit<SearchIndexOptions, 'clock'>;
  /** Query-image pixel limit and the bounded decode pool (docs/api.md, Search). */
  imageSearchLimits?: Partial<ImageSearchLimits>;
  /** The pool image decodes run in (default: one per catalog from imageSearchLimits); tests pass one to hold it. */
  decodePool?: DecodePool;
  /**
   * Whether this catalog keeps the photo index's snapshot file (photo-index-snapshots.ts; default
   * true, where `photoIndexFileOf` finds one). `catalog serve`'s reader and writer threads: false
   * (they do no image search; only the main thread's index writes the file).
   */
  photoIndexSnapshot?: boolean;
  /** Progress of the photo-feature backfill that upgrades older image features after opening. */
  onFeatureBackfill?: (progress: BackfillProgress) => void;
  /**
   * The buffer of sessions.db's write lock, the same for every thread of this process that opens
   * the data directory (`catalog serve`'s main and reader threads; adapters/sqlite/thread-lock.ts).
   */
  sessionWriteLock?: SharedArrayBuffer;
  /**
   * Turns at catalog.db's write lock shared with `catalog serve`'s writer thread
   * (adapters/sqlite/write-turns.ts): for the main thread's catalog only (SQLite stores).
   */
  catalogWriteTurns?: SharedArrayBuffer;
  /**
   * Where search sessions go instead of being stored at once (SearchServiceDeps.sessionSink), built
   * from the catalog's session store and clock: `catalog serve`'s main thread stores them in batches
   * after answering (http/pool/session-batcher.ts), its reader threads hand them to the main thread.
   * Not plain data: never part of the options sent to worker threads.
   */
  sessionSink?: (sessions: SessionStore, clock: Clock) => SessionSink;
}

/** Directory of the image originals inside a data directory. */
export const IMAGES_DIR = 'images';

/** Opens the catalog of a data directory (SQLite and files). Throws if the database cannot be opened or migrated. */
export function openCatalog(options: OpenCatalogOptions): Catalog {
  const clock = options.clock ?? systemClock();
  const stores = openSqliteStores({ dataDir: options.dataDir, clock, searchTuning: options.searchTuning, sessionWriteLock: options.sessionWriteLock, catalogWriteTurns: options.catalogWriteTurns });
  return assembleCatalog(stores, localBlobs(options.dataDir), options, clock);
}

/** Where a catalog's stores live besides (or instead of) a data directory (docs/deploy.md). */
export interface CatalogLocation {
  /** postgres://user:password@host:port/database: the catalog, its search index and sessions in PostgreSQL. */
  databaseUrl?: string | undefined;
  /** s3://bucket/prefix: image originals in S3-compatible storage (endpoint, region, credentials from the AWS SDK's environment). */
  blobUrl?: string | undefined;
}

/**
 * Opens a catalog wherever it lives: PostgreSQL when `databaseUrl` is given, else SQLite in
 * `dataDir`; image originals in S3 when `blobUrl` is given, else files under `dataDir/images`.
 * Throws the driver's error when a store cannot be reached or migrated, a TypeError for a
 * malformed `blobUrl`.
 */
export async function openCatalogAt(options: OpenCatalogOptions & CatalogLocation): Promise<Catalog> {
  if (options.databaseUrl === undefined && options.blobUrl === undefined) return openCatalog(options);
  const clock = options.clock ?? systemClock();
  let blobs: { store: BlobStore; dispose(): void; shared?: boolean };
  if (options.blobUrl !== undefined) {
    const { parseS3Url, S3BlobStore } = await import('./adapters/blobs/s3-blob-store.js');
    const s3 = new S3BlobStore(parseS3Url(options.blobUrl));
    // Object storage that cannot be reached is unavailable (503, Retry-After), not an internal error.
    const store = withStorageFullErrors(s3, 'the image storage (S3)', { unavailable: true });
    // Object storage may be written by several servers at once (docs/deploy.md).
    blobs = { store, dispose: () => s3.client.destroy(), shared: true };
  } else {
    blobs = localBlobs(options.dataDir);
  }
  let stores: CatalogStores;
  try {
    if (options.databaseUrl !== undefined) {
      const { openPostgresStores } = await import('./adapters/postgres/stores.js');
      stores = await openPostgresStores(options.databaseUrl, { clock });
    } else {
      stores = openSqliteStores({ dataDir: options.dataDir, clock, searchTuning: options.searchTuning });
    }
  } catch (error) {
    blobs.dispose();
    throw error;
  }
  return assembleCatalog(stores, blobs, options, clock);
}

/** Files under `<dataDir>/images` (blobs/ab/cd/<sha256>, tmp/); a temp dir, removed on close, without a data directory. */
function localBlobs(dataDir: string | undefined): { store: BlobStore; dispose(): void } {
  const imagesDir = dataDir !== undefined ? join(dataDir, IMAGES_DIR) : mkdtempSync(join(tmpdir(), 'catalog-images-'));
  return {
    store: new FileBlobStore(imagesDir),
    dispose: () => {
      if (dataDir === undefined) rmSync(imagesDir, { recursive: true, force: true });
    },
  };
}

/** A content address no blob has (readiness looks it up: an answer, not a hit, is what counts). */
const NO_BLOB = '0'.repeat(64);

/** The services of one catalog over its stores and blob store; `close` closes them all. */
function assembleCatalog(stores: CatalogStores, blobs: { store: BlobStore; dispose(): void; shared?: boolean }, options: OpenCatalogOptions, clock: Clock): Catalog {
  const ids = options.ids ?? systemIds();
  const store = stores.catalog;
  const context = createServiceContext({ store, clock, ids, limits: options.limits });
  const service = new CatalogService({ context, store });
  const relations = new RelationService(context, stores.relations);
  // The photo index's snapshot file, if this catalog has one (photo-index-snapshots.ts).
  const photoIndexFile = photoIndexFileOf(options, process.env);
  // One decode pool for query images and uploads, so together they never take every libuv thread.
  const imageSearch = new FeatureIndexSimilaritySearch(stores.references, {
    ...(options.imageSearchLimits ? { limits: options.imageSearchLimits } : {}),
    ...(options.decodePool ? { pool: options.decodePool } : {}),
    ...(photoIndexFile !== undefined ? { snapshot: { file: photoIndexFile } } : {}),
  });
  const images = new ImageService({
    context,
    store: stores.images,
    indexer: createSharpFeatureIndexer(imageSearch.pool),
    decoder: createSharpImageDecoder(imageSearch.pool),
    blobs: blobs.store,
    sharedBlobs: blobs.shared ?? false,
    audit: new ImageAudit({ store: stores.images, blobs: blobs.store, similarity: imageSearch, probe: createSharpReferenceProbe(imageSearch.pool), features: stores.references }),
    ...(options.imageLimits ? { limits: options.imageLimits } : {}),
    ...(options.displayConfig ? { displayConfig: options.displayConfig } : {}),
  });
  // Older feature versions are recomputed in the background, resumably.
  const backfill = startFeatureBackfill(stores.references, blobs.store, imageSearch.pool, options.onFeatureBackfill);
  const search = new SearchService({
    context,
    index: stores.searchIndex,
    sessions: stores.sessions,
    images: imageSearch,
    hitSources: { parts: (partIds) => store.getParts(partIds), shownImages: (partIds) => images.shownImagesOf(partIds) },
    synonyms: () => store.allSynonyms(),
    rankingSettings: { get: () => store.getSetting(RANKING_SETTINGS_KEY), set: (value) => store.setSetting(RANKING_SETTINGS_KEY, value) },
    ...(options.searchLimits ? { limits: options.searchLimits } : {}),
    ...(options.sessionSink ? { sessionSink: options.sessionSink(stores.sessions, clock) } : {}),
  });
  const operations: CatalogOperations = {
    // A settings read is a round trip to PostgreSQL; the lookup of a hash no blob has is one to the bucket.
    readiness: () => checkReadiness({ database: () => store.getSetting(MAINTENANCE_KEY), blobStore: () => blobs.store.has(NO_BLOB) }),
    async sizes() {
      const [indexedParts, sessions] = await Promise.all([stores.searchIndex.indexedParts?.(), stores.sessions.size?.()]);
      return { indexedParts, sessions: sessions?.sessions, sessionBytes: sessions?.bytes };
    },
    decodeQueue: () => ({ active: imageSearch.pool.active, queued: imageSearch.pool.queued }),
  };
  return {
    service,
    relations,
    images,
    search,
    operations,
    changes: new ChangeService(context, stores.changes, stores.webhooks),
    groupCommit: stores.groupCommit,
    async close() {
      await search.close();
      await backfill.stop();
      await imageSearch.close();
      await images.close();
      await service.close();
      await stores.close();
      blobs.dispose();
    },
  };
}

/** The two ends of `catalog migrate`: a data directory and the PostgreSQL (+ S3) target. */
export interface OpenedMigration {
  source: MigrationEnd;
  target: MigrationEnd;
  /** Closes both ends. */
  close(): Promise<void>;
}

/**
 * Opens the SQLite stores and image files of `dataDir` (which must exist) as the source and the
 * PostgreSQL stores of `databaseUrl` (migrated to the current schema) with the S3 bucket of
 * `blobUrl` as the target; without `blobUrl` the target keeps its originals in `dataDir/images`,
 * the source's own files. Throws the driver's error when a store cannot be reached.
 */
export async function openMigration(options: { dataDir: string; databaseUrl: string; blobUrl?: string | undefined; clock?: Clock }): Promise<OpenedMigration> {
  const clock = options.clock ?? systemClock();
  const sourceStores = openSqliteStores({ dataDir: options.dataDir, clock });
  const sourceBlobs = localBlobs(options.dataDir);
  let targetBlobs: { store: BlobStore; dispose(): void } = sourceBlobs;
  try {
    if (options.blobUrl !== undefined) {
      const { parseS3Url, S3BlobStore } = await import('./adapters/blobs/s3-blob-store.js');
      const store = new S3BlobStore(parseS3Url(options.blobUrl));
      targetBlobs = { store, dispose: () => store.client.destroy() };
    }
    const { openPostgresStores } = await import('./adapters/postgres/stores.js');
    const targetStores = await openPostgresStores(options.databaseUrl, { clock, max: 4 });
    return {
      source: { stores: sourceStores, blobs: sourceBlobs.store },
      target: { stores: targetStores, blobs: targetBlobs.store, sharedBlobs: targetBlobs === sourceBlobs },
      async close() {
        await targetStores.close();
        await sourceStores.close();
        targetBlobs.dispose();
      },
    };
  } catch (error) {
    await sourceStores.close();
    if (targetBlobs !== sourceBlobs) targetBlobs.dispose();
    throw error;
  }
}
