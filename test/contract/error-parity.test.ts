/**
 * Contract: local mode equals remote mode, errors included (decisions §1). Each case
 * runs once against the local client and once against the HTTP client over a loopback server, and
 * the two errors must agree on HTTP status, code, detail and field problems; each case also pins the
 * status and code the spec asks for, so "equal" cannot mean "equally wrong".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogError, MAINTENANCE_DETAIL, type ErrorCode } from '../../src/api/errors.js';
import type { CatalogClient } from '../../src/client/types.js';
import { createHarness, type Harness, type Mode } from '../helpers/harness.js';

/** The wire-visible parts of an error. */
interface Seen {
  status: number;
  code: ErrorCode;
  detail: string;
  errors: unknown;
}

async function failure(promise: Promise<unknown>): Promise<Seen> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, 'expected a CatalogError').toBeInstanceOf(CatalogError);
  const error = caught as CatalogError;
  return { status: error.status, code: error.code, detail: error.detail, errors: error.errors };
}

describe('errors are identical in local and HTTP mode', () => {
  const harnesses = {} as Record<Mode, Harness>;
  const sessions = {} as Record<Mode, string>;

  beforeAll(async () => {
    for (const mode of ['local', 'http'] as const) {
      const h = await createHarness(mode);
      harnesses[mode] = h;
      await h.admin.upsertParts([{ part_id: 'p', name: { en: 'Sprocket' } }]);
      sessions[mode] = (await h.admin.search({ matches: { text: 'sprocket' } })).sessionId;
    }
  });
  afterAll(async () => {
    for (const h of Object.values(harnesses)) await h.close();
  });

  /**
   * Runs `call` in both modes and expects the same error, with the given status and code (and the
   * detail, when given); returns what was seen.
   */
  async function same(
    call: (client: CatalogClient, h: Harness, mode: Mode) => Promise<unknown>,
    status: number,
    code: ErrorCode,
    detail?: string | RegExp,
  ): Promise<Seen> {
    const local = await failure(call(harnesses.local.admin, harnesses.local, 'local'));
    const http = await failure(call(harnesses.http.admin, harnesses.http, 'http'));
    expect(local).toEqual(http);
    expect(http.status).toBe(status);
    expect(http.code).toBe(code);
    if (typeof detail === 'string') expect(http.detail).toBe(detail);
    else if (detail) expect(http.detail).toMatch(detail);
    return http;
  }

  it('400 for invalid search-state paging: limit 0, limit too large, skip -1, non-integers', async () => {
    await same((c, _h, m) => c.searchState(sessions[m], { limit: 0 }), 400, 'bad_request', 'limit must be an integer between 1 and 1000, got 0');
    await same((c, _h, m) => c.searchState(sessions[m], { limit: 1001 }), 400, 'bad_request', 'limit must be an integer between 1 and 1000, got 1001');
    await same((c, _h, m) => c.searchState(sessions[m], { skip: -1 }), 400, 'bad_request', 'skip must be an integer between 0 and 1000000000, got -1');
    await same((c, _h, m) => c.searchState(sessions[m], { limit: 2.5 }), 400, 'bad_request', 'limit must be an integer between 1 and 1000, got 2.5');
  });

  it('400 for invalid list paging and search limits, with the same field problems', async () => {
    const zero = await same((c) => c.listParts({ paging: { limit: 0 } }), 400, 'bad_request', /paging\.limit/);
    expect(zero.errors).toEqual([expect.objectContaining({ path: 'paging.limit' })]);
    await same((c) => c.listAttributes({ paging: { limit: 1001 } }), 400, 'bad_request', /paging\.limit/);
    await same((c) => c.search({ resultOptions: { limit: 0 } }), 400, 'bad_request', /resultOptions\.limit/);
    await same((c) => c.search({ resultOptions: { limit: 1001 } }), 400, 'bad_request', /resultOptions\.limit/);
  });

  it('invalid ids: 400 where an id is checked (relations, display images), 404 where it is looked up', async () => {
    await same((c) => c.getRelations('a\u0001b'), 400, 'bad_request', 'invalid part id \'a\u0001b\': 1 to 256 characters, no control characters, no "/"');
    await same((c) => c.displayImages('x'.repeat(257)), 400, 'bad_request', /^invalid part id 'x{257}'$/);
    await same((c) => c.getRelations('p', 'bogus'), 400, 'bad_request', "unknown relation type 'bogus': must be one of: duplicate, substitute, equivalent, not_related");
    await same((c) => c.getPart('a/b'), 404, 'not_found', "part 'a/b' does not exist");
    await same((c) => c.getImage('x'.repeat(257)), 404, 'not_found', `image '${'x'.repeat(257)}' does not exist`);
  });

  it('404 for an unknown search session', async () => {
    await same((c) => c.searchState('00000000-0000-4000-8000-000000000000'), 404, 'not_found',
      "search session '00000000-0000-4000-8000-000000000000' does not exist or has expired; start a new search");
  });

  it('401 for an unknown token and for none', async () => {
    await same((_c, h) => h.withToken('cat_nope').listAttributes({}), 401, 'unauthorized', 'unknown or revoked token');
    await same((_c, h) => h.withToken(undefined).listParts({}), 401, 'unauthorized', /missing Authorization header/);
  });

  it('403 for a write by an app role', async () => {
    await same(async (_c, h) => (await h.as(['factoryWorker'])).upsertParts([{ part_id: 'q', name: { en: 'q' } }]), 403, 'forbidden', /catalogAdmin, dataContributor, dataValidator/);
  });

  it('413 for too many bulk items', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ part_id: `p${i}`, name: { en: 'x' } }));
    await same((c) => c.upsertParts(many), 413, 'payload_too_large');
    const relations = Array.from({ length: 1001 }, (_, i) => ({ anchor_part_id: 'p', related_part_id: `r${i}`, type: 'duplicate' }));
    await same((c) => c.createRelations(relations), 413, 'payload_too_large', 'at most 1000 relations per call; this one has 1001');
  });

  it('415 for an image search with bytes that are not an image', async () => {
    await same((c) => c.search({}, { image: Buffer.from('definitely not an image'), filename: 'q.txt' }), 415, 'unsupported_media_type');
  });

  it('503 in maintenance mode, with the exact detail', async () => {
    for (const h of Object.values(harnesses)) await h.admin.setMaintenance(true);
    try {
      await same((c) => c.upsertParts([{ part_id: 'q', name: { en: 'q' } }]), 503, 'maintenance', MAINTENANCE_DETAIL);
    } finally {
      for (const h of Object.values(harnesses)) await h.admin.setMaintenance(false);
    }
  });
});
