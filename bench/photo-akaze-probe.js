// Probe (issue 14, fourteenth round): do other detectors / descriptors of the same OpenCV
// WebAssembly build (AKAZE, BRISK) find the scene photos that ORB misses — the tiny references
// (≤ ~70 px) a scene shows enlarged 6–15×, the line drawings? Brute force, no index: every query is
// matched against every one of the 514 real references (k = 2 nearest by Hamming distance, ratio
// test), each reference's matches verified by the product's own geometry (`verify` of
// src/core/search/photo/geometry.ts, tolerance 1 % of the query raster's long side, as the index
// does), references ranked by inliers. Over the cached query sets of bench/photo-queries.js (the
// `scene` and `scene_fx` queries and the 100 distractors by default).
//
// Usage (after `npm run build`; one process a feature family, then the report):
//   nice -n 10 node bench/photo-akaze-probe.js run --family orb      [--per 40] [--conds scene,scene_fx,distractor]
//   nice -n 10 node bench/photo-akaze-probe.js run --family akaze    [--ref-threshold 0.0003] [--query-threshold 0.0003] [--query-keypoints 2000] [--ref-keypoints 1500]
//   nice -n 10 node bench/photo-akaze-probe.js run --family akaze-bd (AKAZE also on the reference's grey backdrop variant, as the sixth round does for ORB)
//   nice -n 10 node bench/photo-akaze-probe.js run --family brisk    [--brisk-threshold 30]
//   further options of `run`: --conds (any of bench/photo-queries.js's conditions, `distractor`),
//   --ratio 0.8, --query-grid 8, --akaze-bits 256 (MLDB subsampled), --query-max-side /
//   --query-min-side / --ref-max-side / --ref-min-side (raster sizes of the non-ORB families),
//   --max-side S and --pad N (below), --tag NAME (output bench/tmp/akaze-probe/<family>-<NAME>.json).
//   Extraction CPU: the non-ORB families call `detect`, then `compute` on the chosen keypoints;
//   this build's AKAZE `compute` rebuilds the scale space, so one `detectAndCompute` costs ~0.6×.
//   node bench/photo-akaze-probe.js report [--families orb,akaze,akaze-bd] [--small 70]
//   nice -n 10 node bench/photo-akaze-probe.js run --family akaze --max-side 70 --pad 9486 --tag small10k
//     (AKAZE only for references of at most 70 px, with the small ones among the 9,486 synthetic
//     padding photos of bench/photo-search.js: the second matcher of a 10,000-reference catalog)
//   node bench/photo-akaze-probe.js fuse --dump <photo-profile.js --dump file> --second bench/tmp/akaze-probe/akaze-small10k.json
//     (the product's answers, replaced by the second matcher's best part when not confident)
// Families: `orb` = the product's extraction (extractLocalFeatures, reference and query roles:
// backdrop variant, query grid, low-light rule); the others run on the product's grey rasters
// (decodeGrey of each role: reference long side 320–480 px + 24 px replicated border, query
// 320–640 px). `run` writes bench/tmp/akaze-probe/<family>[-<tag>].json (every query's inliers
// against every reference, extraction CPU ms, keypoint counts); `report` prints R@1 / R@5 per
// condition split by reference size (small: the original file's long side ≤ --small px), the true
// reference's inliers beside the best wrong one's for every ORB miss, distractor best-inlier
// quantiles, extraction CPU p50 / p99 and keypoints per image. --tag names a variant's output.
// Matching runs in a small WebAssembly kernel assembled here (i64.popcnt, ~2–4 ns a pair):
// OpenCV's BFMatcher through embind measured ~47 ns a pair with its DMatch objects.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { photoSets } from './photo-queries.js';
import { argReader, cpuMs, quantile } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.PHOTO_DIST ?? '../dist';
const args = process.argv.slice(2);
const command = args[0];
const arg = argReader(args);
const PER = Number(arg('per', '40'));
const OUT_DIR = path.join(here, 'tmp', 'akaze-probe');
const now = cpuMs;

// --- A k = 2 Hamming kernel in WebAssembly (assembled here, as src/core/search/photo/scan-kernel.ts does). ---
const uleb = (value) => { const out = []; let v = value >>> 0; do { let b = v & 0x7f; v >>>= 7; if (v !== 0) b |= 0x80; out.push(b); } while (v !== 0); return out; };
const sleb = (value) => { const out = []; let v = value | 0; for (;;) { const b = v & 0x7f; v >>= 7; if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) { out.push(b); return out; } out.push(b | 0x80); } };
const vec = (items) => [...uleb(items.length), ...items.flat()];
const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
const wname = (text) => vec([...text].map((c) => [c.charCodeAt(0)]));
const I32 = 0x7f, I64 = 0x7e;
const get = (i) => [0x20, ...uleb(i)], set = (i) => [0x21, ...uleb(i)];
const i32c = (v) => [0x41, ...sleb(v)];
const i64load = (off) => [0x29, 3, ...uleb(off)];
const i32store = (off) => [0x36, 2, ...uleb(off)];
const LT_S = 0x48, GE_S = 0x4e, ADD = 0x6a, POPCNT = 0x7b, ADD64 = 0x7c, XOR64 = 0x85, WRAP = 0xa7;
const BLOCK = [0x02, 0x40], LOOP = [0x03, 0x40], IF = [0x04, 0x40], ELSE = 0x05, END = 0x0b, BR = 0x0c, BR_IF = 0x0d;

