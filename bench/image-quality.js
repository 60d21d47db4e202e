// Image-search quality and speed: Recall@1 of near-duplicate retrieval on real images, queried with
// modified copies made at run time, for our features and for 64-bit pHash / dHash baselines computed
// in the same run; plus ms per query (feature extraction, and the index scan over 10,000 images).
//
// Usage (after `npx tsc -p tsconfig.build.json`):
//   node bench/image-quality.js [--images 655] [--refs 10000] [--out bench/tmp/image-quality.json]
//
// --images N  how many images of ../shared/data/images are references (default: all; an evenly
//             spaced sample when smaller). Each is queried with 5 modified copies (the targets):
//             resize50 (50 % per side, PNG), jpeg60 (JPEG quality 60), crop5 (5 % off each edge, PNG),
//             bright10 (sharp modulate brightness 1.1, PNG), all (crop5 → resize50 → bright10 → JPEG
//             q60), plus 2 informational ones: crop_asym (2–8 % off each edge, at random) and all_asym.
// --refs M    size of the padded index for the speed figures (default 10,000): the real references
//             plus synthetic photos of the same parts (random rotation, flips, hue / saturation /
//             brightness change, JPEG q85) until the index holds M images.
// --out FILE  where to write the JSON result (default bench/tmp/image-quality.json; "" for none).
//
// A hit counts as correct when it is the query's source image or a byte-identical copy of it (the
// data set has duplicate files under two names). Ties: ours by image id, baselines by file order.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { ImageFeatureIndex, rankParts, ENCODED_LENGTH } from '../dist/core/search/image-similarity.js';
import { extractFeatures } from '../dist/adapters/images/sharp-features.js';
import { prng, writeSection } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data', 'images');
const DEFAULT_OUT = path.join(here, 'tmp', 'image-quality.json');
/** The 5 query variants the targets are about, then the informational ones. */
const TARGET_VARIANTS = ['resize50', 'jpeg60', 'crop5', 'bright10', 'all'];
const EXTRA_VARIANTS = ['crop_asym', 'all_asym'];
const VARIANTS = [...TARGET_VARIANTS, ...EXTRA_VARIANTS];
const TARGETS = { single: 0.98, all: 0.95, msPerQuery: 50 };


/** Pixel rectangle for sharp.extract() removing fractions [left, top, right, bottom] of each edge. */
function cropRect(w, h, [l, t, r, b]) {
  const left = Math.round(w * l);
  const top = Math.round(h * t);
  return {
    left,
    top,
    width: Math.max(1, w - left - Math.round(w * r)),
    height: Math.max(1, h - top - Math.round(h * b)),
  };
}

/** Half-size copy (at least 1 px per side) of an encoded image, as a sharp pipeline. */
async function halfSize(buf) {
  const m = await sharp(buf).metadata();
  return sharp(buf).resize(Math.max(1, Math.round(m.width / 2)), Math.max(1, Math.round(m.height / 2)), { fit: 'fill' });
}

/** The query variants of one image, as encoded bytes: { name: Buffer }. */
async function makeVariants(buf, rnd) {
  const m = await sharp(buf).metadata();
  const crop5 = cropRect(m.width, m.height, [0.05, 0.05, 0.05, 0.05]);
  const asym = cropRect(m.width, m.height, [0, 0, 0, 0].map(() => 0.02 + 0.06 * rnd()));
  const cropped = await sharp(buf).extract(crop5).png().toBuffer();
  const croppedAsym = await sharp(buf).extract(asym).png().toBuffer();
  const allOf = async (c) => (await halfSize(c)).modulate({ brightness: 1.1 }).jpeg({ quality: 60 }).toBuffer();
  return {
    resize50: await (await halfSize(buf)).png().toBuffer(),
    jpeg60: await sharp(buf).jpeg({ quality: 60 }).toBuffer(),
    crop5: cropped,
    bright10: await sharp(buf).modulate({ brightness: 1.1 }).png().toBuffer(),
    all: await allOf(cropped),
    crop_asym: croppedAsym,
    all_asym: await allOf(croppedAsym),
  };
}

// ----- Baselines: 64-bit pHash and dHash (as in the Python imagehash package) ------------------

