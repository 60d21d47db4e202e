/**
 * A full disk as the catalog's error: SQLite's SQLITE_FULL and the file system's ENOSPC
 * (or EDQUOT, a quota) become `CatalogError('storage_full')`, HTTP 507 and CLI exit 5, with a detail
 * saying storage is full, instead of an internal error. What was stored before is untouched: a
 * SQLite write that fails rolls its transaction back, and a blob is written to a temp file that is
 * removed on failure.
 */
import { CatalogError, errors } from '../api/errors.js';
import { asUnavailableError } from './unavailable.js';

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
 * not be written, e.g. "the catalog database". With `unavailable`, a server that cannot be reached
 * becomes the unavailable CatalogError too (503, unavailable.ts).
 *
 * The wrapper inherits from `target` (fields read through it are the target's, live) and has one
 * wrapped function of its own per method, made once here: a Proxy's `get` trap ran on every store
 * call, ~4-5 of them per GET part. Assigning a property on the wrapper does not reach
 * the target; nothing does (stores are configured before they are wrapped).
 */
export function withStorageFullErrors<T extends object>(target: T, what: string, options: { unavailable?: boolean } = {}): T {
  // A store on a server (PostgreSQL, S3) also maps "cannot be reached" to the 503 (unavailable.ts).
  const map = options.unavailable === true ? (error: unknown) => asUnavailableError(asStorageError(error, what), what) : (error: unknown) => asStorageError(error, what);
  const wrapper = Object.create(target) as T;
  for (const key of methodKeys(target)) {
    const method = Reflect.get(target, key) as (...args: unknown[]) => unknown;
    const wrapped = function (...args: unknown[]): unknown {
      let result: unknown;
      try {
        result = method.apply(target, args);
      } catch (error) {
        throw map(error);
      }
      if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(map(error)));
      return result;
    };
    Object.defineProperty(wrapper, key, { value: wrapped, writable: true, configurable: true, enumerable: false });
  }
  return wrapper;
}

/** The keys of `target`'s methods: its own function-valued properties and those of its classes (not Object's, not getters). */
function methodKeys(target: object): Set<PropertyKey> {
  const keys = new Set<PropertyKey>();
  for (let object: object | null = target; object !== null && object !== Object.prototype; object = Reflect.getPrototypeOf(object)) {
    for (const key of Reflect.ownKeys(object)) {
      if (key === 'constructor' || keys.has(key)) continue;
      const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
      if (descriptor && typeof descriptor.value === 'function') keys.add(key);
    }
  }
  return keys;
}
