import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { backdropVariant, decodeGrey, extractLocalFeatures, gridSelect, LOCAL_SETTINGS, localFeaturesFromGrey, secondLookFeatures, type SecondLookSettings } from './extract.js';
import { openCv } from './opencv.js';

/** A fake OpenCV KeyPointVector over plain points. */
function keypoints(points: { x: number; y: number; response: number }[]): Parameters<typeof gridSelect>[0] {
  return { size: () => points.length, get: (i) => { const p = points[i]!; return { pt: { x: p.x, y: p.y }, response: p.response }; } };
}

describe('query keypoints spread over the photo (scenes)', () => {
  it('gridSelect keeps the weaker keypoints of sparse cells instead of only the strongest ones of a busy cell', () => {
    // 100 strong keypoints in the top-left cell of a 2 × 2 grid, 3 weak ones in each other cell.
    const points: { x: number; y: number; response: number }[] = [];
    for (let i = 0; i < 100; i++) points.push({ x: 10 + (i % 10), y: 10 + Math.floor(i / 10), response: 100 + i });
    for (const [cx, cy] of [[150, 20], [20, 150], [150, 150]] as const) for (let i = 0; i < 3; i++) points.push({ x: cx + i, y: cy, response: 1 + i });
    const chosen = gridSelect(keypoints(points), 200, 200, 2, 20);
    expect(chosen).toHaveLength(20);
    // Every weak keypoint (indexes 100..108) is kept; the rest of the budget goes to the strongest.
    for (let i = 100; i < 109; i++) expect(chosen).toContain(i);
    const strong = chosen.filter((i) => i < 100).sort((a, b) => b - a);
    expect(strong).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89]);
  });

  it('gridSelect keeps everything when the budget allows', () => {
    expect(gridSelect(keypoints([{ x: 1, y: 1, response: 1 }, { x: 2, y: 2, response: 2 }]), 10, 10, 8, 5)).toEqual([0, 1]);
  });

  it('a query photo gets keypoints on a soft-edged object beside a busy high-contrast texture', async () => {
    // Left half: high-contrast noise (thousands of strong corners, like clutter); right half: a few
    // soft grey shapes on a plain ground (like a part with gentle edges).
    const W = 640;
    const H = 480;
    const rgb = new Uint8Array(W * H * 3).fill(200);
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let y = 0; y < H; y += 4) {
      for (let x = 0; x < W / 2; x += 4) {
        const v = rnd() < 0.5 ? 0 : 255;
        for (let dy = 0; dy < 4; dy++) for (let dx = 0; dx < 4; dx++) rgb.fill(v, ((y + dy) * W + x + dx) * 3, ((y + dy) * W + x + dx) * 3 + 3);
      }
    }
    for (let s = 0; s < 12; s++) {
      const x0 = 340 + (s % 4) * 70;
      const y0 = 40 + Math.floor(s / 4) * 140;
      for (let y = y0; y < y0 + 40 + (s % 3) * 10; y++) for (let x = x0; x < x0 + 30 + (s % 2) * 15; x++) rgb.fill(160, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
    const png = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
    const f = await extractLocalFeatures(png, 'query');
    let right = 0;
    for (let i = 0; i < f.count; i++) if ((f.xs[i] ?? 0) > W / 2 + 10) right++;
    // ORB's global ranking spends the whole budget on the noise; the grid keeps the shapes' corners.
    expect(right).toBeGreaterThan(40);
  });
});