/** Grey raster w × h of an image (flattened on white, plain resize), as a Float64Array. */
async function grey(buf, w, h) {
  const data = await sharp(buf).flatten({ background: '#ffffff' }).greyscale().resize(w, h, { fit: 'fill' }).raw().toBuffer();
  return Float64Array.from(data);
}

/** 1-D DCT-II matrix n × n (row k = frequency k). */
function dctMatrix(n) {
  const m = new Float64Array(n * n);
  for (let k = 0; k < n; k++) for (let i = 0; i < n; i++) m[k * n + i] = Math.cos((Math.PI * (2 * i + 1) * k) / (2 * n));
  return m;
}
const DCT32 = dctMatrix(32);

/** 64-bit pHash: 32×32 grey, 2-D DCT, the 8×8 lowest frequencies compared with their median. */
async function pHash(buf) {
  const px = await grey(buf, 32, 32);
  const low = new Float64Array(64);
  // low[u][v] = sum_y sum_x C[u][y] C[v][x] px[y][x], only u, v < 8.
  const rows = new Float64Array(32 * 8); // rows[y][v] = sum_x C[v][x] px[y][x]
  for (let y = 0; y < 32; y++) for (let v = 0; v < 8; v++) {
    let s = 0;
    for (let x = 0; x < 32; x++) s += DCT32[v * 32 + x] * px[y * 32 + x];
    rows[y * 8 + v] = s;
  }
  for (let u = 0; u < 8; u++) for (let v = 0; v < 8; v++) {
    let s = 0;
    for (let y = 0; y < 32; y++) s += DCT32[u * 32 + y] * rows[y * 8 + v];
    low[u * 8 + v] = s;
  }
  const sorted = [...low].sort((a, b) => a - b);
  const median = (sorted[31] + sorted[32]) / 2;
  return bits64(low.map((x) => (x > median ? 1 : 0)));
}

/** 64-bit dHash: 9×8 grey, bit = pixel brighter than its left neighbour. */
async function dHash(buf) {
  const px = await grey(buf, 9, 8);
  const b = new Float64Array(64);
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) b[y * 8 + x] = px[y * 9 + x + 1] > px[y * 9 + x] ? 1 : 0;
  return bits64(b);
}

/** Packs 64 0/1 values into two uint32 words. */
function bits64(b) {
  const w = new Uint32Array(2);
  for (let i = 0; i < 64; i++) if (b[i]) w[i >>> 5] |= 1 << (i & 31);
  return w;
}

function popcount32(x) {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** Index of the reference hash closest to q (first on ties). */
function nearestHash(refs, q) {
  let best = 65;
  let bi = -1;
  for (let i = 0; i < refs.length; i++) {
    const r = refs[i];
    const d = popcount32((r[0] ^ q[0]) >>> 0) + popcount32((r[1] ^ q[1]) >>> 0);
    if (d < best) {
      best = d;
      bi = i;
    }
  }
  return bi;
}

// ----- helpers -------------------------------------------------------------------------------

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return { mean: round(mean, 3), p50: round(at(0.5), 3), p95: round(at(0.95), 3), max: round(at(1), 3), n: s.length };
}

function round(x, d) {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}

