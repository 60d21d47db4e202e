// Photo conditions beyond issue 14's five (twelfth round): perspective tilt, sensor noise, motion
// blur, low light, a finger over the part, specular glare. Seeded, from the same references, the
// same sampled parts and the same scene generator as bench/photo-queries.js (its helpers, not a copy).
//
// Two bases, each with and without one effect:
//   card      the reference turned ±10–25° on its plain (white) background, enlarged to a photo's
//             800–1024 px long side (the effects' pixel sizes then mean what they mean in a phone
//             photo), JPEG q90: the control of the card_* conditions
//   scene_plain  as bench/photo-queries.js's scene (the part cut out, ±10°, 40–50 % of a generated
//             bench, q90), with this file's seeds: the control of the scene_* conditions
// A query's base (turn, size, bench, placement) is drawn from a stream seeded by its base and part
// alone, its effect from another: card_X is exactly `card` plus X, scene_X exactly `scene_plain`
// plus X (paired: a part lost under X was found, or not, in the very same picture without it).
// Effects (suffix):
//   _tilt     the part seen 20–35° out of plane: a homography K·R·K⁻¹ (rotation about a random axis
//             in the picture's plane; focal length 1.0 × the photo's long side, so the part nearest
//             the camera is larger), on the card with a random in-plane turn of the card (±10–25°); in a scene
//             the cut-out part is tilted before it is laid on the bench (focal length for a part of
//             ~45 % of the frame); JPEG q90
//   _noise    Gaussian sensor noise per channel, σ 8–15 (0–255), then JPEG q75
//   _motion   a straight motion-blur kernel 7–15 px long at a random angle, JPEG q85
//   _dark     low light: brightness × 0.6, gamma 1.1–1.4 (darker mid-tones), noise σ 5–9, JPEG q80
//   _occl     a skin-toned finger (a shaded capsule entering from outside) covering 20–35 % of the
//             part's pixels (thin line drawings less: a capsule across them covers 12–16 %), JPEG q90
//   _glare    a specular highlight: a soft bright ellipse (peak 85–100 % towards white, radii 20–35 %
//             of the part's box) on the part's pixels, JPEG q90
//
// Usage: import { conditionQueries } from './photo-conditions.js';
//   await conditionQueries(await photoSets({ perCondition: 40 }), { perCondition: 40 })
// or run directly (writes the set and prints its size). Cached in bench/tmp/photo-conds-v2-<seed>-<n>/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { prng } from './lib.js';
import { IMAGE_DIR, cutout, photoSets, scene } from './photo-queries.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const VERSION = 2;
const EFFECTS = ['tilt', 'noise', 'motion', 'dark', 'occl', 'glare'];
/** Condition names of this file, in report order. */
export const NEW_CONDITIONS = ['card', ...EFFECTS.map((e) => `card_${e}`), 'scene_plain', ...EFFECTS.map((e) => `scene_${e}`)];

/** A number in [a, b). */
const within = (rnd, a, b) => a + rnd() * (b - a);