describe('reference keypoints on a grey backdrop', () => {
  const backdrop = { grey: 100, keypoints: 400, tolerance: 16, plainBorder: 0.6 };

  /** A w × h grey raster of `ground` with a `level` rectangle [x0, x1) × [y0, y1). */
  function raster(w: number, h: number, ground: number, level: number, x0: number, y0: number, x1: number, y1: number) {
    const data = new Uint8Array(w * h).fill(ground);
    for (let y = y0; y < y1; y++) data.fill(level, y * w + x0, y * w + x1);
    return { data, width: w, height: h };
  }

  it('replaces the plain background reached from the border, and only it', () => {
    // A white picture with a light-grey part that has a white hole in it (not reached from the border).
    const r = raster(40, 30, 255, 200, 10, 8, 30, 22);
    for (let y = 13; y < 17; y++) r.data.fill(255, y * 40 + 18, y * 40 + 22);
    const v = backdropVariant(r, backdrop);
    expect(v).toBeDefined();
    expect(v?.[0]).toBe(100);
    expect(v?.[29 * 40 + 39]).toBe(100);
    expect(v?.[10 * 40 + 12]).toBe(200);
    expect(v?.[14 * 40 + 19]).toBe(255);
  });

  it('leaves pictures without a plain background alone (a photo, a part touching every edge, a blank picture)', () => {
    let seed = 3;
    const noise = { data: Uint8Array.from({ length: 40 * 30 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16) & 255), width: 40, height: 30 };
    expect(backdropVariant(noise, backdrop)).toBeUndefined();
    expect(backdropVariant(raster(40, 30, 255, 200, 0, 0, 40, 30), backdrop)).toBeUndefined();
    expect(backdropVariant(raster(40, 30, 255, 255, 0, 0, 1, 1), backdrop)).toBeUndefined();
  });

  it('a reference on a plain background also gets the outline keypoints of its part on the backdrop', async () => {
    // A light part (grey 200) on white: on the backdrop its outline changes polarity, so those
    // keypoints are new; its inside (a dark cross) is unchanged and not repeated.
    const W = 160;
    const rgb = new Uint8Array(W * W * 3).fill(255);
    const paint = (x0: number, y0: number, x1: number, y1: number, v: number): void => {
      for (let y = y0; y < y1; y++) rgb.fill(v, (y * W + x0) * 3, (y * W + x1) * 3);
    };
    paint(30, 40, 130, 120, 200);
    paint(75, 50, 85, 110, 40);
    paint(45, 75, 115, 85, 40);
    const png = await sharp(rgb, { raw: { width: W, height: W, channels: 3 } }).png().toBuffer();
    const saved = LOCAL_SETTINGS.reference.backdrop;
    try {
      LOCAL_SETTINGS.reference.backdrop = undefined;
      const plain = await extractLocalFeatures(png, 'reference');
      LOCAL_SETTINGS.reference.backdrop = saved;
      const both = await extractLocalFeatures(png, 'reference');
      expect(both.count).toBeGreaterThan(plain.count);
      // The first keypoints are the plain picture's, unchanged (a record's own keypoints come first).
      expect(both.xs.subarray(0, plain.count)).toEqual(plain.xs);
      expect(both.descriptors.subarray(0, plain.descriptors.length)).toEqual(plain.descriptors);
      // Query photos are not changed.
      expect(LOCAL_SETTINGS.query.backdrop).toBeUndefined();
    } finally {
      LOCAL_SETTINGS.reference.backdrop = saved;
    }
  });
});

describe('the blur knob (off by default)', () => {
  it('smooths the raster before detection: sensor noise on a flat picture gives far fewer keypoints', async () => {
    const W = 320;
    const H = 320;
    const grey = new Uint8Array(W * H);
    let seed = 11;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    // Gaussian noise σ ≈ 15 on mid-grey (sum of 12 uniforms).
    for (let i = 0; i < grey.length; i++) {
      let u = 0;
      for (let k = 0; k < 12; k++) u += rnd();
      grey[i] = Math.max(0, Math.min(255, Math.round(128 + (u - 6) * 15)));
    }
    const png = await sharp(grey, { raw: { width: W, height: H, channels: 1 } }).png().toBuffer();
    expect(LOCAL_SETTINGS.query.blur ?? 0).toBe(0);
    // Mid-grey noise has no bright pixels: the low-light rule would smooth it too.
    const lowLight = LOCAL_SETTINGS.query.lowLight;
    LOCAL_SETTINGS.query.lowLight = undefined;
    try {
      const plain = await extractLocalFeatures(png, 'query');
      LOCAL_SETTINGS.query.blur = 1.2;
      const smoothed = await extractLocalFeatures(png, 'query');
      expect(smoothed.count).toBeLessThan(plain.count / 4);
    } finally {
      delete LOCAL_SETTINGS.query.blur;
      LOCAL_SETTINGS.query.lowLight = lowLight;
    }
  });
});

