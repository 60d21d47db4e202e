// Photo-like query sets for photo search (issue 14), generated from ../shared/data/images, seeded.
//
// The images are split (seeded) into references, 100 distractor objects (never references: "things
// not in the catalog") and clutter sources (objects lying around on the generated workbench). For a
// sample of references, each condition below makes one query:
//   rot       rotated ±10–25° on a plain (white) background, JPEG q90
//   rot90     rotated 90° or 270°
//   zoom      the central 70 % enlarged back to the original size
//   scene     the part cut out of its plain background (flood fill from the border; an image the
//             fill breaks into more than 100 pieces has no plain background, a photo of a page or
//             of the sky, and goes whole: generator version 3), rotated ±10°,
//             its longer side 40–50 % of the scene's longer side, on a generated cluttered bench
//             (mottled surface, random shapes, strokes, other objects), JPEG q90
//   scene_fx  that scene with a colour cast (R/B ±12 %), brightness ±15 %, Gaussian blur σ 0.8–1.6,
//             JPEG q70
//   resize50, jpeg60, crop5, bright10, all   digital copies, as in bench/image-quality.js
// Field conditions (a phone photo on a workbench), each on a scene as above, drawn from their own
// seeded sequence so the conditions above keep their bytes:
//   perspective  the scene seen at an angle: a homography pulling one side in by 20–35 % (the phone
//                tilted 35–50°) plus a shear of ±10 %, JPEG q85
//   occlusion    25–33 % of the part's box covered by a hand (skin tone, a palm and fingers) or by a
//                piece of another cluttered bench, JPEG q85
//   motion_blur  the scene smeared along a line of 9–17 px at a random angle (a shaky hand), JPEG q80
//   glare        a specular highlight (a white, soft-edged ellipse over 20–40 % of the part) and
//                washed-out contrast (a lamp reflected on a glossy part), JPEG q85
//   low_light    the scene at 25–40 % brightness, gamma-lifted, with sensor noise σ 6–10, JPEG q75
// and 100 distractor queries: a distractor object in a scene (every other one with the fx).
// photoSets({ references: 'unseen' }) takes the references from images this project was never
// tuned on: the icons, diagrams and pictures Debian packages installed under /usr/share
// (unseenImages), keeping the distractors and clutter of ../shared/data/images.
//
// Usage: import { photoSets } from './photo-queries.js'; await photoSets({ perCondition: 150 }).
// Files are cached in bench/tmp/photo-sets-<seed>-<n>/ (delete the folder to regenerate).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { prng } from './lib.js';
import { glare, lowLight, motionBlur, occlusion, perspective } from './photo-field.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const IMAGE_DIR = path.join(here, '..', '..', 'shared', 'data', 'images');
export const PHOTO_CONDITIONS = ['rot', 'rot90', 'zoom', 'scene', 'scene_fx'];
export const FIELD_CONDITIONS = ['perspective', 'occlusion', 'motion_blur', 'glare', 'low_light'];
export const DIGITAL_CONDITIONS = ['resize50', 'jpeg60', 'crop5', 'bright10', 'all'];
export const CONDITIONS = [...PHOTO_CONDITIONS, ...DIGITAL_CONDITIONS, ...FIELD_CONDITIONS];
const DISTRACTORS = 100;
const CLUTTER_SOURCES = 40;
// 3: an image with no plain background goes whole into its scene (cutout); 2: PHOTO_SETS_VERSION=2.
const GENERATOR_VERSION = Number(process.env.PHOTO_SETS_VERSION ?? 3);
/**
 * More foreground pieces than this after the flood fill: the fill ran through the part itself (a
 * photo of a page of handwriting, of the moon, of a cat: their paper, sky or fur is as plain as a
 * background at the border), so the image is taken whole. Of the 659 images, 6 photos leave
 * 240-2,532 pieces (photo_text 606: its scene showed only shreds of ink); a drawing or an object
 * on a plain background leaves 1-84 (confetti, fireworks, a stoplight's lamps).
 */
