import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ImageFeatureIndex, similarity } from '../../core/search/image-similarity.js';
import type { Features } from '../../core/search/image-similarity.js';
import { extractFeatures } from './sharp-features.js';
import { SHARED_IMAGES } from '../../../test/helpers/data.js';

const DIR = SHARED_IMAGES;
/** ~20 real images, evenly spaced over the sorted file list (deterministic). */
const FILES = (() => {
  const all = readdirSync(DIR)
    .filter((f) => f.endsWith('.jpg'))
    .sort();
  return Array.from({ length: 20 }, (_, i) => all[Math.floor((i * all.length) / 20)] ?? '');
})();
const bytesOf = (file: string): Buffer => readFileSync(path.join(DIR, file));

describe('extractFeatures (sharp)', () => {
  const refs = new Map<string, Features>();
  const index = new ImageFeatureIndex();

  beforeAll(async () => {
    for (const f of FILES) {
      const features = await extractFeatures(bytesOf(f));
      refs.set(f, features);
      index.add(f, `part:${f}`, features);
    }
  });

  it('scores an image higher against itself than against a different image', () => {
    const [a, b] = FILES;
    const fa = refs.get(a ?? '');
    const fb = refs.get(b ?? '');
    if (!fa || !fb) throw new Error('features missing');
    expect(similarity(fa, fa)).toBeCloseTo(1, 6);
    expect(similarity(fa, fb)).toBeLessThan(similarity(fa, fa));
  });

  it('ranks the original first for 50 % resized copies', async () => {
    for (const f of FILES) {
      const input = bytesOf(f);
      const meta = await sharp(input).metadata();
      const half = await sharp(input)
        .resize(Math.max(1, Math.round(meta.width / 2)), Math.max(1, Math.round(meta.height / 2)), { fit: 'fill' })
        .png()
        .toBuffer();
      const hits = index.query(await extractFeatures(half), 3);
      expect(hits[0]?.image_id, f).toBe(f);
    }
  });

  it('ranks the original first for a 5 %-cropped, brightened JPEG q60 copy', async () => {
    const f = FILES[5] ?? '';
    const input = bytesOf(f);
    const meta = await sharp(input).metadata();
    const left = Math.round(meta.width * 0.05);
    const top = Math.round(meta.height * 0.05);
    const copy = await sharp(input)
      .extract({ left, top, width: meta.width - 2 * left, height: meta.height - 2 * top })
      .modulate({ brightness: 1.1 })
      .jpeg({ quality: 60 })
      .toBuffer();
    expect(index.query(await extractFeatures(copy), 1)[0]?.image_id).toBe(f);
  });

  it('decodes PNG (with alpha), WebP, GIF, TIFF and AVIF to nearly the same features', async () => {
    const f = FILES[3] ?? '';
    const original = refs.get(f);
    if (!original) throw new Error('features missing');
    const base = sharp(bytesOf(f));
    const encoded = {
      png: await base.clone().ensureAlpha().png().toBuffer(),
      webp: await base.clone().webp({ quality: 90 }).toBuffer(),
      gif: await base.clone().gif().toBuffer(),
      tiff: await base.clone().tiff().toBuffer(),
      avif: await base.clone().avif({ quality: 70, effort: 0 }).toBuffer(),
    };
    for (const [format, bytes] of Object.entries(encoded)) {
      expect(similarity(await extractFeatures(bytes), original), format).toBeGreaterThan(0.9);
    }
  });

  it('flattens transparency onto white', async () => {
    // A red square on a transparent canvas must look like a red square on white.
    const square = await sharp({ create: { width: 20, height: 20, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } } })
      .png()
      .toBuffer();
    const onTransparent = await sharp({ create: { width: 60, height: 60, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: square, left: 20, top: 20 }])
      .png()
      .toBuffer();
    const onWhite = await sharp({ create: { width: 60, height: 60, channels: 3, background: '#ffffff' } })
      .composite([{ input: square, left: 20, top: 20 }])
      .png()
      .toBuffer();
    expect(similarity(await extractFeatures(onTransparent), await extractFeatures(onWhite))).toBeGreaterThan(0.99);
  });

  it('throws a clear error for bytes that are not an image', async () => {
    await expect(extractFeatures(new Uint8Array(0))).rejects.toThrow(/cannot decode image \(empty input\)/);
    await expect(extractFeatures(new TextEncoder().encode('definitely not an image'))).rejects.toThrow(/image features: cannot decode image/);
    const truncated = bytesOf(FILES[0] ?? '').subarray(0, 200);
    await expect(extractFeatures(truncated)).rejects.toThrow(/cannot decode image/);
  });
});

describe('predecode: one decode for every feature of a large image (upload extraction)', () => {
  it('gives a large photo back as a raw raster of the asked long side, EXIF turn applied, and leaves a small one alone', async () => {
    const { predecode } = await import('./sharp-features.js');
    const small = bytesOf('horse.jpg');
    expect(await predecode(small, 480)).toBe(small);
    // A 2,600 × 1,950 photo stored sideways (EXIF orientation 6: shown 1,950 wide, 2,600 high).
    const big = await sharp(small).resize(2600, 1950, { fit: 'fill' }).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
    const raw = await predecode(big, 480);
    if (typeof raw !== 'object' || !('raw' in raw)) throw new Error('not decoded');
    expect([raw.width, raw.height]).toEqual([360, 480]);
    expect(raw.raw.length).toBe(360 * 480 * 3);
    // The global descriptor from it is that of the photo decoded on its own.
    const direct = await extractFeatures(big);
    expect(similarity(await extractFeatures(raw), direct)).toBeGreaterThan(0.98);
    await expect(predecode(new Uint8Array(0), 480)).rejects.toThrow(/cannot decode image \(empty input\)/);
  });
});
