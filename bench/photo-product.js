// Photo search through the product's own path (issue 14): recall and wall-clock time of
// `FeatureIndexSimilaritySearch.rankParts` — what `catalog serve` runs for POST /1/find with an
// image — over stored reference records made by the product's `extractPhotoReference`, with the
// feature threads, the decode pool, the index load and the looks an unconfident photo gets (the
// small look of the fifteenth round, started beside the first look on an idle core). One query at
// a time, as the speed goal is stated; bench/photo-search.js measures the same searches
// in one thread (its times are sums of CPU).
//
// Usage (after `npm run build`):
//   node bench/photo-product.js [--sizes real,1000,10000] [--per 40] [--out bench/tmp/photo-product.json]
//     [--extract-threads 1] [--cache-dir bench/tmp/photo-cache] [--records-only]
// --extract-threads N: records missing from the cache are extracted N at a time, on a pool of N
// feature threads of its own (the product's pool has one thread on 2 cores), closed before the
// queries; the synthetic photos are still made one after another from the one seeded prng and the
// records are written in reference order, so the cache file is the same as with 1. --records-only:
// fill the cache up to the largest size and stop (no queries).
// CATALOG_PHOTO_SMALL_LOOK=0 / CATALOG_PHOTO_SECOND_LOOK=1: as for a server. PHOTO_MISSES=1 lists
// every query not found first (and every confident distractor) with the first three hits.
// Records of the synthetic references (the same seeded photos as bench/photo-search.js's) are
// cached in bench/tmp/photo-cache/ under the record prefix (first run at 10,000: minutes).
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { argReader, cpuMs, msStats, overrideSettings, prng, round, writeSection } from './lib.js';
import { augment, photoSets, AUGMENT_DRAWS, CONDITIONS } from './photo-queries.js';
import { Piscina } from 'piscina';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.PHOTO_DIST ?? '../dist';
const { FeatureIndexSimilaritySearch } = await import(`${DIST}/adapters/images/image-search.js`);
const { extractReferenceOffThread, closeFeatureThreads } = await import(`${DIST}/adapters/images/local-features/feature-threads.js`);
const { currentPhotoPrefix } = await import(`${DIST}/core/search/photo/photo-search.js`);
const { shippedVocabularyId, shippedAkazeVocabularyId } = await import(`${DIST}/adapters/images/local-features/shipped-vocabulary.js`);
const { LOCAL_SETTINGS } = await import(`${DIST}/adapters/images/local-features/extract.js`);
const { AKAZE_SETTINGS, SMALL_REFERENCE_SIDE } = await import(`${DIST}/adapters/images/local-features/akaze.js`);
const { CONFIDENT_SCORE } = await import(`${DIST}/core/search/photo/confidence.js`);
// PHOTO_AKAZE='{"query":{"maxSide":320}}' overrides AKAZE_SETTINGS by role (experiments): this
// process's copy only, so with CATALOG_FEATURE_THREADS=0 (extraction in this thread, no small look
// started ahead).
// PHOTO_SETTINGS='{"query":{"keypoints":3000}}' overrides LOCAL_SETTINGS (ORB) by role, the same way.
for (const [settings, name] of [[AKAZE_SETTINGS, 'PHOTO_AKAZE'], [LOCAL_SETTINGS, 'PHOTO_SETTINGS']]) {
  if (overrideSettings(settings, name) && process.env.CATALOG_FEATURE_THREADS !== '0') throw new Error(`${name} needs CATALOG_FEATURE_THREADS=0`);
}

const args = process.argv.slice(2);
const arg = argReader(args);
const SIZES = arg('sizes', 'real,1000,10000').split(',');
const REFERENCES = arg('references', 'shared');
const PER = Number(arg('per', '40'));
const OUT = arg('out', path.join(here, 'tmp', 'photo-product.json'));
const CACHE_DIR = arg('cache-dir', path.join(here, 'tmp', 'photo-cache'));
const EXTRACT_THREADS = Math.max(1, Number(arg('extract-threads', '1')));
const log = (s) => console.error(s);
const stats = msStats;