/**
 * `knn2(q, nq, r, nr, out)`: for each of `nq` query descriptors at `q` (W × 8 bytes each), the
 * nearest and second-nearest of the `nr` descriptors at `r`: out[3i] = best distance, out[3i+1]
 * = second distance, out[3i+2] = the best one's number (int32, byte offsets into the memory).
 */
function knnModule(W) {
  const qp = 0, nq = 1, rp = 2, nr = 3, out = 4;
  const q = Array.from({ length: W }, (_, k) => 5 + k);
  const i = 5 + W, j = i + 1, d = i + 2, b1 = i + 3, b2 = i + 4, bi = i + 5, rr = i + 6, qq = i + 7, oo = i + 8;
  const dist = [];
  for (let k = 0; k < W; k++) dist.push(...get(rr), ...i64load(8 * k), ...get(q[k]), XOR64, POPCNT, ...(k > 0 ? [ADD64] : []));
  const code = [
    ...get(qp), ...set(qq), ...get(out), ...set(oo),
    ...BLOCK, ...LOOP,
    ...get(i), ...get(nq), GE_S, BR_IF, 1,
    ...q.flatMap((l, k) => [...get(qq), ...i64load(8 * k), ...set(l)]),
    ...i32c(0x7fff), ...set(b1), ...i32c(0x7fff), ...set(b2), ...i32c(-1), ...set(bi),
    ...get(rp), ...set(rr), ...i32c(0), ...set(j),
    ...BLOCK, ...LOOP,
    ...get(j), ...get(nr), GE_S, BR_IF, 1,
    ...dist, WRAP, ...set(d),
    ...get(d), ...get(b2), LT_S, ...IF,
    ...get(d), ...get(b1), LT_S, ...IF,
    ...get(b1), ...set(b2), ...get(d), ...set(b1), ...get(j), ...set(bi),
    ELSE,
    ...get(d), ...set(b2),
    END,
    END,
    ...get(rr), ...i32c(8 * W), ADD, ...set(rr),
    ...get(j), ...i32c(1), ADD, ...set(j),
    BR, 0,
    END, END,
    ...get(oo), ...get(b1), ...i32store(0),
    ...get(oo), ...get(b2), ...i32store(4),
    ...get(oo), ...get(bi), ...i32store(8),
    ...get(oo), ...i32c(12), ADD, ...set(oo),
    ...get(qq), ...i32c(8 * W), ADD, ...set(qq),
    ...get(i), ...i32c(1), ADD, ...set(i),
    BR, 0,
    END, END, END,
  ];
  const body = [...vec([[W, I64], [9, I32]]), ...code];
  const type = [0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), ...vec([])];
  const bytes = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([type])),
    ...section(2, vec([[...wname('env'), ...wname('memory'), 0x02, 0x00, ...uleb(0)]])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...wname('knn2'), 0x00, 0]])),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ]);
  const wasm = globalThis.WebAssembly;
  const memory = new wasm.Memory({ initial: 1 });
  const instance = new wasm.Instance(new wasm.Module(bytes), { env: { memory } });
  return { memory, knn2: instance.exports.knn2 };
}

/** The JavaScript twin of the kernel, for the self-check on the first query. */
function knn2Js(qd, nq, rd, nr, W) {
  const out = new Int32Array(nq * 3);
  const q32 = new Uint32Array(qd.buffer, qd.byteOffset, nq * W * 2);
  const r32 = new Uint32Array(rd.buffer, rd.byteOffset, nr * W * 2);
  const pop = (x) => { x -= (x >>> 1) & 0x55555555; x = (x & 0x33333333) + ((x >>> 2) & 0x33333333); return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24; };
  for (let i = 0; i < nq; i++) {
    let b1 = 0x7fff, b2 = 0x7fff, bi = -1;
    for (let j = 0; j < nr; j++) {
      let d = 0;
      for (let k = 0; k < W * 2; k++) d += pop(q32[i * W * 2 + k] ^ r32[j * W * 2 + k]);
      if (d < b2) { if (d < b1) { b2 = b1; b1 = d; bi = j; } else b2 = d; }
    }
    out.set([b1, b2, bi], i * 3);
  }
  return out;
}

