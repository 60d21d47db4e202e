/**
 * Contract: image search (spec 2.5, 4.4; decisions §8) in both modes, with real photos and query
 * copies made at test time (resized, recompressed, cropped, brightened).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';

const IMAGES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'images');
const PHOTOS = ['wrench.jpg', 'banana.jpg', 'horse.jpg', 'lightbulb.jpg', 'guitar_classical.jpg', 'tennis_racket.jpg', 'penguin_with_spider.jpg', 'windmill.jpg'];

/** All four changes at once: 5 % crop on each edge, half size, +10 % brightness, JPEG quality 60. */
async function alteredCopy(file: string): Promise<Buffer> {
  const image = sharp(readFileSync(join(IMAGES, file)));
  const { width = 100, height = 100 } = await image.metadata();
  const dx = Math.round(width * 0.05);
  const dy = Math.round(height * 0.05);
  return sharp(readFileSync(join(IMAGES, file)))
    .extract({ left: dx, top: dy, width: width - 2 * dx, height: height - 2 * dy })
    .resize({ width: Math.round(width / 2) })
    .modulate({ brightness: 1.1 })
    .jpeg({ quality: 60 })
    .toBuffer();
}

describe.each(MODES)('image search (%s client)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(mode);
    await h.admin.upsertAttributes([{ attribute_id: 'kind', type: 'enum', name: { en: 'Kind' }, filterable: true, searchable: true }]);
    await h.admin.upsertParts(PHOTOS.map((file, i) => ({
      part_id: `photo:${file.replace('.jpg', '')}`,
      name: { en: file.replace('.jpg', '').replace(/_/g, ' ') },
      attributes: [{ attribute_id: 'kind', values: [{ value: { en: i % 2 === 0 ? 'even' : 'odd' } }] }],
    })));
    const definitions = PHOTOS.map((file) => ({ image_id: file.replace('.jpg', ''), part_id: `photo:${file.replace('.jpg', '')}`, info: 'searchable display' }));
    const result = await h.admin.uploadImages(definitions, PHOTOS.map((file) => ({ filename: file, path: join(IMAGES, file) })));
    expect(result.errors).toEqual({});
    expect(result.created).toHaveLength(PHOTOS.length);
  });
  afterAll(async () => {
    await h.close();
  });

  it('finds the part of every photo from an altered copy, best match first', async () => {
    for (const file of PHOTOS) {
      const query = await alteredCopy(file);
      const response = await h.admin.search({ resultOptions: { limit: 3 } }, { image: query, filename: 'query.jpg' });
      expect(response.results[0]?.id, file).toBe(`photo:${file.replace('.jpg', '')}`);
      expect(response.imageId).toMatch(/^query-[0-9a-f]{32}$/);
      expect(response.resultsTotalCount).toBeGreaterThanOrEqual(1);
    }
  });

  it('combines an image with filters; pages of the session work like text search', async () => {
    const query = await alteredCopy('horse.jpg');
    const filtered = await h.admin.search({ matches: { filters: [{ label: 'kind', values: ['odd'] }] }, resultOptions: { limit: 10 } }, { image: query, filename: 'q.jpg' });
    // horse.jpg is at an even index: the filter leaves only odd parts.
    expect(filtered.results.map((r) => r.id)).not.toContain('photo:horse');
    expect(filtered.results.length).toBeGreaterThan(0);
    const all = await h.admin.search({ resultOptions: { limit: 2 } }, { image: query, filename: 'q.jpg' });
    const page2 = await h.admin.searchState(all.sessionId, { skip: 2, limit: 2 });
    expect(page2.imageId).toBe(all.imageId);
    expect(page2.resultsTotalCount).toBe(all.resultsTotalCount);
  });

  it('415 for bytes that are not an image', async () => {
    await expectCatalogError(h.admin.search({}, { image: Buffer.from('definitely not an image'), filename: 'q.txt' }), 'unsupported_media_type');
  });

  it('a deleted image is no longer found', async () => {
    await h.admin.deleteImages(['windmill']);
    const response = await h.admin.search({ resultOptions: { limit: 20 } }, { image: await alteredCopy('windmill.jpg'), filename: 'q.jpg' });
    expect(response.results.map((r) => r.id)).not.toContain('photo:windmill');
  });
});
