/**
 * An object store that cannot be reached is a 503 with Retry-After (docs/api.md, Wire), which the
 * CLI and the HTTP client retry, not a 500 `internal`: an image upload to a catalog whose S3
 * endpoint refuses connections, and the same catalog through the local client (exit 5, not 1).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { buildApp } from '../../src/http/app.js';
import { openCatalogAt } from '../../src/open-catalog.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import { isStoreUnavailable } from '../../src/adapters/unavailable.js';
import type { Catalog } from '../../src/core/services.js';
import type { FastifyInstance } from 'fastify';
import { freePort } from '../helpers/bin.js';
import { SHARED_IMAGES } from '../helpers/data.js';
import { expectCatalogError } from '../helpers/expect-error.js';

describe('an object store that cannot be reached', () => {
  const saved = { ...process.env };
  let dataDir = '';
  let catalog: Catalog;
  let app: FastifyInstance;
  let token = '';

  beforeAll(async () => {
    const port = await freePort();
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y', AWS_MAX_ATTEMPTS: '1',
    });
    dataDir = mkdtempSync(join(tmpdir(), 'outage-'));
    catalog = await openCatalogAt({ dataDir, blobUrl: 's3://nowhere/catalog' });
    token = (await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] })).secret;
    await catalog.service.upsertParts(await catalog.service.authenticate(`Bearer ${token}`), [{ part_id: 'p1' }]);
    app = buildApp({ catalog, accessLog: null, webApp: false });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await catalog?.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.env = saved;
  });

  it('answers an upload 503 unavailable with Retry-After over HTTP', async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const form = new FormData();
    form.append('images', new Blob([JSON.stringify([{ image_id: 'i1', part_id: 'p1', info: 'display' }])], { type: 'application/json' }), 'defs.json');
    form.append('files', new Blob([readFileSync(join(SHARED_IMAGES, '001penny.jpg'))], { type: 'image/jpeg' }), 'i1.jpg');
    const response = await request(`${url}/1/catalog/images`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
    const body = (await response.body.json()) as { code?: string; detail?: string };
    expect({ status: response.statusCode, code: body.code }).toEqual({ status: 503, code: 'unavailable' });
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect(body.detail).not.toContain('127.0.0.1');
  });

  it('is unavailable (exit 5) through the local client too', async () => {
    const client = new LocalCatalogClient(catalog, { token });
    await expectCatalogError(client.uploadImages([{ image_id: 'i2', part_id: 'p1', info: 'display' }], [{ filename: 'i2.jpg', data: readFileSync(join(SHARED_IMAGES, '001penny.jpg')) }]), 'unavailable');
  });

  it('recognises PostgreSQL and network failures, and nothing else', () => {
    expect(isStoreUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isStoreUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('slow down'), { $metadata: { httpStatusCode: 503 } }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isStoreUnavailable(Object.assign(new Error('no such key'), { $metadata: { httpStatusCode: 404 } }))).toBe(false);
    expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
  });
});
