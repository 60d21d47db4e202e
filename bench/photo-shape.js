// A gradient-orientation template matcher for texture-less references (issue 14, eleventh round):
// LINE-2D after Hinterstoisser et al. ("Gradient Response Maps for Real-Time Detection of
// Texture-Less Objects", PAMI 2012), hand-written for the probe bench/photo-shape-probe.js.
//
// Reference: the part's silhouette (4-connected flood fill of the plain background from the border,
// as extract.ts backdropVariant decides "plain": grey within TOLERANCE of the border's median, 60 %
// of the border plain), cut out, rendered at each template size; features are up to FEATURES
// points of strong gradient, spread out: on the outline the orientation of the mask's own gradient
// (so the white background never enters: on a bench the outline's contrast may flip sign, and
// orientations are taken modulo 180°), inside the part the colour gradient where the whole 3 × 3
// neighbourhood is part. In-plane rotations turn the feature points (not a re-rendering).
// Query: colour image at QUERY_SIDE px long side, per pixel the orientation (8 bins over 180°) of the
// channel with the strongest Sobel gradient, kept above a magnitude threshold, spread over a T × T
// neighbourhood (a bit set per orientation), turned into 8 response maps (the best |cos| between
// the map's orientation and an orientation present nearby, 0..8). A template's similarity at a
// position is the mean response of its features, in [0, 1] (stage 1, every template at every
// STRIDE-th position). Stage 2 (verifyPose) checks a reference's best poses densely: the share of
// its whole outline found in the photo (±1 bin, within VERIFY_T), less the share of its flat inside
// where the photo has edges, less COLOUR_WEIGHT × the share of its colour samples whose photo pixel
// disagrees (dark against not dark, or another RGB direction). Plain JavaScript: probe code, not
// the product's (docs/search.md "Eleventh round").
import sharp from 'sharp';
import { plainBackground } from '../dist/adapters/images/local-features/extract.js';

export const SHAPE = {
  QUERY_SIDE: 160,
  T: 4,
  STRIDE: 4,
  FEATURES: 32,
  // Part long side at the query's working size (QUERY_SIDE): 25 % to 76 % of the photo's long side.
  SIZES: [40, 50, 62, 78, 98, 122],
  ROTATIONS: 24,
  TOLERANCE: 16,
  PLAIN_BORDER: 0.6,
  QUERY_MAGNITUDE: 100,
  DENSE: 240,
  FLAT: 120,
  VERIFY_T: 3,
  COLOUR: 120,
  DARK: 60,
  CHROMA_COS: 0.985,
  COLOUR_WEIGHT: 1,
  MAJORITY: 5,
};

// |cos| of the angle between orientation bins i and j (8 bins over 180°), scaled to 0..8.
let RESPONSE = [8, 7, 6, 3, 0, 3, 6, 7];
/** Replaces the response table (probe sweeps). */
export function setResponse(r) { RESPONSE = r; }

/**
 * The foreground mask of a picture on a plain background, or undefined (no plain border, or the
 * fill reaches < 5 % or > 98 %). `rgb` is w × h × 3. Returns Uint8Array(w*h), 1 = part.
 */
export function foregroundMask(rgb, w, h) {
  const grey = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) grey[p] = (rgb[p * 3] * 299 + rgb[p * 3 + 1] * 587 + rgb[p * 3 + 2] * 114) / 1000;
  // The product's rule (extract.ts plainBackground), inverted.
  const background = plainBackground({ data: grey, width: w, height: h }, { tolerance: SHAPE.TOLERANCE, plainBorder: SHAPE.PLAIN_BORDER });
  if (!background) return undefined;
  for (let p = 0; p < w * h; p++) background[p] = background[p] ? 0 : 1;
  return background;
}

/** Sobel of a single-channel float/uint raster at (x, y) (clamped borders). */
function sobelAt(img, w, h, x, y, stride, off) {
  const xm = x > 0 ? x - 1 : x, xp = x < w - 1 ? x + 1 : x, ym = y > 0 ? y - 1 : y, yp = y < h - 1 ? y + 1 : y;
  const a = (yy, xx) => img[(yy * w + xx) * stride + off];
  const gx = a(ym, xp) + 2 * a(y, xp) + a(yp, xp) - a(ym, xm) - 2 * a(y, xm) - a(yp, xm);
  const gy = a(yp, xm) + 2 * a(yp, x) + a(yp, xp) - a(ym, xm) - 2 * a(ym, x) - a(ym, xp);
  return [gx, gy];
}

