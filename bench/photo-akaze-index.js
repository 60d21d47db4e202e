// The product's index on AKAZE records (issue 14, fourteenth round; docs/search.md "Fourteenth
// round"): the AKAZE records (src/adapters/images/local-features/akaze.ts) of every reference whose
// image is at most --max-side px on its long side (akaze.ts SMALL_REFERENCE_SIDE), among the 514 real
// references and the synthetic padding of bench/photo-search.js (re-made from the same seeded
// augmentation as bench/photo-akaze-probe.js does: --pad 9486 is the 10,000-reference catalog), in a
// `PhotoIndex` over the AKAZE vocabulary (akaze-vocabulary-data.ts, or --vocab), queried with the
// AKAZE features of the scene / scene_fx queries and the 100 distractors of bench/photo-queries.js.
//
// Usage (after `npm run build`):
//   nice -n 10 node bench/photo-akaze-index.js extract [--max-side 70] [--pad 9486] [--per 40] [--conds scene,scene_fx]
//     extracts once (CPU ms a reference / a query) into bench/tmp/akaze-index/features-<max>-<pad>-<per>.bin;
//     --reuse-refs --tag NAME --conds …: the same references, other queries (then `query --tag NAME`)
//   nice -n 10 node bench/photo-akaze-index.js query [--max-side 70] [--pad 9486] [--opts '[{"maxDistance":60}, …]']
//       [--vocab K1xK2] [--orb-dump FILE] [--dump FILE]
//     builds the index (CPU, memoryBytes), runs every query with each options object (CPU ms p50 /
//     p99 of `PhotoIndex.query`), and prints per variant: found first among the small parts (the
//     true part's reference is small), the distractors' best inliers, and — with --orb-dump, a
//     `photo-profile.js --dump` of the same queries at the same size — the probe's rule (ORB's answer
//     unless it has no hit ≥ 0.5; then AKAZE's best part with ≥ A inliers and a lead of L parts'
//     inliers over the runner-up) as found first / distractors with a confident answer.
//     --vocab K1xK2: a vocabulary of that shape trained here on the same training split as
//     bench/photo-vocabulary.js --family akaze (cached in bench/tmp/akaze-index/).
//     --dump FILE: every query's AKAZE hits (first options object), one JSON line a query, for
//     the calibration (small-look.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { augment, photoSets } from './photo-queries.js';
import { argReader, cpuMs, overrideSettings, prng, quantile } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.PHOTO_DIST ?? '../dist';
const args = process.argv.slice(2);
const command = args[0];
const arg = argReader(args);
const PER = Number(arg('per', '40'));
const MAX_SIDE = Number(arg('max-side', '70'));
const PAD = Number(arg('pad', '9486'));
const OUT_DIR = path.join(here, 'tmp', 'akaze-index');
// --tag NAME: the queries of another `--conds` (written by `extract --reuse-refs --tag NAME`).
const TAG = arg('tag', '');
const FEATURES = path.join(OUT_DIR, `features-${MAX_SIDE}-${PAD}-${PER}${TAG ? `-${TAG}` : ''}.bin`);
const BASE_FEATURES = path.join(OUT_DIR, `features-${MAX_SIDE}-${PAD}-${PER}.bin`);
const now = cpuMs;

const { openCv } = await import(`${DIST}/adapters/images/local-features/opencv.js`);
const { decodeGrey } = await import(`${DIST}/adapters/images/local-features/extract.js`);
const { akazeFeaturesFromGrey, AKAZE_SETTINGS } = await import(`${DIST}/adapters/images/local-features/akaze.js`);
// AKAZE_SETTINGS='{"query":{"maxSide":400}}' overrides akaze.ts AKAZE_SETTINGS in this process (experiments).
overrideSettings(AKAZE_SETTINGS, 'AKAZE_SETTINGS');
const { encodeLocalFeatures, decodeLocalFeatures } = await import(`${DIST}/core/search/photo/local-features.js`);

