// Per-stage CPU time of a photo query (issue 14): decode, ORB, word assignment, global views, index
// query (local alone, then local + global + fusion), with Recall@1/@5, the share of true parts at
// or above the 0.5 threshold, distractor false hits and inlier quantiles per condition; over the
// cached query sets of bench/photo-queries.js. CPU time (process.cpuUsage), not wall time: the
// 2-core machine is shared and wall times there measure the other engineers' load.
// Usage (after `npx tsc -p tsconfig.build.json`):
//   node bench/photo-profile.js [--per 40] [--n 400] [--conds scene,rot,distractor] [--pad 9486] [--build]
//   --conds may name the conditions of bench/photo-conditions.js (card, card_tilt, scene_noise, …).
//   --pad N: add N cached synthetic references of bench/photo-search.js (run it once first);
//   --build: also time a bulk build of 20 × the real references from encoded records.
//   PHOTO_QUERY='{"maxDistance":40}' passes options to the local search; PHOTO_DIST=… another build.
//   --dump FILE: every query's local hits (image, inliers, matches, votes) and fused hits (part,
//   score), one JSON line a query, so two builds' answers can be diffed (issue 14, ninth round).
//   The second look (issue 14, fourteenth round): a query whose first answer has no hit ≥ 0.5 is
//   detected again with LOCAL_SETTINGS.query.secondLook and searched again, the answers merged
//   (photo-search.ts wantsSecondLook / mergeLooks, extract.ts secondLookFeatures: the product's
//   functions). Recall and CPU are printed for the first look alone (today's answer) and with it.
//   PHOTO_LOOKS='[{"normal":{"blur":0.8,"fast":7},"lowLight":{"blur":0,"fast":12}}, …]' measures
//   several second looks in one run instead (each merged with the same first answer); PHOTO_LOOKS
//   ='[]' measures none.
import { jitterLocalFeatures, photoSets } from './photo-queries.js';
import { argReader, cpuMs, overrideSettings } from './lib.js';