/**
 * Decoded reference shape: the cut-out (RGBA, cropped to the part) and its source size; undefined
 * when the picture has no plain background.
 */
export async function referenceCutout(bytes) {
  const { data, info } = await sharp(bytes).rotate().flatten({ background: '#ffffff' }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h } = info;
  const mask = foregroundMask(data, w, h);
  if (!mask) return undefined;
  let x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (mask[y * w + x]) {
    if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
  }
  const cw = x1 - x0 + 1, ch = y1 - y0 + 1;
  const rgba = Buffer.alloc(cw * ch * 4);
  for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) {
    const p = (y + y0) * w + x + x0, o = (y * cw + x) * 4;
    rgba[o] = data[p * 3]; rgba[o + 1] = data[p * 3 + 1]; rgba[o + 2] = data[p * 3 + 2]; rgba[o + 3] = mask[p] ? 255 : 0;
  }
  return { rgba, width: cw, height: ch, sourceWidth: w, sourceHeight: h, foreground: mask.reduce((a, b) => a + b, 0) / (w * h) };
}

/**
 * Template features of a cut-out at one size (its long side `size` px): up to FEATURES points
 * {x, y, angle} relative to the part's centre, angle in [0, π).
 */
export async function templateAt(cut, size) {
  const scale = size / Math.max(cut.width, cut.height);
  const w = Math.max(3, Math.round(cut.width * scale)) + 4, h = Math.max(3, Math.round(cut.height * scale)) + 4;
  // 2-px transparent margin so the outline's gradient is inside the raster. Unpremultiplied RGBA.
  const { data } = await sharp(cut.rgba, { raw: { width: cut.width, height: cut.height, channels: 4 } })
    .resize(w - 4, h - 4, { fit: 'fill', kernel: 'cubic' })
    .extend({ top: 2, bottom: 2, left: 2, right: 2, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .raw().toBuffer({ resolveWithObject: true });
  const cands = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const [ax, ay] = sobelAt(data, w, h, x, y, 4, 3);
    const am = Math.hypot(ax, ay);
    if (am > 255) { // on the outline (alpha changes by > ~1/4 over the 3 × 3 patch)
      cands.push({ x, y, m: am * 2, angle: ((Math.atan2(ay, ax) % Math.PI) + Math.PI) % Math.PI });
      continue;
    }
    // Inside: all 3 × 3 opaque.
    let inside = true;
    for (let dy = -1; dy <= 1 && inside; dy++) for (let dx = -1; dx <= 1; dx++) {
      const yy = y + dy, xx = x + dx;
      if (yy < 0 || yy >= h || xx < 0 || xx >= w || data[(yy * w + xx) * 4 + 3] < 250) { inside = false; break; }
    }
    if (!inside) continue;
    let best = 0, bx = 0, by = 0;
    for (let c = 0; c < 3; c++) {
      const [gx, gy] = sobelAt(data, w, h, x, y, 4, c);
      const m = gx * gx + gy * gy;
      if (m > best) { best = m; bx = gx; by = gy; }
    }
    const m = Math.sqrt(best);
    if (m > 2 * SHAPE.QUERY_MAGNITUDE) cands.push({ x, y, m, angle: ((Math.atan2(by, bx) % Math.PI) + Math.PI) % Math.PI });
  }
  cands.sort((a, b) => b.m - a.m);
  // Spread: greedy by magnitude with a minimum distance, lowered until FEATURES are found.
  let dist = Math.max(2, Math.sqrt((w * h) / SHAPE.FEATURES) * 0.9);
  let picked = [];
  while (dist >= 1) {
    picked = [];
    for (const c of cands) {
      if (picked.every((p) => (p.x - c.x) ** 2 + (p.y - c.y) ** 2 >= dist * dist)) picked.push(c);
      if (picked.length >= SHAPE.FEATURES) break;
    }
    if (picked.length >= SHAPE.FEATURES) break;
    dist *= 0.8;
  }
  const cx = (w - 1) / 2, cy = (h - 1) / 2;
  // The dense model for verification: every edge point (up to DENSE, evenly thinned) and the flat
  // inside points (opaque, no edge point within 2 px: a flat part shows no edges there in a photo).
  const isEdge = new Uint8Array(w * h);
  for (const c of cands) isEdge[c.y * w + c.x] = 1;
  const flat = [];
  for (let y = 2; y < h - 2; y++) for (let x = 2; x < w - 2; x++) {
    if (data[(y * w + x) * 4 + 3] < 250) continue;
    let clear = true;
    for (let dy = -2; dy <= 2 && clear; dy++) for (let dx = -2; dx <= 2; dx++) if (isEdge[(y + dy) * w + x + dx] || data[((y + dy) * w + x + dx) * 4 + 3] < 250) { clear = false; break; }
    if (clear) flat.push({ x: x - cx, y: y - cy });
  }
  // Colour samples: opaque pixels whose 3 × 3 neighbourhood is opaque, with their RGB.
  const opaque = [];
  for (let y = 1; y < h - 1; y++) for (let x = 1; x < w - 1; x++) {
    let all = true;
    for (let dy = -1; dy <= 1 && all; dy++) for (let dx = -1; dx <= 1; dx++) if (data[((y + dy) * w + x + dx) * 4 + 3] < 250) { all = false; break; }
    const o = (y * w + x) * 4;
    if (all) opaque.push({ x: x - cx, y: y - cy, r: data[o], g: data[o + 1], b: data[o + 2] });
  }
  const thin = (a, n) => (a.length <= n ? a : Array.from({ length: n }, (_, i) => a[Math.floor((i * a.length) / n)]));
  const byPos = [...cands].sort((a, b) => a.y - b.y || a.x - b.x);
  return {
    size, width: w, height: h,
    features: picked.map((p) => ({ x: p.x - cx, y: p.y - cy, angle: p.angle })),
    dense: thin(byPos, SHAPE.DENSE).map((p) => ({ x: p.x - cx, y: p.y - cy, angle: p.angle })),
    flat: thin(flat, SHAPE.FLAT),
    colour: thin(opaque, SHAPE.COLOUR),
  };
}

/**
 * Every template of a reference: SIZES × ROTATIONS, each {dx: Int16Array, dy, ori: Uint8Array,
 * radius} (feature offsets from the centre in query pixels, orientation bin 0..7).
 */
export async function referenceTemplates(cut) {
  const out = [];
  for (const size of SHAPE.SIZES) {
    const t = await templateAt(cut, size);
    if (t.features.length < 8) continue;
    for (let r = 0; r < SHAPE.ROTATIONS; r++) {
      const th = (2 * Math.PI * r) / SHAPE.ROTATIONS;
      const c = Math.cos(th), s = Math.sin(th);
      const n = t.features.length;
      const dx = new Int16Array(n), dy = new Int16Array(n), ori = new Uint8Array(n);
      let radius = 0;
      for (let i = 0; i < n; i++) {
        const f = t.features[i];
        dx[i] = Math.round(c * f.x - s * f.y);
        dy[i] = Math.round(s * f.x + c * f.y);
        const a = (((f.angle + th) % Math.PI) + Math.PI) % Math.PI;
        ori[i] = Math.round(a / (Math.PI / 8)) % 8;
        radius = Math.max(radius, Math.abs(dx[i]), Math.abs(dy[i]));
      }
      out.push({ size, rotation: r, dx, dy, ori, radius, base: t, theta: th });
    }
  }
  return out;
}

/**
 * Response maps of a query photo: 8 Uint8Array(W*H), map o at p = max over orientations b present
 * within the T × T neighbourhood of p of RESPONSE[(o − b) mod 8].
 */
export async function queryResponses(bytes) {
  const { data, info } = await sharp(bytes).rotate().flatten({ background: '#ffffff' }).removeAlpha().toColourspace('srgb')
    .resize(SHAPE.QUERY_SIDE, SHAPE.QUERY_SIDE, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  return responsesFromRgb(data, info.width, info.height);
}

export function responsesFromRgb(data, W, H) {
  const bins = new Uint8Array(W * H); // bit set of the quantised orientation, 0 = none
  const mag2 = SHAPE.QUERY_MAGNITUDE * SHAPE.QUERY_MAGNITUDE;
  for (let y = 1; y < H - 1; y++) for (let x = 1; x < W - 1; x++) {
    let best = 0, bx = 0, by = 0;
    for (let c = 0; c < 3; c++) {
      const a = (yy, xx) => data[(yy * W + xx) * 3 + c];
      const gx = a(y - 1, x + 1) + 2 * a(y, x + 1) + a(y + 1, x + 1) - a(y - 1, x - 1) - 2 * a(y, x - 1) - a(y + 1, x - 1);
      const gy = a(y + 1, x - 1) + 2 * a(y + 1, x) + a(y + 1, x + 1) - a(y - 1, x - 1) - 2 * a(y - 1, x) - a(y - 1, x + 1);
      const m = gx * gx + gy * gy;
      if (m > best) { best = m; bx = gx; by = gy; }
    }
    if (best < mag2) continue;
    const a = (((Math.atan2(by, bx) % Math.PI) + Math.PI) % Math.PI);
    bins[y * W + x] = 1 << (Math.round(a / (Math.PI / 8)) % 8);
  }
  // LINE-2D's noise filter: keep an orientation only where at least MAJORITY of the 3 × 3
  // neighbourhood share it.
  if (SHAPE.MAJORITY > 1) {
    const kept = new Uint8Array(W * H);
    for (let y = 1; y < H - 1; y++) for (let x = 1; x < W - 1; x++) {
      const b = bins[y * W + x];
      if (!b) continue;
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) if (bins[(y + dy) * W + x + dx] === b) n++;
      if (n >= SHAPE.MAJORITY) kept[y * W + x] = b;
    }
    bins.set(kept);
  }
  const spread = spreadBits(bins, W, H, SHAPE.T);
  const near = spreadBits(bins, W, H, SHAPE.VERIFY_T);
  // Lookup: for each of the 256 bit sets, the response of each orientation.
  const lut = new Uint8Array(8 * 256);
  for (let o = 0; o < 8; o++) for (let s = 1; s < 256; s++) {
    let r = 0;
    for (let b = 0; b < 8; b++) if (s & (1 << b)) r = Math.max(r, RESPONSE[(o - b + 8) % 8]);
    lut[o * 256 + s] = r;
  }
  const maps = [];
  for (let o = 0; o < 8; o++) {
    const m = new Uint8Array(W * H);
    for (let p = 0; p < W * H; p++) m[p] = lut[o * 256 + spread[p]];
    maps.push(m);
  }
  return { W, H, rgb: data, maps, bins, near, edgeShare: bins.reduce((a, b) => a + (b ? 1 : 0), 0) / (W * H) };
}

/** OR of orientation bits over a T × T neighbourhood (centred), separable. */
function spreadBits(bins, W, H, T) {
  const lo = T >> 1, hi = T - lo - 1;
  const row = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    let v = 0;
    for (let k = Math.max(0, x - lo); k <= Math.min(W - 1, x + hi); k++) v |= bins[y * W + k];
    row[y * W + x] = v;
  }
  const spread = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    let v = 0;
    for (let k = Math.max(0, y - lo); k <= Math.min(H - 1, y + hi); k++) v |= row[k * W + x];
    spread[y * W + x] = v;
  }
  return spread;
}