// --- Feature families. Each returns { n, xs, ys, angles, sizes, desc: Uint8Array (n × W × 8), width, height }. ---

/** Descriptor bytes of a cv.Mat (rows × cols uint8) padded to `W` × 8 bytes a row. */
function paddedRows(mat, n, W) {
  const out = new Uint8Array(n * W * 8);
  const cols = mat.cols;
  for (let i = 0; i < n; i++) out.set(mat.data.subarray(i * cols, (i + 1) * cols), i * W * 8);
  return out;
}

async function makeFamily(name) {
  const { openCv } = await import(`${DIST}/adapters/images/local-features/opencv.js`);
  const { decodeGrey, extractLocalFeatures, backdropVariant, gridSelect, LOCAL_SETTINGS } = await import(`${DIST}/adapters/images/local-features/extract.js`);
  const cv = await openCv();
  // Raster sizes of the non-ORB families (the ORB family keeps the product's): --query-max-side,
  // --ref-max-side, --ref-min-side change LOCAL_SETTINGS in this process only.
  const sizes = { query: { maxSide: arg('query-max-side'), minSide: arg('query-min-side') }, reference: { maxSide: arg('ref-max-side'), minSide: arg('ref-min-side') } };
  if (name !== 'orb') for (const [role, o] of Object.entries(sizes)) for (const [k, v] of Object.entries(o)) if (v !== undefined) LOCAL_SETTINGS[role][k] = Number(v);
  if (name === 'orb') {
    const W = 4;
    const fromLocal = (f) => ({ n: f.count, xs: f.xs, ys: f.ys, angles: f.angles, sizes: f.sizes, desc: new Uint8Array(f.descriptors.buffer, f.descriptors.byteOffset, f.count * 32), width: f.width, height: f.height });
    return { W, reference: async (bytes) => fromLocal(await extractLocalFeatures(bytes, 'reference')), query: async (bytes) => fromLocal(await extractLocalFeatures(bytes, 'query')) };
  }
  // AKAZE's MLDB: 61 bytes, BRISK: 64 bytes; padded to 64. --akaze-bits 256: MLDB subsampled to
  // 256 bits (OpenCV's descriptor_size), the shape of the product's ORB postings.
  const akazeBits = Number(arg('akaze-bits', '0'));
  const W = akazeBits > 0 ? Math.ceil(akazeBits / 64) : 8;
  const refThreshold = Number(arg('ref-threshold', '0.0003'));
  const queryThreshold = Number(arg('query-threshold', '0.0003'));
  const refBudget = Number(arg('ref-keypoints', '1500'));
  const queryBudget = Number(arg('query-keypoints', '2000'));
  const briskThreshold = Number(arg('brisk-threshold', '30'));
  const queryGrid = Number(arg('query-grid', '8'));
  const detectors = new Map();
  const detectorFor = (threshold) => {
    let d = detectors.get(threshold);
    if (!d) {
      if (name.startsWith('brisk')) d = new cv.BRISK(threshold, 3, 1.0);
      else {
        // The explicit-argument constructor trips an assertion of this build on every image
        // (Sample_Derivative_Response_Radius6): default construction and setters work.
        d = new cv.AKAZE();
        d.setThreshold(threshold);
        if (akazeBits > 0) d.setDescriptorSize(akazeBits);
      }
      detectors.set(threshold, d);
    }
    return d;
  };
  /** Keypoints of one raster, strongest `budget` (spread over a grid when `grid` > 0). */
  const detect = (data, width, height, threshold, budget, grid) => {
    const image = cv.matFromArray(height, width, cv.CV_8UC1, data);
    const mask = new cv.Mat();
    const all = new cv.KeyPointVector();
    const kps = new cv.KeyPointVector();
    const desc = new cv.Mat();
    try {
      const det = detectorFor(threshold);
      det.detect(image, all, mask);
      let chosen;
      if (grid > 0) chosen = gridSelect(all, width, height, grid, budget);
      else {
        const idx = Array.from({ length: all.size() }, (_, i) => i);
        idx.sort((a, b) => all.get(b).response - all.get(a).response || a - b);
        chosen = idx.slice(0, budget);
      }
      for (const i of chosen) kps.push_back(all.get(i));
      det.compute(image, kps, desc);
      const n = Math.min(kps.size(), desc.rows);
      const f = { n, xs: new Float32Array(n), ys: new Float32Array(n), angles: new Float32Array(n), sizes: new Float32Array(n), desc: n > 0 ? paddedRows(desc, n, W) : new Uint8Array(0), width, height };
      for (let i = 0; i < n; i++) {
        const k = kps.get(i);
        f.xs[i] = k.pt.x; f.ys[i] = k.pt.y; f.angles[i] = k.angle; f.sizes[i] = k.size;
      }
      return f;
    } finally {
      for (const o of [image, mask, all, kps, desc]) o.delete();
    }
  };
  const backdrop = name.endsWith('-bd');
  const hamming = (a, ai, b, bi) => { let d = 0; for (let k = 0; k < W * 8; k++) { let x = a[ai * W * 8 + k] ^ b[bi * W * 8 + k]; while (x) { d += x & 1; x >>= 1; } } return d; };
  const repeatBits = Math.round((30 * W) / 8); // "the same descriptor": 30 of 512 bits, scaled
  /** `base` plus the keypoints of `extra` that do not repeat one of base's (as extract.ts appendNew). */
  const merge = (base, extra, limit) => {
    const kept = [];
    for (let i = 0; i < extra.n && base.n + kept.length < limit; i++) {
      let repeated = false;
      for (let j = 0; j < base.n && !repeated; j++) {
        if (Math.abs(base.xs[j] - extra.xs[i]) > 1 || Math.abs(base.ys[j] - extra.ys[i]) > 1 || Math.abs(base.sizes[j] - extra.sizes[i]) > 0.5) continue;
        repeated = hamming(base.desc, j, extra.desc, i) <= repeatBits;
      }
      if (!repeated) kept.push(i);
    }
    const n = base.n + kept.length;
    const out = { n, xs: new Float32Array(n), ys: new Float32Array(n), angles: new Float32Array(n), sizes: new Float32Array(n), desc: new Uint8Array(n * W * 8), width: base.width, height: base.height };
    for (const key of ['xs', 'ys', 'angles', 'sizes']) { out[key].set(base[key]); kept.forEach((i, k) => { out[key][base.n + k] = extra[key][i]; }); }
    out.desc.set(base.desc);
    kept.forEach((i, k) => out.desc.set(extra.desc.subarray(i * W * 8, (i + 1) * W * 8), (base.n + k) * W * 8));
    return out;
  };
  const refThr = name.startsWith('brisk') ? briskThreshold : refThreshold;
  const qThr = name.startsWith('brisk') ? briskThreshold : queryThreshold;
  return {
    W,
    reference: async (bytes) => {
      const r = await decodeGrey(bytes, 'reference');
      let f = detect(r.data, r.width, r.height, refThr, refBudget, 0);
      if (backdrop) {
        const variant = backdropVariant(r, LOCAL_SETTINGS.reference.backdrop);
        if (variant) f = merge(f, detect(variant, r.width, r.height, refThr, Math.round(refBudget * 0.75), 0), 4000);
      }
      return f;
    },
    query: async (bytes) => {
      const r = await decodeGrey(bytes, 'query');
      return detect(r.data, r.width, r.height, qThr, queryBudget, queryGrid);
    },
  };
}

