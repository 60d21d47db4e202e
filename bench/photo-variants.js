#!/usr/bin/env node
// Photo index variants on features extracted once: the fast loop for photo-search work. Building
// and querying an index from cached features takes about a minute at 1,000 references, where
// bench/photo-search.js extracts every query again (half an hour); a variant changes the index or
// query options, keeps only the first keypoints of each reference, re-extracts one side with other
// settings, or loads another build (a copy of dist/ with a changed module).
//
// Usage (after `npm run build`):
//   node bench/photo-variants.js extract [--size 1000] [--references unseen|shared]
//       the features of bench/photo-search.js's sets (the same seeded queries, distractors and
//       augmented copies of the references up to --size), into bench/tmp/photo-variants/
//   node bench/photo-variants.js extract-side <name> <role> '<settings JSON>'
//       one side again (role query or reference) with LOCAL_SETTINGS[role] overridden
//   node bench/photo-variants.js eval <variant.json>...
//       a variant: { "label", "size", "query": {PhotoQueryOptions}, "keep": N, "queries": name,
//       "references": name, "dist": "/path/to/a/build/dist" }; every key optional ({} is the build as it is)
// Each eval prints a line per variant and writes the table to bench/results.md.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argReader, msStats, prng, round, writeSection } from './lib.js';
import { augment, photoSets } from './photo-queries.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.join(here, '..', 'dist');
const CACHE = path.join(here, 'tmp', 'photo-variants');
const [mode, ...rest] = process.argv.slice(2);
const arg = argReader(rest);
const log = (s) => console.error(s);

const { encodeFeatures, decodeFeatures } = await import(`${DIST}/core/search/image-similarity.js`);
const { extractFeatures } = await import(`${DIST}/adapters/images/sharp-features.js`);
const { encodeLocalFeatures, decodeLocalFeatures } = await import(`${DIST}/core/search/photo/local-features.js`);
const { shippedVocabulary } = await import(`${DIST}/adapters/images/local-features/shipped-vocabulary.js`);
const { extractLocalFeatures, LOCAL_SETTINGS, decodeGrey, localFeaturesFromGrey } = await import(`${DIST}/adapters/images/local-features/extract.js`);
const { openCv } = await import(`${DIST}/adapters/images/local-features/opencv.js`);
const { rotatedGlobalFeatures } = await import(`${DIST}/adapters/images/local-features/global-views.js`);
const { DESCRIPTOR_WORDS } = await import(`${DIST}/core/search/photo/hamming.js`);
const vocabulary = await shippedVocabulary();

const FIELD = ['scene', 'scene_fx', 'perspective', 'occlusion', 'motion_blur', 'glare', 'low_light'];
const cacheFile = (kind, name = '') => path.join(CACHE, `${kind}${name ? `-${name}` : ''}.bin`);

/** Records { meta, globals: Features[], local: LocalFeatures } to one file: per record a count, the lengths, then meta JSON, each global, the local record. */
function writeRecords(file, records) {
  const chunks = [];
  for (const r of records) {
    const parts = [Buffer.from(JSON.stringify(r.meta)), ...r.globals.map((g) => Buffer.from(encodeFeatures(g))), Buffer.from(encodeLocalFeatures(r.local))];
    const head = Buffer.alloc(4 + 4 * parts.length);
    head.writeUInt32LE(parts.length, 0);
    parts.forEach((p, i) => head.writeUInt32LE(p.length, 4 + 4 * i));
    chunks.push(head, ...parts);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.concat(chunks));
}

