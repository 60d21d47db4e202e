#!/usr/bin/env node
// Makes the visual vocabularies of photo search, the binary assets
// src/adapters/images/local-features/assets/{orb,akaze}-vocabulary.bin, from real images outside
// the repository: ../shared/data/images (655 JPEGs, Tux Paint stamps and scikit-image photos;
// /work/shared/data/README.md names their sources and licences), deterministically.
//
// Training data: the descriptors, in both roles (reference and query), of every other reference
// image of the photo benchmark's split (bench/photo-queries.js: seeded; its distractor and clutter
// images never train), so that the benchmark also measures images the vocabulary never saw.
// - orb: ORB descriptors as the shipped vocabulary (id 1) was trained on them, with the ORB
//   settings of that time (ORB_TRAINING_SETTINGS below: before the grey backdrop, the keypoint grid
//   and the low-light rule). Today's detector with those settings gives the same descriptors, so
//   the vocabulary stays the one every stored record's words were assigned with. Training it anew
//   on today's settings would change every word: a new id, and every catalog recomputing its
//   records (the backfill).
// - akaze: AKAZE descriptors with today's settings (src/adapters/images/local-features/akaze.ts).
// Clustering: two-level k-majority (src/core/search/photo/vocabulary.ts trainVocabulary), 128 × 128
// words, 6 iterations, seed 20251123.
//
// Usage (after `npm run build`; takes minutes: ~1 min of ORB and ~4 of AKAZE extraction, and the
// clustering, on a shared 2-core machine):
//   node scripts/make-vocabularies.js [--family orb|akaze] [--check] [--images DIR]
//   --check: regenerate and compare with the assets byte for byte (exit 1 when they differ),
//            writing nothing.
// The assets' SHA-256 and a cheap deterministic sample of the pipeline (the descriptors of the first
// training images, and a small vocabulary trained on them) go to assets/vocabularies.json;
// src/adapters/images/local-features/shipped-vocabulary.test.ts recomputes the sample and checks
// the assets against the hashes on every test run; test/e2e/vocabulary-regeneration.test.ts runs
// --check where the whole suite is required (CI) or CATALOG_TEST_VOCABULARIES=1 asks for it.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The images the vocabularies are trained on (outside the repository; see the header). */
export const IMAGE_DIR = join(ROOT, '..', 'shared', 'data', 'images');
/** Where the assets are. */
export const ASSET_DIR = join(ROOT, 'src', 'adapters', 'images', 'local-features', 'assets');
/** The manifest of the assets (hashes and the sample the test recomputes). */
export const MANIFEST = join(ASSET_DIR, 'vocabularies.json');

/** The vocabularies: asset file, id (stored with every record's words), size, clustering. */
export const VOCABULARIES = {
  orb: { file: 'orb-vocabulary.bin', id: 1, k1: 128, k2: 128, iterations: 6, seed: 20251123 },
  akaze: { file: 'akaze-vocabulary.bin', id: 2, k1: 128, k2: 128, iterations: 6, seed: 20251123 },
};

/** The sample of the manifest: the first SAMPLE_IMAGES training images, a SAMPLE_K × SAMPLE_K vocabulary. */
export const SAMPLE_IMAGES = 3;
export const SAMPLE_K = 4;

/**
 * The ORB settings by role the shipped ORB vocabulary was trained with (src/adapters/images/
 * local-features/extract.ts LocalSettings; raster sizes and padding are decodeGrey's, unchanged).
 */
export const ORB_TRAINING_SETTINGS = {
  reference: { maxSide: 480, minSide: 320, keypoints: 400, pad: 24, patch: 21, fast: 12 },
  query: { maxSide: 640, minSide: 320, keypoints: 2000, pad: 0, patch: 21, fast: 12 },
};

// The split of bench/photo-queries.js photoSets (seed 14): a look-alike family goes whole to the
// distractors (100), the clutter (40) or the references.
const SPLIT_SEED = 14;
const DISTRACTORS = 100;
const CLUTTER_SOURCES = 40;

/** mulberry32, as bench/lib.js prng. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle(items, rnd) {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function family(file) {
  const stem = file.replace(/\.jpg$/, '');
  if (/^\d/.test(stem)) return '#digits';
  return stem.split(/[-_]/)[0].replace(/\d+$/, '');
}

/**
 * The training images: every other reference image (sorted by name) of the photo benchmark's
 * split of `dir`. Returns file names.
 * @throws Error when `dir` does not exist.
 */
