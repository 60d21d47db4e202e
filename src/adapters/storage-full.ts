/**
 * A full disk as the catalog's error (issue 11): SQLite's SQLITE_FULL and the file system's ENOSPC
 * (or EDQUOT, a quota) become `CatalogError('storage_full')`, HTTP 507 and CLI exit 5, with a detail
 * saying storage is full, instead of an internal error. What was stored before is untouched: a
 * SQLite write that fails rolls its transaction back, and a blob is written to a temp file that is
 * removed on failure.
 */
import { CatalogError, errors } from '../api/errors.js';

/** Whether `error` says the disk (or the quota) is full. */
export function isStorageFull(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  // 53100: PostgreSQL's disk_full SQLSTATE.
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === '53100';
}

/** `error` as the catalog's storage_full error when the disk is full; else `error` itself. */
export function asStorageError(error: unknown, what: string): unknown {
  return !(error instanceof CatalogError) && isStorageFull(error) ? errors.storageFull(what) : error;
}

/**
 * `target` with every method's "disk full" failure (thrown, or a rejected promise) turned into the
 * storage_full CatalogError; every other value and error passes through unchanged. Methods run on
 * the target itself, so calls among its own methods are not wrapped twice. `what` names what could
 * not be written, e.g. "the catalog database".
 */
export function withStorageFullErrors<T extends object>(target: T, what: string): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, key, receiver) {
      const value: unknown = Reflect.get(object, key, receiver);
      if (typeof value !== 'function') return value;
      let wrapper = wrapped.get(key);
      if (wrapper === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        wrapper = function (this: unknown, ...args: unknown[]): unknown {
          let result: unknown;
          try {
            result = method.apply(object, args);
          } catch (error) {
            throw asStorageError(error, what);
          }
          if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(asStorageError(error, what)));
          return result;
        };
        wrapped.set(key, wrapper);
      }
      return wrapper;
    },
  });
}
