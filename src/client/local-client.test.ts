import { describe, expect, it } from 'vitest';
import { CatalogError, throughProblem } from '../api/errors.js';
import type { Catalog } from '../core/services.js';
import { LocalCatalogClient } from './local-client.js';

/** A catalog whose getPart throws `error` (only what LocalCatalogClient touches). */
function throwing(error: unknown): Catalog {
  const service = { getPart: () => Promise.reject(error) };
  return { service } as unknown as Catalog;
}

describe('LocalCatalogClient errors', () => {
  it('hands back a CatalogError as the HTTP client would rebuild it from problem+json', async () => {
    const original = new CatalogError('bad_request', 'invalid part: name: required', []);
    const caught = await new LocalCatalogClient(throwing(original)).getPart('p').catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(CatalogError);
    expect(caught).not.toBe(original);
    // An empty problem list is not sent (toProblem), so neither mode reports one.
    expect(caught).toMatchObject({ code: 'bad_request', status: 400, detail: 'invalid part: name: required', errors: undefined });
  });

  it('keeps field problems, code and status', async () => {
    const original = new CatalogError('bad_request', 'bad', [{ path: 'paging.limit', message: 'too small' }]);
    const caught = (await new LocalCatalogClient(throwing(original)).getPart('p').catch((e: unknown) => e)) as CatalogError;
    expect({ code: caught.code, status: caught.status, detail: caught.detail, errors: caught.errors }).toEqual({
      code: 'bad_request', status: 400, detail: 'bad', errors: [{ path: 'paging.limit', message: 'too small' }],
    });
    expect(throughProblem(new CatalogError('maintenance', 'x')).status).toBe(503);
  });

  it('passes an error that is not a CatalogError through unchanged (the CLI classifies it)', async () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(await new LocalCatalogClient(throwing(full)).getPart('p').catch((e: unknown) => e)).toBe(full);
    class SqliteError extends Error {
      code = 'SQLITE_BUSY';
    }
    const busy = new SqliteError('database is locked');
    expect(await new LocalCatalogClient(throwing(busy)).getPart('p').catch((e: unknown) => e)).toBe(busy);
  });
});
