// Photo search quality and speed (issue 14), side by side with today's global descriptor.
//
// For each condition of bench/photo-queries.js: Recall@1 and Recall@5 (the query's part ranked
// first / in the first five), the share of queries whose true part scores at or above the
// confidence threshold, and the distractor false-hit rate (distractor photos whose best hit scores
// at or above it); query time p50/p99 (decode + feature extraction + search, one query at a time);
// extraction time per reference image; index memory; at several index sizes. Index sizes beyond the
// real references are reached with synthetic photos of the same parts (random rotation, scale 60–100 %,
// crop, hue/brightness change, JPEG q85), so a hit on one of them counts as its part.
//
// Usage (after `npx tsc -p tsconfig.build.json`):
//   node bench/photo-search.js [--sizes real,1000,10000] [--per 150] [--references shared|unseen] [--out bench/tmp/photo-search.json]
// --references unseen: the references are images never tuned on (photo-queries.js unseenImages).
// PHOTO_SECOND_LOOK=1: a query whose answer has no confident hit gets the product's second look
// (issue 14, fourteenth round: extract.ts secondLookFeatures, photo-search.ts mergeLooks; off by
// default, as in a server), timed with it.
// Features of the synthetic references are cached in bench/tmp/photo-cache/ (first run: minutes).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argReader, msStats, overrideSettings, prng, round, writeSection } from './lib.js';
import { augment, photoSets, CONDITIONS, PHOTO_CONDITIONS, DIGITAL_CONDITIONS } from './photo-queries.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.PHOTO_DIST ?? '../dist';
const { ImageFeatureIndex, rankParts, encodeFeatures, decodeFeatures, ENCODED_LENGTH } = await import(`${DIST}/core/search/image-similarity.js`);
const { extractFeatures } = await import(`${DIST}/adapters/images/sharp-features.js`);
const { encodeLocalFeatures, decodeLocalFeatures } = await import(`${DIST}/core/search/photo/local-features.js`);
const { shippedVocabulary } = await import(`${DIST}/adapters/images/local-features/shipped-vocabulary.js`);
const { CONFIDENT_SCORE } = await import(`${DIST}/core/search/photo/confidence.js`);
const { PhotoReferenceIndex, wantsSecondLook, mergeLooks } = await import(`${DIST}/core/search/photo/photo-search.js`);
const { extractLocalFeatures, LOCAL_SETTINGS, decodeGrey, localFeaturesFromGrey, secondLookFeatures } = await import(`${DIST}/adapters/images/local-features/extract.js`);
const { openCv } = await import(`${DIST}/adapters/images/local-features/opencv.js`);
// PHOTO_SETTINGS='{"query":{…}}' overrides LOCAL_SETTINGS by role (experiments).
overrideSettings(LOCAL_SETTINGS, 'PHOTO_SETTINGS');
// As the product: off unless asked for (PHOTO_SECOND_LOOK=1 here, CATALOG_PHOTO_SECOND_LOOK=1 for a server).
const SECOND_LOOK = process.env.PHOTO_SECOND_LOOK === '1' && secondLookFeatures !== undefined && LOCAL_SETTINGS.query.secondLook !== undefined;
const { rotatedGlobalFeatures } = await import(`${DIST}/adapters/images/local-features/global-views.js`);

const args = process.argv.slice(2);
const arg = argReader(args);
const SIZES = arg('sizes', 'real,1000,10000').split(',');
const REFERENCES = arg('references', 'shared');
const PER = Number(arg('per', '150'));
const OUT = arg('out', path.join(here, 'tmp', 'photo-search.json'));
const BASELINE_THRESHOLD = 0.9; // cosine: the 95th percentile of "best other image" (image-similarity.ts)
const QUERY_OPTIONS = JSON.parse(process.env.PHOTO_QUERY ?? '{}');
const log = (s) => console.error(s);