const SHREDDED_PIECES = 100;

/**
 * Flood fill over a w × h raster, 4-connected: marks `mark[q] = 1` for every pixel reached from
 * the pixels on `stack` (already marked by the caller) through pixels that `accept`s. Empties `stack`.
 */
function flood(w, h, stack, mark, accept) {
  while (stack.length > 0) {
    const p = stack.pop();
    const x = p % w;
    for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p >= w ? p - w : -1, p < w * (h - 1) ? p + w : -1]) {
      if (q >= 0 && !mark[q] && accept(q)) {
        mark[q] = 1;
        stack.push(q);
      }
    }
  }
}

/** Foreground pieces (4-connected runs of bg[p] === 0) of a w × h mask, counted up to `stop`. */
function foregroundPieces(bg, w, h, stop) {
  const seen = new Uint8Array(w * h);
  let pieces = 0;
  for (let s = 0; s < w * h && pieces <= stop; s++) {
    if (bg[s] || seen[s]) continue;
    pieces++;
    seen[s] = 1;
    flood(w, h, [s], seen, (q) => !bg[q]);
  }
  return pieces;
}

/**
 * Look-alike family of an image (its name up to the first '-' or '_', digits-only names as one
 * family): a family goes whole to the references, the distractors or the clutter, so a distractor
 * or a clutter object is never a variant (mirror, other letter, other coin) of a catalog part.
 */
function family(file) {
  const stem = file.replace(/\.jpg$/, '');
  if (/^\d/.test(stem)) return '#digits';
  return stem.split(/[-_]/)[0].replace(/\d+$/, '');
}

/** Seeded Fisher–Yates shuffle (a copy). */
function shuffle(items, rnd) {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * A synthetic look-alike of a reference's decoded local features (to pad an index to N
 * references): keypoints moved by up to 1 px, ~3 % of each descriptor's bits flipped. `local` is
 * changed in place; `rnd` gives numbers in [0, 1) (seeded by the caller, so runs repeat).
 */
export function jitterLocalFeatures(local, rnd) {
  for (let k = 0; k < local.count; k++) {
    local.xs[k] = Math.max(0, local.xs[k] + rnd() * 2 - 1);
    local.ys[k] = Math.max(0, local.ys[k] + rnd() * 2 - 1);
  }
  for (let k = 0; k < local.descriptors.length; k++) {
    let m = 0;
    for (let b = 0; b < 32; b++) if (rnd() < 0.03) m |= 1 << b;
    local.descriptors[k] = (local.descriptors[k] ^ m) >>> 0;
  }
  return local;
}

/**
 * The part cut out of its plain background: RGBA raw (alpha 0 where the flood fill from the border
 * reached pixels within 60 (sum over R, G, B) of the border's median colour), cropped to the part's
 * bounding box; the whole image when nothing is left or the fill shredded it (SHREDDED_PIECES); `left`, `top` are that box's origin in the image.
 * @returns {Promise<{ rgba: Buffer, width: number, height: number, left: number, top: number }>}
 */