function readRecords(file) {
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run node bench/photo-variants.js extract first`);
  const buf = fs.readFileSync(file);
  const out = [];
  for (let o = 0; o < buf.length; ) {
    const k = buf.readUInt32LE(o);
    const lengths = Array.from({ length: k }, (_, i) => buf.readUInt32LE(o + 4 + 4 * i));
    o += 4 + 4 * k;
    const parts = lengths.map((l) => {
      const part = new Uint8Array(buf.subarray(o, o + l));
      o += l;
      return part;
    });
    out.push({ meta: JSON.parse(Buffer.from(parts[0]).toString()), globals: parts.slice(1, -1).map((p) => decodeFeatures(p)), local: decodeLocalFeatures(parts.at(-1)) });
  }
  return out;
}

/** The sets of bench/photo-search.js (same seed and options) and the references' part ids. */
async function sets(references) {
  const s = await photoSets({ perCondition: 150, references, log });
  return { ...s, queryList: [...s.queries, ...s.distractors.map((d) => ({ ...d, condition: 'distractor' }))] };
}

async function extractQuery(cv, bytes) {
  return localFeaturesFromGrey(cv, await decodeGrey(bytes, 'query'), LOCAL_SETTINGS.query, vocabulary);
}

if (mode === 'extract') {
  const size = Number(arg('size', '1000'));
  const references = arg('references', 'unseen');
  const s = await sets(references);
  const refs = [];
  for (const [i, r] of s.references.entries()) refs.push({ meta: { part: `part:${r.file}`, src: i }, globals: [await extractFeatures(r.bytes)], local: await extractLocalFeatures(r.bytes, 'reference', vocabulary) });
  // Synthetic references: augmented copies of the real ones, as bench/photo-search.js makes them (same seed, same order).
  const rnd = prng(4242);
  for (let i = 0; refs.length < size; i++) {
    const src = i % s.references.length;
    const bytes = await augment(s.references[src].bytes, rnd);
    refs.push({ meta: { part: `part:${s.references[src].file}`, src }, globals: [await extractFeatures(bytes)], local: await extractLocalFeatures(bytes, 'reference', vocabulary) });
    if (refs.length % 500 === 0) log(`references: ${refs.length}/${size}`);
  }
  writeRecords(cacheFile('references'), refs);
  const cv = await openCv();
  const queries = [];
  for (const q of s.queryList) {
    queries.push({ meta: { condition: q.condition, truth: q.condition === 'distractor' ? null : `part:${q.file}` }, globals: await rotatedGlobalFeatures(q.bytes), local: await extractQuery(cv, q.bytes) });
    if (queries.length % 400 === 0) log(`queries: ${queries.length}/${s.queryList.length}`);
  }
  writeRecords(cacheFile('queries'), queries);
  fs.writeFileSync(path.join(CACHE, 'sets.json'), JSON.stringify({ references, size }));
  log(`${refs.length} references, ${queries.length} queries in ${CACHE}`);
} else if (mode === 'extract-side') {
  const [name, role, json] = rest;
  if (!name || (role !== 'query' && role !== 'reference') || !json) throw new Error("usage: extract-side <name> query|reference '<settings JSON>'");
  Object.assign(LOCAL_SETTINGS[role], JSON.parse(json));
  const { references } = JSON.parse(fs.readFileSync(path.join(CACHE, 'sets.json'), 'utf8'));
  const s = await sets(references);
  const cv = await openCv();
  if (role === 'query') {
    const old = readRecords(cacheFile('queries'));
    const out = [];
    for (const [i, q] of s.queryList.entries()) out.push({ ...old[i], local: await extractQuery(cv, q.bytes) });
    writeRecords(cacheFile('queries', name), out);
  } else {
    const old = readRecords(cacheFile('references'));
    const rnd = prng(4242);
    const out = [];
    for (const [i, r] of old.entries()) {
      const bytes = i < s.references.length ? s.references[i].bytes : await augment(s.references[r.meta.src].bytes, rnd);
      out.push({ ...r, local: await extractLocalFeatures(bytes, 'reference', vocabulary) });
    }
    writeRecords(cacheFile('references', name), out);
  }
  log(`${role} features "${name}" in ${CACHE}`);
} else if (mode === 'eval') {
  const loaded = new Map();
  const records = (kind, name) => {
    const key = `${kind}/${name ?? ''}`;
    if (!loaded.has(key)) loaded.set(key, readRecords(cacheFile(kind, name)));
    return loaded.get(key);
  };
  const rows = [];
  for (const file of rest) {
    const v = JSON.parse(fs.readFileSync(file, 'utf8'));
    const { PhotoReferenceIndex } = await import(`${v.dist ?? DIST}/core/search/photo/photo-search.js`);
    const { CONFIDENT_SCORE } = await import(`${v.dist ?? DIST}/core/search/photo/confidence.js`);
    const refs = records('references', v.references);
    const queries = records('queries', v.queries);
    const n = Math.min(v.size ?? refs.length, refs.length);
    const index = new PhotoReferenceIndex(vocabulary);
    index.addMany(refs.slice(0, n).map((r, i) => ({ imageId: `img${i}`, partId: r.meta.part, ref: { global: r.globals[0], local: v.keep ? firstKeypoints(r.local, v.keep) : r.local } })));
    const found = {};
    const ms = [];
    for (const q of queries) {
      const row = (found[q.meta.condition] ??= { n: 0, first: 0, top5: 0, confident: 0 });
      row.n++;
      const t = performance.now();
      const hits = index.query({ views: q.globals, local: q.local }, 25, { local: v.query ?? {} });
      ms.push(performance.now() - t);
      if (q.meta.truth === null) {
        if ((hits[0]?.score ?? 0) >= CONFIDENT_SCORE) row.confident++;
        continue;
      }
      if (hits[0]?.part_id === q.meta.truth) row.first++;
      if (hits.slice(0, 5).some((h) => h.part_id === q.meta.truth)) row.top5++;
    }
    const field = FIELD.reduce((sum, c) => sum + (found[c]?.first ?? 0), 0);
    const fieldN = FIELD.reduce((sum, c) => sum + (found[c]?.n ?? 0), 0);
    const fieldTop5 = FIELD.reduce((sum, c) => sum + (found[c]?.top5 ?? 0), 0);
    const row = { label: v.label ?? path.basename(file, '.json'), references: n, kbPerReference: round(index.memoryBytes / n / 1024), field, fieldTop5, fieldN, distractors: found.distractor?.confident ?? 0, distractorsN: found.distractor?.n ?? 0, queryMs: msStats(ms), found };
    rows.push(row);
    console.log(JSON.stringify({ ...row, found: Object.fromEntries(Object.entries(found).map(([c, r]) => [c, c === 'distractor' ? r.confident : [r.first, r.top5]])) }));
  }
  const conditions = Object.keys(rows[0]?.found ?? {}).filter((c) => c !== 'distractor');
  writeSection('photo-variants', 'Photo index variants on cached features', [
    `Features of bench/photo-search.js's sets extracted once (bench/tmp/photo-variants), each variant's index built and queried in this process (index query only, no extraction). Per condition: found first / in the first five (of ${rows[0]?.found[conditions[0] ?? '']?.n ?? '?'}); distractors: confident best hits.`,
    '',
    `| variant | references | KB a reference | field found first / in the first five | distractors | ${conditions.join(' | ')} | query p50 / p99 ms |`,
    `|---|---|---|---|---|${conditions.map(() => '---|').join('')}---|`,
    ...rows.map((r) => `| ${r.label} | ${r.references} | ${r.kbPerReference} | ${r.field} / ${r.fieldTop5} of ${r.fieldN} | ${r.distractors} of ${r.distractorsN} | ${conditions.map((c) => (r.found[c] ? `${r.found[c].first} / ${r.found[c].top5}` : '')).join(' | ')} | ${r.queryMs.p50} / ${r.queryMs.p99} |`),
  ].join('\n'));
} else {
  console.error('usage: node bench/photo-variants.js extract [--size N] [--references unseen|shared] | extract-side <name> query|reference <json> | eval <variant.json>...');
  process.exit(2);
}

/** A reference's record cut to its first `k` keypoints (detection order). */
function firstKeypoints(f, k) {
  if (f.count <= k) return f;
  return { ...f, count: k, xs: f.xs.slice(0, k), ys: f.ys.slice(0, k), angles: f.angles.slice(0, k), sizes: f.sizes.slice(0, k), descriptors: f.descriptors.slice(0, k * DESCRIPTOR_WORDS), words: f.words.length > 0 ? f.words.slice(0, k) : f.words };
}