/** Runs `fn` over items with at most `limit` in flight; returns results in order. */
async function pool(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** A synthetic other photo of the same object: random rotation, flips, tint, JPEG q85. */
async function distractor(small, rnd) {
  let s = sharp(small).rotate(Math.round(rnd() * 360 - 180), { background: '#ffffff' });
  if (rnd() < 0.5) s = s.flop();
  if (rnd() < 0.3) s = s.flip();
  s = s.modulate({ hue: Math.round(rnd() * 360), saturation: 0.6 + rnd() * 0.8, brightness: 0.85 + rnd() * 0.3 });
  return s.jpeg({ quality: 85 }).toBuffer();
}

// ----- the benchmark -------------------------------------------------------------------------

/**
 * Runs the image-quality benchmark and returns the result object (also written to `out`).
 * @param {{ images?: number, refs?: number, out?: string, dir?: string, seed?: number,
 *   log?: (line: string) => void }} [options]
 */
export async function runImageQuality(options = {}) {
  const dir = options.dir ?? DEFAULT_DIR;
  const refsTarget = options.refs ?? 10_000;
  const out = options.out ?? DEFAULT_OUT;
  const seed = options.seed ?? 20240601;
  const log = options.log ?? (() => {});
  const t0 = performance.now();

  const all = fs.readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.jpg')).sort();
  const n = Math.min(all.length, options.images ?? all.length);
  const files = n === all.length ? all : Array.from({ length: n }, (_, i) => all[Math.floor((i * all.length) / n)]);
  const bytes = files.map((f) => fs.readFileSync(path.join(dir, f)));
  // Byte-identical files are the same image: a hit on either counts as correct.
  const contentKey = bytes.map((b) => b.toString('base64'));
  const sameImage = (i, j) => i === j || contentKey[i] === contentKey[j];
  const duplicates = files.filter((_, i) => contentKey.indexOf(contentKey[i]) !== i);
  const partOf = (i) => `part:${files[i]}`;
  log(`references: ${n} images of ${dir}${duplicates.length ? ` (${duplicates.length} byte-identical duplicates)` : ''}`);

  // Query variants and both baselines' hashes: done up front, several images in flight (not timed).
  const tPrep = performance.now();
  const rnd = prng(seed);
  const variantSeeds = Array.from({ length: n }, () => Math.floor(rnd() * 2 ** 32));
  const prepared = await pool(bytes, 3, async (b, i) => {
    const variants = await makeVariants(b, prng(variantSeeds[i]));
    const phash = {};
    const dhash = {};
    for (const v of VARIANTS) {
      phash[v] = await pHash(variants[v]);
      dhash[v] = await dHash(variants[v]);
    }
    return { variants, phash, dhash, refP: await pHash(b), refD: await dHash(b) };
  });
  const pRefs = prepared.map((p) => p.refP);
  const dRefs = prepared.map((p) => p.refD);
  log(`query variants and baseline hashes: ${round((performance.now() - tPrep) / 1000, 1)} s`);

  // Reference features, one at a time (timed).
  const index = new ImageFeatureIndex();
  const refMs = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const f = await extractFeatures(bytes[i]);
    refMs.push(performance.now() - t);
    index.add(files[i], partOf(i), f);
  }
  log(`reference features: ${stats(refMs).mean} ms per image`);

  // Queries, one at a time (timed): features, then the scan over the real references.
  const methods = ['ours', 'phash', 'dhash'];
  const correct = Object.fromEntries(methods.map((m) => [m, Object.fromEntries(VARIANTS.map((v) => [v, 0]))]));
  const failures = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  const featureMs = [];
  const scanMsReal = [];
  const queries = []; // { src, variant, features } for the padded run
  for (let i = 0; i < n; i++) {
    const { variants, phash, dhash } = prepared[i];
    for (const v of VARIANTS) {
      let t = performance.now();
      const f = await extractFeatures(variants[v]);
      featureMs.push(performance.now() - t);
      t = performance.now();
      const hits = index.query(f, 1);
      scanMsReal.push(performance.now() - t);
      const top = hits[0];
      const ti = top ? files.indexOf(top.image_id) : -1;
      if (ti >= 0 && sameImage(i, ti)) correct.ours[v]++;
      else failures[v].push(`${files[i]} -> ${top ? `${top.image_id} (${top.score.toFixed(3)})` : 'nothing'}`);
      if (sameImage(i, nearestHash(pRefs, phash[v]))) correct.phash[v]++;
      if (sameImage(i, nearestHash(dRefs, dhash[v]))) correct.dhash[v]++;
      queries.push({ src: i, variant: v, features: f });
    }
  }
  log(`queries: ${n * VARIANTS.length}`);
  const recall = Object.fromEntries(
    methods.map((m) => [m, Object.fromEntries(VARIANTS.map((v) => [v, round(correct[m][v] / n, 4)]))]),
  );

  // Pad the index with synthetic photos of the same parts until it holds refsTarget images.
  const padCount = Math.max(0, refsTarget - n);
  const tPad = performance.now();
  if (padCount > 0) {
    const smalls = await pool(bytes, 3, (b) =>
      sharp(b).resize({ width: 160, height: 160, fit: 'inside', withoutEnlargement: true }).png().toBuffer(),
    );
    const prand = prng(seed + 1);
    const jobs = Array.from({ length: padCount }, (_, k) => ({ k, src: k % n, r: [prand(), prand(), prand(), prand(), prand(), prand()] }));
    const feats = await pool(jobs, 4, async (job) => {
      let j = 0;
      const img = await distractor(smalls[job.src], () => job.r[j++ % job.r.length]);
      return extractFeatures(img);
    });
    jobs.forEach((job, k) => index.add(`synthetic:${job.k}`, partOf(job.src), feats[k]));
  }
  log(`padded index: ${index.size} images (${round((performance.now() - tPad) / 1000, 1)} s)`);

  // Scan over the padded index, part-level Recall@1: every query with the default shortlist, and an
  // exhaustive re-score (every image scored exactly) on every EXHAUSTIVE_EVERY-th image's queries to
  // check that the shortlist loses nothing (exhaustive scans are ~15× slower).
  const EXHAUSTIVE_EVERY = 5;
  const isCorrectPart = (src, partId) => files.some((_, j) => sameImage(src, j) && partOf(j) === partId);
  for (const q of queries.slice(0, 200)) index.query(q.features, 10); // warm-up
  const scan = {};
  const recallPadded = {};
  const failuresPadded = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  for (const [mode, opts, sample] of [
    ['shortlist', {}, queries],
    ['exhaustive', { shortlist: 0 }, queries.filter((q) => q.src % EXHAUSTIVE_EVERY === 0)],
  ]) {
    const ms = [];
    const ok = Object.fromEntries(VARIANTS.map((v) => [v, 0]));
    const total = Object.fromEntries(VARIANTS.map((v) => [v, 0]));
    for (const q of sample) {
      const t = performance.now();
      const hits = index.query(q.features, 10, opts);
      ms.push(performance.now() - t);
      const best = rankParts(hits)[0];
      total[q.variant]++;
      if (best && isCorrectPart(q.src, best.part_id)) ok[q.variant]++;
      else if (mode === 'shortlist') {
        const exact = rankParts(index.query(q.features, 10, { shortlist: 0 }))[0];
        const exactOk = exact !== undefined && isCorrectPart(q.src, exact.part_id);
        failuresPadded[q.variant].push(
          `${files[q.src]} -> ${best ? `${best.image_id} (${best.score.toFixed(3)})` : 'nothing'}${exactOk ? ' [exhaustive scan: correct]' : ''}`,
        );
      }
    }
    scan[mode] = stats(ms);
    recallPadded[mode] = Object.fromEntries(VARIANTS.map((v) => [v, round(ok[v] / Math.max(1, total[v]), 4)]));
    recallPadded[mode].queriesPerVariant = sample.length / VARIANTS.length;
  }

  const fStats = stats(featureMs);
  const result = {
    config: { images: n, dir, paddedIndexSize: index.size, seed, featureBytes: ENCODED_LENGTH, node: process.version },
    dataset: { duplicates },
    recall,
    recallPadded,
    timing: {
      referenceFeatureMs: stats(refMs),
      queryFeatureMs: fStats,
      scanMsRealIndex: stats(scanMsReal),
      scanMsPadded: scan,
      totalMsPerQueryPadded: round(fStats.mean + scan.shortlist.mean, 3),
    },
    targets: {
      ...TARGETS,
      met:
        ['resize50', 'jpeg60', 'crop5', 'bright10'].every((v) => recall.ours[v] >= TARGETS.single) &&
        recall.ours.all >= TARGETS.all &&
        fStats.mean + scan.shortlist.mean <= TARGETS.msPerQuery,
    },
    failures: Object.fromEntries(VARIANTS.map((v) => [v, failures[v].slice(0, 20)])),
    failuresPadded: Object.fromEntries(VARIANTS.map((v) => [v, failuresPadded[v].slice(0, 20)])),
    seconds: round((performance.now() - t0) / 1000, 1),
  };
  if (out) {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  }
  return result;
}

