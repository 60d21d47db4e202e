/**
 * Contract: the image audit (POST /1/catalog/images/audit, docs/api.md "Image audit") in both
 * modes. A small catalog of bench images holds a good reference, a 32-px icon, a blank picture and
 * one picture uploaded to two parts; the audit runs the product's photo-like queries against the
 * real index and names the unfindable references with their advice, and the good one at rank 1.
 * Few images and few conditions per call: each condition is one photo search. On PostgreSQL one
 * client: the audit reads through the image and feature stores, whose own contract covers both
 * stores (test/store), and the two clients are compared on SQLite.
 */
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_CONDITIONS, type ImageAuditResult } from '../../src/api/image-schemas.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { IMAGES } from '../helpers/photo-scenes.js';

const byImage = (results: readonly ImageAuditResult[]) => new Map(results.map((r) => [r.image_id, r]));

describe.each(MODES)('image audit (%s client)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(mode);
    const parts = ['good', 'icon', 'blank', 'twin-a', 'twin-b'];
    await h.admin.upsertParts(parts.map((p) => ({ part_id: `audit:${p}`, name: { en: p } })));
    const blank = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#f4f4f4' } }).png().toBuffer();
    const files: Record<string, { path?: string; data?: Uint8Array }> = {
      good: { path: join(IMAGES, 'cathedral.jpg') },
      icon: { path: join(IMAGES, 'op2_multiply.jpg') },
      blank: { data: blank },
      'twin-a': { path: join(IMAGES, 'toolbox.jpg') },
      'twin-b': { path: join(IMAGES, 'toolbox.jpg') },
    };
    const result = await h.admin.uploadImages(
      parts.map((p) => ({ image_id: `ref-${p}`, part_id: `audit:${p}`, info: 'searchable' })),
      parts.map((p) => ({ filename: `ref-${p}`, ...files[p] })),
    );
    expect(result.errors).toEqual({});
  });
  afterAll(async () => {
    await h.close();
  });

  it('a good reference is found at rank 1 in every condition, with no advice', async () => {
    const page = await h.admin.auditImages({ query: { part_ids: ['audit:good'] } });
    expect(page.more_data).toBe(false);
    const [good] = page.result;
    expect(good).toMatchObject({ image_id: 'ref-good', part_id: 'audit:good', advice: [] });
    expect(good?.conditions.map((c) => c.condition)).toEqual([...AUDIT_CONDITIONS]);
    for (const c of good?.conditions ?? []) {
      expect(c.rank, c.condition).toBe(1);
      expect(c.score as number).toBeGreaterThan(0.5);
      expect(c).not.toHaveProperty('top');
    }
  });

  it('names the unfindable references with advice: a tiny icon, a blank picture, one picture on two parts', async () => {
    const page = await h.admin.auditImages({ query: { image_ids: ['ref-icon', 'ref-blank', 'ref-twin-a', 'ref-twin-b'] }, conditions: ['copy'], paging: { limit: 10 } });
    const audits = byImage(page.result);
    expect([...audits.keys()]).toEqual(['ref-blank', 'ref-icon', 'ref-twin-a', 'ref-twin-b']);

    const icon = audits.get('ref-icon');
    expect(icon).toMatchObject({ width: 32, height: 32 });
    expect(icon?.advice[0]).toBe('this reference is 32 px wide: add a photo of at least 300 px on a plain background');

    const blank = audits.get('ref-blank');
    expect(blank?.contrast).toBeLessThan(1);
    expect(blank?.advice[0]).toMatch(/^this reference is nearly blank/);

    // The same picture on two parts: one of them takes rank 1 for the other's queries.
    const twins = [audits.get('ref-twin-a'), audits.get('ref-twin-b')];
    const loser = twins.find((t) => t?.conditions.some((c) => c.rank !== 1));
    const winner = twins.find((t) => t !== loser);
    expect(loser).toBeDefined();
    const copy = loser?.conditions.find((c) => c.condition === 'copy');
    expect(copy?.rank).toBe(2);
    expect(copy?.top).toMatchObject({ part_id: winner?.part_id, image_id: winner?.image_id });
    expect(loser?.advice.join('\n')).toContain(`part '${winner?.part_id}' is found first for a copy of this reference`);
  });

  it('pages by image_id, at most 10 images a call, those uploaded since a time; only catalog roles may audit', async () => {
    const first = await h.admin.auditImages({ conditions: ['copy'], paging: { limit: 2 } });
    expect(first.result.map((r) => r.image_id)).toEqual(['ref-blank', 'ref-good']);
    expect(first).toMatchObject({ last_object_id: 'ref-good', more_data: true });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    expect((await h.admin.auditImages({ query: { modifiedSince: since, part_ids: ['audit:good'] }, conditions: ['copy'] })).result.map((r) => r.image_id)).toEqual(['ref-good']);
    expect((await h.admin.auditImages({ query: { modifiedSince: '2099-01-01T00:00:00Z' } })).result).toEqual([]);
    await expect(h.admin.auditImages({ query: { modifiedSince: 'yesterday' } })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('modifiedSince') });
    await expect(h.admin.auditImages({ paging: { limit: 11 } })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('paging.limit 11 is over 10') });
    const reader = await h.as(['factoryWorker']);
    await expect(reader.auditImages({ conditions: ['copy'] })).rejects.toMatchObject({ status: 403 });
  });
});