export async function cutout(bytes) {
  const { data, info } = await sharp(bytes).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h } = info;
  const border = [];
  for (let x = 0; x < w; x++) border.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y++) border.push(y * w, y * w + w - 1);
  const med = [0, 1, 2].map((c) => {
    const v = border.map((p) => data[p * 3 + c]).sort((a, b) => a - b);
    return v[v.length >> 1];
  });
  const near = (p) => Math.abs(data[p * 3] - med[0]) + Math.abs(data[p * 3 + 1] - med[1]) + Math.abs(data[p * 3 + 2] - med[2]) < 60;
  const bg = new Uint8Array(w * h);
  const stack = border.filter(near);
  for (const p of stack) bg[p] = 1;
  flood(w, h, stack, bg, near);
  let x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    if (!bg[y * w + x]) {
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  const shredded = GENERATOR_VERSION >= 3 && foregroundPieces(bg, w, h, SHREDDED_PIECES) > SHREDDED_PIECES;
  if (x1 < 0 || (x1 - x0 + 1) * (y1 - y0 + 1) < 0.02 * w * h || shredded) {
    x0 = 0; y0 = 0; x1 = w - 1; y1 = h - 1; bg.fill(0);
  }
  const cw = x1 - x0 + 1;
  const ch = y1 - y0 + 1;
  const rgba = Buffer.alloc(cw * ch * 4);
  for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) {
    const p = (y + y0) * w + x + x0;
    const o = (y * cw + x) * 4;
    rgba[o] = data[p * 3];
    rgba[o + 1] = data[p * 3 + 1];
    rgba[o + 2] = data[p * 3 + 2];
    rgba[o + 3] = bg[p] ? 0 : 255;
  }
  return { rgba, width: cw, height: ch, left: x0, top: y0 };
}