const t0 = performance.now();
const sets = await photoSets({ perCondition: PER, references: REFERENCES, log });
const refs = sets.references;
const partOf = (i) => `part:${refs[i].file}`;
const prefix = currentPhotoPrefix({ local: await shippedVocabularyId(), small: await shippedAkazeVocabularyId() });
const settingsKey = createHash('sha256').update(JSON.stringify({ orb: LOCAL_SETTINGS.reference, akaze: AKAZE_SETTINGS.reference, small: SMALL_REFERENCE_SIDE })).digest('hex').slice(0, 12);
log(`${refs.length} real references, ${sets.queries.length} queries, ${sets.distractors.length} distractors; records ${Buffer.from(prefix).toString('hex')}-${settingsKey}`);

let extractPool;
/** A reference's stored record: on the product's feature thread, or on this script's pool of --extract-threads. */
async function extractForCache(bytes) {
  if (EXTRACT_THREADS === 1) return extractReferenceOffThread(bytes);
  extractPool ??= new Piscina({
    filename: fileURLToPath(new URL(`${DIST}/adapters/images/local-features/feature-worker.js`, import.meta.url)),
    minThreads: EXTRACT_THREADS, maxThreads: EXTRACT_THREADS, idleTimeout: Number.POSITIVE_INFINITY, concurrentTasksPerWorker: 1,
  });
  const result = await extractPool.run({ kind: 'reference', input: bytes });
  if (!result.ok) throw Object.assign(new Error(result.message), { name: result.name });
  return result.value;
}

/** Stored records of `count` references: the real ones, then bench/photo-search.js's synthetic photos; cached on disk. */
async function records(count) {
  const dir = CACHE_DIR;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `records-${REFERENCES === 'unseen' ? 'unseen-' : ''}${Buffer.from(prefix).toString('hex')}-${settingsKey}.bin`);
  const out = [];
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    for (let o = 0; o + 8 <= buf.length && out.length < count; ) {
      const src = buf.readUInt32LE(o);
      const len = buf.readUInt32LE(o + 4);
      out.push({ src, features: new Uint8Array(buf.buffer, buf.byteOffset + o + 8, len) });
      o += 8 + len;
    }
  }
  if (out.length >= count) return out;
  const fd = fs.openSync(file, 'a');
  const t = performance.now();
  const cpu0 = process.cpuUsage();
  const extractMs = [];
  // The synthetic photos' sequence is bench/photo-search.js's: one prng from the first synthetic one.
  const seeded = prng(4242);
  let draws = 0;
  const rnd = () => {
    draws++;
    return seeded();
  };
  // Past the cached ones: augment draws AUGMENT_DRAWS numbers a photo whatever the image (checked
  // below on every photo made, so a changed augment cannot silently shift the sequence).
  for (let i = refs.length; i < out.length; i++) for (let k = 0; k < AUGMENT_DRAWS; k++) rnd();
  const madePhoto = async (bytes) => {
    const before = draws;
    const photo = await augment(bytes, rnd);
    if (draws - before !== AUGMENT_DRAWS) throw new Error(`augment drew ${draws - before} numbers, not AUGMENT_DRAWS ${AUGMENT_DRAWS}: the cache's skip is wrong`);
    return photo;
  };
  // Extractions in flight, oldest first: each photo is made (awaited) before the next one draws from
  // rnd, and records are written in order, so N threads give the file one thread gives.
  const pending = [];
  const write = async () => {
    const { src, features: next } = pending.shift();
    const features = await next;
    const head = Buffer.alloc(8);
    head.writeUInt32LE(src, 0);
    head.writeUInt32LE(features.length, 4);
    fs.writeSync(fd, head);
    fs.writeSync(fd, features);
    out.push({ src, features });
    if (out.length % 500 === 0) {
      const s = (performance.now() - t) / 1000;
      const c = process.cpuUsage(cpu0);
      log(`  reference records: ${out.length}/${count} (${s.toFixed(0)} s, process CPU ${((c.user + c.system) / 1e6).toFixed(0)} s; extraction p50 ${stats(extractMs).p50} ms from submission, ${EXTRACT_THREADS} in flight)`);
    }
  };
  for (let i = out.length; i < count; i++) {
    const src = i < refs.length ? i : (i - refs.length) % refs.length;
    const bytes = i < refs.length ? refs[i].bytes : await madePhoto(refs[src].bytes);
    const a = performance.now();
    const features = extractForCache(bytes).then((f) => {
      extractMs.push(performance.now() - a);
      return f;
    });
    features.catch(() => {}); // awaited in order by write(); no unhandled rejection meanwhile
    pending.push({ src, features });
    // One more than the threads: a made photo waits on the pool while the next is being made.
    while (pending.length > EXTRACT_THREADS) await write();
  }
  while (pending.length > 0) await write();
  await extractPool?.destroy();
  extractPool = undefined;
  fs.closeSync(fd);
  return out;
}

