// Evaluation of the embedding caches of bench/photo-embedding-probe.js against today's hits
// (bench/photo-embedding-today.js): R@1 / R@5 per condition, distractors above 0.5, for the embedding
// alone and fused. Usage: node bench/photo-embedding-eval.js [--size 224] [--per 40]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argReader } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = argReader(args);
const PER = arg('per', '40'), SIZE = arg('size', '224'), EP = arg('endpoint', 'flatten_1'), PAD = arg('pad', '0');
const emb = JSON.parse(fs.readFileSync(path.join(here, 'tmp', `embedding-${EP}-${SIZE}-${PER}-pad${PAD}.json`), 'utf8'));
const today = JSON.parse(fs.readFileSync(path.join(here, 'tmp', `embedding-today-${PER}.json`), 'utf8'));
const D = emb.refs[0].length;
// Centering: the mean reference embedding is subtracted (ReLU features share a large common part).
const CENTER = !args.includes('--no-center');
const mean = new Float64Array(D);
if (CENTER) for (const r of emb.refs) for (let i = 0; i < D; i++) mean[i] += r[i] / emb.refs.length;
const norm = (v) => { const o = new Float64Array(D); let s = 0; for (let i = 0; i < D; i++) { o[i] = v[i] - mean[i]; s += o[i] * o[i]; } s = Math.sqrt(s) || 1; for (let i = 0; i < D; i++) o[i] /= s; return o; };
const refs = emb.refs.map(norm);
const refPart = emb.refParts; // part (file) of each reference row
const dot = (a, b) => { let s = 0; for (let i = 0; i < D; i++) s += a[i] * b[i]; return s; };
/** Per part: best cosine over its references and over the query's windows `use`. */
function partCos(q, use) {
  const wins = use.map((k) => norm(q.wins[k]));
  const best = new Map();
  refs.forEach((r, j) => { let c = -1; for (const w of wins) c = Math.max(c, dot(w, r)); const p = refPart[j]; if (!(best.get(p) >= c)) best.set(p, c); });
  return best;
}
const ALL = [...Array(emb.queries[0].wins.length).keys()];
const logit = (p) => Math.log(Math.max(p, 1e-6) / Math.max(1 - p, 1e-6));
const logistic = (x) => 1 / (1 + Math.exp(-x));
function evaluate(name, rank) {
  const st = {};
  emb.queries.forEach((q, i) => {
    const hits = rank(q, today[i]);
    const c = (st[q.condition] ??= { n: 0, r1: 0, r5: 0, conf: 0 });
    c.n++;
    if (q.condition === 'distractor') { if ((hits[0]?.score ?? 0) >= 0.5) c.conf++; return; }
    const r = hits.findIndex((h) => h.part === q.file);
    if (r === 0) c.r1++; if (r >= 0 && r < 5) c.r5++; if (r >= 0 && hits[r].score >= 0.5) c.conf++;
  });
  const f = (c) => `${(c.r1 / c.n).toFixed(3)}/${(c.r5 / c.n).toFixed(3)}/${(c.conf / c.n).toFixed(2)}`;
  console.log(`${name.padEnd(34)} ${['rot', 'rot90', 'zoom', 'scene', 'scene_fx', 'resize50', 'jpeg60', 'crop5', 'bright10', 'all'].map((k) => `${k} ${f(st[k])}`).join('  ')}  distr≥0.5 ${(st.distractor.conf / st.distractor.n).toFixed(2)}`);
  return st;
}
evaluate('today (local+global)', (q, t) => t.hits);
const embRank = (use) => (q) => [...partCos(q, use)].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([part, c]) => ({ part, score: c }));
evaluate('embedding: whole photo', embRank([0]));
evaluate('embedding: best of 14 windows', embRank(ALL));
evaluate('embedding: 3x3 50% windows', embRank([1, 2, 3, 4, 5, 6, 7, 8, 9]));
evaluate('embedding: whole + 2x2 66%', embRank([0, 10, 11, 12, 13]));
// Fusion: today's log-odds plus w · (z − z0), where z standardises the part's embedding cosine against
// this query's cosines over all parts; candidates = today's 25 ∪ the embedding's top K.
function fused(use, w, z0, K = 10) {
  return (q, t) => {
    const pc = partCos(q, use);
    const vals = [...pc.values()];
    const mu = vals.reduce((a, b) => a + b, 0) / vals.length;
    const sd = Math.sqrt(vals.reduce((a, b) => a + (b - mu) ** 2, 0) / vals.length) || 1;
    const cands = new Map(t.hits.map((h) => [h.part, h.score]));
    for (const [p] of [...pc].sort((a, b) => b[1] - a[1]).slice(0, K)) if (!cands.has(p)) cands.set(p, 0);
    return [...cands].map(([part, s]) => ({ part, score: logistic((s > 0 ? logit(s) : -8) + w * ((pc.get(part) - mu) / sd - z0)) }))
      .sort((a, b) => b.score - a.score);
  };
}
for (const use of [[0], ALL]) for (const [w, z0] of [[1, 3], [1.5, 3], [2, 3], [2, 4], [3, 4], [1, 5], [2, 5]]) evaluate(`fused ${use.length}w w=${w} z0=${z0}`, fused(use, w, z0));
// The scenes today's search misses: the true part's rank by the embedding (a candidate source must
// put it in its top K).
for (const use of [[0], ALL]) {
  const ranks = [];
  emb.queries.forEach((q, i) => {
    if (!q.condition.startsWith('scene') || today[i].hits[0]?.part === q.file) return;
    const order = [...partCos(q, use)].sort((a, b) => b[1] - a[1]);
    ranks.push(`${q.file.replace(/\.jpg$/, '')}:${order.findIndex(([p]) => p === q.file) + 1}`);
  });
  console.log(`embedding rank of the true part in today's scene misses (${use.length} windows): ${ranks.join(' ')}`);
}
