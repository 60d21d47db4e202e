// Today's photo search (local + global, as bench/photo-profile.js runs it) over the seeded query sets at
// 514 references: top 25 parts with score and inliers for every query and distractor, cached as JSON
// for bench/photo-embedding-probe.js. Usage (after `npm run build`): node bench/photo-embedding-today.js [--per 40]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { photoSets } from './photo-queries.js';
import { argReader } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.PHOTO_DIST ?? '../dist';
const { extractFeatures } = await import(`${DIST}/adapters/images/sharp-features.js`);
const { defaultVocabulary } = await import(`${DIST}/core/search/photo/vocabulary-data.js`);
const { PhotoReferenceIndex, PHOTO_LOCAL_DEFAULTS = {} } = await import(`${DIST}/core/search/photo/photo-search.js`);
const { extractLocalFeatures } = await import(`${DIST}/adapters/images/local-features/extract.js`);
const { rotatedGlobalFeatures } = await import(`${DIST}/adapters/images/local-features/global-views.js`);
const args = process.argv.slice(2);
const arg = argReader(args);
const PER = Number(arg('per', '40'));
const vocabulary = defaultVocabulary();
const sets = await photoSets({ perCondition: PER, log: () => {} });
const index = new PhotoReferenceIndex(vocabulary, { dropStopWords: true });
const items = [];
for (const [i, r] of sets.references.entries()) {
  items.push({ imageId: `img${i}`, partId: `part:${r.file}`, ref: { global: await extractFeatures(r.bytes), local: await extractLocalFeatures(r.bytes, 'reference', vocabulary) } });
}
index.addMany(items);
const out = [];
for (const q of [...sets.queries, ...sets.distractors.map((d) => ({ ...d, condition: 'distractor' }))]) {
  const local = await extractLocalFeatures(q.bytes, 'query', vocabulary);
  const views = await rotatedGlobalFeatures(q.bytes);
  const hits = index.query({ views, local }, 25, { local: PHOTO_LOCAL_DEFAULTS });
  out.push({ condition: q.condition, file: q.file, hits: hits.map((h) => ({ part: h.part_id.slice(5), score: h.score, inliers: h.inliers })) });
}
fs.writeFileSync(path.join(here, 'tmp', `embedding-today-${PER}.json`), JSON.stringify(out));
console.log(`${out.length} queries`);