/**
 * Dense verification of a template at a pose (its base template turned by t.theta, centred at
 * x, y; offsets within ±2 px tried): {coverage: share of the dense outline/edge points whose
 * orientation (±1 bin) is present within VERIFY_T, clutter: share of the flat inside points
 * where the photo has an edge, score: coverage − clutter}.
 */
export function verifyPose(q, t, x0, y0) {
  const { W, H, near, bins } = q;
  const c = Math.cos(t.theta), s = Math.sin(t.theta);
  const dense = t.base.dense.map((f) => {
    const a = (((f.angle + t.theta) % Math.PI) + Math.PI) % Math.PI;
    const o = Math.round(a / (Math.PI / 8)) % 8;
    return [Math.round(c * f.x - s * f.y), Math.round(s * f.x + c * f.y), (1 << o) | (1 << ((o + 1) % 8)) | (1 << ((o + 7) % 8))];
  });
  const flat = t.base.flat.map((f) => [Math.round(c * f.x - s * f.y), Math.round(s * f.x + c * f.y)]);
  const colour = t.base.colour.map((f) => [Math.round(c * f.x - s * f.y), Math.round(s * f.x + c * f.y), f.r, f.g, f.b]);
  let best = { score: -2, coverage: 0, clutter: 0 };
  for (let oy = -2; oy <= 2; oy++) for (let ox = -2; ox <= 2; ox++) {
    const x = x0 + ox, y = y0 + oy;
    let hit = 0, n = 0;
    for (const [dx, dy, mask] of dense) {
      const xx = x + dx, yy = y + dy;
      if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
      n++;
      if (near[yy * W + xx] & mask) hit++;
    }
    let cl = 0, m = 0;
    for (const [dx, dy] of flat) {
      const xx = x + dx, yy = y + dy;
      if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
      m++;
      if (bins[yy * W + xx]) cl++;
    }
    const coverage = n ? hit / n : 0, clutter = m ? cl / m : 0;
    const agree = SHAPE.COLOUR_WEIGHT > 0 ? colourAgreement(q, colour, x, y) : 1;
    const score = coverage - clutter - SHAPE.COLOUR_WEIGHT * (1 - agree);
    if (score > best.score) best = { score, coverage, clutter, colour: agree, x, y };
  }
  return best;
}