const DIST = process.env.PHOTO_DIST ?? '../dist';
const { extractFeatures } = await import(`${DIST}/adapters/images/sharp-features.js`);
const { defaultVocabulary } = await import(`${DIST}/core/search/photo/vocabulary-data.js`);
const { PhotoReferenceIndex, PHOTO_LOCAL_DEFAULTS = {}, wantsSecondLook, mergeLooks } = await import(`${DIST}/core/search/photo/photo-search.js`);
const { decodeGrey, localFeaturesFromGrey, extractLocalFeatures, LOCAL_SETTINGS, secondLookFeatures } = await import(`${DIST}/adapters/images/local-features/extract.js`);
// PHOTO_SETTINGS='{"query":{"keypoints":3000},"reference":{"clahe":2}}' overrides LOCAL_SETTINGS (experiments).
overrideSettings(LOCAL_SETTINGS, 'PHOTO_SETTINGS');
const { openCv } = await import(`${DIST}/adapters/images/local-features/opencv.js`);
const { rotatedGlobalFeatures } = await import(`${DIST}/adapters/images/local-features/global-views.js`);
const args = process.argv.slice(2);
const arg = argReader(args);
const PER = Number(arg('per', '40'));
const N = Number(arg('n', '60'));
const vocabulary = defaultVocabulary();
const cv = await openCv();
// CPU time of this process (µs → ms): the machine is shared, so wall time of sync stages is noisy.
const now = cpuMs;
const sets = await photoSets({ perCondition: PER, log: () => {} });
// As the server loads it (image-search.ts): stop words' postings dropped (PHOTO_KEEP_STOP=1 keeps them).
// PHOTO_INDEX='{"maxSplitShare":0.05}' passes options to the index (split stop words, issue 14 fifth round).
const index = new PhotoReferenceIndex(vocabulary, { dropStopWords: process.env.PHOTO_KEEP_STOP !== '1', ...JSON.parse(process.env.PHOTO_INDEX ?? '{}') });
// The real references go into the same bulk load as the padding (the server loads everything at once).
const realItems = [];
for (const [i, r] of sets.references.entries()) {
  const global = await extractFeatures(r.bytes);
  const local = await extractLocalFeatures(r.bytes, 'reference', vocabulary);
  realItems.push({ imageId: `img${i}`, partId: `part:${r.file}`, ref: { global, local } });
}
// Optional padding with the cached synthetic references of bench/photo-search.js (--pad N). Beyond
// the cache (9,486 records), copies of cached records with ~3 % of each descriptor's bits flipped
// and keypoints moved by up to 1 px, under their stored word (a re-extraction of the same photo):
// free to make, so 50,000 references are measured without hours of extraction; they make the
// postings of the same words longer exactly as more synthetic photos of the same parts would.
// The padding is loaded as the server's start-up does (image-search.ts loadAll): encoded records
// decoded, then one bulk add; CPU time and memory of that load are printed.
const PAD = Number(arg('pad', '0'));
if (PAD > 0) {
  const fs = await import('node:fs');
  const { decodeFeatures } = await import(`${DIST}/core/search/image-similarity.js`);
  const { decodeLocalFeatures } = await import(`${DIST}/core/search/photo/local-features.js`);
  const { encodePhotoFeatures, decodePhotoFeatures } = await import(`${DIST}/core/search/photo/photo-search.js`);
  const dir = new URL('./tmp/photo-cache/', import.meta.url);
  // The cache of this build's reference settings (the key of bench/photo-search.js): another
  // extraction's cache would pad with features this build does not compute.
  const key = `v1-${JSON.stringify(LOCAL_SETTINGS.reference)}-voc${vocabulary.id}-${vocabulary.size}`.replace(/[^a-z0-9]+/gi, '_');
  const file = `synthetic-${key}.bin`;
  if (!fs.existsSync(new URL(file, dir))) throw new Error(`no cache ${file}: run bench/photo-search.js with this build first`);
  for (let k = 0; k < 2; k++) { globalThis.gc?.(); await new Promise((r) => setTimeout(r, 300)); }
  const before = process.memoryUsage();
  let buf = fs.readFileSync(new URL(file, dir));
  const cached = [];
  let o = 0;
  while (o < buf.length && cached.length < PAD) {
    const src = buf.readUInt32LE(o), gl = buf.readUInt32LE(o + 4), ll = buf.readUInt32LE(o + 8);
    o += 12;
    cached.push({ src, g: new Uint8Array(buf.buffer, buf.byteOffset + o, gl), l: new Uint8Array(buf.buffer, buf.byteOffset + o + gl, ll) });
    o += gl + ll;
  }
  // Encoded records, as the store returns them.
  let seed = 12345;
  const rnd = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed / 4294967296; };
  const records = [];
  for (let i = 0; i < PAD; i++) {
    const c = cached[i % cached.length];
    if (i < cached.length) { records.push({ src: c.src, bytes: encodePhotoFeatures(decodeFeatures(c.g), decodeLocalFeatures(c.l)) }); continue; }
    records.push({ src: c.src, bytes: encodePhotoFeatures(decodeFeatures(c.g), jitterLocalFeatures(decodeLocalFeatures(c.l), rnd)) });
  }
  cached.length = 0;
  buf = null;
  const t0 = now();
  const items = [...realItems, ...records.map((r, k) => ({ imageId: `syn${k}`, partId: `part:${sets.references[r.src].file}`, ref: decodePhotoFeatures(r.bytes) }))];
  realItems.length = 0;
  const t1 = now();
  if (index.addMany) index.addMany(items);
  else for (const it of items) index.add(it.imageId, it.partId, it.ref);
  const t2 = now();
  items.length = 0;
  records.length = 0;
  // Freed ArrayBuffers are swept concurrently: collect twice with pauses before reading.
  for (let k = 0; k < 2; k++) { globalThis.gc?.(); await new Promise((r) => setTimeout(r, 300)); }
  const after = process.memoryUsage();
  const mb = (x) => (x / 2 ** 20).toFixed(0);
  console.log(`padded to ${index.size} references; load of ${PAD}: decode ${(t1 - t0).toFixed(0)} ms CPU, bulk add ${(t2 - t1).toFixed(0)} ms CPU`);
  console.log(`index memoryBytes ${mb(index.memoryBytes)} MB (posting heap memory ${mb(index.local.heapBytes ?? 0)} MB; ${(index.memoryBytes / index.size / 1024).toFixed(1)} KB a reference; ${index.local.droppedWords ?? 0} stop words' postings dropped; split ${JSON.stringify(index.local.splitStats?.() ?? {})}); heap+arrayBuffers growth ${mb(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers)} MB; rss ${mb(after.rss)} MB`);
  // An upload once the index is loaded (image-search.ts applies it from the change log): CPU of
  // decoding its record and adding it, then of removing it, 50 times over.
  {
    const { encodePhotoFeatures: enc, decodePhotoFeatures: dec } = await import(`${DIST}/core/search/photo/photo-search.js`);
    const { extractFeatures: ef } = await import(`${DIST}/adapters/images/sharp-features.js`);
    const { extractLocalFeatures: elf } = await import(`${DIST}/adapters/images/local-features/extract.js`);
    const r0 = sets.references[0].bytes;
    const rec = enc(await ef(r0), await elf(r0, 'reference', vocabulary));
    const ta = now();
    for (let k = 0; k < 50; k++) index.add(`upload${k}`, 'part:upload', dec(rec));
    const tb = now();
    for (let k = 0; k < 50; k++) index.remove(`upload${k}`);
    const tc = now();
    console.log(`upload into the loaded index: add ${((tb - ta) / 50).toFixed(2)} ms CPU, remove ${((tc - tb) / 50).toFixed(2)} ms CPU (mean of 50)`);
  }
}
if (PAD === 0) index.addMany(realItems);
const CONDS = arg('conds', 'scene,rot').split(',');
// Conditions beyond the five (bench/photo-conditions.js, twelfth round) join when named in --conds.
const { NEW_CONDITIONS, conditionQueries } = await import('./photo-conditions.js');
const beyond = CONDS.some((c) => NEW_CONDITIONS.includes(c))
  ? await conditionQueries(sets, { perCondition: PER, conditions: NEW_CONDITIONS.filter((c) => CONDS.includes(c)) })
  : [];
