/**
 * The composition root: wires the SQLite store, the blob store and the system clock/ids into a
 * CatalogService for one data directory. The only module that knows every adapter.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from './adapters/sqlite/database.js';
import { SqliteCatalogStore } from './adapters/sqlite/catalog-store.js';
import { SqliteRelationStore } from './adapters/sqlite/relation-store.js';
import { RelationService } from './core/relation-service.js';
import { systemClock, systemIds } from './adapters/system.js';
import { CatalogService, type CatalogLimits } from './core/service.js';
import type { Catalog } from './core/catalog.js';
import type { Clock, Ids } from './core/ports.js';

export interface OpenCatalogOptions {
  /** Data directory (created if missing); `undefined` = an in-memory catalog (tests). */
  dataDir: string | undefined;
  limits?: Partial<CatalogLimits>;
  clock?: Clock;
  ids?: Ids;
}

/** File name of the SQLite database inside a data directory. */
export const DATABASE_FILE = 'catalog.db';

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
  const service = new CatalogService({ store, clock, ids, ...(options.limits ? { limits: options.limits } : {}) });
  const relations = new RelationService(service, new SqliteRelationStore(store.db));
  return {
    service,
    relations,
    async close() {
      await service.close();
    },
  };
}