const vocabulary = await shippedVocabulary();
const CACHE_KEY = `v1-${JSON.stringify(LOCAL_SETTINGS.reference)}-voc${vocabulary.id}-${vocabulary.size}`.replace(/[^a-z0-9]+/gi, '_');

const stats = msStats;

/** Reference features { global: Features, local: LocalFeatures } and the time to compute them. */
async function referenceFeatures(bytes) {
  const t = performance.now();
  const global = await extractFeatures(bytes);
  const local = await extractLocalFeatures(bytes, 'reference', vocabulary);
  return { global, local, ms: performance.now() - t };
}

/** Features of `count` synthetic references made from `refs`, cached on disk. */
async function syntheticReferences(refs, count) {
  const dir = path.join(here, 'tmp', 'photo-cache');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `synthetic-${REFERENCES === 'unseen' ? 'unseen-' : ''}${CACHE_KEY}.bin`);
  const out = [];
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    let o = 0;
    while (o < buf.length && out.length < count) {
      const src = buf.readUInt32LE(o);
      const gl = buf.readUInt32LE(o + 4);
      const ll = buf.readUInt32LE(o + 8);
      o += 12;
      const global = decodeFeatures(new Uint8Array(buf.buffer, buf.byteOffset + o, gl));
      const local = decodeLocalFeatures(new Uint8Array(buf.buffer, buf.byteOffset + o + gl, ll));
      o += gl + ll;
      out.push({ src, global, local });
    }
  }
  if (out.length >= count) return out;
  const rnd = prng(4242 + out.length);
  const fd = fs.openSync(file, 'a');
  const t0 = performance.now();
  for (let i = out.length; i < count; i++) {
    const src = i % refs.length;
    const bytes = await augment(refs[src].bytes, rnd);
    const { global, local } = await referenceFeatures(bytes);
    const g = encodeFeatures(global);
    const l = encodeLocalFeatures(local);
    const head = Buffer.alloc(12);
    head.writeUInt32LE(src, 0);
    head.writeUInt32LE(g.length, 4);
    head.writeUInt32LE(l.length, 8);
    fs.writeSync(fd, head);
    fs.writeSync(fd, g);
    fs.writeSync(fd, l);
    out.push({ src, global, local });
    if ((i + 1) % 500 === 0) log(`  synthetic references: ${i + 1}/${count} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  fs.closeSync(fd);
  return out;
}

/** Query features (ours: 4 turned global views + local; baseline: today's features) with times. */
async function queryFeatures(bytes) {
  let t = performance.now();
  const views = await rotatedGlobalFeatures(bytes);
  // As extractLocalFeatures, keeping the raster for a second look.
  const [cv, raster] = await Promise.all([openCv(), decodeGrey(bytes, 'query')]);
  const local = localFeaturesFromGrey(cv, raster, LOCAL_SETTINGS.query, vocabulary);
  const oursMs = performance.now() - t;
  t = performance.now();
  const baseline = await extractFeatures(bytes);
  const baseMs = performance.now() - t;
  return { views, local, raster, oursMs, baseline, baseMs };
}

/** Our search: local hits and global hits over the 4 turns, fused into parts; a second look when not confident. */
async function searchOurs(index, q) {
  const first = index.photo.query(q, 25, { local: QUERY_OPTIONS });
  if (!SECOND_LOOK || !wantsSecondLook(first)) return first;
  const local = secondLookFeatures(await openCv(), q.raster, LOCAL_SETTINGS.query, vocabulary);
  return mergeLooks(first, index.photo.query({ views: q.views, local }, 25, { local: QUERY_OPTIONS }), 25);
}

function searchBaseline(index, q) {
  return rankParts(index.global.query(q.baseline, 200, { shortlist: 200 }));
}

const t0 = performance.now();
const sets = await photoSets({ perCondition: PER, references: REFERENCES, log });
const refs = sets.references;
const partOf = (i) => `part:${refs[i].file}`;
log(`${refs.length} real references, ${sets.queries.length} queries, ${sets.distractors.length} distractors`);

// Real references: features, timed one at a time.
const real = [];
const refMs = [];
for (const r of refs) {
  const f = await referenceFeatures(r.bytes);
  refMs.push(f.ms);
  real.push(f);
}
const weak = real.filter((f) => f.local.count < 20).length;
log(`reference extraction: ${stats(refMs).mean} ms mean; ${weak} references with < 20 keypoints`);

// Queries.
const queries = [];
for (const q of [...sets.queries, ...sets.distractors.map((d) => ({ ...d, condition: 'distractor' }))]) {
  queries.push({ condition: q.condition, truth: q.condition === 'distractor' ? undefined : `part:${q.file}`, name: q.name, ...(await queryFeatures(q.bytes)) });
  if (queries.length % 200 === 0) log(`  query features: ${queries.length} (${((performance.now() - t0) / 1000).toFixed(0)} s since start)`);
}
log(`query features: ${((performance.now() - t0) / 1000).toFixed(0)} s since start`);

const maxSize = Math.max(...SIZES.map((s) => (s === 'real' ? refs.length : Number(s))));
const synthetic = maxSize > refs.length ? await syntheticReferences(refs, maxSize - refs.length) : [];

const report = { conditions: CONDITIONS, threshold: CONFIDENT_SCORE, baselineThreshold: BASELINE_THRESHOLD, referenceExtractionMs: stats(refMs), weakReferences: weak, sizes: {} };
for (const size of SIZES) {
  const n = size === 'real' ? refs.length : Number(size);
  const tb = performance.now();
  const index = { global: new ImageFeatureIndex(), photo: new PhotoReferenceIndex(vocabulary) };
  // As the product loads them (image-search.ts sync): one bulk add.
  const batch = [];
  for (let i = 0; i < n; i++) {
    const f = i < refs.length ? real[i] : synthetic[i - refs.length];
    const part = i < refs.length ? partOf(i) : partOf(f.src);
    index.global.add(`img${i}`, part, f.global);
    batch.push({ imageId: `img${i}`, partId: part, ref: f });
  }
  index.photo.addMany(batch);
  const buildMs = performance.now() - tb;
  const rows = {};
  const failures = {};
  for (const cond of [...CONDITIONS, 'distractor']) {
    rows[cond] = { ours: { r1: 0, r5: 0, confident: 0, ms: [] }, base: { r1: 0, r5: 0, confident: 0, ms: [] }, n: 0 };
    failures[cond] = [];
  }
  for (const q of queries) {
    const row = rows[q.condition];
    row.n++;
    let t = performance.now();
    const ours = await searchOurs(index, q);
    row.ours.ms.push(q.oursMs + performance.now() - t);
    t = performance.now();
    const base = searchBaseline(index, q);
    row.base.ms.push(q.baseMs + performance.now() - t);
    for (const [key, hits, threshold] of [['ours', ours, CONFIDENT_SCORE], ['base', base, BASELINE_THRESHOLD]]) {
      if (q.truth === undefined) {
        if ((hits[0]?.score ?? 0) >= threshold) row[key].confident++;
        if (key === 'ours' && (hits[0]?.score ?? 0) >= threshold) failures.distractor.push(`${q.name} → ${hits[0].part_id} ${round(hits[0].score, 2)} (${hits[0].inliers} inl, cos ${round(hits[0].cosine, 3)})`);
        continue;
      }
      const rank = hits.findIndex((h) => h.part_id === q.truth);
      if (rank === 0) row[key].r1++;
      if (rank >= 0 && rank < 5) row[key].r5++;
      if (rank >= 0 && hits[rank].score >= threshold) row[key].confident++;
      if (key === 'ours' && rank !== 0) failures[q.condition].push(`${q.name}: rank ${rank} ${rank >= 0 ? `(${hits[rank].inliers} inl)` : ''} top ${hits[0]?.part_id} ${hits[0] ? round(hits[0].score, 2) : ''} ${hits[0]?.inliers ?? ''}`);
    }
  }
  const table = {};
  for (const [cond, row] of Object.entries(rows)) {
    const f = (x) => round(x / Math.max(1, row.n), 3);
    table[cond] = {
      n: row.n,
      ours: { r1: f(row.ours.r1), r5: f(row.ours.r5), confident: f(row.ours.confident), ...stats(row.ours.ms) },
      base: { r1: f(row.base.r1), r5: f(row.base.r5), confident: f(row.base.confident), ...stats(row.base.ms) },
    };
  }
  const allOurs = Object.values(rows).flatMap((r) => r.ours.ms);
  const allBase = Object.values(rows).flatMap((r) => r.base.ms);
  report.sizes[n] = {
    buildMs: round(buildMs), localIndexMB: round(index.photo.memoryBytes / 2 ** 20), globalIndexMB: round((n * ENCODED_LENGTH) / 2 ** 20),
    queryMs: { ours: stats(allOurs), base: stats(allBase) }, table, failures,
  };
  log(`\n## ${n} references (index build ${round(buildMs / 1000, 2)} s; photo index (global + local) ${report.sizes[n].localIndexMB} MB; today's global ${report.sizes[n].globalIndexMB} MB)`);
  log(`| condition | n | R@1 ours / today | R@5 ours / today | true part ≥ threshold ours / today | ms p50 ours / today | ms p99 ours / today |`);
  log('|---|---|---|---|---|---|---|');
  for (const [cond, r] of Object.entries(table)) {
    const isD = cond === 'distractor';
    log(`| ${isD ? 'distractors: false-hit rate' : cond} | ${r.n} | ${isD ? '' : `${r.ours.r1} / ${r.base.r1}`} | ${isD ? '' : `${r.ours.r5} / ${r.base.r5}`} | ${r.ours.confident} / ${r.base.confident} | ${r.ours.p50} / ${r.base.p50} | ${r.ours.p99} / ${r.base.p99} |`);
  }
  log(`all queries: ours p50 ${stats(allOurs).p50} ms p99 ${stats(allOurs).p99} ms; today p50 ${stats(allBase).p50} p99 ${stats(allBase).p99}`);
}
report.totalSeconds = round((performance.now() - t0) / 1000);
if (OUT) {
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(report, null, 1));
}
writeSection('photo-search', 'Photo search beside the global descriptor', searchSection(report));
log(`done in ${report.totalSeconds} s${OUT ? `; ${OUT}` : ''}`);