/** Records as [u32 header length][header JSON][u32 record length][record], one after another. */
function writeRecords(file, items) {
  const chunks = [];
  for (const { header, features } of items) {
    const h = Buffer.from(JSON.stringify(header));
    const r = encodeLocalFeatures(features);
    const lens = Buffer.alloc(4);
    lens.writeUInt32LE(h.length, 0);
    const rl = Buffer.alloc(4);
    rl.writeUInt32LE(r.length, 0);
    chunks.push(lens, h, rl, Buffer.from(r.buffer, r.byteOffset, r.byteLength));
  }
  fs.writeFileSync(file, Buffer.concat(chunks));
}
function readRecords(file) {
  const b = fs.readFileSync(file);
  const out = [];
  for (let o = 0; o < b.length;) {
    const hl = b.readUInt32LE(o); o += 4;
    const header = JSON.parse(b.subarray(o, o + hl).toString()); o += hl;
    const rl = b.readUInt32LE(o); o += 4;
    out.push({ header, features: decodeLocalFeatures(new Uint8Array(b.buffer, b.byteOffset + o, rl)) }); o += rl;
  }
  return out;
}

async function extract() {
  const cv = await openCv();
  const conds = arg('conds', 'scene,scene_fx').split(',');
  const sets = await photoSets({ perCondition: PER });
  // --reuse-refs: the references of an earlier `extract` (same --max-side / --pad), new queries only.
  const reuse = args.includes('--reuse-refs');
  const items = reuse ? readRecords(BASE_FEATURES).filter((r) => r.header.kind === 'reference') : [];
  const refMs = [];
  const addRef = async (bytes, part, imageId) => {
    const meta = await sharp(bytes).metadata();
    const side = Math.max(meta.width ?? 0, meta.height ?? 0);
    if (side > MAX_SIDE) return;
    const raster = await decodeGrey(bytes, 'reference');
    const a = now();
    const features = akazeFeaturesFromGrey(cv, raster, 'reference');
    refMs.push(now() - a);
    items.push({ header: { kind: 'reference', imageId, part, side }, features });
  };
  akazeFeaturesFromGrey(cv, await decodeGrey(sets.references[0].bytes, 'reference'), 'reference'); // warm-up
  const t0 = performance.now();
  if (!reuse) for (const [i, r] of sets.references.entries()) await addRef(r.bytes, `part:${r.file}`, `img${i}`);
  const rnd = prng(4242);
  for (let i = 0; i < (reuse ? 0 : PAD); i++) {
    const src = i % sets.references.length;
    await addRef(await augment(sets.references[src].bytes, rnd), `part:${sets.references[src].file}`, `pad${i}`);
    if ((i + 1) % 1000 === 0) console.error(`  padding ${i + 1} / ${PAD}, ${items.length} small references, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const refs = items.length;
  const kps = items.map((x) => x.features.count);
  if (!reuse) console.log(`${refs} references ≤ ${MAX_SIDE} px (${items.filter((x) => x.header.imageId.startsWith('img')).length} real), keypoints p50 ${quantile(kps, 0.5)} mean ${(kps.reduce((s, v) => s + v, 0) / refs).toFixed(0)} total ${kps.reduce((s, v) => s + v, 0)}; AKAZE reference CPU p50 ${quantile(refMs, 0.5).toFixed(1)} p99 ${quantile(refMs, 0.99).toFixed(1)} ms`);
  const queries = [
    ...sets.queries.filter((q) => conds.includes(q.condition)),
    ...sets.distractors.map((d) => ({ ...d, condition: 'distractor', file: '-' })),
  ];
  const qMs = [];
  const decodeMs = [];
  for (const q of queries) {
    const a = now();
    const raster = await decodeGrey(q.bytes, 'query');
    const b = now();
    const features = akazeFeaturesFromGrey(cv, raster, 'query');
    const c = now();
    decodeMs.push(b - a);
    qMs.push(c - b);
    items.push({ header: { kind: 'query', condition: q.condition, file: q.file, name: q.name ?? '', extractMs: c - b }, features });
  }
  const qk = items.slice(refs).map((x) => x.features.count);
  console.log(`${queries.length} queries: AKAZE query CPU p50 ${quantile(qMs, 0.5).toFixed(1)} p99 ${quantile(qMs, 0.99).toFixed(1)} ms (decodeGrey p50 ${quantile(decodeMs, 0.5).toFixed(1)} ms), keypoints p50 ${quantile(qk, 0.5)}`);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  writeRecords(FEATURES, items);
  console.log(`wrote ${FEATURES}`);
}

/** The vocabulary: shipped, or K1xK2 trained on the training split (cached). */
async function vocabularyFor(shape) {
  const { Vocabulary, trainVocabulary } = await import(`${DIST}/core/search/photo/vocabulary.js`);
  if (!shape) return (await import(`${DIST}/core/search/photo/akaze-vocabulary-data.js`)).akazeVocabulary();
  const [k1, k2] = shape.split('x').map(Number);
  const file = path.join(OUT_DIR, `vocabulary-${k1}x${k2}.bin`);
  if (fs.existsSync(file)) {
    const b = fs.readFileSync(file);
    return Vocabulary.deserialize(new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
  }
  const cv = await openCv();
  const sets = await photoSets({ perCondition: PER });
  const chunks = [];
  for (const ref of sets.references.filter((_, i) => i % 2 === 0)) {
    for (const role of ['reference', 'query']) chunks.push(akazeFeaturesFromGrey(cv, await decodeGrey(ref.bytes, role), role).descriptors);
  }
  const all = new Uint32Array(chunks.reduce((s, c) => s + c.length, 0));
  let o = 0;
  for (const c of chunks) { all.set(c, o); o += c.length; }
  const v = trainVocabulary(all, k1, k2, 6, 20251123, 2);
  const data = v.serialize();
  fs.writeFileSync(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  return v;
}

/** Parts ranked by their best image's inliers: [[part, inliers, matches, image], …]. */
function partsOf(hits) {
  const best = new Map();
  for (const h of hits) if (!best.has(h.part_id)) best.set(h.part_id, [h.part_id, h.inliers, h.matches, h.image_id]);
  return [...best.values()];
}

async function query() {
  const { PhotoIndex } = await import(`${DIST}/core/search/photo/photo-index.js`);
  const vocabulary = await vocabularyFor(arg('vocab'));
  const records = readRecords(FEATURES);
  const refs = records.filter((r) => r.header.kind === 'reference');
  const queries = records.filter((r) => r.header.kind === 'query');
  let a = now();
  for (const r of [...refs, ...queries]) { r.features.words = vocabulary.assign(r.features.descriptors); r.features.vocabulary = vocabulary.id; }
  const assignMs = now() - a;
  a = now();
  const index = new PhotoIndex(vocabulary, { dropStopWords: true });
  index.addMany(refs.map((r) => ({ imageId: r.header.imageId, partId: r.header.part, features: r.features })));
  const buildMs = now() - a;
  const kps = refs.map((r) => r.features.count);
  console.log(`vocabulary ${vocabulary.k1}×${vocabulary.k2}; ${refs.length} references (${kps.reduce((s, v) => s + v, 0)} keypoints, p50 ${quantile(kps, 0.5)} a reference); words assigned ${(assignMs / 1000).toFixed(1)} s CPU (query words p50 ${(assignMs / (refs.length + queries.length)).toFixed(1)} ms a record, about); bulk add ${buildMs.toFixed(0)} ms CPU; memoryBytes ${(index.memoryBytes / 2 ** 20).toFixed(1)} MB; split words ${index.splitWords}, dropped ${index.droppedWords}`);
  const smallParts = new Set(refs.filter((r) => r.header.imageId.startsWith('img')).map((r) => r.header.part));
  const orb = arg('orb-dump') ? new Map(fs.readFileSync(arg('orb-dump'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).map((d) => [d.query, d])) : undefined;
  const variants = JSON.parse(arg('opts', '[{}]'));
  const dumpFile = arg('dump');
  for (const [vi, opts] of variants.entries()) {
    const ms = [];
    const answers = [];
    for (const q of queries) {
      // Words as the product would assign them (the query's own words are reused when multiAssign is 1).
      const t = now();
      const hits = index.query(q.features, opts);
      ms.push(now() - t);
      answers.push({ q: q.header, parts: partsOf(hits).slice(0, 10), local: hits.slice(0, 20).map((h) => [h.image_id, h.part_id, h.inliers, h.matches, Number(h.votes.toFixed(3))]) });
    }
    if (dumpFile && vi === 0) fs.writeFileSync(dumpFile, `${answers.map((x) => JSON.stringify(x)).join('\n')}\n`);
    const line = [`${JSON.stringify(opts)}: search CPU p50 ${quantile(ms, 0.5).toFixed(1)} p99 ${quantile(ms, 0.99).toFixed(1)} ms`];
    for (const cond of ['scene', 'scene_fx']) {
      const rows = answers.filter((x) => x.q.condition === cond);
      const small = rows.filter((x) => smallParts.has(`part:${x.q.file}`));
      const first = small.filter((x) => x.parts[0]?.[0] === `part:${x.q.file}`).length;
      line.push(`${cond} small first ${first} / ${small.length}`);
    }
    if (args.includes('--detail')) {
      const detail = answers.filter((x) => x.q.condition !== 'distractor' && smallParts.has(`part:${x.q.file}`)).map((x) => {
        const t = x.parts.find((p) => p[0] === `part:${x.q.file}`);
        return `${x.q.condition === 'scene' ? 's' : 'f'}:${t ? t[1] : '-'}/${x.parts.find((p) => p[0] !== `part:${x.q.file}`)?.[1] ?? 0}`;
      });
      line.push(`true/best-wrong inliers ${detail.join(' ')}`);
    }
    const dist = answers.filter((x) => x.q.condition === 'distractor').map((x) => x.parts[0]?.[1] ?? 0);
    line.push(`distractor best inliers p50 ${quantile(dist, 0.5)} p95 ${quantile(dist, 0.95)} max ${Math.max(...dist)}`);
    console.log(line.join('; '));
    if (orb && !args.includes('--no-fuse')) fuseWithOrb(orb, answers);
  }
}

/** The probe's rule on the product's answers (`fuse` of bench/photo-akaze-probe.js), AKAZE from the index. */
function fuseWithOrb(orb, answers) {
  const rows = [];
  for (const A of [6, 8, 10, 12]) for (const L of [0, 2, 4]) {
    const c = { scene: 0, scene_fx: 0, distractor: 0 };
    let right = 0, wrong = 0;
    for (const x of answers) {
      const d = orb.get(`${x.q.condition}/${x.q.file}/${x.q.name}`);
      if (!d) throw new Error(`no ORB answer for ${x.q.condition}/${x.q.file}/${x.q.name}`);
      let answer = d.hits[0]?.[0];
      const confident = (d.hits[0]?.[1] ?? 0) >= 0.5;
      let fired = false;
      let ruled = false;
      if (!confident) {
        const [best, second] = [x.parts[0]?.[1] ?? 0, x.parts[1]?.[1] ?? 0];
        if (best >= A && best - second >= L) { fired = answer !== x.parts[0][0]; answer = x.parts[0][0]; ruled = true; }
      }
      // A distractor's answer is confident when the rule puts a part first, whether or not the
      // product's unconfident answer already had that part first (the probe's `fuse` counted only
      // changed answers).
      if (x.q.condition === 'distractor') { if (ruled || confident) c.distractor++; continue; }
      if (answer === `part:${x.q.file}`) c[x.q.condition]++;
      if (fired) { if (answer === `part:${x.q.file}`) right++; else wrong++; }
    }
    rows.push(`A ${A} L ${L}: scene ${c.scene} scene_fx ${c.scene_fx} distractors ${c.distractor} (changed right ${right} / wrong ${wrong})`);
  }
  const base = { scene: 0, scene_fx: 0, distractor: 0 };
  for (const d of orb.values()) {
    const [cond, file] = d.query.split('/');
    if (cond === 'distractor') { if ((d.hits[0]?.[1] ?? 0) >= 0.5) base.distractor++; } else if (cond in base && d.hits[0]?.[0] === `part:${file}`) base[cond]++;
  }
  console.log(`  product alone: scene ${base.scene} scene_fx ${base.scene_fx} distractors ${base.distractor}`);
  for (const r of rows) console.log(`  ${r}`);
}

/**
 * The calibration of small-look.ts: the AKAZE hits of a `query --dump` file turned into part hits
 * (`smallLookHits` of this build, and the same formula over a grid of its constants), merged with
 * the product's answer (`--orb-dump`, a `photo-profile.js --dump` of the same queries) as the lead's
 * merge does — only for a query whose ORB answer has no hit ≥ 0.5, per part the hit of more
 * evidence (photo-search.ts `mergeLooks`) — and counted: found first per condition, distractors
 * whose answer has a hit ≥ 0.5, true small parts at ≥ 0.5.
 */
async function calibrate() {
  const { smallLookHits } = await import(`${DIST}/core/search/photo/small-look.js`);
  // --sets AKAZE_DUMP:ORB_DUMP,… (several index sizes at once), or --dump / --orb-dump.
  const pairs = (arg('sets') ?? `${arg('dump')}:${arg('orb-dump')}`).split(',').map((p) => p.split(':'));
  const read = (file) => fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const sets = pairs.map(([a, o]) => ({ name: path.basename(a), akaze: read(a), orb: new Map(read(o).map((d) => [d.query, d])) }));
  const logit = (p) => Math.log(Math.max(p, 1e-300) / Math.max(1 - p, 1e-16));
  const localOf = (x) => x.local.map(([image_id, part_id, inliers, matches, votes]) => ({ image_id, part_id, inliers, matches, votes, rotation: 0, scale: 1, model: [] }));
  /** The formula of small-look.ts with other constants (for the grid); R weighs inliers / (matches + 10). */
  const formula = ({ M, W, L, P, R = 0 }) => (local) => {
    const best = new Map();
    for (const h of local) { const c = best.get(h.part_id); if (!c || h.inliers > c.inliers) best.set(h.part_id, h); }
    const parts = [...best.values()].sort((a, b) => b.inliers - a.inliers || (a.part_id < b.part_id ? -1 : 1));
    const f = parts[0]?.inliers ?? 0, s = parts[1]?.inliers ?? 0;
    return parts.map((h, i) => {
      const lead = h.inliers - (i === 0 ? s : f);
      const e = (h.inliers - M) / W + R * (h.inliers / (Math.max(h.matches, h.inliers) + 10)) - P * Math.max(0, L - lead);
      return { part_id: h.part_id, inliers: h.inliers, evidence: e, score: 1 / (1 + Math.exp(-e)) };
    });
  };
  const evaluate = (set, hitsOf) => {
    const conds = [...new Set(set.akaze.map((x) => x.q.condition).filter((k) => k !== 'distractor'))];
    const c = { ...Object.fromEntries(conds.map((k) => [k, 0])), distractor: 0, trueConf: 0, wrongConf: 0, changedRight: 0, changedWrong: 0 };
    for (const x of set.akaze) {
      const key = `${x.q.condition}/${x.q.file}/${x.q.name}`;
      const d = set.orb.get(key);
      if (!d) throw new Error(`no ORB answer for ${key}`);
      const first = d.hits.map(([part_id, score, inliers]) => ({ part_id, score, inliers, evidence: logit(score) }));
      let answer = first;
      if (!((first[0]?.score ?? 0) >= 0.5)) {
        const best = new Map(first.map((h) => [h.part_id, h]));
        for (const h of hitsOf(localOf(x))) { const cur = best.get(h.part_id); if (!cur || h.evidence > cur.evidence) best.set(h.part_id, h); }
        answer = [...best.values()].sort((a, b) => b.evidence - a.evidence || b.inliers - a.inliers);
      }
      const top = answer[0];
      const truth = `part:${x.q.file}`;
      if (x.q.condition === 'distractor') { if ((top?.score ?? 0) >= 0.5) c.distractor++; continue; }
      if (top?.part_id === truth) c[x.q.condition]++;
      if (top !== first[0]) { if (top?.part_id === truth) c.changedRight++; else if (first[0]?.part_id === truth) c.changedWrong++; }
      if ((top?.score ?? 0) >= 0.5) { if (top.part_id === truth) c.trueConf++; else c.wrongConf++; }
    }
    return { conds, c };
  };
  const cell = ({ conds, c }) => `${conds.map((k) => c[k]).join(' / ')}, ${c.distractor}, ${c.trueConf} / ${c.wrongConf}, ${c.changedRight} / ${c.changedWrong}`;
  console.log(`| evidence | ${sets.map((s) => `${s.name}: first per condition, distractors ≥ 0.5, first hit ≥ 0.5 right / wrong, changed right / lost`).join(' | ')} |`);
  console.log(`|---|${sets.map(() => '---|').join('')}`);
  const show = (name, hitsOf, quiet) => {
    const results = sets.map((s) => evaluate(s, hitsOf));
    const maxD = Number(arg('max-distractors', 'Infinity'));
    if (quiet && results.some((r) => r.c.distractor > maxD)) return;
    console.log(`| ${name} | ${results.map(cell).join(' | ')} |`);
  };
  show('product alone', () => []);
  show('small-look.ts (this build)', (local) => smallLookHits(local, 25));
  const grid = JSON.parse(arg('grid', 'null')) ?? [];
  if (!arg('grid')) for (const M of [8, 9, 10, 11, 12, 13]) for (const L of [0, 2, 3, 4]) for (const P of [1, 2]) for (const R of [0, 10, 20]) grid.push({ M, W: 1.5, L, P, R });
  for (const g of grid) show(JSON.stringify(g), formula(g), true);
}

if (command === 'extract') await extract();
else if (command === 'query') await query();
else if (command === 'calibrate') await calibrate();
else {
  console.error('usage: node bench/photo-akaze-index.js extract|query [options] (see the header)');
  process.exit(2);
}