const maxSize = Math.max(...SIZES.map((s) => (s === 'real' ? refs.length : Number(s))));
const all = await records(maxSize);
if (args.includes('--records-only')) {
  await closeFeatureThreads();
  log(`${all.length} reference records cached; no queries (--records-only)`);
  process.exit(0);
}
const queries = [...sets.queries, ...sets.distractors.map((d) => ({ ...d, condition: 'distractor' }))];
const report = { threshold: CONFIDENT_SCORE, env: { smallLook: process.env.CATALOG_PHOTO_SMALL_LOOK ?? '', secondLook: process.env.CATALOG_PHOTO_SECOND_LOOK ?? '' }, sizes: {} };
for (const size of SIZES) {
  const n = size === 'real' ? refs.length : Number(size);
  const rows = all.slice(0, n).map((r, i) => ({ image_id: `img${i}`, part_id: partOf(r.src), features: r.features }));
  const store = {
    fingerprint: async () => String(rows.length),
    async *all() {
      yield* rows;
    },
    changeVersion: async () => 1,
    changesSince: async () => ({ version: 1, complete: true, more: false, upserted: [], removed: [] }),
  };
  const search = new FeatureIndexSimilaritySearch(store);
  const tl = performance.now();
  const cl = cpuMs();
  await search.sync();
  const loadMs = performance.now() - tl;
  // Process CPU of the load: the feature threads are idle then (wall far above it: paused or shared).
  const loadCpuMs = cpuMs() - cl;
  // One query first (threads started, OpenCV loaded on each): not timed.
  await search.rankParts(queries[0].bytes, 25);
  await search.rankParts(queries[queries.length - 1].bytes, 25);
  const byCondition = {};
  for (const cond of [...CONDITIONS, 'distractor']) byCondition[cond] = { n: 0, r1: 0, r5: 0, confident: 0, ms: [], misses: [] };
  const ahead0 = search.ahead.started;
  const used0 = search.smallLooksUsed;
  for (const q of queries) {
    const row = byCondition[q.condition];
    const a = performance.now();
    const hits = await search.rankParts(q.bytes, 25);
    row.ms.push(performance.now() - a);
    row.n++;
    const top = hits.slice(0, 3).map((h) => `${h.part_id.replace(/^part:/, '')} ${h.score.toFixed(2)}`).join(', ');
    if (q.condition === 'distractor') {
      if ((hits[0]?.score ?? 0) >= CONFIDENT_SCORE) {
        row.confident++;
        row.misses.push(`${q.name} → ${top}`);
      }
      continue;
    }
    const truth = `part:${q.file}`;
    const rank = hits.findIndex((h) => h.part_id === truth);
    if (rank !== 0) row.misses.push(`${q.name}: rank ${rank} (${rank >= 0 ? hits[rank].score.toFixed(2) : '-'}); first ${top}`);
    if (rank === 0) row.r1++;
    if (rank >= 0 && rank < 5) row.r5++;
    if (rank >= 0 && hits[rank].score >= CONFIDENT_SCORE) row.confident++;
  }
  const allMs = Object.values(byCondition).flatMap((r) => r.ms);
  const index = search.index;
  report.sizes[n] = {
    loadMs: round(loadMs), loadCpuMs: round(loadCpuMs), indexMB: round((index?.memoryBytes ?? 0) / 2 ** 20), smallReferences: index?.smallSize ?? 0,
    // The index's parts (photo-search.ts PhotoReferenceIndex: `local` ORB, `small` AKAZE; the rest is
    // the global records). The process RSS holds this script's records too (the whole cache file
    // up to the largest size) and whatever the smaller sizes' indexes left behind.
    orbMB: round((index?.local?.memoryBytes ?? 0) / 2 ** 20), akazeMB: round((index?.small?.memoryBytes ?? 0) / 2 ** 20),
    rssMB: round(process.memoryUsage().rss / 2 ** 20), recordsMB: round(rows.reduce((a, r) => a + r.features.length, 0) / 2 ** 20),
    smallLooks: { ahead: search.ahead.started - ahead0, used: search.smallLooksUsed - used0 },
    wall: stats(allMs),
    table: Object.fromEntries(Object.entries(byCondition).map(([c, r]) => [c, { n: r.n, r1: r.r1, r5: r.r5, confident: r.confident, ...stats(r.ms) }])),
    misses: Object.fromEntries(Object.entries(byCondition).map(([c, r]) => [c, r.misses])),
  };
  const s = report.sizes[n];
  log(`\n## ${n} references: load ${round(loadMs / 1000, 2)} s (CPU ${round(loadCpuMs / 1000, 2)} s), photo index ${s.indexMB} MB (ORB ${s.orbMB}, AKAZE ${s.akazeMB}), ${s.smallReferences} small references; records ${s.recordsMB} MB; process RSS ${s.rssMB} MB; small looks ahead ${s.smallLooks.ahead}, used ${s.smallLooks.used}`);
  log('| condition | n | R@1 | R@5 | true part ≥ threshold (distractors: false hits) | wall p50 / p99 ms |');
  log('|---|---|---|---|---|---|');
  for (const [cond, r] of Object.entries(s.table)) log(`| ${cond} | ${r.n} | ${cond === 'distractor' ? '' : r.r1} | ${cond === 'distractor' ? '' : r.r5} | ${r.confident} | ${r.p50} / ${r.p99} |`);
  log(`all queries: wall p50 ${s.wall.p50} ms, p99 ${s.wall.p99} ms (n ${s.wall.n})`);
  if (process.env.PHOTO_MISSES === '1') for (const [cond, list] of Object.entries(s.misses)) for (const m of list) log(`  miss ${cond}: ${m}`);
}
await closeFeatureThreads();
report.totalSeconds = round((performance.now() - t0) / 1000);
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, JSON.stringify(report, null, 1));
writeSection('photo-product', 'Photo search through the product', productSection(report));
log(`done in ${report.totalSeconds} s; ${OUT}`);

