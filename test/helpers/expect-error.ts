import { expect } from 'vitest';
import { CatalogError, type ErrorCode } from '../../src/api/errors.js';

/** Awaits `promise`, expects a CatalogError with `code` (and a detail matching `detail`), returns it. */
export async function expectCatalogError(promise: Promise<unknown>, code: ErrorCode, detail?: string | RegExp): Promise<CatalogError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a CatalogError ${code}`).toBeInstanceOf(CatalogError);
  const error = caught as CatalogError;
  expect(error.code).toBe(code);
  if (typeof detail === 'string') expect(error.detail).toBe(detail);
  else if (detail) expect(error.detail).toMatch(detail);
  return error;
}
