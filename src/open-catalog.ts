/**
 * The composition root: wires the SQLite store, the blob store and the system clock/ids into a
 * CatalogService for one data directory. The only module that knows every adapter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileBlobStore } from './adapters/blobs/file-blob-store.js';
import type { DecodePool } from './adapters/images/decode-pool.js';
import { createSharpFeatureIndexer, FeatureIndexSimilaritySearch, type ImageSearchLimits } from './adapters/images/image-search.js';
import { startFeatureBackfill } from './adapters/images/local-features/backfill.js';
import type { BackfillProgress } from './core/search/photo/backfill.js';
import type { SearchIndexOptions } from './adapters/sqlite/search/search-index.js';
import { openSqliteStores } from './adapters/sqlite/stores.js';
import { systemClock, systemIds } from './adapters/system.js';
import { CatalogService } from './core/catalog/service.js';
import { createServiceContext, type CatalogLimits } from './core/context.js';
import type { DisplayOrderConfig } from './core/images/display-order.js';
import { ImageService, type ImageLimits } from './core/images/service.js';
import type { Clock, Ids } from './core/ports.js';
import { RelationService } from './core/relations/service.js';
import { SearchService, type SearchLimits } from './core/search/service.js';
import type { Catalog } from './core/services.js';

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
  /** Query-image pixel limit and the bounded decode pool (issue 11; docs/api.md, Search). */
  imageSearchLimits?: Partial<ImageSearchLimits>;
  /** The pool image decodes run in (default: one per catalog from imageSearchLimits); tests pass one to hold it. */
  decodePool?: DecodePool;
  /** Progress of the photo-feature backfill that upgrades older image features after opening (issue 14). */
  onFeatureBackfill?: (progress: BackfillProgress) => void;
}

/** Directory of the image originals inside a data directory. */
export const IMAGES_DIR = 'images';

/** Opens the catalog of a data directory. Throws if the database cannot be opened or migrated. */
export function openCatalog(options: OpenCatalogOptions): Catalog {
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? systemIds();
  const stores = openSqliteStores({ dataDir: options.dataDir, clock, searchTuning: options.searchTuning });
  const store = stores.catalog;
  const context = createServiceContext({ store, clock, ids, limits: options.limits });
  const service = new CatalogService({ context, store });
  const relations = new RelationService(context, stores.relations);
  // Originals live in <dataDir>/images (blobs/ab/cd/<sha256>, tmp/); an in-memory catalog uses a temp dir.
  const imagesDir = options.dataDir !== undefined ? join(options.dataDir, IMAGES_DIR) : mkdtempSync(join(tmpdir(), 'catalog-images-'));
  // One decode pool for query images and uploads, so together they never take every libuv thread.
  const imageSearch = new FeatureIndexSimilaritySearch(stores.references, {
    ...(options.imageSearchLimits ? { limits: options.imageSearchLimits } : {}),
    ...(options.decodePool ? { pool: options.decodePool } : {}),
  });
  const blobs = new FileBlobStore(imagesDir);
  const images = new ImageService({
    context,
    store: stores.images,
    indexer: createSharpFeatureIndexer(imageSearch.pool),
    blobs,
    ...(options.imageLimits ? { limits: options.imageLimits } : {}),
    ...(options.displayConfig ? { displayConfig: options.displayConfig } : {}),
  });
  // Older feature versions are recomputed in the background, resumably (issue 14).
  const backfill = startFeatureBackfill(stores.references, blobs, imageSearch.pool, options.onFeatureBackfill);
  const search = new SearchService({
    context,
    index: stores.searchIndex,
    sessions: stores.sessions,
    images: imageSearch,
    hitSources: { parts: (partIds) => store.getParts(partIds), shownImages: (partIds) => images.shownImagesOf(partIds) },
    ...(options.searchLimits ? { limits: options.searchLimits } : {}),
  });
  return {
    service,
    relations,
    images,
    search,
    async close() {
      await search.close();
      await backfill.stop();
      await images.close();
      await service.close();
      if (options.dataDir === undefined) rmSync(imagesDir, { recursive: true, force: true });
    },
  };
}