export function trainingImages(dir = IMAGE_DIR) {
  if (!existsSync(dir)) throw new Error(`${dir}: no such folder (the shared images the vocabularies are made from)`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.jpg')).sort();
  const seen = new Set();
  const unique = files.filter((f) => {
    const key = createHash('sha256').update(readFileSync(join(dir, f))).digest('hex');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const families = new Map();
  for (const f of unique) families.set(family(f), [...(families.get(family(f)) ?? []), f]);
  const order = shuffle([...families.keys()].sort(), prng(SPLIT_SEED)).filter((k) => k !== '#digits');
  const distractors = [];
  const clutter = [];
  const references = [...(families.get('#digits') ?? [])];
  for (const k of order) {
    const members = families.get(k);
    if (distractors.length < DISTRACTORS) distractors.push(...members);
    else if (clutter.length < CLUTTER_SOURCES) clutter.push(...members);
    else references.push(...members);
  }
  return references.sort().filter((_, i) => i % 2 === 0);
}

/**
 * The training descriptors of `family` over `files` of `dir`, both roles of each image in turn
 * (DESCRIPTOR_WORDS uint32 a descriptor). `code`: the modules used (built or sources):
 * { decodeGrey, localFeaturesFromGrey, akazeFeaturesFromGrey, openCv }.
 */
export async function trainingDescriptors(familyName, files, code, dir = IMAGE_DIR) {
  const cv = await code.openCv();
  const chunks = [];
  for (const file of files) {
    const bytes = readFileSync(join(dir, file));
    for (const role of ['reference', 'query']) {
      const raster = await code.decodeGrey(bytes, role);
      const features = familyName === 'akaze' ? code.akazeFeaturesFromGrey(cv, raster, role) : code.localFeaturesFromGrey(cv, raster, ORB_TRAINING_SETTINGS[role]);
      chunks.push(features.descriptors);
    }
  }
  const all = new Uint32Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    all.set(c, o);
    o += c.length;
  }
  return all;
}

/** The serialized bytes of a vocabulary of `family` trained on `descriptors` (k1 × k2 words). */
export function trainedBytes(familyName, descriptors, code, k1 = VOCABULARIES[familyName].k1, k2 = VOCABULARIES[familyName].k2) {
  const v = VOCABULARIES[familyName];
  const words = code.trainVocabulary(descriptors, k1, k2, v.iterations, v.seed, v.id).serialize();
  return Buffer.from(words.buffer, words.byteOffset, words.byteLength);
}

/** SHA-256 of bytes (a typed array), hex. */
export function sha256(bytes) {
  return createHash('sha256').update(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).digest('hex');
}

/**
 * The cheap deterministic sample of `family`'s pipeline that the manifest records: the hash of the
 * training list, and of the descriptors of its first SAMPLE_IMAGES images and of a SAMPLE_K ×
 * SAMPLE_K vocabulary trained on them.
 */
export async function pipelineSample(familyName, code, dir = IMAGE_DIR) {
  const files = trainingImages(dir);
  const descriptors = await trainingDescriptors(familyName, files.slice(0, SAMPLE_IMAGES), code, dir);
  return {
    trainingImages: files.length,
    trainingListSha256: createHash('sha256').update(files.join('\n')).digest('hex'),
    sampleDescriptors: descriptors.length / 8,
    sampleDescriptorsSha256: sha256(descriptors),
    sampleVocabularySha256: sha256(trainedBytes(familyName, descriptors, code, SAMPLE_K, SAMPLE_K)),
  };
}

/** The built modules (dist/) the script runs. */
async function builtCode() {
  const dist = join(ROOT, 'dist');
  if (!existsSync(join(dist, 'core', 'search', 'photo', 'vocabulary.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const load = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
  const [{ trainVocabulary }, { decodeGrey, localFeaturesFromGrey }, { akazeFeaturesFromGrey }, { openCv }] = await Promise.all([
    load('core/search/photo/vocabulary.js'),
    load('adapters/images/local-features/extract.js'),
    load('adapters/images/local-features/akaze.js'),
    load('adapters/images/local-features/opencv.js'),
  ]);
  return { trainVocabulary, decodeGrey, localFeaturesFromGrey, akazeFeaturesFromGrey, openCv };
}

async function main(args) {
  const at = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const check = args.includes('--check');
  const dir = at('--images') ?? IMAGE_DIR;
  const families = at('--family') ? [at('--family')] : Object.keys(VOCABULARIES);
  for (const f of families) if (!VOCABULARIES[f]) throw new Error(`--family: orb or akaze, not ${f}`);
  const code = await builtCode();
  const files = trainingImages(dir);
  const manifest = existsSync(MANIFEST) ? JSON.parse(readFileSync(MANIFEST, 'utf8')) : {};
  let differ = 0;
  for (const f of families) {
    const t0 = performance.now();
    const descriptors = await trainingDescriptors(f, files, code, dir);
    const t1 = performance.now();
    const bytes = trainedBytes(f, descriptors, code);
    const t2 = performance.now();
    console.log(`${f}: ${descriptors.length / 8} descriptors of ${files.length} images in ${((t1 - t0) / 1000).toFixed(0)} s, trained in ${((t2 - t1) / 1000).toFixed(0)} s`);
    const path = join(ASSET_DIR, VOCABULARIES[f].file);
    if (check) {
      const same = existsSync(path) && readFileSync(path).equals(bytes);
      if (!same) differ++;
      console.log(`${f}: ${same ? 'the same bytes as' : 'DIFFERENT from'} ${path}`);
      continue;
    }
    writeFileSync(path, bytes);
    manifest[f] = { file: VOCABULARIES[f].file, id: VOCABULARIES[f].id, bytes: bytes.length, sha256: sha256(bytes), ...(await pipelineSample(f, code, dir)) };
    console.log(`${f}: wrote ${path}`);
  }
  if (!check) writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  process.exitCode = differ > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main(process.argv.slice(2));
