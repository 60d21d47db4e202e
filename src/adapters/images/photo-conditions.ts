/**
 * Photo-like copies of a reference image (the {@link ReferencePhotoProbe} port of the image
 * audit, docs/api.md "Image audit"): what a phone photo of the part does to it — a copy sent
 * around, a closer shot, a turned part, an angle, a hand in the way, a shaky hand, a dim corner —
 * and the measurable properties of the reference itself. Deterministic: the same reference gives
 * the same photos, so an audit repeats.
 *
 * sharp does the decoding, resizing, rotation, compositing, convolution, noise and encoding; the
 * perspective warp is a per-pixel loop here because sharp has no projective transform (its
 * `affine` keeps parallel lines parallel, which a tilted phone does not).
 */
import type { Sharp } from 'sharp';
import type { AuditCondition } from '../../api/image-schemas.js';
import type { ReferencePhotoProbe, ReferenceProperties } from '../../core/ports.js';
import { CatalogError } from '../../api/errors.js';
import { DecodeQueueFullError, type DecodePool } from './decode-pool.js';
import { plainBackground } from './local-features/plain-background.js';

type SharpFactory = (typeof import('sharp'))['default'];
let loaded: Promise<SharpFactory> | undefined;

/** sharp, loaded on first use (with sharp-features.js's process-wide settings: no cache, one thread per decode). */
function loadSharp(): Promise<SharpFactory> {
  loaded ??= import('./sharp-features.js').then(async () => (await import('sharp')).default);
  return loaded;
}

/**
 * Long side (px) of the "photo" every condition starts from: the reference scaled to it, up or
 * down, as a phone photo shows a part filling a good share of its frame. A tiny reference is
 * enlarged (and so blurred), which is what makes it hard to find.
 */
export const PHOTO_SIDE = 640;

/** Solves for the homography taking the points `from[i]` to `to[i]` (4 pairs); h11…h32, h33 = 1. */
function homography(from: readonly (readonly [number, number])[], to: readonly (readonly [number, number])[]): number[] {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i] ?? [0, 0];
    const [u, v] = to[i] ?? [0, 0];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u], [0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r]?.[c] ?? 0) > Math.abs(a[p]?.[c] ?? 0)) p = r;
    [a[c], a[p]] = [a[p] ?? [], a[c] ?? []];
    const rc = a[c] ?? [];
    for (let r = 0; r < 8; r++) {
      const rr = a[r] ?? [];
      if (r === c) continue;
      const f = (rr[c] ?? 0) / (rc[c] ?? 1);
      for (let k = c; k < 9; k++) rr[k] = (rr[k] ?? 0) - f * (rc[k] ?? 0);
    }
  }
  return a.map((row, i) => (row[8] ?? 0) / (row[i] ?? 1));
}

/**
 * The photo seen at an angle: its top side pulled in by `pull` of the width (0.3: the phone tilted
 * ~45°) and shifted sideways by `shear` of it; outside, a dark edge. Bilinear; JPEG q85.
 */
export async function atAngle(photo: Uint8Array, pull = 0.3, shear = 0.08): Promise<Buffer> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(photo).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const W = info.width, H = info.height, C = info.channels;
  const dx = (pull / 2) * W;
  const sx = shear * W;
  const quad = [[dx + sx, 0], [W - dx + sx, 0], [W, H], [0, H]] as const;
  const h = homography(quad, [[0, 0], [W, 0], [W, H], [0, H]]);
  const out = Buffer.alloc(W * H * C, 40);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const w = (h[6] ?? 0) * x + (h[7] ?? 0) * y + 1;
      const u = ((h[0] ?? 0) * x + (h[1] ?? 0) * y + (h[2] ?? 0)) / w;
      const v = ((h[3] ?? 0) * x + (h[4] ?? 0) * y + (h[5] ?? 0)) / w;
      if (u < 0 || v < 0 || u > W - 1 || v > H - 1) continue;
      const x0 = Math.floor(u), y0 = Math.floor(v), x1 = Math.min(W - 1, x0 + 1), y1 = Math.min(H - 1, y0 + 1);
      const fx = u - x0, fy = v - y0;
      for (let c = 0; c < C; c++) {
        const at = (xx: number, yy: number): number => data[(yy * W + xx) * C + c] ?? 0;
        out[(y * W + x) * C + c] = Math.round((at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy);
      }
    }
  }
  return sharp(out, { raw: { width: W, height: H, channels: C } }).jpeg({ quality: 85 }).toBuffer();
}