/** A standard normal deviate (Box–Muller) from `rnd`. */
function gauss(rnd) {
  const u = Math.max(1e-12, rnd());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

/** Seed of one query: condition and file hashed with the set's seed (independent of order). */
function querySeed(seed, condition, file) {
  let h = 2166136261 ^ seed;
  for (const ch of `${condition}/${file}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}

/** Raw RGBA { data, width, height } of image bytes (transparency flattened on white). */
async function rawRgba(bytes) {
  const { data, info } = await sharp(bytes).flatten({ background: '#ffffff' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const encode = (img, quality) => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } }).removeAlpha().jpeg({ quality }).toBuffer();

/** 3 × 3 matrix product (row-major arrays of 9). */
function mul(a, b) {
  const r = new Array(9).fill(0);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) r[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
  return r;
}

function invert(m) {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d].map((x) => x / det);
}

/**
 * `img` seen from a camera turned by `tiltDeg` about an axis in the picture's plane at `axisDeg`,
 * then turned `spinDeg` in-plane: H = K·R·K⁻¹ (K: focal length `focal` px, centre of the picture).
 * Returns the warped picture on a canvas holding all of it; outside it, `fill` (RGBA).
 */
export function perspective(img, { tiltDeg, axisDeg, spinDeg, focal, fill }) {
  const { width: w, height: h, data } = img;
  const t = (tiltDeg * Math.PI) / 180, p = (axisDeg * Math.PI) / 180, s = (spinDeg * Math.PI) / 180;
  const [ux, uy] = [Math.cos(p), Math.sin(p)];
  const c = Math.cos(t), sn = Math.sin(t), v = 1 - c;
  // Rodrigues: rotation by t about the unit axis (ux, uy, 0).
  const R = [c + ux * ux * v, ux * uy * v, uy * sn, uy * ux * v, c + uy * uy * v, -ux * sn, -uy * sn, ux * sn, c];
  const Z = [Math.cos(s), -Math.sin(s), 0, Math.sin(s), Math.cos(s), 0, 0, 0, 1];
  const K = [focal, 0, w / 2, 0, focal, h / 2, 0, 0, 1];
  let H = mul(K, mul(Z, mul(R, invert(K))));
  const project = (m, x, y) => { const z = m[6] * x + m[7] * y + m[8]; return [(m[0] * x + m[1] * y + m[2]) / z, (m[3] * x + m[4] * y + m[5]) / z]; };
  const corners = [[0, 0], [w, 0], [0, h], [w, h]].map(([x, y]) => project(H, x, y));
  const x0 = Math.min(...corners.map((q) => q[0])), y0 = Math.min(...corners.map((q) => q[1]));
  const W = Math.ceil(Math.max(...corners.map((q) => q[0])) - x0), Hh = Math.ceil(Math.max(...corners.map((q) => q[1])) - y0);
  H = mul([1, 0, -x0, 0, 1, -y0, 0, 0, 1], H);
  const inv = invert(H);
  const out = Buffer.alloc(W * Hh * 4);
  for (let y = 0; y < Hh; y++) {
    for (let x = 0; x < W; x++) {
      const [sx, sy] = project(inv, x + 0.5, y + 0.5);
      const fx = sx - 0.5, fy = sy - 0.5;
      const o = (y * W + x) * 4;
      if (fx < -0.5 || fy < -0.5 || fx > w - 0.5 || fy > h - 0.5) {
        for (let k = 0; k < 4; k++) out[o + k] = fill[k];
        continue;
      }
      const ix = Math.max(0, Math.min(w - 1, Math.floor(fx))), iy = Math.max(0, Math.min(h - 1, Math.floor(fy)));
      const jx = Math.min(w - 1, ix + 1), jy = Math.min(h - 1, iy + 1);
      const ax = Math.max(0, Math.min(1, fx - ix)), ay = Math.max(0, Math.min(1, fy - iy));
      for (let k = 0; k < 4; k++) {
        const top = data[(iy * w + ix) * 4 + k] * (1 - ax) + data[(iy * w + jx) * 4 + k] * ax;
        const bottom = data[(jy * w + ix) * 4 + k] * (1 - ax) + data[(jy * w + jx) * 4 + k] * ax;
        out[o + k] = Math.round(top * (1 - ay) + bottom * ay);
      }
    }
  }
  return { data: out, width: W, height: Hh };
}

/** Gaussian noise of standard deviation `sigma` on each colour channel, in place. */
function addNoise(img, sigma, rnd) {
  const d = img.data;
  for (let i = 0; i < d.length; i++) if ((i & 3) !== 3) d[i] = Math.max(0, Math.min(255, Math.round(d[i] + sigma * gauss(rnd))));
  return img;
}

/** Low light: brightness × `gain`, then gamma `gamma` (> 1 darkens mid-tones), in place. */
function darken(img, gain, gamma) {
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) lut[v] = Math.round(255 * ((gain * v) / 255) ** gamma);
  const d = img.data;
  for (let i = 0; i < d.length; i++) if ((i & 3) !== 3) d[i] = lut[d[i]];
  return img;
}

/** A straight motion blur `length` px long at `angleDeg` (sharp's convolution; RGBA out). */
async function motionBlur(img, length, angleDeg) {
  const n = length % 2 === 1 ? length : length + 1;
  const kernel = new Array(n * n).fill(0);
  const a = (angleDeg * Math.PI) / 180;
  // Sample the segment finely; bilinear splat keeps oblique lines smooth.
  const steps = n * 8;
  for (let i = 0; i <= steps; i++) {
    const r = (i / steps - 0.5) * (length - 1);
    const x = (n - 1) / 2 + r * Math.cos(a), y = (n - 1) / 2 + r * Math.sin(a);
    const ix = Math.floor(x), iy = Math.floor(y), fx = x - ix, fy = y - iy;
    for (const [dx, dy, wgt] of [[0, 0, (1 - fx) * (1 - fy)], [1, 0, fx * (1 - fy)], [0, 1, (1 - fx) * fy], [1, 1, fx * fy]]) {
      const X = ix + dx, Y = iy + dy;
      if (X >= 0 && X < n && Y >= 0 && Y < n) kernel[Y * n + X] += wgt;
    }
  }
  const sum = kernel.reduce((s, k) => s + k, 0);
  const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
    .removeAlpha()
    .convolve({ width: n, height: n, kernel: kernel.map((k) => k / sum) })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Pixels of `img` that belong to the part: alpha > 0, or `mask` when given (1 a part pixel). */
export function partPixels(img, mask) {
  const idx = [];
  for (let p = 0; p < img.width * img.height; p++) if (mask ? mask[p] : img.data[p * 4 + 3] > 0) idx.push(p);
  return idx;
}

/** Bounding box of pixel indices. */
function boxOf(idx, width) {
  let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
  for (const p of idx) {
    const x = p % width, y = (p - x) / width;
    x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
  }
  return { x0, y0, x1, y1, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

/**
 * A finger over the part, in place: a capsule of width 22–32 % of the part's box entering from a
 * random direction from outside the picture towards the part's centroid, pushed in until it
 * covers `target` of the part's pixels (bisection on its depth). Skin tone with a rounded shading
 * and a soft edge; where it lies, alpha becomes opaque. Returns the covered share.
 */
export function occlude(img, partIdx, target, rnd) {
  const { width: w, height: h, data } = img;
  const box = boxOf(partIdx, w);
  let cx = 0, cy = 0;
  for (const p of partIdx) { cx += p % w; cy += Math.floor(p / w); }
  cx /= partIdx.length; cy /= partIdx.length;
  const radius = (within(rnd, 0.22, 0.32) * Math.min(box.w, box.h) + 0.05 * Math.max(box.w, box.h)) / 2;
  const dir = within(rnd, 0, 2 * Math.PI);
  const [dx, dy] = [Math.cos(dir), Math.sin(dir)];
  const far = Math.hypot(w, h);
  const tone = [[224, 172, 140], [198, 140, 105], [241, 194, 168], [160, 105, 75]][Math.floor(rnd() * 4)];
  // Segment from outside (centroid − far·d) to the tip at centroid + depth·d; depth in [−far, far].
  const distance = (x, y, depth) => {
    const ax = cx - far * dx, ay = cy - far * dy;
    const len = far + depth;
    const t = Math.max(0, Math.min(len, (x - ax) * dx + (y - ay) * dy));
    return Math.hypot(x - (ax + t * dx), y - (ay + t * dy));
  };
  const covered = (depth) => {
    let n = 0;
    for (const p of partIdx) if (distance(p % w, Math.floor(p / w), depth) <= radius) n++;
    return n / partIdx.length;
  };
  let lo = -far, hi = far;
  for (let k = 0; k < 24; k++) {
    const mid = (lo + hi) / 2;
    if (covered(mid) < target) lo = mid; else hi = mid;
  }
  const depth = hi;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const d = distance(x, y, depth);
      if (d > radius + 1) continue;
      const edge = Math.max(0, Math.min(1, radius + 1 - d)); // 1 px soft edge
      const shade = 0.7 + 0.3 * Math.sqrt(Math.max(0, 1 - (d / radius) ** 2));
      const o = (y * w + x) * 4;
      for (let k = 0; k < 3; k++) data[o + k] = Math.round(data[o + k] * (1 - edge) + tone[k] * shade * edge);
      data[o + 3] = Math.max(data[o + 3], Math.round(255 * edge));
    }
  }
  return covered(depth);
}

/** A specular highlight on the part's pixels, in place: a soft ellipse blended towards white. */
function glare(img, partIdx, rnd) {
  const { width: w, data } = img;
  const box = boxOf(partIdx, w);
  const centre = partIdx[Math.floor(rnd() * partIdx.length)];
  const cx = centre % w, cy = Math.floor(centre / w);
  const rx = within(rnd, 0.2, 0.35) * box.w, ry = within(rnd, 0.2, 0.35) * box.h;
  const a = within(rnd, 0, Math.PI), peak = within(rnd, 0.85, 1);
  const [ca, sa] = [Math.cos(a), Math.sin(a)];
  for (const p of partIdx) {
    const x = p % w - cx, y = Math.floor(p / w) - cy;
    const u = (x * ca + y * sa) / rx, v = (-x * sa + y * ca) / ry;
    // Flat-topped falloff: saturated core, soft rim (a highlight blooms).
    const k = peak * Math.min(1, 1.4 * Math.exp(-1.2 * (u * u + v * v)));
    if (k < 0.01) continue;
    for (let c = 0; c < 3; c++) data[p * 4 + c] = Math.round(data[p * 4 + c] + (255 - data[p * 4 + c]) * k);
  }
}

/** The sensor-side effect (noise, motion, dark) on a finished picture; JPEG bytes. */
async function sensor(effect, img, rnd) {
  switch (effect) {
    case 'noise': return encode(addNoise(img, within(rnd, 8, 15), rnd), 75);
    case 'motion': return encode(await motionBlur(img, 7 + Math.floor(rnd() * 9), within(rnd, 0, 180)), 85);
    case 'dark': return encode(addNoise(darken(img, 0.6, within(rnd, 1.1, 1.4)), within(rnd, 5, 9), rnd), 80);
    default: return encode(img, 90);
  }
}

/**
 * A card query: the reference (effect on the part first when physical), turned, photo-sized.
 * `base` draws the size and the turn (the same for every effect), `rnd` the effect.
 */
async function cardQuery(effect, bytes, base, rnd) {
  const long = 800 + Math.floor(base() * 225);
  const angle = (10 + base() * 15) * (base() < 0.5 ? -1 : 1);
  const img = await rawRgba(bytes);
  if (effect === 'occl' || effect === 'glare') {
    const cut = await cutout(bytes);
    const mask = new Uint8Array(img.width * img.height);
    for (let y = 0; y < cut.height; y++) for (let x = 0; x < cut.width; x++) {
      if (cut.rgba[(y * cut.width + x) * 4 + 3] > 0) mask[(y + cut.top) * img.width + x + cut.left] = 1;
    }
    const idx = partPixels(img, mask);
    if (effect === 'occl') occlude(img, idx, within(rnd, 0.2, 0.35), rnd);
    else glare(img, idx, rnd);
  }
  const scale = long / Math.max(img.width, img.height);
  const size = { width: Math.max(1, Math.round(img.width * scale)), height: Math.max(1, Math.round(img.height * scale)) };
  if (effect === 'tilt') {
    const big = await rawRgba(await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } }).resize(size.width, size.height, { fit: 'fill' }).png().toBuffer());
    // The card's own turn as the in-plane part of the view.
    return encode(perspective(big, { tiltDeg: within(rnd, 20, 35), axisDeg: within(rnd, 0, 180), spinDeg: angle, focal: long, fill: [255, 255, 255, 255] }), 90);
  }
  const turned = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
    .resize(size.width, size.height, { fit: 'fill' })
    .rotate(angle, { background: '#ffffff' })
    .png()
    .toBuffer();
  return sensor(effect, await rawRgba(turned), rnd);
}

/** Pad a cut-out with a transparent margin of `share` of its long side on each edge. */
function pad(cut, share) {
  const m = Math.round(share * Math.max(cut.width, cut.height));
  const W = cut.width + 2 * m, H = cut.height + 2 * m;
  const data = Buffer.alloc(W * H * 4);
  for (let y = 0; y < cut.height; y++) cut.rgba.copy(data, ((y + m) * W + m) * 4, y * cut.width * 4, (y + 1) * cut.width * 4);
  return { data, width: W, height: H, factor: Math.max(W, H) / Math.max(cut.width, cut.height) };
}

/**
 * A scene query: physical effects on the cut-out part, the generator's bench, sensor effects last.
 * `base` draws the bench and the placement (the same for every effect), `rnd` the effect.
 */
async function sceneQuery(effect, bytes, base, rnd, clutter) {
  const cut = await cutout(bytes);
  let part = { rgba: cut.rgba, width: cut.width, height: cut.height };
  let factor = 1;
  if (effect === 'occl' || effect === 'glare') {
    // A margin so the finger enters from beyond the part (not cut off at its box).
    const img = effect === 'occl' ? pad(cut, 0.12) : { data: Buffer.from(cut.rgba), width: cut.width, height: cut.height, factor: 1 };
    const idx = partPixels(img);
    if (effect === 'occl') occlude(img, idx, within(rnd, 0.2, 0.35), rnd);
    else glare(img, idx, rnd);
    part = { rgba: img.data, width: img.width, height: img.height };
    factor = img.factor;
  } else if (effect === 'tilt') {
    const warped = perspective({ data: cut.rgba, width: cut.width, height: cut.height }, {
      tiltDeg: within(rnd, 20, 35), axisDeg: within(rnd, 0, 180), spinDeg: 0, focal: Math.max(cut.width, cut.height) / 0.45, fill: [0, 0, 0, 0],
    });
    part = { rgba: warped.data, width: warped.width, height: warped.height };
    // Foreshortening shrinks the part: keep the placed size of its long side as the generator's.
  }
  const png = await scene(part, base, clutter, factor);
  return sensor(effect, await rawRgba(png), rnd);
}

/**
 * Queries of NEW_CONDITIONS for the parts sampled by `sets` (the output of photoSets: its `rot`
 * queries name the sampled parts), cached. Returns [{ condition, file, name, bytes }].
 * @param {{ references: {file: string}[], queries: {condition: string, file: string}[] }} sets
 * @param {{ perCondition?: number, seed?: number, conditions?: string[], log?: (s: string) => void }} options
 */
export async function conditionQueries(sets, options = {}) {
  const seed = options.seed ?? 14;
  const perCondition = options.perCondition ?? 40;
  const conditions = options.conditions ?? NEW_CONDITIONS;
  const log = options.log ?? (() => {});
  const files = sets.queries.filter((q) => q.condition === 'rot').map((q) => q.file);
  const dir = path.join(here, 'tmp', `photo-conds-v${VERSION}-${seed}-${perCondition}`);
  fs.mkdirSync(dir, { recursive: true });
  let clutter;
  const out = [];
  const t0 = performance.now();
  for (const condition of conditions) {
    const [base, effect] = condition.split('_');
    for (const file of files) {
      const name = `${condition}--${file.replace(/\.jpg$/, '')}.jpg`;
      const cached = path.join(dir, name);
      if (!fs.existsSync(cached)) {
        const rnd = prng(querySeed(seed, condition, file));
        const baseRnd = prng(querySeed(seed, base, file));
        const bytes = fs.readFileSync(path.join(IMAGE_DIR, file));
        if (base === 'scene' && !clutter) clutter = await clutterCutouts(sets);
        const q = base === 'card' ? await cardQuery(effect, bytes, baseRnd, rnd) : await sceneQuery(effect, bytes, baseRnd, rnd, clutter);
        fs.writeFileSync(cached, q);
      }
      out.push({ condition, file, name, bytes: fs.readFileSync(cached) });
    }
    log(`  ${condition}: ${files.length} queries (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  return out;
}

/**
 * The clutter objects of the bench: the images that are neither references nor distractors
 * (photoSets' split), cut out. Only their count is in the manifest, so they are recomputed as
 * the images not among the references or the distractors.
 */
async function clutterCutouts(sets) {
  const read = (f) => fs.readFileSync(path.join(IMAGE_DIR, f));
  // By content too: a byte-identical copy of a reference or a distractor is not clutter.
  const taken = new Set([...sets.references.map((r) => r.file), ...sets.distractors.map((d) => d.file)].map((f) => read(f).toString('base64')));
  const cuts = [];
  for (const f of fs.readdirSync(IMAGE_DIR).filter((n) => n.endsWith('.jpg')).sort()) {
    const key = read(f).toString('base64');
    if (taken.has(key)) continue;
    taken.add(key);
    cuts.push(await cutout(read(f)));
  }
  return cuts;
}

// Run directly: generate the set (40 per condition) and print its size.
if (import.meta.url === `file://${process.argv[1]}`) {
  const per = Number(process.argv[2] ?? 40);
  const sets = await photoSets({ perCondition: per });
  const qs = await conditionQueries(sets, { perCondition: per, log: console.log });
  console.log(`${qs.length} queries in ${NEW_CONDITIONS.length} conditions`);
}
