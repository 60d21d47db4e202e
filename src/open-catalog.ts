/**
 * The composition root: wires the SQLite store, the blob store and the system clock/ids into a
 * CatalogService for one data directory. The only module that knows every adapter.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './adapters/sqlite/database.js';
import { SqliteCatalogStore } from './adapters/sqlite/catalog-store.js';
import { SqliteRelationStore } from './adapters/sqlite/relation-store.js';
import { SqliteImageStore } from './adapters/sqlite/image-store.js';
import { FileBlobStore } from './adapters/blobs/file-blob-store.js';
import { FeatureIndexSimilaritySearch, sharpFeatureIndexer } from './adapters/images/image-search.js';
import { SqliteReferenceFeatureStore } from './adapters/sqlite/reference-features.js';
import { ImageService, type ImageLimits } from './core/images/service.js';
import type { DisplayOrderConfig } from './core/images/display-order.js';
import { RelationService } from './core/relations/service.js';
import { systemClock, systemIds } from './adapters/system.js';
import { CatalogService } from './core/catalog/service.js';
import { createServiceContext, type CatalogLimits } from './core/context.js';
import type { Catalog } from './core/services.js';
import type { Clock, Ids } from './core/ports.js';
import { SqliteSearchIndex, type SearchIndexOptions } from './adapters/sqlite/search/search-index.js';
import { openSessionDatabase, SESSIONS_FILE, SqliteSessionStore } from './adapters/sqlite/session-store.js';
import { SearchService, type SearchLimits } from './core/search/service.js';

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
}

/** File name of the SQLite database inside a data directory. */
export const DATABASE_FILE = 'catalog.db';

/** Directory of the image originals inside a data directory. */
export const IMAGES_DIR = 'images';

/** Opens the catalog of a data directory. Throws if the database cannot be opened or migrated. */
export function openCatalog(options: OpenCatalogOptions): Catalog {
  let dbPath = ':memory:';
  if (options.dataDir !== undefined) {
    mkdirSync(options.dataDir, { recursive: true });
    dbPath = join(options.dataDir, DATABASE_FILE);
  }
  const db = openDatabase(dbPath);
  const store = new SqliteCatalogStore(db);
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? systemIds();
  const context = createServiceContext({ store, clock, ids, limits: options.limits });
  const service = new CatalogService({ context, store });
  const relations = new RelationService(context, new SqliteRelationStore(store.db));
  // Originals live in <dataDir>/images (blobs/ab/cd/<sha256>, tmp/); an in-memory catalog uses a temp dir.
  const imagesDir = options.dataDir !== undefined ? join(options.dataDir, IMAGES_DIR) : mkdtempSync(join(tmpdir(), 'catalog-images-'));
  const images = new ImageService({
    context,
    store: new SqliteImageStore(store.db),
    indexer: sharpFeatureIndexer,
    blobs: new FileBlobStore(imagesDir),
    ...(options.imageLimits ? { limits: options.imageLimits } : {}),
    ...(options.displayConfig ? { displayConfig: options.displayConfig } : {}),
  });
  // The search index is kept in sync by the store's write transactions (a write listener).
  const searchIndex = new SqliteSearchIndex(store.db, { clock, ...options.searchTuning });
  store.listeners.push(searchIndex);
  const search = new SearchService({
    context,
    index: searchIndex,
    sessions: new SqliteSessionStore(openSessionDatabase(options.dataDir !== undefined ? join(options.dataDir, SESSIONS_FILE) : ':memory:')),
    images: new FeatureIndexSimilaritySearch(new SqliteReferenceFeatureStore(store.db)),
    ...(options.searchLimits ? { limits: options.searchLimits } : {}),
  });
  return {
    service,
    relations,
    images,
    search,
    async close() {
      await search.close();
      await images.close();
      await service.close();
      if (options.dataDir === undefined) rmSync(imagesDir, { recursive: true, force: true });
    },
  };
}
