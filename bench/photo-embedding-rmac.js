// Issue 14, eighth round, second variant of bench/photo-embedding-probe.js: regional max pooling
// (R-MAC-style) of a convolutional map of the same MobileNetV2 (nsfwjs), so that a part filling
// 40–50 % of a cluttered photo is compared by the regions that hold it. One 224-px inference per image;
// a reference is the max over its whole map, a query every square region of 2..7 cells (7 × 7 map)
// or 4..14 cells stride 2 (14 × 14 map). Same EMB_MODULES as the probe.
// Usage: EMB_MODULES=/tmp/emb-probe node bench/photo-embedding-rmac.js --layer out_relu
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { photoSets } from './photo-queries.js';
import { argReader } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = argReader(args);
const LAYER = arg('layer', 'out_relu');
const SIZE = 224;
const req = createRequire(path.join(process.env.EMB_MODULES ?? '/tmp/emb-probe', 'package.json'));
const tf = req('@tensorflow/tfjs');
req('@tensorflow/tfjs-backend-wasm');
const nsfwjs = req('nsfwjs');
await tf.setBackend('wasm');
const info = console.info; console.info = () => {};
const model = await nsfwjs.load('MobileNetV2', { size: SIZE });
console.info = info;
const sets = await photoSets({ perCondition: 40, log: () => {} });
async function fmap(bytes) {
  const { data } = await sharp(bytes).rotate().flatten({ background: '#ffffff' }).resize(SIZE, SIZE, { fit: 'contain', background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const out = tf.tidy(() => model.infer(tf.tensor3d(Float32Array.from(data), [SIZE, SIZE, 3]), LAYER));
  const [, H, W, C] = out.shape; const v = out.dataSync().slice(); out.dispose();
  return { H, W, C, v };
}
/** Max over the cells [y0, y0+s) × [x0, x0+s) per channel. */
function mac({ W, C, v }, y0, x0, s) {
  const o = new Float32Array(C).fill(-Infinity);
  for (let y = y0; y < y0 + s; y++) for (let x = x0; x < x0 + s; x++) { const b = (y * W + x) * C; for (let c = 0; c < C; c++) if (v[b + c] > o[c]) o[c] = v[b + c]; }
  return o;
}
function regions(m) {
  const out = [];
  const sizes = m.H <= 7 ? [[2, 1], [3, 1], [4, 1], [5, 1], [7, 1]] : [[4, 2], [6, 2], [8, 2], [10, 2], [14, 1]];
  for (const [s, st] of sizes) for (let y = 0; y + s <= m.H; y += st) for (let x = 0; x + s <= m.W; x += st) out.push(mac(m, y, x, s));
  return out;
}
const refs = [];
for (const r of sets.references) { const m = await fmap(r.bytes); refs.push(mac(m, 0, 0, m.H)); }
const C = refs[0].length;
const mean = new Float64Array(C); for (const r of refs) for (let c = 0; c < C; c++) mean[c] += r[c] / refs.length;
const norm = (v) => { const o = new Float32Array(C); let s = 0; for (let c = 0; c < C; c++) { o[c] = v[c] - mean[c]; s += o[c] * o[c]; } s = Math.sqrt(s) || 1; for (let c = 0; c < C; c++) o[c] /= s; return o; };
const R = refs.map(norm);
const res = [];
for (const q of [...sets.queries, ...sets.distractors.map((d) => ({ ...d, condition: 'distractor' }))]) {
  const regs = regions(await fmap(q.bytes)).map(norm);
  const cos = R.map((r) => { let best = -1; for (const g of regs) { let s = 0; for (let c = 0; c < C; c++) s += g[c] * r[c]; if (s > best) best = s; } return best; });
  res.push({ condition: q.condition, file: q.file, cos });
}
fs.writeFileSync(path.join(here, 'tmp', `embedding-rmac-${LAYER}.json`), JSON.stringify({ refParts: sets.references.map((r) => r.file), res }));
const st = {};
for (const q of res) {
  const order = q.cos.map((c, j) => [c, j]).sort((a, b) => b[0] - a[0]);
  const r = order.findIndex(([, j]) => sets.references[j].file === q.file);
  const c = (st[q.condition] ??= { n: 0, r1: 0, r5: 0 }); c.n++; if (r === 0) c.r1++; if (r >= 0 && r < 5) c.r5++;
}
console.log(LAYER, Object.entries(st).map(([k, c]) => `${k} ${(c.r1 / c.n).toFixed(3)}/${(c.r5 / c.n).toFixed(3)}`).join('  '));
