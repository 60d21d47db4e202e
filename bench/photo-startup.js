// Start-up of photo search (issue 14): CPU time to load N stored reference records into the photo
// index as the server does (image-search.ts loadAll): the store read (a SQLite table of encoded
// records), decoding, the bulk add, then the first queries (work an index leaves for later shows
// up there). CPU time (process.cpuUsage), not wall time: the 2-core machine is shared.
//
// The records are the cached synthetic references of bench/photo-search.js (run it once first with
// this build's reference settings), beyond the cache copies of them with ~3 % of each descriptor's
// bits flipped and keypoints moved by up to 1 px (as bench/photo-profile.js pads); written once to
// bench/tmp/photo-startup-<key>-<n>.db.
// Usage (after `npm run build`):
//   node --expose-gc bench/photo-startup.js [--n 10000] [--queries 20] [--server [--snapshot FILE]] [--product]
//   PHOTO_DIST=./tmp/dist-base … measures another build (the same records).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { jitterLocalFeatures, photoSets } from './photo-queries.js';
import { argReader, cpuMs } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.PHOTO_DIST ?? '../dist';
const args = process.argv.slice(2);
const arg = argReader(args);
const N = Number(arg('n', '10000'));
const QUERIES = Number(arg('queries', '20'));
const now = cpuMs;
const mb = (x) => (x / 2 ** 20).toFixed(0);
const settle = async () => { for (let k = 0; k < 2; k++) { globalThis.gc?.(); await new Promise((r) => setTimeout(r, 300)); } };

const { defaultVocabulary } = await import(`${DIST}/core/search/photo/vocabulary-data.js`);
const { LOCAL_SETTINGS } = await import(`${DIST}/adapters/images/local-features/extract.js`);
const photoSearch = await import(`${DIST}/core/search/photo/photo-search.js`);
const vocabulary = defaultVocabulary();
const key = `v1-${JSON.stringify(LOCAL_SETTINGS.reference)}-voc${vocabulary.id}-${vocabulary.size}`.replace(/[^a-z0-9]+/gi, '_');
// --product: the stored records of bench/photo-product.js (made by the product's
// extractPhotoReference: feature version 4, AKAZE records of the small references), its largest
// cache file, instead of the synthetic ORB records below.
const PRODUCT = args.includes('--product');
const productCache = PRODUCT
  ? fs.readdirSync(path.join(here, 'tmp', 'photo-cache')).filter((f) => f.startsWith('records-')).map((f) => path.join(here, 'tmp', 'photo-cache', f)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]
  : undefined;
if (PRODUCT && !productCache) throw new Error('no records cache: run bench/photo-product.js first');
const dbFile = PRODUCT ? path.join(here, 'tmp', `photo-startup-${path.basename(productCache, '.bin')}-${N}.db`) : path.join(here, 'tmp', `photo-startup-${key}-${N}.db`);

if (PRODUCT && !fs.existsSync(dbFile)) {
  const buf = fs.readFileSync(productCache);
  const db = new Database(`${dbFile}.part`);
  db.exec('CREATE TABLE refs (image_id TEXT PRIMARY KEY, part_id TEXT NOT NULL, features BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO refs VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let o = 0, i = 0; o + 8 <= buf.length && i < N; i++) {
      const len = buf.readUInt32LE(o + 4);
      insert.run(`img${String(i).padStart(6, '0')}`, `part${buf.readUInt32LE(o)}`, buf.subarray(o + 8, o + 8 + len));
      o += 8 + len;
    }
  })();
  db.close();
  fs.renameSync(`${dbFile}.part`, dbFile);
}

if (!fs.existsSync(dbFile)) {
  const { decodeFeatures } = await import(`${DIST}/core/search/image-similarity.js`);
  const { decodeLocalFeatures } = await import(`${DIST}/core/search/photo/local-features.js`);
  const cacheFile = path.join(here, 'tmp', 'photo-cache', `synthetic-${key}.bin`);
  if (!fs.existsSync(cacheFile)) throw new Error(`no cache ${cacheFile}: run bench/photo-search.js with this build first`);
  const buf = fs.readFileSync(cacheFile);
  const cached = [];
  for (let o = 0; o < buf.length;) {
    const src = buf.readUInt32LE(o), gl = buf.readUInt32LE(o + 4), ll = buf.readUInt32LE(o + 8);
    o += 12;
    cached.push({ src, g: buf.subarray(o, o + gl), l: buf.subarray(o + gl, o + gl + ll) });
    o += gl + ll;
  }
  let seed = 12345;
  const rnd = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed / 4294967296; };
  const tmpFile = `${dbFile}.part`;
  fs.rmSync(tmpFile, { force: true });
  const db = new Database(tmpFile);
  db.exec('CREATE TABLE refs (image_id TEXT PRIMARY KEY, part_id TEXT NOT NULL, features BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO refs VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const c = cached[i % cached.length];
      const local = decodeLocalFeatures(c.l);
      if (i >= cached.length) jitterLocalFeatures(local, rnd);
      const bytes = photoSearch.encodePhotoFeatures(decodeFeatures(c.g), local);
      insert.run(`img${String(i).padStart(6, '0')}`, `part${c.src}`, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
  })();
  db.close();
  fs.renameSync(tmpFile, dbFile);
}