/**
 * Best similarity of a template over the query (positions on a STRIDE grid, template wholly
 * inside): {score in [0, 1], x, y, mean, sd} (mean / sd of the scores over the positions).
 */
export function matchTemplate(q, t) {
  const { W, H, maps } = q;
  const n = t.dx.length;
  const r = t.radius;
  let best = -1, bx = 0, by = 0, sum = 0, sum2 = 0, count = 0;
  const offs = new Int32Array(n);
  for (let i = 0; i < n; i++) offs[i] = t.dy[i] * W + t.dx[i];
  const S = SHAPE.STRIDE;
  for (let y = r; y < H - r; y += S) {
    for (let x = r; x < W - r; x += S) {
      const p = y * W + x;
      let s = 0;
      for (let i = 0; i < n; i++) s += maps[t.ori[i]][p + offs[i]];
      sum += s; sum2 += s * s; count++;
      if (s > best) { best = s; bx = x; by = y; }
    }
  }
  if (count === 0) return { score: 0, x: 0, y: 0, mean: 0, sd: 1 };
  const norm = 8 * n;
  const mean = sum / count / norm;
  const sd = Math.sqrt(Math.max(0, sum2 / count / (norm * norm) - mean * mean)) || 1e-3;
  return { score: best / norm, x: bx, y: by, mean, sd };
}

/**
 * Share of the part's colour samples whose photo pixel (at the pose) has the same kind of colour:
 * both dark (luminance below DARK), or both not dark with RGB directions within CHROMA_COS (a
 * brightness change scales the vector and leaves its direction; a moderate cast turns it a little).
 */
function colourAgreement(q, samples, x, y) {
  const { W, H, rgb } = q;
  let n = 0, ok = 0;
  for (const [dx, dy, r, g, b] of samples) {
    const xx = x + dx, yy = y + dy;
    if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
    n++;
    const o = (yy * W + xx) * 3;
    const R = rgb[o], G = rgb[o + 1], B = rgb[o + 2];
    const darkRef = 0.299 * r + 0.587 * g + 0.114 * b < SHAPE.DARK;
    const darkQ = 0.299 * R + 0.587 * G + 0.114 * B < SHAPE.DARK;
    if (darkRef || darkQ) { if (darkRef === darkQ) ok++; continue; }
    const cos = (r * R + g * G + b * B) / Math.sqrt((r * r + g * g + b * b) * (R * R + G * G + B * B));
    if (cos >= SHAPE.CHROMA_COS) ok++;
  }
  return n ? ok / n : 0;
}