/** Readable table of a result. */
export function formatImageQuality(r) {
  const lines = [];
  const pad = (s, w) => String(s).padEnd(w);
  const head = ['method', ...VARIANTS].map((s, i) => pad(s, i === 0 ? 26 : 10)).join('');
  lines.push(`Recall@1 over ${r.config.images} reference images (targets: single ≥ ${TARGETS.single}, all ≥ ${TARGETS.all}; *_asym informational)`);
  lines.push(head);
  const row = (name, rec) => lines.push([pad(name, 26), ...VARIANTS.map((v) => pad(rec[v].toFixed(4), 10))].join(''));
  row('ours', r.recall.ours);
  row('pHash 64-bit', r.recall.phash);
  row('dHash 64-bit', r.recall.dhash);
  row(`ours, ${r.config.paddedIndexSize} idx (parts)`, r.recallPadded.shortlist);
  row(`ours, ${r.config.paddedIndexSize} exh. (1/5)`, r.recallPadded.exhaustive);
  const t = r.timing;
  lines.push('');
  lines.push(`feature bytes per image: ${r.config.featureBytes}`);
  lines.push(`reference feature extraction: ${t.referenceFeatureMs.mean} ms mean, ${t.referenceFeatureMs.p95} ms p95`);
  lines.push(`query feature extraction:     ${t.queryFeatureMs.mean} ms mean, ${t.queryFeatureMs.p95} ms p95`);
  lines.push(`scan, ${r.config.images}-image index:     ${t.scanMsRealIndex.mean} ms mean`);
  lines.push(`scan, ${r.config.paddedIndexSize}-image index:   ${t.scanMsPadded.shortlist.mean} ms mean, ${t.scanMsPadded.shortlist.p95} ms p95 (shortlist); ${t.scanMsPadded.exhaustive.mean} ms mean exhaustive`);
  lines.push(`per query (features + scan over ${r.config.paddedIndexSize}): ${t.totalMsPerQueryPadded} ms mean`);
  lines.push(`targets met: ${r.targets.met}   (${r.seconds} s)`);
  return lines.join('\n');
}