const qs = [
  ...[...sets.queries, ...beyond].filter((q) => CONDS.includes(q.condition)).slice(0, N),
  ...(CONDS.includes('distractor') ? sets.distractors.map((d) => ({ ...d, condition: 'distractor', file: '-' })) : []),
];
const recall = {};
// Second looks measured (fourteenth round): the product's setting, or PHOTO_LOOKS; none in builds without it.
const LOOKS = secondLookFeatures ? (JSON.parse(process.env.PHOTO_LOOKS ?? 'null') ?? (LOCAL_SETTINGS.query.secondLook ? [LOCAL_SETTINGS.query.secondLook] : [])) : [];
const looks = LOOKS.map((look) => ({ look, recall: {}, total: [], unconfidentFirst: [], unconfidentTotal: [], second: [] }));
/** Adds a query's answer to a recall table (R@1, R@5, true part ≥ 0.5 / distractor best ≥ 0.5, inliers). */
const score = (table, q, hits) => {
  const r = hits.findIndex((h) => h.part_id === `part:${q.file}`);
  const c = (table[q.condition] ??= { n: 0, r1: 0, r5: 0, conf: 0 });
  c.n++; if (r === 0) c.r1++; if (r >= 0 && r < 5) c.r5++; if (r >= 0 && hits[r].score >= 0.5) c.conf++;
  if (q.condition === 'distractor' && (hits[0]?.score ?? 0) >= 0.5) c.conf++;
  (c.inl ??= []).push(r >= 0 ? hits[r].inliers : (hits[0]?.inliers ?? 0));
  return { r, c };
};
const OPTS = { ...PHOTO_LOCAL_DEFAULTS, ...JSON.parse(process.env.PHOTO_QUERY ?? '{}') };
const t = { decode: [], orb: [], words: [], views: [], search: [], total: [] };
const DUMP = arg('dump', '');
const dumped = [];
for (const q of qs) {
  const t0 = now();
  const raster = await decodeGrey(q.bytes, 'query');
  const t1 = now();
  const f = localFeaturesFromGrey(cv, raster, LOCAL_SETTINGS.query);
  const t2 = now();
  f.words = vocabulary.assign(f.descriptors); f.vocabulary = vocabulary.id;
  const t3 = now();
  const views = await rotatedGlobalFeatures(q.bytes);
  const t4 = now();
  const localHits = index.local.query(f, OPTS);
  const t45 = now();
  (t.matches ??= []).push(index.local.lastStats?.matches ?? 0);
  // Postings compared by the local search (before the fifth round: the postings of the query's own words).
  { let c = index.local.lastStats?.compared; if (c === undefined) { c = 0; for (let i = 0; i < f.count; i++) c += index.local.postings[f.words[i]].length; } (t.comparisons ??= []).push(c); }
  const hits = index.query({ views, local: f }, 25, { local: OPTS });
  const t5 = now();
  const firstTotal = t5 - t0 - (t45 - t4);
  const merged = [];
  for (const L of looks) {
    let answer = hits;
    let extra = 0;
    if (wantsSecondLook(hits)) {
      const s0 = now();
      const f2 = secondLookFeatures(cv, raster, { ...LOCAL_SETTINGS.query, secondLook: L.look }, vocabulary);
      answer = mergeLooks(hits, index.query({ views, local: f2 }, 25, { local: OPTS }), 25);
      extra = now() - s0;
      L.second.push(extra);
      L.unconfidentFirst.push(firstTotal);
      L.unconfidentTotal.push(firstTotal + extra);
    }
    L.total.push(firstTotal + extra);
    score(L.recall, q, answer);
    merged.push(answer.map((h) => [h.part_id, h.score, h.inliers]));
  }
  if (DUMP) {
    dumped.push(JSON.stringify({
      query: `${q.condition}/${q.file}/${q.name ?? ''}`,
      compared: index.local.lastStats?.compared, matches: index.local.lastStats?.matches,
      local: localHits.map((h) => [h.image_id, h.inliers, h.matches, h.votes, h.rotation, h.scale]),
      hits: hits.map((h) => [h.part_id, h.score, h.inliers]),
      ...(merged.length ? { looks: merged } : {}),
    }));
  }
  const { c } = score(recall, q, hits);
  // Inliers of the best hit of a distractor (≥ 8 listed): what the local midpoint must stay above.
  if (q.condition === 'distractor' && (hits[0]?.inliers ?? 0) >= 8) (c.high ??= []).push(hits[0].inliers);
  (t.local ??= []).push(t45 - t4);
  t.decode.push(t1 - t0); t.orb.push(t2 - t1); t.words.push(t3 - t2); t.views.push(t4 - t3); t.search.push(t5 - t45); t.total.push(t5 - t0 - (t45 - t4));
}
if (DUMP) (await import('node:fs')).writeFileSync(DUMP, `${dumped.join('\n')}\n`);
const p = (a, q) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(1); };
for (const [k, v] of Object.entries(t)) console.log(`${k}: p50 ${p(v, 0.5)} p90 ${p(v, 0.9)} p99 ${p(v, 0.99)}`);
const quantiles = (table) => { for (const c of Object.values(table)) { c.inl.sort((a, b) => a - b); c.inl = [0.1, 0.25, 0.5, 0.75, 0.9, 0.95].map((p) => c.inl[Math.floor(p * c.inl.length)]); } };
quantiles(recall);
console.log(JSON.stringify(recall));
for (const [k, L] of looks.entries()) {
  quantiles(L.recall);
  const u = L.second.length;
  console.log(`second look ${k} ${JSON.stringify(L.look)}: ${u} of ${qs.length} queries unconfident; total CPU p50 ${p(L.total, 0.5)} p90 ${p(L.total, 0.9)} p99 ${p(L.total, 0.99)}` +
    (u ? `; unconfident queries: first look p50 ${p(L.unconfidentFirst, 0.5)} p99 ${p(L.unconfidentFirst, 0.99)}, with the second p50 ${p(L.unconfidentTotal, 0.5)} p99 ${p(L.unconfidentTotal, 0.99)} (second look alone p50 ${p(L.second, 0.5)} p99 ${p(L.second, 0.99)})` : ''));
  console.log(`second look ${k} recall ${JSON.stringify(L.recall)}`);
}
if (!args.includes('--build')) process.exit(0);
// Index build cost: add the references 10 times over (≈ 5,000 images).
{
  const feats = [];
  for (const r of sets.references) feats.push({ global: await extractFeatures(r.bytes), local: await extractLocalFeatures(r.bytes, 'reference', vocabulary) });
  const { encodePhotoFeatures, decodePhotoFeatures } = await import(`${DIST}/core/search/photo/photo-search.js`);
  const blobs = feats.map((f) => encodePhotoFeatures(f.global, f.local));
  const t0 = now();
  const big = new PhotoReferenceIndex(vocabulary);
  for (let k = 0; k < 10; k++) blobs.forEach((b, i) => big.add(`x${k}-${i}`, `p${i}`, decodePhotoFeatures(b)));
  console.log(`build of ${big.size} from encoded records: ${(now() - t0).toFixed(0)} ms CPU, ${(big.memoryBytes / 2 ** 20).toFixed(1)} MB`);
}
