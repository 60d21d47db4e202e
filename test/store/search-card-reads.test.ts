/**
 * The result cards a connection keeps survive writes to other parts, and are read again for a
 * part written since.
 */
import { describe, expect, it, vi } from 'vitest';
import { SqliteCatalogStore } from '../../src/adapters/sqlite/catalog-store.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteSearchIndex } from '../../src/adapters/sqlite/search/search-index.js';
import { openSessionDatabase, SqliteSessionStore } from '../../src/adapters/sqlite/session-store.js';
import { systemClock, systemIds } from '../../src/adapters/system.js';
import { CatalogService } from '../../src/core/catalog/service.js';
import { createServiceContext } from '../../src/core/context.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { SearchService } from '../../src/core/search/service.js';

describe('result cards kept per connection', () => {
  it('survive a write to a part in another doc chunk and are re-read for a part written since', async () => {
    const clock = systemClock();
    const store = new SqliteCatalogStore(openDatabase(':memory:'));
    const index = new SqliteSearchIndex(store.db, { clock, cacheSize: 0 });
    store.listeners.push(index);
    const context = createServiceContext({ store, clock, ids: systemIds() });
    const service = new CatalogService({ context, store });
    const search = new SearchService({ context, index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')) });
    try {
      // Rowids 1..300: the zebras (rowids 299, 300) lie in doc chunk 1, part p000 in chunk 0.
      await service.upsertParts(LOCAL_OWNER, Array.from({ length: 300 }, (_, i) => ({ part_id: `p${String(i).padStart(3, '0')}`, name: { en: i >= 298 ? `Zebra ${i}` : `Cog ${i}` } })));
      // Current cards are read from their parts rows (readCards' partCards statement).
      const reads = vi.spyOn((index as unknown as { stmt: { partCards: { get: () => unknown } } }).stmt.partCards, 'get');
      const zebras = async () => (await search.search(LOCAL_OWNER, { matches: { text: 'zebra' } })).results.map((r) => `${r.id} ${r.name ?? ''}`);
      expect(await zebras()).toEqual(['p298 Zebra 298', 'p299 Zebra 299']);
      expect(reads).toHaveBeenCalledTimes(1);
      await service.upsertParts(LOCAL_OWNER, [{ part_id: 'p000', name: { en: 'Cog renamed' } }]);
      expect(await zebras()).toEqual(['p298 Zebra 298', 'p299 Zebra 299']);
      expect(reads).toHaveBeenCalledTimes(1);
      await service.upsertParts(LOCAL_OWNER, [{ part_id: 'p299', name: { en: 'Zebra renamed' } }]);
      expect(await zebras()).toEqual(['p298 Zebra 298', 'p299 Zebra renamed']);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      await search.close();
      await service.close();
    }
  });
});