const n = (v, digits = 0) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(v));
const ok = (met) => (met ? 'met' : '**not met**');

/** Heading of this script's section of bench/results.md. */
export const IMAGE_QUALITY_TITLE = 'Image search quality (near-duplicates)';

/** The section of bench/results.md for a {@link runImageQuality} result (Markdown). */
export function imageQualitySection(q) {
  return [
    `${q.config.images} real images of ../shared/data/images, each queried with copies made in the run. Recall@1:`,
    '',
    '| | resize 50 % | JPEG q60 | crop 5 % | +10 % brightness | all four |',
    '|---|---|---|---|---|---|',
    ...[['catalog', q.recall.ours], ['pHash 64-bit (baseline)', q.recall.phash], ['dHash 64-bit (baseline)', q.recall.dhash], [`catalog, ${n(q.config.paddedIndexSize)} references`, q.recallPadded.shortlist]].map(([label, v]) => `| ${label} | ${v.resize50} | ${v.jpeg60} | ${v.crop5} | ${v.bright10} | ${v.all} |`),
    '',
    `Per query over ${n(q.config.paddedIndexSize)} references: ${q.timing.queryFeatureMs.mean.toFixed(1)} ms features + ${q.timing.scanMsPadded.shortlist.mean.toFixed(1)} ms scan = ${q.timing.totalMsPerQueryPadded} ms (target ≤ 50 ms; an exhaustive scan would take ${q.timing.scanMsPadded.exhaustive.mean.toFixed(1)} ms). Targets (≥ 0.98 single, ≥ 0.95 all four): ${ok(q.targets.met)}.`,
  ].join('\n');
}

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = argv[i + 1];
    if (a === '--images') opts.images = Number(value);
    else if (a === '--refs') opts.refs = Number(value);
    else if (a === '--out') opts.out = value;
    else if (a === '--dir') opts.dir = value;
    else if (a === '--seed') opts.seed = Number(value);
    else throw new Error(`unknown argument ${a} (use --images N --refs M --out FILE)`);
    i++;
  }
  return opts;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const opts = parseArgs(process.argv.slice(2));
  const result = await runImageQuality({ ...opts, log: (line) => console.error(line) });
  console.log(formatImageQuality(result));
  for (const v of VARIANTS) {
    if (result.failures[v].length) console.log(`misses ${v}: ${result.failures[v].slice(0, 6).join(', ')}`);
    if (result.failuresPadded[v].length) console.log(`misses ${v} (padded index): ${result.failuresPadded[v].slice(0, 6).join(', ')}`);
  }
  writeSection('image-quality', IMAGE_QUALITY_TITLE, imageQualitySection(result));
}