/**
 * The photo with the box `{ left, top, width, height }` covered by a hand from its right side: a
 * skin-toned palm with four fingertips reaching `share` of the box's width into it, and on to the
 * photo's edge. JPEG q85.
 */
export async function coveredByHand(photo: Uint8Array, box: { left: number; top: number; width: number; height: number }, share = 0.3): Promise<Buffer> {
  const sharp = await loadSharp();
  const meta = await sharp(photo).metadata();
  const W = meta.width ?? 0;
  const left = Math.round(box.left + box.width * (1 - share));
  const w = W - left;
  const hh = box.height;
  const tip = hh / 8;
  const tips = [0, 1, 2, 3].map((k) => `<ellipse cx="${tip}" cy="${(hh * (k + 0.5)) / 4}" rx="${tip * (1.6 + (k % 2) * 0.4)}" ry="${tip * 0.95}"/>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${hh}"><g fill="rgb(224,172,135)"><rect x="${tip}" y="0" width="${Math.max(1, w - tip)}" height="${hh}"/>${tips.join('')}</g></svg>`;
  return sharp(photo).composite([{ input: Buffer.from(svg), left, top: box.top }]).jpeg({ quality: 85 }).toBuffer();
}

/** A line kernel of `size` × `size` (odd) at `degrees`, summing to 1: a shaky hand's smear. */
function lineKernel(size: number, degrees: number): number[] {
  const kernel = new Array<number>(size * size).fill(0);
  const c = (size - 1) / 2;
  const a = (degrees * Math.PI) / 180;
  for (let t = -c; t <= c; t += 0.25) kernel[Math.round(c + t * Math.sin(a)) * size + Math.round(c + t * Math.cos(a))] = 1;
  const sum = kernel.reduce((x, y) => x + y, 0);
  return kernel.map((v) => v / sum);
}

/** A seeded sequence in [0, 1) (the same photos for the same reference on every run). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 0x100000000;
  };
}

/**
 * A workbench of `w` × `h`: mottled brown-grey wood or board (two scales of smoothed noise) with a
 * few flat-coloured odds and ends on it, the clutter a phone photo of a part shows around it.
 */
async function workbench(sharp: SharpFactory, w: number, h: number, rnd: () => number): Promise<Buffer> {
  const layer = async (cells: number, spread: number): Promise<Buffer> => {
    const cw = Math.max(2, Math.round((cells * w) / Math.max(w, h))), ch = Math.max(2, Math.round((cells * h) / Math.max(w, h)));
    const grid = Buffer.alloc(cw * ch);
    for (let i = 0; i < grid.length; i++) grid[i] = Math.round(128 + (rnd() - 0.5) * spread);
    return sharp(grid, { raw: { width: cw, height: ch, channels: 1 } }).resize(w, h, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer();
  };
  const [coarse, fine] = await Promise.all([layer(12, 120), layer(90, 70)]);
  const rgb = Buffer.alloc(w * h * 3);
  for (let p = 0; p < w * h; p++) {
    const v = 0.55 * (coarse[p] ?? 128) + 0.45 * (fine[p] ?? 128) - 128;
    rgb[p * 3] = Math.max(0, Math.min(255, Math.round(132 + v)));
    rgb[p * 3 + 1] = Math.max(0, Math.min(255, Math.round(112 + v)));
    rgb[p * 3 + 2] = Math.max(0, Math.min(255, Math.round(92 + v)));
  }
  const shapes: string[] = [];
  for (let k = 0; k < 7; k++) {
    const x = rnd() * w, y = rnd() * h, size = (0.04 + rnd() * 0.1) * Math.max(w, h);
    const fill = `rgb(${Math.round(rnd() * 255)},${Math.round(rnd() * 255)},${Math.round(rnd() * 255)})`;
    shapes.push(k % 2 === 0
      ? `<rect x="${x}" y="${y}" width="${size}" height="${size * (0.3 + rnd())}" fill="${fill}" transform="rotate(${Math.round(rnd() * 180)} ${x} ${y})"/>`
      : `<ellipse cx="${x}" cy="${y}" rx="${size / 2}" ry="${(size / 2) * (0.4 + rnd() * 0.6)}" fill="${fill}"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${shapes.join('')}</svg>`;
  return sharp(rgb, { raw: { width: w, height: h, channels: 3 } }).composite([{ input: Buffer.from(svg), left: 0, top: 0 }]).png().toBuffer();
}

/**
 * The part lying on a workbench ({@link workbench}): its plain background cut away (the flood fill
 * of `plainBackground`; a picture without a plain border lies there whole, like a print), turned
 * 8°, filling 45 % of the frame's width and height (a frame no longer than 4:3, as a phone's), off
 * centre; JPEG q90. A part whose features are mostly its outline against white loses them here:
 * the bench replaces the white.
 */
async function onBench(sharp: SharpFactory, base: Buffer, w: number, h: number): Promise<Buffer> {
  const rnd = seeded(0x5eed);
  const grey = await sharp(base).greyscale().raw().toBuffer();
  const background = plainBackground({ data: grey, width: w, height: h }, { tolerance: 16, plainBorder: 0.6 });
  // The part with its mask as the alpha channel: opaque where it is not background.
  const rgb = await sharp(base).removeAlpha().raw().toBuffer();
  const rgba = Buffer.alloc(w * h * 4);
  for (let p = 0; p < w * h; p++) {
    rgb.copy(rgba, p * 4, p * 3, p * 3 + 3);
    rgba[p * 4 + 3] = background?.[p] ? 0 : 255;
  }
  // Two pipelines: within one, sharp turns before it resizes.
  const small = await sharp(rgba, { raw: { width: w, height: h, channels: 4 } }).resize(Math.max(1, Math.round(w * 0.45)), Math.max(1, Math.round(h * 0.45)), { fit: 'fill' }).png().toBuffer();
  const frameW = Math.max(w, Math.round(h * 0.75)), frameH = Math.max(h, Math.round(w * 0.75));
  const part = await sharp(small)
    .rotate(8, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .resize(frameW, frameH, { fit: 'inside', withoutEnlargement: true })
    .png()
    .toBuffer({ resolveWithObject: true });
  const bench = await workbench(sharp, frameW, frameH, rnd);
  const left = Math.max(0, Math.round((frameW - part.info.width) * (0.3 + rnd() * 0.4)));
  const top = Math.max(0, Math.round((frameH - part.info.height) * (0.3 + rnd() * 0.4)));
  return sharp(bench).composite([{ input: part.data, left, top }]).jpeg({ quality: 90 }).toBuffer();
}

/** The photo of `condition` made from the normalised photo `base` (PHOTO_SIDE px, RGB PNG, `w` × `h`). */
async function conditionPhoto(sharp: SharpFactory, base: Buffer, w: number, h: number, condition: AuditCondition): Promise<Buffer> {
  const open = (): Sharp => sharp(base);
  switch (condition) {
    case 'copy': {
      // A digital copy sent around: 5 % cropped off each side, halved, brighter, JPEG q60.
      const cut = { left: Math.round(w * 0.05), top: Math.round(h * 0.05), width: Math.max(1, w - 2 * Math.round(w * 0.05)), height: Math.max(1, h - 2 * Math.round(h * 0.05)) };
      const cropped = await open().extract(cut).png().toBuffer();
      return sharp(cropped).resize(Math.max(1, Math.round(cut.width / 2)), Math.max(1, Math.round(cut.height / 2)), { fit: 'fill' }).modulate({ brightness: 1.1 }).jpeg({ quality: 60 }).toBuffer();
    }
    case 'closer': {
      // A closer shot: the central 70 % filling the frame.
      const cut = { left: Math.round(w * 0.15), top: Math.round(h * 0.15), width: Math.max(1, w - 2 * Math.round(w * 0.15)), height: Math.max(1, h - 2 * Math.round(h * 0.15)) };
      return open().extract(cut).resize(w, h, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    }
    case 'rotated':
      return open().rotate(20, { background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
    case 'angle':
      return atAngle(base);
    case 'covered':
      return coveredByHand(base, { left: 0, top: 0, width: w, height: h }, 0.25);
    case 'blur':
      return open().convolve({ width: 11, height: 11, kernel: lineKernel(11, 30) }).jpeg({ quality: 80 }).toBuffer();
    case 'low_light': {
      // A dim corner: 30 % of the light, sensor noise (σ 6 grey levels around mid-grey, blended
      // soft-light so it darkens and lightens), the phone's exposure bringing the mean back, a
      // warm cast; JPEG q75.
      const dim = await open().linear(0.3, 0).png().toBuffer();
      const noise = await sharp({ create: { width: w, height: h, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 6 } } }).png().toBuffer();
      const noisy = await sharp(dim).composite([{ input: noise, blend: 'soft-light' }]).png().toBuffer();
      return sharp(noisy).linear([0.7 / 0.3 * 1.06, 0.7 / 0.3, 0.7 / 0.3 * 0.9], [0, 0, 0]).jpeg({ quality: 75 }).toBuffer();
    }
    case 'bench':
      return onBench(sharp, base, w, h);
  }
}

/**
 * The probe of the image audit on sharp: every call runs in `pool` (the catalog's one decode pool,
 * shared with query photos and uploads), so an audit never decodes more images at once than a
 * search would; a full queue is the pool's 503.
 */
export function createSharpReferenceProbe(pool: DecodePool): ReferencePhotoProbe {
  const inPool = async <T>(task: () => Promise<T>): Promise<T> => {
    try {
      return await pool.run(task);
    } catch (error) {
      if (error instanceof DecodeQueueFullError) {
        throw new CatalogError('unavailable', `the image audit is busy: ${error.maxQueue} images are already waiting to be decoded; retry in a few seconds`, undefined, { retryAfterSeconds: 2 });
      }
      throw error;
    }
  };
  return {
    async measure(image: Uint8Array): Promise<ReferenceProperties> {
      return inPool(async () => {
        const sharp = await loadSharp();
        const meta = await sharp(image).metadata();
        const stats = await sharp(image).flatten({ background: '#ffffff' }).greyscale().stats();
        return { width: meta.width ?? 0, height: meta.height ?? 0, contrast: stats.channels[0]?.stdev ?? 0 };
      });
    },
    async photos(image: Uint8Array, conditions: readonly AuditCondition[]): Promise<Map<AuditCondition, Uint8Array>> {
      return inPool(async () => {
        const sharp = await loadSharp();
        const base = await sharp(image).flatten({ background: '#ffffff' }).resize(PHOTO_SIDE, PHOTO_SIDE, { fit: 'inside', kernel: 'lanczos3' }).removeAlpha().png().toBuffer({ resolveWithObject: true });
        const out = new Map<AuditCondition, Uint8Array>();
        for (const condition of conditions) out.set(condition, await conditionPhoto(sharp, base.data, base.info.width, base.info.height, condition));
        return out;
      });
    },
  };
}
