/**
 * An in-memory SQLite catalog wired as openCatalog wires it (store, search index as its write
 * listener, services), for store-level tests that reach past the services; and the index tables
 * of a catalog.db in a form two runs can be compared by.
 */
import type { Database } from 'better-sqlite3';
import { SqliteCatalogStore } from '../../src/adapters/sqlite/catalog-store.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteSearchIndex } from '../../src/adapters/sqlite/search/search-index.js';
import { openSessionDatabase, SqliteSessionStore } from '../../src/adapters/sqlite/session-store.js';
import { systemClock, systemIds } from '../../src/adapters/system.js';
import { CatalogService } from '../../src/core/catalog/service.js';
import { createServiceContext } from '../../src/core/context.js';
import { SearchService } from '../../src/core/search/service.js';

/** The pieces of {@link inMemorySqliteCatalog}; close() closes the services (and so the databases). */
export interface InMemorySqliteCatalog {
  store: SqliteCatalogStore;
  index: SqliteSearchIndex;
  service: CatalogService;
  search: SearchService;
  close(): Promise<void>;
}

/** A fresh catalog in memory (catalog and sessions databases), on the system clock and ids. */
export function inMemorySqliteCatalog(): InMemorySqliteCatalog {
  const clock = systemClock();
  const store = new SqliteCatalogStore(openDatabase(':memory:'));
  const index = new SqliteSearchIndex(store.db, { clock });
  store.listeners.push(index);
  const context = createServiceContext({ store, clock, ids: systemIds() });
  const service = new CatalogService({ context, store });
  const search = new SearchService({ context, index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
  return {
    store, index, service, search,
    async close() {
      await search.close();
      await service.close();
    },
  };
}

/**
 * Every row of the search index's tables (and the parts rows they index), ordered, blobs as hex:
 * equal for two catalogs exactly when their stored index is byte for byte the same.
 */
export function indexTables(db: Database): Record<string, unknown[]> {
  const all = (sql: string) => db.prepare(sql).raw().all();
  return {
    parts: all('SELECT rowid_, part_id, name, attributes FROM parts ORDER BY rowid_'),
    dictionary: all('SELECT term, id FROM engine_term_levels ORDER BY term'),
    postings: all('SELECT term_id, first_doc, hex(data) FROM engine_postings ORDER BY 1, 2'),
    runs: all('SELECT run, term_id, first_doc, hex(data) FROM engine_runs ORDER BY 1, 2, 3'),
    runList: all('SELECT run, tier FROM engine_run_list ORDER BY 1'),
    docs: all('SELECT chunk, hex(data) FROM engine_docs ORDER BY 1'),
    changes: all('SELECT version, hex(term_ids), terms FROM engine_term_changes ORDER BY 1'),
    stats: all('SELECT * FROM engine_stats'),
    current: all('SELECT * FROM search_current ORDER BY 1'),
    vocabulary: all('SELECT term FROM search_term_levels ORDER BY 1'),
    typoKeys: all('SELECT * FROM search_term_keys ORDER BY 1, 2'),
    orgDocs: all('SELECT rowid, * FROM search_org_docs ORDER BY rowid'),
  };
}