async function run() {
  const family = arg('family', 'orb');
  const tag = arg('tag', '');
  const conds = arg('conds', 'scene,scene_fx,distractor').split(',');
  const ratio = Number(arg('ratio', '0.8'));
  const { verify, matchSet } = await import(`${DIST}/core/search/photo/geometry.js`);
  const fam = await makeFamily(family);
  const W = fam.W;
  const sets = await photoSets({ perCondition: PER });
  const t0 = performance.now();
  // References: features, and their descriptors one after another in the kernel's memory.
  // --max-side S: only references whose image is at most S px on its long side (a record only for
  // small references); --pad N: also the synthetic padding photos of bench/photo-search.js (re-made
  // from the same seeded augmentation, all N made so the sequence matches, kept under --max-side).
  const maxSide = Number(arg('max-side', 'Infinity'));
  const pad = Number(arg('pad', '0'));
  const refs = [];
  const refCpu = [];
  const parts = sets.references.map((r) => r.file);
  await fam.reference(sets.references[0].bytes); // warm-up (OpenCV load, detector creation)
  const addRef = async (bytes, partIndex, synthetic) => {
    const meta = await sharp(bytes).metadata();
    const side = Math.max(meta.width ?? 0, meta.height ?? 0);
    if (side > maxSide) return;
    const a = now();
    const f = await fam.reference(bytes);
    refCpu.push(now() - a);
    refs.push({ file: parts[partIndex], part: partIndex, f, side, synthetic });
  };
  for (const [i, r] of sets.references.entries()) await addRef(r.bytes, i, false);
  if (pad > 0) {
    const { augment } = await import('./photo-queries.js');
    const { prng } = await import('./lib.js');
    const rnd = prng(4242);
    for (let i = 0; i < pad; i++) {
      const src = i % sets.references.length;
      await addRef(await augment(sets.references[src].bytes, rnd), src, true);
    }
  }
  const totalRef = refs.reduce((s, r) => s + r.f.n, 0);
  const queryCap = 4096;
  const kernel = knnModule(W);
  const need = totalRef * W * 8 + queryCap * W * 8 + queryCap * 12 + 4096;
  kernel.memory.grow(Math.ceil(need / 65536));
  const heap = new Uint8Array(kernel.memory.buffer);
  let at = 0;
  for (const r of refs) { r.offset = at; heap.set(r.f.desc, at); at += r.f.desc.length; }
  const qAt = at, outAt = qAt + queryCap * W * 8;
  const tRefs = performance.now();
  console.error(`${family}${tag ? ` (${tag})` : ''}: ${refs.length} references, ${totalRef} keypoints (${(totalRef / refs.length).toFixed(0)} a reference), extraction CPU p50 ${quantile(refCpu, 0.5).toFixed(1)} p99 ${quantile(refCpu, 0.99).toFixed(1)} ms; ${((tRefs - t0) / 1000).toFixed(0)} s`);

  const queries = [
    ...sets.queries.filter((q) => conds.includes(q.condition)),
    ...(conds.includes('distractor') ? sets.distractors.map((d) => ({ ...d, condition: 'distractor', file: '-' })) : []),
  ];
  const results = [];
  let set = matchSet(4096);
  let checked = false;
  let matchMs = 0;
  for (const q of queries) {
    const a = now();
    const f = await fam.query(q.bytes);
    const extractMs = now() - a;
    const nq = Math.min(f.n, queryCap);
    heap.set(f.desc.subarray(0, nq * W * 8), qAt);
    const tolerance = 0.01 * Math.max(f.width, f.height);
    // Per part: the best of its references.
    const inliers = new Array(parts.length).fill(0);
    const matches = new Array(parts.length).fill(0);
    const b = performance.now();
    for (let ri = 0; ri < refs.length; ri++) {
      const r = refs[ri];
      if (r.f.n < 2 || nq < 2) continue;
      kernel.knn2(qAt, nq, r.offset, r.f.n, outAt);
      const out = new Int32Array(kernel.memory.buffer, outAt, nq * 3);
      if (!checked) {
        const js = knn2Js(f.desc, nq, r.f.desc, r.f.n, W);
        for (let i = 0; i < nq * 3; i++) if (js[i] !== out[i]) throw new Error(`kernel disagrees with JavaScript at ${i}: ${out[i]} vs ${js[i]}`);
        checked = true;
      }
      let n = 0;
      for (let i = 0; i < nq; i++) {
        const d1 = out[3 * i], d2 = out[3 * i + 1], j = out[3 * i + 2];
        if (j < 0 || d1 >= ratio * d2) continue;
        set.qx[n] = f.xs[i]; set.qy[n] = f.ys[i]; set.qa[n] = f.angles[i]; set.qs[n] = f.sizes[i];
        set.rx[n] = r.f.xs[j]; set.ry[n] = r.f.ys[j]; set.ra[n] = r.f.angles[j]; set.rs[n] = r.f.sizes[j];
        set.dist[n] = d1; set.qi[n] = i; set.ri[n] = j;
        n++;
      }
      set.n = n;
      const v = n >= 2 ? verify(set, { tolerance }).inliers : 0;
      if (v > inliers[r.part] || (v === inliers[r.part] && n > matches[r.part])) { inliers[r.part] = v; matches[r.part] = n; }
    }
    matchMs += performance.now() - b;
    results.push({ condition: q.condition, file: q.file, name: q.name, keypoints: f.n, extractMs, inliers, matches });
    if (results.length % 20 === 0) console.error(`  ${results.length} / ${queries.length} queries, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const qCpu = results.map((r) => r.extractMs);
  console.error(`queries: ${results.length}, extraction CPU p50 ${quantile(qCpu, 0.5).toFixed(1)} p99 ${quantile(qCpu, 0.99).toFixed(1)} ms; keypoints p50 ${quantile(results.map((r) => r.keypoints), 0.5)}; brute-force matching + verification ${(matchMs / 1000).toFixed(0)} s wall (${(matchMs / results.length).toFixed(0)} ms a query)`);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const file = path.join(OUT_DIR, `${family}${tag ? `-${tag}` : ''}.json`);
  fs.writeFileSync(file, JSON.stringify({
    family, tag, args, ratio,
    maxSide, pad,
    references: sets.references.map((r, i) => {
      const own = refs.find((x) => x.part === i && !x.synthetic);
      return { file: r.file, side: own?.side ?? null, keypoints: own?.f.n ?? 0, extractMs: refCpu[refs.indexOf(own)] ?? null };
    }),
    indexed: { references: refs.length, synthetic: refs.filter((r) => r.synthetic).length, keypoints: totalRef },
    results, matchSecondsWall: matchMs / 1000,
  }));
  console.error(`wrote ${file}`);
}

/** The part's cut-out long side (the generator's cut, bench/photo-queries.js cutout), per reference file. */
async function cutoutSides(files) {
  const { cutout } = await import('./photo-queries.js');
  const { IMAGE_DIR } = await import('./photo-queries.js');
  const out = new Map();
  for (const f of files) {
    try { const c = await cutout(fs.readFileSync(path.join(IMAGE_DIR, f))); out.set(f, Math.max(c.width, c.height)); } catch { out.set(f, NaN); }
  }
  return out;
}

async function report() {
  const families = arg('families', 'orb,akaze,akaze-bd').split(',');
  const small = Number(arg('small', '70'));
  const data = Object.fromEntries(families.filter((f) => fs.existsSync(path.join(OUT_DIR, `${f}.json`))).map((f) => [f, JSON.parse(fs.readFileSync(path.join(OUT_DIR, `${f}.json`), 'utf8'))]));
  const names = Object.keys(data);
  const anyRefs = data[names[0]].references;
  const refFiles = anyRefs.map((r) => r.file);
  const side = new Map(anyRefs.map((r) => [r.file, r.side]));
  const cutSide = await cutoutSides([...new Set(data[names[0]].results.map((r) => r.file).filter((f) => f !== '-'))]);
  /** Rank of the true reference: how many wrong references have at least its inliers (0 = first, ties count against it). */
  const rankOf = (res) => {
    const ti = refFiles.indexOf(res.file);
    const t = res.inliers[ti];
    let above = 0;
    res.inliers.forEach((v, i) => { if (i !== ti && v >= t) above++; });
    return { rank: t > 0 ? above : Infinity, trueInliers: t, bestWrong: Math.max(...res.inliers.filter((_, i) => i !== ti)), bestWrongFile: refFiles[res.inliers.reduce((bi, v, i) => (i !== ti && v > (bi < 0 ? -1 : res.inliers[bi]) ? i : bi), -1)] };
  };
  console.log(`\nR@1 / R@5 of 40 per condition (small: the reference file's long side ≤ ${small} px)`);
  console.log(`| family | condition | all R@1 | all R@5 | small R@1 | small R@5 | rest R@1 | rest R@5 |`);
  console.log('|---|---|---|---|---|---|---|---|');
  const ranks = {};
  for (const fam of names) {
    ranks[fam] = new Map();
    for (const cond of ['scene', 'scene_fx']) {
      const rows = data[fam].results.filter((r) => r.condition === cond);
      const c = { all: [0, 0, 0], small: [0, 0, 0], rest: [0, 0, 0] };
      for (const r of rows) {
        const k = rankOf(r);
        ranks[fam].set(`${cond}/${r.file}`, k);
        for (const g of ['all', side.get(r.file) <= small ? 'small' : 'rest']) { c[g][0]++; if (k.rank < 1) c[g][1]++; if (k.rank < 5) c[g][2]++; }
      }
      console.log(`| ${fam} | ${cond} | ${c.all[1]} | ${c.all[2]} | ${c.small[1]} / ${c.small[0]} | ${c.small[2]} / ${c.small[0]} | ${c.rest[1]} / ${c.rest[0]} | ${c.rest[2]} / ${c.rest[0]} |`);
    }
  }
  // Fusion rules over the families' inliers (what a product could do with two records).
  if (names.includes('orb') && names.length > 1) {
    for (const other of names.filter((n) => n !== 'orb')) {
      const dist = data[other].results.filter((r) => r.condition === 'distractor').map((r) => Math.max(...r.inliers));
      for (const rule of ['sum', 'max']) {
        const counts = {};
        for (const cond of ['scene', 'scene_fx']) {
          const a = data.orb.results.filter((r) => r.condition === cond);
          const b = new Map(data[other].results.filter((r) => r.condition === cond).map((r) => [r.file, r]));
          let first = 0;
          for (const r of a) {
            const o = b.get(r.file);
            const fused = r.inliers.map((v, i) => (rule === 'sum' ? v + o.inliers[i] : Math.max(v, o.inliers[i])));
            if (rankOf({ ...r, inliers: fused }).rank < 1) first++;
          }
          counts[cond] = first;
        }
        console.log(`fusion orb ${rule} ${other}: scene ${counts.scene}, scene_fx ${counts.scene_fx} found first of 40; ${other} distractor best-inlier p50 ${quantile(dist, 0.5)}`);
      }
    }
  }
  // A gated second matcher: ORB's answer stands unless its best reference has fewer than C
  // inliers (not confident); then the other family's best reference among the small ones (file
  // side ≤ S) goes first when it has at least A inliers and more than ORB's best. "fired" counts
  // the distractors on which that rule would put a (wrong, confident) part first.
  if (names.includes('orb') && names.length > 1) {
    console.log(`\nGated: ORB unless its best < C inliers; then family's best small reference (side ≤ S) when ≥ A inliers and > ORB's best`);
    console.log(`| family | C | S | A | scene first | scene_fx first | distractors fired |`);
    console.log('|---|---|---|---|---|---|---|');
    for (const other of names.filter((n) => n !== 'orb')) {
      const byKey = new Map(data[other].results.map((r) => [`${r.condition}/${r.file}/${r.name}`, r]));
      for (const C of [10, 13]) for (const S of [70, 96, 128, Infinity]) for (const A of [6, 8, 10, 12]) {
        const counts = { scene: 0, scene_fx: 0, distractor: 0 };
        for (const r of data.orb.results) {
          const o = byKey.get(`${r.condition}/${r.file}/${r.name}`);
          const orbBest = Math.max(...r.inliers);
          let answer = r.inliers.indexOf(orbBest);
          let fired = false;
          if (orbBest < C) {
            let bi = -1;
            o.inliers.forEach((v, i) => { if (side.get(refFiles[i]) <= S && (bi < 0 || v > o.inliers[bi])) bi = i; });
            if (bi >= 0 && o.inliers[bi] >= A && o.inliers[bi] > orbBest) { answer = bi; fired = true; }
          }
          if (r.condition === 'distractor') { if (fired) counts.distractor++; continue; }
          // ORB's own answer counts as found first only when strictly ahead (ties against it).
          const first = fired ? refFiles[answer] === r.file : rankOf(r).rank < 1;
          if (first) counts[r.condition]++;
        }
        console.log(`| ${other} | ${C} | ${S} | ${A} | ${counts.scene} | ${counts.scene_fx} | ${counts.distractor} |`);
      }
    }
  }
  console.log(`\nORB misses (not first): true reference's inliers / best wrong reference's (its file), per family`);
  console.log(`| query | file side / cut-out side | ${names.map((n) => `${n} true / wrong`).join(' | ')} |`);
  console.log(`|---|---|${names.map(() => '---').join('|')}|`);
  const orbName = names.includes('orb') ? 'orb' : names[0];
  for (const [key, k] of ranks[orbName]) {
    if (k.rank < 1) continue;
    const file = key.split('/')[1];
    console.log(`| ${key} | ${side.get(file)} / ${cutSide.get(file)} | ${names.map((n) => { const x = ranks[n].get(key); return `${x.trueInliers} / ${x.bestWrong} (${x.bestWrongFile})${x.rank < 1 ? ' **first**' : ''}`; }).join(' | ')} |`);
  }
  console.log(`\nOther families' misses that ORB found first:`);
  for (const n of names.filter((x) => x !== orbName)) {
    const lost = [...ranks[n]].filter(([key, k]) => k.rank >= 1 && ranks[orbName].get(key).rank < 1).map(([key, k]) => `${key} ${k.trueInliers}/${k.bestWrong} (orb ${ranks[orbName].get(key).trueInliers}/${ranks[orbName].get(key).bestWrong})`);
    console.log(`  ${n}: ${lost.length}: ${lost.join('; ')}`);
  }
  console.log(`\nBest inliers on the 100 distractors, and the true part's inliers when found first`);
  console.log(`| family | distractor best p50 / p90 / p95 / max | true inliers when first p10 / p50 | scene found first with inliers > distractor p95 |`);
  console.log('|---|---|---|---|');
  for (const n of names) {
    const dist = data[n].results.filter((r) => r.condition === 'distractor').map((r) => Math.max(...r.inliers));
    const trues = [...ranks[n].values()].filter((k) => k.rank < 1).map((k) => k.trueInliers);
    const p95 = quantile(dist, 0.95);
    console.log(`| ${n} | ${quantile(dist, 0.5)} / ${quantile(dist, 0.9)} / ${p95} / ${Math.max(...dist)} | ${quantile(trues, 0.1)} / ${quantile(trues, 0.5)} | ${trues.filter((t) => t > p95).length} of 80 |`);
  }
  console.log(`\nExtraction CPU ms (p50 / p99) and keypoints (p50; small references separately)`);
  console.log(`| family | reference ms | query ms | reference keypoints all / small | query keypoints | matching wall s (all queries) |`);
  console.log('|---|---|---|---|---|---|');
  for (const n of names) {
    const d = data[n];
    const rm = d.references.map((r) => r.extractMs);
    const qm = d.results.map((r) => r.extractMs);
    console.log(`| ${n} | ${quantile(rm, 0.5).toFixed(1)} / ${quantile(rm, 0.99).toFixed(1)} | ${quantile(qm, 0.5).toFixed(1)} / ${quantile(qm, 0.99).toFixed(1)} | ${quantile(d.references.map((r) => r.keypoints), 0.5)} / ${quantile(d.references.filter((r) => r.side <= small).map((r) => r.keypoints), 0.5)} | ${quantile(d.results.map((r) => r.keypoints), 0.5)} | ${d.matchSecondsWall.toFixed(0)} |`);
  }
}

/**
 * The product's answers (a `photo-profile.js --dump` file) with a second matcher's brute-force
 * inliers (a `run` output, typically `--max-side 70`, with or without `--pad`): the product's answer
 * stands when its first hit is confident (score ≥ 0.5); otherwise the second matcher's best part
 * goes first when it has at least A inliers and leads the runner-up part by L. Prints found first
 * (of each condition) and the distractors on which the rule puts a part first ("fired": a
 * confident wrong answer), beside the product's own.
 */
async function fuse() {
  const dump = fs.readFileSync(arg('dump'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const second = JSON.parse(fs.readFileSync(arg('second'), 'utf8'));
  const parts = second.references.map((r) => r.file);
  const byKey = new Map(second.results.map((r) => [`${r.condition}/${r.file}/${r.name}`, r]));
  // Every condition the second matcher ran on (the product's dump may hold more).
  const conds = [...new Set(second.results.map((r) => r.condition))];
  // --small S: only parts whose (real) reference is at most S px on its long side count.
  const smallSide = Number(arg('small', 'Infinity'));
  const small = new Set(second.references.map((r, i) => ((r.side ?? Infinity) <= smallSide || (second.maxSide ?? Infinity) < Infinity ? i : -1)).filter((i) => i >= 0));
  const base = Object.fromEntries(conds.map((c) => [c, 0]));
  for (const d of dump) {
    const [cond, file] = d.query.split('/');
    if (!conds.includes(cond)) continue;
    if (cond === 'distractor') { if ((d.hits[0]?.[1] ?? 0) >= 0.5) base[cond]++; } else if (d.hits[0]?.[0] === `part:${file}`) base[cond]++;
  }
  const named = conds.filter((c) => c !== 'distractor');
  console.log(`product: ${named.map((c) => `${c} ${base[c]}`).join(', ')} found first; distractors ≥ 0.5: ${base.distractor} (of ${dump.filter((d) => d.query.startsWith('distractor')).length})`);
  console.log(`| A | lead L | ${named.map((c) => `${c} first`).join(' | ')} | distractors with a confident answer (the product's ≥ 0.5 or the rule's) | answers changed right / wrong |`);
  console.log(`|---|---|${named.map(() => '---|').join('')}---|---|`);
  for (const A of [6, 8, 10, 12, 15]) for (const L of [0, 2, 4]) {
    const c = Object.fromEntries(conds.map((k) => [k, 0]));
    let right = 0, wrong = 0;
    for (const d of dump) {
      const [cond, file, name] = d.query.split('/');
      if (!conds.includes(cond)) continue;
      const o = byKey.get(`${cond}/${cond === 'distractor' ? '-' : file}/${name}`);
      if (!o) throw new Error(`no second-matcher result for ${d.query}`);
      let answer = d.hits[0]?.[0]?.slice(5);
      let fired = false;
      if ((d.hits[0]?.[1] ?? 0) < 0.5) {
        const order = o.inliers.map((v, i) => [small.has(i) ? v : 0, i]).sort((x, y) => y[0] - x[0]);
        const [best, bi] = order[0];
        if (best >= A && best - (order[1]?.[0] ?? 0) >= L) { fired = answer !== parts[bi]; answer = parts[bi]; }
      }
      if (cond === 'distractor') { if (fired || (d.hits[0]?.[1] ?? 0) >= 0.5) c[cond]++; continue; }
      if (answer === file) c[cond]++;
      if (fired) { if (answer === file) right++; else wrong++; }
      if (fired && A === Number(arg('show-a', '-1')) && L === Number(arg('show-l', '0'))) console.log(`  changed: ${d.query} product ${d.hits[0]?.[0]} ${(d.hits[0]?.[1] ?? 0).toFixed(2)} → ${answer} (${Math.max(...o.inliers)} inliers; true part ${o.inliers[parts.indexOf(file)] ?? '-'})`);
    }
    console.log(`| ${A} | ${L} | ${named.map((k) => c[k]).join(' | ')} | ${c.distractor} | ${right} / ${wrong} |`);
  }
}

if (command === 'run') await run();
else if (command === 'fuse') await fuse();
else if (command === 'report') await report();
else {
  console.error('usage: node bench/photo-akaze-probe.js run --family orb|akaze|akaze-bd|brisk|brisk-bd [options] | report [--families …]');
  process.exit(2);
}
