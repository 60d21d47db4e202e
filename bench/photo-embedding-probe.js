// Issue 14, eighth round: does a learned global embedding help the scene conditions? (Experiment, not
// run by tests; nothing of it is in src/.) The embedding is the global-average-pooled 1,280-d output
// (`flatten_1`) of the MobileNetV2 that the npm package nsfwjs ships inside its tarball (weights as
// JS modules, nothing fetched), run by @tensorflow/tfjs with the WebAssembly backend.
// Needs those packages, outside the project's dependencies:
//   mkdir -p /tmp/emb-probe && cd /tmp/emb-probe && npm init -y && \
//   npm install nsfwjs@4.4.0 @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 buffer
// Usage (after `npm run build`): EMB_MODULES=/tmp/emb-probe node bench/photo-embedding-probe.js
//   [--per 40] [--size 224] [--pad N]
// Prints R@1/R@5 per condition for today's search (local + global), the embedding alone (whole photo,
// and the best of a window grid), and fusions; distractors above 0.5. Embeddings cached in bench/tmp.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { photoSets } from './photo-queries.js';
import { argReader, cpuMs } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = argReader(args);
const PER = Number(arg('per', '40'));
const SIZE = Number(arg('size', '224'));
const PAD = Number(arg('pad', '0'));
const req = createRequire(path.join(process.env.EMB_MODULES ?? '/tmp/emb-probe', 'package.json'));
const tf = req('@tensorflow/tfjs');
req('@tensorflow/tfjs-backend-wasm');
const nsfwjs = req('nsfwjs');
await tf.setBackend('wasm');
await tf.ready();
const origInfo = console.info; console.info = () => {};
const model = await nsfwjs.load('MobileNetV2', { size: SIZE });
console.info = origInfo;
const ENDPOINT = arg('endpoint', 'flatten_1');
const now = cpuMs;
const embedCpu = [];

/** RGB raster of `bytes` (or of a window of it) fitted into SIZE × SIZE on white; as Float32 [S,S,3] 0..255. */
async function raster(bytes, win) {
  let s = sharp(bytes).rotate().flatten({ background: '#ffffff' });
  if (win) s = sharp(await s.extract(win).toBuffer());
  const { data } = await s.resize(SIZE, SIZE, { fit: 'contain', background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return Float32Array.from(data);
}
/** L2-normalised embedding of one raster. */
function embedRaster(px) {
  const t0 = now();
  const out = tf.tidy(() => model.infer(tf.tensor3d(px, [SIZE, SIZE, 3]), ENDPOINT));
  const v = out.dataSync().slice(); out.dispose();
  embedCpu.push(now() - t0);
  return v;
}
/** Windows of a query photo: the whole, a 3 × 3 grid of 50 % windows, a 2 × 2 grid of 66 % windows. */
async function windows(bytes) {
  const m = await sharp(bytes).rotate().metadata();
  const W = m.width, H = m.height, wins = [null];
  for (const [f, n] of [[0.5, 3], [0.66, 2]]) {
    const w = Math.round(W * f), h = Math.round(H * f);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) wins.push({ left: Math.round((W - w) * i / (n - 1)), top: Math.round((H - h) * j / (n - 1)), width: w, height: h });
  }
  return wins;
}

const sets = await photoSets({ perCondition: PER, log: () => {} });
const cacheFile = path.join(here, 'tmp', `embedding-${ENDPOINT}-${SIZE}-${PER}-pad${PAD}.json`);
let cache;
if (fs.existsSync(cacheFile)) cache = JSON.parse(fs.readFileSync(cacheFile, 'utf8'));
else {
  cache = { refs: [], refParts: sets.references.map((r) => r.file), queries: [] };
  for (const r of sets.references) cache.refs.push(Array.from(embedRaster(await raster(r.bytes))));
  const all = [...sets.queries, ...sets.distractors.map((d) => ({ ...d, condition: 'distractor' }))];
  for (const q of all) {
    const wins = [];
    for (const w of await windows(q.bytes)) wins.push(Array.from(embedRaster(await raster(q.bytes, w))));
    cache.queries.push({ condition: q.condition, file: q.file, wins });
  }
  fs.writeFileSync(cacheFile, JSON.stringify(cache));
  const s = [...embedCpu].sort((a, b) => a - b);
  console.log(`embedding CPU per raster (${SIZE} px): p50 ${s[s.length >> 1].toFixed(1)} ms, p99 ${s[Math.floor(s.length * 0.99)].toFixed(1)} ms`);
}
export { sets, cache };