// --server: the server's own load instead (image-search.ts FeatureIndexSimilaritySearch.sync over
// a store that reads the same table), CPU and wall of the whole sync, vocabulary decode included;
// the RSS after it, the rows read let go (with --expose-gc).
if (args.includes('--server')) {
  const { FeatureIndexSimilaritySearch } = await import(`${DIST}/adapters/images/image-search.js`);
  const db = new Database(dbFile, { readonly: true });
  const statement = db.prepare('SELECT image_id, part_id, features FROM refs');
  const store = {
    fingerprint: async () => '',
    changeVersion: async () => 0,
    changesSince: async (since) => ({ version: since, complete: true, more: false, upserted: [], removed: [] }),
    async *all() { for (const row of statement.all()) yield row; },
  };
  // --snapshot FILE: with the index's snapshot file (photo-index-snapshots.ts): the first run
  // builds from the records and writes FILE, later runs read it (delete FILE to build again).
  const snapshotFile = arg('snapshot', '');
  await settle();
  const search = new FeatureIndexSimilaritySearch(store, snapshotFile ? { snapshot: { file: snapshotFile, minReferences: 0 } } : {});
  const t0 = now();
  const w0 = performance.now();
  await search.sync();
  const t1 = now();
  const w1 = performance.now();
  const how = search.syncStats.snapshotLoads > 0 ? 'from the snapshot' : 'from the records';
  // The index's parts before close (a close may write the snapshot, never changes the index).
  const index = search.index;
  const parts = index ? `; photo index ${mb(index.memoryBytes)} MB (ORB ${mb(index.local?.memoryBytes ?? 0)}, AKAZE ${mb(index.small?.memoryBytes ?? 0)}, ${index.smallSize} small references)` : '';
  await search.close();
  const written = search.snapshots?.stats.writes ? `; snapshot written: ${mb(search.snapshots.stats.lastWriteBytes)} MB in ${search.snapshots.stats.lastWriteMs.toFixed(0)} ms wall` : '';
  const problem = search.snapshots?.stats.lastProblem ? `; snapshot problem: ${search.snapshots.stats.lastProblem}` : '';
  await settle();
  // Wall far above CPU: the process was paused or the cores busy (the load is one thread); repeat.
  console.log(`${DIST}: server load (FeatureIndexSimilaritySearch.sync) of ${search.size} references ${how}: ${(t1 - t0).toFixed(0)} ms CPU, ${(w1 - w0).toFixed(0)} ms wall; rss ${mb(process.memoryUsage().rss)} MB${parts}${written}${problem}`);
  process.exit(0);
}

await settle();
const before = process.memoryUsage();
const t0 = now();
const vocabularyLoaded = defaultVocabulary();
const t1 = now();
const db = new Database(dbFile, { readonly: true });
const rows = db.prepare('SELECT image_id, part_id, features FROM refs').all();
const t2 = now();
// As image-search.ts loadAll: decode every record, then one bulk add.
const index = new photoSearch.PhotoReferenceIndex(vocabularyLoaded, { dropStopWords: true });
const batch = [];
for (const row of rows) batch.push({ imageId: row.image_id, partId: row.part_id, ref: photoSearch.decodePhotoFeatures(row.features) });
const t3 = now();
index.addMany(batch);
const t4 = now();
rows.length = 0;
batch.length = 0;
await settle();
const after = process.memoryUsage();
console.log(`${DIST}: ${index.size} references; CPU ms: vocabulary ${(t1 - t0).toFixed(0)}, store read ${(t2 - t1).toFixed(0)}, decode ${(t3 - t2).toFixed(0)}, bulk add ${(t4 - t3).toFixed(0)}; total ${(t4 - t0).toFixed(0)}`);
// Posting heap (issue 14, ninth round): a WebAssembly.Memory, not counted in arrayBuffers.
const heap = index.local?.heapBytes ?? 0;
console.log(`  photo index memoryBytes ${mb(index.memoryBytes)} MB; posting heap memory ${mb(heap)} MB; heap+arrayBuffers+posting heap growth ${mb(after.heapUsed + after.arrayBuffers + heap - before.heapUsed - before.arrayBuffers)} MB; heap+arrayBuffers growth ${mb(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers)} MB; rss ${mb(after.rss)} MB; split ${JSON.stringify(index.local?.splitStats?.() ?? {})}`);

// The first queries after the load (their local search alone), and the same queries again.
if (QUERIES > 0) {
  const { decodeGrey, localFeaturesFromGrey } = await import(`${DIST}/adapters/images/local-features/extract.js`);
  const { openCv } = await import(`${DIST}/adapters/images/local-features/opencv.js`);
  const cv = await openCv();
  const sets = await photoSets({ perCondition: 40, log: () => {} });
  const qs = sets.queries.filter((q) => q.condition === 'scene').slice(0, QUERIES);
  const feats = [];
  for (const q of qs) {
    const f = localFeaturesFromGrey(cv, await decodeGrey(q.bytes, 'query'), LOCAL_SETTINGS.query);
    f.words = vocabulary.assign(f.descriptors);
    f.vocabulary = vocabulary.id;
    feats.push(f);
  }
  const opts = photoSearch.PHOTO_LOCAL_DEFAULTS ?? {};
  const pass = () => feats.map((f) => { const a = now(); index.local.query(f, opts); return now() - a; });
  const first = pass();
  const again = pass();
  const fmt = (a) => `first ${a[0].toFixed(0)}, max ${Math.max(...a).toFixed(0)}, sum ${a.reduce((x, y) => x + y, 0).toFixed(0)}`;
  console.log(`  local search of ${feats.length} scene queries, CPU ms: after the load ${fmt(first)}; again ${fmt(again)}`);
  await settle();
  console.log(`  photo index memoryBytes after the queries ${mb(index.memoryBytes)} MB; rss ${mb(process.memoryUsage().rss)} MB`);
}