/**
 * The section of bench/results.md for this script's report (Markdown): per index size, found
 * first / in the first five / scored confident per condition and the wall time, beside the goals.
 */
function productSection(r) {
  const lines = ['One query at a time through `rankParts` (what `catalog serve` runs for an image search). Baseline: the goals (R@1 ≥ 0.90 and R@5 ≥ 0.97 per photo condition, ≥ 0.99 for digital copies; ≤ 5 of 100 distractors confident; wall p50 / p99 ≤ 100 / 250 ms; index ≤ 300 MB; start-up ≤ 3 s).'];
  for (const [n, s] of Object.entries(r.sizes)) {
    lines.push('', `**${n} references**: index load ${round(s.loadMs / 1000, 2)} s (CPU ${round(s.loadCpuMs / 1000, 2)} s), photo index ${s.indexMB} MB (ORB ${s.orbMB}, AKAZE ${s.akazeMB}); all queries wall p50 ${s.wall.p50} ms, p99 ${s.wall.p99} ms.`, '');
    lines.push('| condition | n | found first | in first five | confident (distractors: false hits) | wall p50 / p99 ms |', '|---|---|---|---|---|---|');
    for (const [cond, c] of Object.entries(s.table)) lines.push(`| ${cond} | ${c.n} | ${cond === 'distractor' ? '' : c.r1} | ${cond === 'distractor' ? '' : c.r5} | ${c.confident} | ${c.p50} / ${c.p99} |`);
  }
  return lines.join('\n');
}