/** A cut-out as a PNG rotated by `angle` on a transparent background, its longer side `long` px. */
async function placeable(cut, long, angle) {
  const scale = long / Math.max(cut.width, cut.height);
  const w = Math.max(1, Math.round(cut.width * scale));
  const h = Math.max(1, Math.round(cut.height * scale));
  return sharp(cut.rgba, { raw: { width: cut.width, height: cut.height, channels: 4 } })
    .resize(w, h, { fit: 'fill' })
    .rotate(angle, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer({ resolveWithObject: true });
}

const hex = (rnd) => `#${Math.floor(rnd() * 0xffffff).toString(16).padStart(6, '0')}`;

/** A cluttered workbench W × H (RGB PNG): mottled surface, shapes, strokes, other objects. */
async function bench(W, H, rnd, clutter) {
  // Mottled surface: a coarse random raster in a base hue, enlarged smoothly, plus fine grain.
  const base = [[150, 110, 70], [120, 120, 120], [60, 90, 70], [190, 180, 160], [70, 70, 90]][Math.floor(rnd() * 5)];
  const cw = 24, chh = 18;
  const coarse = Buffer.alloc(cw * chh * 3);
  for (let i = 0; i < cw * chh; i++) {
    const k = 0.75 + 0.5 * rnd();
    for (let c = 0; c < 3; c++) coarse[i * 3 + c] = Math.max(0, Math.min(255, base[c] * k));
  }
  let surface = await sharp(coarse, { raw: { width: cw, height: chh, channels: 3 } }).resize(W, H, { fit: 'fill', kernel: 'cubic' }).blur(3).raw().toBuffer();
  for (let i = 0; i < surface.length; i++) surface[i] = Math.max(0, Math.min(255, surface[i] + (rnd() - 0.5) * 24));
  const parts = [];
  const shapes = [];
  const nShapes = 8 + Math.floor(rnd() * 10);
  for (let i = 0; i < nShapes; i++) {
    const x = rnd() * W, y = rnd() * H, s = 20 + rnd() * 120, o = (0.5 + 0.5 * rnd()).toFixed(2);
    const kind = Math.floor(rnd() * 4);
    if (kind === 0) shapes.push(`<rect x="${x}" y="${y}" width="${s}" height="${s * (0.3 + rnd())}" fill="${hex(rnd)}" opacity="${o}" transform="rotate(${rnd() * 90} ${x} ${y})"/>`);
    else if (kind === 1) shapes.push(`<ellipse cx="${x}" cy="${y}" rx="${s / 2}" ry="${s / (2 + rnd() * 2)}" fill="${hex(rnd)}" opacity="${o}"/>`);
    else if (kind === 2) shapes.push(`<line x1="${x}" y1="${y}" x2="${x + (rnd() - 0.5) * 400}" y2="${y + (rnd() - 0.5) * 400}" stroke="${hex(rnd)}" stroke-width="${1 + rnd() * 8}"/>`);
    else shapes.push(`<polygon points="${[0, 1, 2, 3, 4].map(() => `${x + (rnd() - 0.5) * s * 2},${y + (rnd() - 0.5) * s * 2}`).join(' ')}" fill="${hex(rnd)}" opacity="${o}"/>`);
  }
  parts.push({ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${shapes.join('')}</svg>`), left: 0, top: 0 });
  const nObjects = 3 + Math.floor(rnd() * 4);
  for (let i = 0; i < nObjects && clutter.length > 0; i++) {
    const cut = clutter[Math.floor(rnd() * clutter.length)];
    const p = await placeable(cut, Math.round((0.12 + rnd() * 0.2) * Math.max(W, H)), Math.round(rnd() * 360));
    parts.push({ input: p.data, left: Math.round(rnd() * Math.max(1, W - p.info.width)), top: Math.round(rnd() * Math.max(1, H - p.info.height)) });
  }
  return sharp(surface, { raw: { width: W, height: H, channels: 3 } }).composite(parts).png().toBuffer();
}

/**
 * A scene (PNG bytes): `cut` on a new bench, rotated ±10°, longer side 40–50 % of the scene's
 * (times `sizeFactor`: a cut-out padded with a transparent margin passes the margin's factor so the
 * part itself keeps its size). Consumes `rnd` the same way whatever the factor.
 */
export async function scene(cut, rnd, clutter, sizeFactor = 1) {
  return (await sceneWithBox(cut, rnd, clutter, sizeFactor)).png;
}

/** {@link scene} with where the part landed: `{ png, box: { left, top, width, height }, W, H }` (px). */
export async function sceneWithBox(cut, rnd, clutter, sizeFactor = 1) {
  const long = 800 + Math.floor(rnd() * 224);
  const landscape = rnd() < 0.6;
  const W = landscape ? long : Math.round(long * 0.75);
  const H = landscape ? Math.round(long * 0.75) : long;
  const background = await bench(W, H, rnd, clutter);
  const part = await placeable(cut, Math.round((0.4 + rnd() * 0.1) * long * sizeFactor), Math.round((rnd() * 2 - 1) * 10));
  const pw = Math.min(W, part.info.width);
  const ph = Math.min(H, part.info.height);
  const left = Math.round(rnd() * (W - pw));
  const top = Math.round(rnd() * (H - ph));
  const png = await sharp(background).composite([{ input: part.data, left, top }]).png().toBuffer();
  return { png, box: { left, top, width: pw, height: ph }, W, H };
}

/** Camera effects: colour cast, brightness, blur, JPEG q70. */
async function cameraEffects(png, rnd) {
  const cast = (rnd() * 2 - 1) * 0.12;
  const brightness = 0.85 + rnd() * 0.3;
  const sigma = 0.8 + rnd() * 0.8;
  return sharp(png)
    .linear([brightness * (1 + cast), brightness, brightness * (1 - cast)], [0, 0, 0])
    .blur(sigma)
    .jpeg({ quality: 70 })
    .toBuffer();
}

async function halfSize(buf) {
  const m = await sharp(buf).metadata();
  return sharp(buf).resize(Math.max(1, Math.round(m.width / 2)), Math.max(1, Math.round(m.height / 2)), { fit: 'fill' });
}

/** The query of `condition` made from reference bytes. */
async function makeQuery(condition, buf, rnd, clutter) {
  const m = await sharp(buf).metadata();
  const crop = (f) => ({ left: Math.round(m.width * f), top: Math.round(m.height * f), width: Math.max(1, m.width - 2 * Math.round(m.width * f)), height: Math.max(1, m.height - 2 * Math.round(m.height * f)) });
  switch (condition) {
    case 'rot': {
      const a = (10 + rnd() * 15) * (rnd() < 0.5 ? -1 : 1);
      return sharp(buf).rotate(a, { background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
    }
    case 'rot90':
      return sharp(buf).rotate(rnd() < 0.5 ? 90 : 270).jpeg({ quality: 90 }).toBuffer();
    case 'zoom':
      return sharp(buf).extract(crop(0.15)).resize(m.width, m.height, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    case 'scene':
      return sharp(await scene(await cutout(buf), rnd, clutter)).jpeg({ quality: 90 }).toBuffer();
    case 'scene_fx':
      return cameraEffects(await scene(await cutout(buf), rnd, clutter), rnd);
    case 'resize50':
      return (await halfSize(buf)).png().toBuffer();
    case 'jpeg60':
      return sharp(buf).jpeg({ quality: 60 }).toBuffer();
    case 'crop5':
      return sharp(buf).extract(crop(0.05)).png().toBuffer();
    case 'bright10':
      return sharp(buf).modulate({ brightness: 1.1 }).png().toBuffer();
    case 'all': {
      const c = await sharp(buf).extract(crop(0.05)).png().toBuffer();
      return (await halfSize(c)).modulate({ brightness: 1.1 }).jpeg({ quality: 60 }).toBuffer();
    }
    case 'perspective':
      return perspective(await sceneWithBox(await cutout(buf), rnd, clutter), rnd);
    case 'occlusion': {
      const s = await sceneWithBox(await cutout(buf), rnd, clutter);
      return occlusion(s, rnd, await bench(s.W, s.H, rnd, clutter));
    }
    case 'motion_blur':
      return motionBlur(await sceneWithBox(await cutout(buf), rnd, clutter), rnd);
    case 'glare':
      return glare(await sceneWithBox(await cutout(buf), rnd, clutter), rnd);
    case 'low_light':
      return lowLight(await sceneWithBox(await cutout(buf), rnd, clutter), rnd);
    default:
      throw new Error(`unknown condition ${condition}`);
  }
}

/** How many numbers {@link augment} draws from its `rnd` for one photo (a cache skips past photos it holds with as many draws). */
export const AUGMENT_DRAWS = 7;

/**
 * A synthetic photo of the same part (the padding references of bench/photo-search.js): a crop of
 * up to 10 %, scaled to 60-100 %, turned, hue and brightness moved, JPEG q85; seeded by `rnd`.
 */
export async function augment(bytes, rnd) {
  const m = await sharp(bytes).metadata();
  const scale = 0.6 + 0.4 * rnd();
  const f = 0.1 * rnd();
  const left = Math.round(m.width * f * rnd());
  const top = Math.round(m.height * f * rnd());
  const width = Math.min(m.width - left, Math.max(8, Math.round(m.width * (1 - f)) - left));
  const height = Math.min(m.height - top, Math.max(8, Math.round(m.height * (1 - f)) - top));
  return sharp(bytes)
    .extract({ left, top, width, height })
    .resize(Math.max(8, Math.round(width * scale)), Math.max(8, Math.round(height * scale)))
    .rotate(Math.round(rnd() * 360), { background: '#ffffff' })
    .modulate({ hue: Math.round(rnd() * 60 - 30), brightness: 0.85 + rnd() * 0.3 })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/**
 * The query sets. Returns { references: [{file, bytes}], queries: [{condition, file, bytes}],
 * distractors: [{file, bytes}] } where `file` names the reference (or distractor object) a query
 * was made from. Byte-identical reference files are collapsed (the data set has a few).
 * `references: 'unseen'`: the references are {@link unseenImages} (every one of them; distractors
 * and clutter still come from `dir`); default 'shared', the split of `dir` described above. The
 * field conditions draw from their own sequence (seed + 1), so the other conditions and the
 * distractors keep the bytes they had before the field conditions existed.
 * @param {{ perCondition?: number, seed?: number, dir?: string, references?: 'shared' | 'unseen', log?: (s: string) => void }} options
 */
export async function photoSets(options = {}) {
  const seed = options.seed ?? 14;
  const perCondition = options.perCondition ?? 150;
  const dir = options.dir ?? IMAGE_DIR;
  const log = options.log ?? (() => {});
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jpg')).sort();
  const seen = new Set();
  const unique = files.filter((f) => {
    const key = fs.readFileSync(path.join(dir, f)).toString('base64');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const rnd = prng(seed);
  const families = new Map();
  for (const f of unique) families.set(family(f), [...(families.get(family(f)) ?? []), f]);
  const familyOrder = shuffle([...families.keys()].sort(), rnd).filter((k) => k !== '#digits');
  const distractorFiles = [];
  const clutterFiles = [];
  const referenceFiles = [...(families.get('#digits') ?? [])];
  for (const k of familyOrder) {
    const members = families.get(k);
    if (distractorFiles.length < DISTRACTORS) distractorFiles.push(...members);
    else if (clutterFiles.length < CLUTTER_SOURCES) clutterFiles.push(...members);
    else referenceFiles.push(...members);
  }
  // A family cut at the distractor count sends its remainder to the clutter (never to the references).
  clutterFiles.push(...distractorFiles.splice(DISTRACTORS));
  referenceFiles.sort();
  const unseen = options.references === 'unseen' ? await unseenImages(log) : undefined;
  const sharedRead = (f) => fs.readFileSync(path.join(dir, f));
  const read = (f) => (unseen?.get(f) ?? sharedRead(f));
  const references = unseen ? [...unseen].map(([file, bytes]) => ({ file, bytes })) : referenceFiles.map((file) => ({ file, bytes: read(file) }));
  const sampleFrom = unseen ? references.map((r) => r.file) : referenceFiles;
  const sampled = shuffle(sampleFrom, rnd).slice(0, Math.min(perCondition, sampleFrom.length)).sort();
  const fieldRnd = prng(seed + 1);

  const cacheDir = path.join(here, 'tmp', `photo-sets-v${GENERATOR_VERSION}${unseen ? '-unseen' : ''}-f1-${seed}-${perCondition}`);
  const manifestPath = path.join(cacheDir, 'manifest.json');
  if (fs.existsSync(manifestPath)) {
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    const load = (e) => ({ ...e, bytes: fs.readFileSync(path.join(cacheDir, e.name)) });
    return { references, queries: manifest.queries.map(load), distractors: manifest.distractors.map(load), split: manifest.split };
  }
  fs.mkdirSync(cacheDir, { recursive: true });
  const t0 = performance.now();
  const clutter = [];
  for (const f of clutterFiles) clutter.push(await cutout(sharedRead(f)));
  const queries = [];
  for (const condition of CONDITIONS) {
    const sequence = FIELD_CONDITIONS.includes(condition) ? fieldRnd : rnd;
    for (const file of sampled) {
      const r = prng(Math.floor(sequence() * 2 ** 32));
      const bytes = await makeQuery(condition, read(file), r, clutter);
      const name = `${condition}--${file.replace(/\.jpg$/, '')}.${bytes[0] === 0xff ? 'jpg' : 'png'}`;
      fs.writeFileSync(path.join(cacheDir, name), bytes);
      queries.push({ condition, file, name, bytes });
    }
    log(`  ${condition}: ${sampled.length} queries (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const distractors = [];
  for (let i = 0; i < distractorFiles.length; i++) {
    const file = distractorFiles[i];
    const r = prng(Math.floor(rnd() * 2 ** 32));
    const png = await scene(await cutout(sharedRead(file)), r, clutter);
    const bytes = i % 2 === 0 ? await sharp(png).jpeg({ quality: 90 }).toBuffer() : await cameraEffects(png, r);
    const name = `distractor--${file.replace(/\.jpg$/, '')}.jpg`;
    fs.writeFileSync(path.join(cacheDir, name), bytes);
    distractors.push({ file, name, bytes });
  }
  const split = { references: references.length, distractors: distractorFiles.length, clutter: clutterFiles.length };
  const strip = (e) => ({ ...e, bytes: undefined });
  fs.writeFileSync(manifestPath, JSON.stringify({ queries: queries.map(strip), distractors: distractors.map(strip), split }, null, 1));
  log(`query sets generated in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return { references, queries, distractors, split };
}

/** Long side (px) an unseen image is rasterised to at most (the SVG icons are drawn at it). */
const UNSEEN_SIDE = 1024;

/**
 * Images this project was never tuned on: the PNG, JPEG and SVG files Debian packages installed under
 * /usr/share (icons, diagrams, pictures), one per name (the largest of an icon's sizes; "-symbolic"
 * variants are the same drawing), at least 128 px on the long side, flattened on white and
 * rasterised to JPEG q92 at most UNSEEN_SIDE px. Returns a Map name (`deb-<name>.jpg`) → bytes,
 * cached in bench/tmp/unseen-images/ (delete it to rebuild from the installed packages).
 */
export async function unseenImages(log = () => {}) {
  const cache = path.join(here, 'tmp', 'unseen-images');
  if (!fs.existsSync(path.join(cache, 'done'))) {
    fs.mkdirSync(cache, { recursive: true });
    const found = [];
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && /\.(png|jpe?g|svg)$/i.test(e.name) && fs.statSync(p).size > 3000) found.push(p);
      }
    };
    walk('/usr/share');
    found.sort();
    const best = new Map();
    for (const p of found) {
      const stem = path.basename(p).replace(/\.(png|jpe?g|svg)$/i, '').replace(/-symbolic$/, '');
      try {
        const m = await sharp(p).metadata();
        const vector = p.endsWith('.svg');
        if (!vector && Math.max(m.width, m.height) < 128) continue;
        const side = vector ? Number.POSITIVE_INFINITY : Math.min(m.width, m.height);
        if (!best.has(stem) || side > best.get(stem).side) best.set(stem, { p, side, vector });
      } catch {
        // Not an image sharp reads (a broken or exotic file): not one of the references.
      }
    }
    for (const [stem, { p, vector }] of [...best].sort((a, b) => a[0].localeCompare(b[0]))) {
      // An SVG is drawn at the density that makes its long side UNSEEN_SIDE px (sharp reads it at 72 dpi).
      const m = await sharp(p).metadata();
      const input = vector ? sharp(p, { density: Math.min(2400, (72 * UNSEEN_SIDE) / Math.max(m.width, m.height)) }) : sharp(p);
      const bytes = await input.resize(UNSEEN_SIDE, UNSEEN_SIDE, { fit: 'inside', withoutEnlargement: true }).flatten({ background: '#ffffff' }).jpeg({ quality: 92 }).toBuffer();
      fs.writeFileSync(path.join(cache, `deb-${stem.replace(/[^a-z0-9.+-]+/gi, '_')}.jpg`), bytes);
    }
    fs.writeFileSync(path.join(cache, 'done'), '');
    log(`unseen images: ${best.size} from /usr/share`);
  }
  const out = new Map();
  for (const f of fs.readdirSync(cache).filter((n) => n.endsWith('.jpg')).sort()) out.set(f, fs.readFileSync(path.join(cache, f)));
  return out;
}

// Run directly: generate the sets and write a few samples for eyeballing.
if (import.meta.url === `file://${process.argv[1]}`) {
  const sets = await photoSets({ log: console.log, references: process.argv.includes('--unseen') ? 'unseen' : 'shared', perCondition: Number(process.argv[process.argv.indexOf('--per') + 1]) || 150 });
  console.log(`${sets.references.length} references, ${sets.queries.length} queries, ${sets.distractors.length} distractors`);
}
