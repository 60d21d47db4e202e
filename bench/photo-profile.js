// Per-stage time of a photo query (issue 14): decode, ORB, word assignment, global views, local
// search, global search; over the cached query sets of bench/photo-queries.js.
// Usage: node bench/photo-profile.js [--per 40] [--refs 514] [--n 60]
import path from 'node:path';
import { photoSets } from './photo-queries.js';

const DIST = process.env.PHOTO_DIST ?? '../dist';
const { extractFeatures } = await import(`${DIST}/adapters/images/sharp-features.js`);
const { defaultVocabulary } = await import(`${DIST}/core/search/photo/vocabulary-data.js`);
const { PhotoReferenceIndex } = await import(`${DIST}/core/search/photo/photo-search.js`);
const { decodeGrey, localFeaturesFromGrey, extractLocalFeatures, LOCAL_SETTINGS } = await import(`${DIST}/adapters/images/local-features/extract.js`);
const { openCv } = await import(`${DIST}/adapters/images/local-features/opencv.js`);
const { rotatedGlobalFeatures } = await import(`${DIST}/adapters/images/local-features/global-views.js`);
const args = process.argv.slice(2);
const arg = (name, fallback) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : fallback; };
const PER = Number(arg('per', '40'));
const N = Number(arg('n', '60'));
const vocabulary = defaultVocabulary();
const cv = await openCv();
const sets = await photoSets({ perCondition: PER, log: () => {} });
const index = new PhotoReferenceIndex(vocabulary);
for (const [i, r] of sets.references.entries()) {
  const global = await extractFeatures(r.bytes);
  const local = await extractLocalFeatures(r.bytes, 'reference', vocabulary);
  index.add(`img${i}`, `part:${r.file}`, { global, local });
}
const qs = sets.queries.filter((q) => q.condition === 'scene' || q.condition === 'rot').slice(0, N);
const t = { decode: [], orb: [], words: [], views: [], search: [], total: [] };
// CPU time of this process (µs → ms): the machine is shared, so wall time of sync stages is noisy.
const now = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
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
  index.local.query(f);
  const t45 = now();
  index.query({ views, local: f }, 25);
  const t5 = now();
  (t.local ??= []).push(t45 - t4);
  t.decode.push(t1 - t0); t.orb.push(t2 - t1); t.words.push(t3 - t2); t.views.push(t4 - t3); t.search.push(t5 - t45); t.total.push(t5 - t0 - (t45 - t4));
}
const p = (a, q) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(1); };
for (const [k, v] of Object.entries(t)) console.log(`${k}: p50 ${p(v, 0.5)} p90 ${p(v, 0.9)} ms`);
// Index build cost: add the references 10 times over (≈ 5,000 images).
{
  const feats = [];
  for (const [i, r] of sets.references.entries()) feats.push({ global: await extractFeatures(r.bytes), local: await extractLocalFeatures(r.bytes, 'reference', vocabulary) });
  const { encodePhotoFeatures, decodePhotoFeatures } = await import(`${DIST}/core/search/photo/photo-search.js`);
  const blobs = feats.map((f) => encodePhotoFeatures(f.global, f.local));
  const t0 = now();
  const big = new PhotoReferenceIndex(vocabulary);
  for (let k = 0; k < 10; k++) blobs.forEach((b, i) => big.add(`x${k}-${i}`, `p${i}`, decodePhotoFeatures(b)));
  console.log(`build of ${big.size} from encoded records: ${(now() - t0).toFixed(0)} ms CPU, ${(big.memoryBytes / 2 ** 20).toFixed(1)} MB`);
}
