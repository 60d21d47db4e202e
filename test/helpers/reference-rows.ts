/**
 * Rows and photos for the store-level photo index tests (test/store/image-index-*.test.ts): parts
 * and searchable image rows written straight through the stores, and query photos made from the
 * real images of ../shared/data/images.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { StoredImage, StoredPart } from '../../src/core/model.js';

/** The real images (../shared/data/images). */
export const IMAGES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'images');

/** A query photo: the original of `file` at half size, recompressed (JPEG q70). */
export async function queryCopy(file: string): Promise<Buffer> {
  const bytes = readFileSync(join(IMAGES, file));
  const { width = 100 } = await sharp(bytes).metadata();
  return sharp(bytes).resize({ width: Math.round(width / 2) }).jpeg({ quality: 70 }).toBuffer();
}

/** A part row with only its id and name. */
export function partRow(id: string): StoredPart {
  return { part_id: id, serviceId: `svc-${id}`, name: { en: id }, createdAt: 1, modifiedAt: 1, attributes: [] };
}

/** A searchable image row of part `partId`, created and modified at `at`. */
export function searchableImageRow(id: string, partId: string, at: number): StoredImage {
  return { image_id: id, part_id: partId, sha256: 'a'.repeat(64), size: 3, mime: 'image/jpeg', info: 'searchable', position: null, createdAt: at, modifiedAt: at };
}