describe('query photos in low light', () => {
  const W = 640;
  const H = 480;
  /**
   * A grey ramp (30 → 230 left to right) with 90 rectangles 24 grey levels off it: soft corners,
   * like a part's gentle texture; and the same picture in low light (× 0.55, Gaussian noise σ 4).
   */
  async function pictures(): Promise<{ normal: Buffer; dark: Buffer }> {
    let seed = 5;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const ramp = (x: number): number => 30 + (200 * x) / (W - 1);
    const grey = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) grey[y * W + x] = Math.round(ramp(x));
    for (let s = 0; s < 90; s++) {
      const x0 = Math.floor(rnd() * (W - 60));
      const y0 = Math.floor(rnd() * (H - 60));
      const w = 20 + Math.floor(rnd() * 30);
      const h = 20 + Math.floor(rnd() * 30);
      const offset = rnd() < 0.5 ? -24 : 24;
      for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) grey[y * W + x] = Math.round(ramp(x) + offset);
    }
    const gauss = (): number => {
      let u = 0;
      for (let k = 0; k < 12; k++) u += rnd();
      return u - 6;
    };
    const dark = grey.map((v) => Math.max(0, Math.min(255, Math.round(v * 0.55 + 4 * gauss()))));
    const png = (data: Uint8Array): Promise<Buffer> => sharp(data, { raw: { width: W, height: H, channels: 1 } }).png().toBuffer();
    return { normal: await png(grey), dark: await png(dark) };
  }

  /** How many keypoints of `f` lie within 3 px of one of `g`'s. */
  function near(f: { count: number; xs: Float32Array; ys: Float32Array }, g: { count: number; xs: Float32Array; ys: Float32Array }): number {
    let n = 0;
    for (let i = 0; i < f.count; i++) {
      for (let j = 0; j < g.count; j++) {
        if (Math.abs((f.xs[i] ?? 0) - (g.xs[j] ?? 0)) <= 3 && Math.abs((f.ys[i] ?? 0) - (g.ys[j] ?? 0)) <= 3) {
          n++;
          break;
        }
      }
    }
    return n;
  }

  it('a dark, noisier photo keeps about as many keypoints as the same picture in normal light, on its corners', async () => {
    const { normal, dark } = await pictures();
    const a = await extractLocalFeatures(normal, 'query');
    const b = await extractLocalFeatures(dark, 'query');
    expect(a.count).toBeGreaterThan(1000);
    // With the fixed FAST threshold the dark photo kept about half (744 of 1,537).
    expect(b.count).toBeGreaterThan(0.8 * a.count);
    // And they are the picture's corners, not the noise's.
    expect(near(b, a)).toBeGreaterThan(0.9 * b.count);
  });

  it('a photo with bright pixels is detected as before', async () => {
    const { normal } = await pictures();
    const saved = LOCAL_SETTINGS.query.lowLight;
    expect(saved).toBeDefined();
    try {
      const withRule = await extractLocalFeatures(normal, 'query');
      LOCAL_SETTINGS.query.lowLight = undefined;
      const without = await extractLocalFeatures(normal, 'query');
      expect(withRule.xs).toEqual(without.xs);
      expect(withRule.descriptors).toEqual(without.descriptors);
    } finally {
      LOCAL_SETTINGS.query.lowLight = saved;
    }
  });

  describe('the second look', () => {
    const look: SecondLookSettings = { normal: { blur: 0.8, fast: 7 }, lowLight: { blur: 0, fast: 12 } };

    it('detects a normally exposed photo smoothed with the lower threshold, a dark one as it is with the role\'s threshold', async () => {
      const cv = await openCv();
      const { normal, dark } = await pictures();
      const settings = { ...LOCAL_SETTINGS.query, secondLook: look };
      for (const [png, expected] of [[normal, { blur: 0.8, fast: 7 }], [dark, { blur: 0, fast: 12 }]] as const) {
        const raster = await decodeGrey(png, 'query');
        const first = localFeaturesFromGrey(cv, raster, settings);
        const second = secondLookFeatures(cv, raster, settings);
        const alone = localFeaturesFromGrey(cv, raster, { ...settings, lowLight: undefined, ...expected });
        expect(second?.count).toBe(alone.count);
        expect(second?.descriptors).toEqual(alone.descriptors);
        // Another look than the first.
        expect(second?.descriptors).not.toEqual(first.descriptors);
      }
    });

    it('a photo at another size: keypoints in the resized raster', async () => {
      const cv = await openCv();
      const raster = await decodeGrey((await pictures()).normal, 'query');
      const second = secondLookFeatures(cv, raster, { ...LOCAL_SETTINGS.query, secondLook: { normal: { blur: 0, fast: 12, scale: 0.75 }, lowLight: look.lowLight } });
      expect(second?.width).toBe(480);
      expect(second?.count).toBeGreaterThan(500);
      for (let i = 0; i < (second?.count ?? 0); i++) expect(second?.xs[i] ?? 0).toBeLessThan(480);
    });

    it('a look with a keypoint budget of its own keeps at most that many', async () => {
      const cv = await openCv();
      const raster = await decodeGrey((await pictures()).normal, 'query');
      const budget = (keypoints?: number) => secondLookFeatures(cv, raster, { ...LOCAL_SETTINGS.query, secondLook: { normal: { blur: 0, fast: 12, scale: 0.75, ...(keypoints ? { keypoints } : {}) }, lowLight: look.lowLight } })?.count ?? 0;
      expect(budget()).toBeGreaterThan(300);
      expect(budget(300)).toBe(300);
    });

    it('none without the setting', async () => {
      const cv = await openCv();
      const raster = await decodeGrey((await pictures()).normal, 'query');
      expect(secondLookFeatures(cv, raster, { ...LOCAL_SETTINGS.query, secondLook: undefined })).toBeUndefined();
    });
  });
});
