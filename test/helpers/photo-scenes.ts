/**
 * Photos for photo-search tests, made at test time from the bench images: the references, a
 * reference turned on white, and a part lying on a generated cluttered bench. Each is made once
 * per test file (memoized), as are the references' features: several suites ask for the same ones.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { extractPhotoReference } from '../../src/adapters/images/local-features/photo-features.js';
import { rng } from './random.js';

export const IMAGES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'images');
// Seventeen references: with the first sixteen, today's global descriptor alone ranks another part
// first for the turned rook and for both scenes below (checked when the tests were written); the
// seventeenth is a 32 × 32 px icon (a black ×), a small flat reference with keypoints only on its
// outline.
export const PARTS = [
  'broccoli.jpg', 'cathedral.jpg', 'dumper.jpg', 'blacksmith.jpg', 'b_5_rook.jpg', 'duck.jpg', 'birch.jpg', 'docks.jpg', 'cep-2.jpg',
  'christmas_tree_photo.jpg', 'lettuce.jpg', 'pineapple.jpg', 'photo_grass.jpg', 'photo_gravel.jpg', 'toolbox.jpg', 'teddy_bear.jpg',
  'op2_multiply.jpg',
];
export const read = (file: string): Buffer => readFileSync(join(IMAGES, file));

/** The image turned `deg` degrees on white, JPEG. */
function makeTurned(file: string, deg: number): Promise<Buffer> {
  return sharp(read(file)).rotate(deg, { background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
}

/** The part as a scene places it: white made transparent, at most 360 px, turned 8°; PNG. */
function placedPart(file: string): Promise<Buffer> {
  return sharp(read(file)).unflatten().resize(360, 360, { fit: 'inside' }).rotate(8, { background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
}

/** Where {@link scene} puts the part of `file`: its box in the 800 × 600 scene (px). */
export async function partBox(file: string): Promise<{ left: number; top: number; width: number; height: number }> {
  const meta = await sharp(await placedPart(file)).metadata();
  return { left: 300, top: 120, width: Math.min(500, meta.width ?? 0), height: Math.min(480, meta.height ?? 0) };
}

/**
 * The part (white background made transparent) turned 8°, 45 % of an 800 × 600 cluttered bench;
 * with `noise` > 0, sensor noise of that σ per channel and JPEG q75 (a dim photo brightened).
 */
async function makeScene(file: string, seed: number, noise = 0): Promise<Buffer> {
  const r = rng(seed);
  const shapes = Array.from({ length: 14 }, () => {
    const x = r() * 800, y = r() * 600, s = 20 + r() * 120;
    const colour = `#${Math.floor(r() * 0xffffff).toString(16).padStart(6, '0')}`;
    return r() < 0.5
      ? `<rect x="${x}" y="${y}" width="${s}" height="${s / 2}" fill="${colour}" transform="rotate(${r() * 90} ${x} ${y})"/>`
      : `<line x1="${x}" y1="${y}" x2="${x + (r() - 0.5) * 300}" y2="${y + (r() - 0.5) * 300}" stroke="${colour}" stroke-width="${2 + r() * 6}"/>`;
  });
  const grain = Buffer.alloc(800 * 600 * 3);
  for (let i = 0; i < grain.length; i += 3) {
    const v = 110 + r() * 40;
    grain[i] = v * 1.2;
    grain[i + 1] = v;
    grain[i + 2] = v * 0.7;
  }
  const part = await placedPart(file);
  const composed = sharp(grain, { raw: { width: 800, height: 600, channels: 3 } })
    .composite([
      { input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">${shapes.join('')}</svg>`), left: 0, top: 0 },
      { input: part, left: 300, top: 120 },
    ]);
  if (noise <= 0) return composed.jpeg({ quality: 85 }).toBuffer();
  const { data, info } = await composed.raw().toBuffer({ resolveWithObject: true });
  for (let i = 0; i < data.length; i++) {
    let u = 0;
    for (let k = 0; k < 12; k++) u += r();
    data[i] = Math.max(0, Math.min(255, Math.round((data[i] ?? 0) + noise * (u - 6))));
  }
  return sharp(data, { raw: { width: 800, height: 600, channels: info.channels } }).removeAlpha().jpeg({ quality: 75 }).toBuffer();
}


const made = new Map<string, Promise<Buffer>>();
const once = (key: string, make: () => Promise<Buffer>): Promise<Buffer> => {
  let photo = made.get(key);
  if (!photo) made.set(key, (photo = make()));
  return photo;
};

/** The image turned `deg` degrees on white, JPEG (made once per file). */
export function turned(file: string, deg: number): Promise<Buffer> {
  return once(`turned ${file} ${deg}`, () => makeTurned(file, deg));
}

/**
 * The part (white background made transparent) turned 8°, 45 % of an 800 × 600 cluttered bench;
 * with `noise` > 0, sensor noise of that σ per channel and JPEG q75 (made once per file).
 */
export function scene(file: string, seed: number, noise = 0): Promise<Buffer> {
  return once(`scene ${file} ${seed} ${noise}`, () => makeScene(file, seed, noise));
}

const references = new Map<string, Promise<Uint8Array>>();

/** The stored photo features of a bench image as a reference (extractPhotoReference; made once per file). */
export function referenceFeatures(file: string): Promise<Uint8Array> {
  let features = references.get(file);
  if (!features) references.set(file, (features = extractPhotoReference(read(file))));
  return features;
}