/** The section of bench/results.md for this script's report (Markdown): ours beside the global descriptor alone, per index size. */
function searchSection(r) {
  const lines = ['Photo search (global + local features) beside the baseline, the global descriptor alone (today\'s near-duplicate search), on the same queries, in one thread; times include decoding and extraction.'];
  for (const [n, s] of Object.entries(r.sizes)) {
    lines.push('', `**${n} references**: index build ${round(s.buildMs / 1000, 2)} s, photo index ${s.localIndexMB} MB (global alone ${s.globalIndexMB} MB); all queries p50 ${s.queryMs.ours.p50} / ${s.queryMs.base.p50} ms, p99 ${s.queryMs.ours.p99} / ${s.queryMs.base.p99} ms (ours / baseline).`, '');
    lines.push('| condition | n | R@1 ours / baseline | R@5 ours / baseline | confident ours / baseline |', '|---|---|---|---|---|');
    for (const [cond, c] of Object.entries(s.table)) {
      const d = cond === 'distractor';
      lines.push(`| ${d ? 'distractors (false-hit rate)' : cond} | ${c.n} | ${d ? '' : `${c.ours.r1} / ${c.base.r1}`} | ${d ? '' : `${c.ours.r5} / ${c.base.r5}`} | ${c.ours.confident} / ${c.base.confident} |`);
    }
  }
  return lines.join('\n');
}
void PHOTO_CONDITIONS;
void DIGITAL_CONDITIONS;
