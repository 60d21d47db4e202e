import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { DecodePool } from './decode-pool.js';
import { createSharpReferenceProbe, PHOTO_SIDE } from './photo-conditions.js';

/** A pool that runs every task at once (the probe's own decode pool is not under test here). */
const inline = { run: <T>(task: () => Promise<T>) => task() } as unknown as DecodePool;

/** Grey-level statistics of a region of an RGB raster: mean and standard deviation. */
function regionStats(data: Buffer, width: number, region: { left: number; top: number; size: number }): { mean: number; sd: number } {
  const values: number[] = [];
  for (let y = region.top; y < region.top + region.size; y++) {
    for (let x = region.left; x < region.left + region.size; x++) {
      const p = (y * width + x) * 3;
      values.push(((data[p] ?? 0) + (data[p + 1] ?? 0) + (data[p + 2] ?? 0)) / 3);
    }
  }
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return { mean, sd: Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length) };
}

describe('the audit photo of a part lying on a bench', () => {
  it('cuts the part out of its white background onto a mottled, cluttered bench at 45 % of the frame, the same bytes every time', async () => {
    // A flat drawing: a dark blue disc on white, 400 × 300.
    const drawing = await sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#ffffff"/><circle cx="200" cy="150" r="110" fill="rgb(20,40,160)"/></svg>')).png().toBuffer();
    const probe = createSharpReferenceProbe(inline);
    const photo = (await probe.photos(drawing, ['bench'])).get('bench');
    expect(photo).toBeDefined();
    const again = (await probe.photos(drawing, ['bench'])).get('bench');
    expect(Buffer.from(again ?? []).equals(Buffer.from(photo ?? []))).toBe(true);

    const { data, info } = await sharp(Buffer.from(photo ?? [])).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([PHOTO_SIDE, (PHOTO_SIDE * 3) / 4]);
    // The white is gone: 62 % of the drawing is white, almost none of the photo.
    let white = 0, disc = 0;
    for (let p = 0; p < info.width * info.height; p++) {
      const [r, g, b] = [data[p * 3] ?? 0, data[p * 3 + 1] ?? 0, data[p * 3 + 2] ?? 0];
      if (r > 235 && g > 235 && b > 235) white++;
      if (Math.abs(r - 20) < 25 && Math.abs(g - 40) < 25 && Math.abs(b - 160) < 25) disc++;
    }
    expect(white / (info.width * info.height)).toBeLessThan(0.01);
    // The disc at 45 % of the frame: π · (110 · 0.45 · 1.6)² ≈ 18,900 px of a 640-px-wide frame.
    expect(disc).toBeGreaterThan(14_000);
    expect(disc).toBeLessThan(24_000);
    // The bench is textured, not a flat backdrop: each corner varies.
    for (const [left, top] of [[0, 0], [info.width - 60, 0], [0, info.height - 60], [info.width - 60, info.height - 60]] as const) {
      expect(regionStats(data, info.width, { left, top, size: 60 }).sd).toBeGreaterThan(3);
    }
  });

  it('lays a long strip on a bench of a phone frame\'s shape (at least 4:3), the whole strip on it', async () => {
    const strip = await sharp({ create: { width: 1024, height: 84, channels: 3, background: '#ffffff' } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="84"><rect x="20" y="10" width="984" height="64" fill="rgb(200,30,30)"/></svg>'), left: 0, top: 0 }])
      .png()
      .toBuffer();
    const photo = (await createSharpReferenceProbe(inline).photos(strip, ['bench'])).get('bench');
    const { data, info } = await sharp(Buffer.from(photo ?? [])).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([PHOTO_SIDE, PHOTO_SIDE * 0.75]);
    let red = 0;
    for (let p = 0; p < info.width * info.height; p++) if ((data[p * 3] ?? 0) > 160 && (data[p * 3 + 1] ?? 0) < 80 && (data[p * 3 + 2] ?? 0) < 80) red++;
    // 45 % of the strip as the frame shows it (640 × 53 → 288 × 24, ~6,100 px of red).
    expect(red).toBeGreaterThan(4_000);
  });
});
