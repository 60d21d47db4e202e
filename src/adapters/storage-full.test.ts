import { describe, expect, it } from 'vitest';
import { CatalogError } from '../api/errors.js';
import { CatalogService } from '../core/catalog/service.js';
import { createServiceContext } from '../core/context.js';
import { LOCAL_OWNER } from '../core/permissions.js';
import { openSqliteStores } from './sqlite/stores.js';
import { asStorageError, withStorageFullErrors } from './storage-full.js';
import { systemClock, systemIds } from './system.js';

const full = (code: string) => Object.assign(new Error(`disk: ${code}`), { code });

describe('storage full', () => {
  it('SQLITE_FULL, ENOSPC and EDQUOT become storage_full (507, exit 5); other errors pass unchanged', async () => {
    for (const code of ['SQLITE_FULL', 'ENOSPC', 'EDQUOT']) {
      const error = asStorageError(full(code), 'the catalog database');
      expect(error).toBeInstanceOf(CatalogError);
      expect((error as CatalogError).code).toBe('storage_full');
      expect((error as CatalogError).status).toBe(507);
      expect((error as CatalogError).detail).toMatch(/^storage is full: the catalog database could not be written/);
    }
    const other = full('SQLITE_BUSY');
    expect(asStorageError(other, 'x')).toBe(other);

    const store = withStorageFullErrors({
      value: 7,
      sync(): number { throw full('SQLITE_FULL'); },
      async later(): Promise<number> { throw full('ENOSPC'); },
      fine(): number { return this.value; },
      async broken(): Promise<number> { throw new TypeError('a bug'); },
    }, 'the test store');
    expect(() => store.sync()).toThrow(/storage is full: the test store/);
    await expect(store.later()).rejects.toMatchObject({ code: 'storage_full' });
    await expect(store.broken()).rejects.toBeInstanceOf(TypeError);
    expect(store.fine()).toBe(7);
    expect(store.value).toBe(7);
  });

  it('wraps the methods a store inherits from its classes; fields read through the wrapper are the store\'s own, live', async () => {
    class BaseStore {
      rows = 1;
      write(): void {
        throw full('SQLITE_FULL');
      }
    }
    class Store extends BaseStore {
      async count(): Promise<number> {
        return this.rows;
      }
    }
    const target = new Store();
    const store = withStorageFullErrors(target, 'the class store');
    expect(store).toBeInstanceOf(Store);
    expect(() => store.write()).toThrow(/storage is full: the class store/);
    target.rows = 5;
    expect(store.rows).toBe(5);
    await expect(store.count()).resolves.toBe(5);
  });

  it('a database that reaches its size limit answers storage_full and keeps what it had', async () => {
    const clock = systemClock();
    const stores = openSqliteStores({ dataDir: undefined, clock });
    const context = createServiceContext({ store: stores.catalog, clock, ids: systemIds() });
    const service = new CatalogService({ context, store: stores.catalog });
    await service.upsertParts(LOCAL_OWNER, [{ part_id: 'kept', name: { en: 'Kept' } }]);
    // SQLite answers SQLITE_FULL once the file would grow beyond max_page_count.
    const pages = stores.catalog.db.pragma('page_count', { simple: true }) as number;
    stores.catalog.db.pragma(`max_page_count = ${pages + 2}`);
    const parts = Array.from({ length: 50 }, (_, i) => ({ part_id: `big${i}`, name: { en: 'filler '.repeat(500) } }));
    await expect(service.upsertParts(LOCAL_OWNER, parts)).rejects.toMatchObject({ code: 'storage_full', status: 507 });
    expect((await service.getPart(LOCAL_OWNER, 'kept')).name).toEqual({ en: 'Kept' });
    await service.close();
    await stores.close();
  });
});
