// Fusion of the shape probe (bench/photo-shape-probe.js) with today's answers (a `photo-profile.js
// --dump` file of the same query sets; issue 14, eleventh round). Rule: when today's best hit is
// confident (score ≥ 0.5) the answer is today's; otherwise, when the shape matcher's best part
// reaches `tau` and leads its runner-up by `margin`, that part goes first with a confident score
// (so a distractor passing the rule counts as a false hit). Prints R@1 / R@5 per condition and the
// distractor rate above 0.5 for a grid of (tau, margin), today's first.
// Usage: node bench/photo-shape-fuse.js DUMP.jsonl SHAPE.json
import fs from 'node:fs';

const [dumpFile, shapeFile] = process.argv.slice(2);
const today = new Map();
for (const line of fs.readFileSync(dumpFile, 'utf8').split('\n').filter(Boolean)) {
  const d = JSON.parse(line);
  today.set(d.query, d.hits);
}
const shape = JSON.parse(fs.readFileSync(shapeFile, 'utf8'));
function evaluate(tau, margin) {
  const by = {};
  for (const r of shape.results) {
    const hits = today.get(r.query.replace(/\/-\//, '/-/'));
    if (!hits) continue;
    let ranked = hits.map(([p, s]) => [p.replace(/^part:/, ''), s]);
    const confident = (ranked[0]?.[1] ?? 0) >= 0.5;
    const [best, second] = r.top;
    if (tau !== null && !confident && best && best[1] >= tau && best[1] - (second?.[1] ?? -1) >= margin) {
      ranked = [[best[0], 0.75], ...ranked.filter(([p]) => p !== best[0])];
    }
    const c = (by[r.condition] ??= { n: 0, r1: 0, r5: 0, conf: 0 });
    c.n++;
    if (r.condition === 'distractor') { if ((ranked[0]?.[1] ?? 0) >= 0.5) c.conf++; continue; }
    const k = ranked.findIndex(([p]) => p === r.file);
    if (k === 0) c.r1++;
    if (k >= 0 && k < 5) c.r5++;
  }
  return by;
}
const fmt = (by) => Object.entries(by).map(([k, c]) => (k === 'distractor' ? `distractors ≥0.5 ${c.conf}/${c.n}` : `${k} ${c.r1}/${c.r5} of ${c.n}`)).join('; ');
console.log(`today: ${fmt(evaluate(null, 0))}`);
for (const tau of [0.4, 0.5, 0.6, 0.7, 0.8]) for (const margin of [0, 0.05, 0.1, 0.2]) console.log(`tau ${tau} margin ${margin}: ${fmt(evaluate(tau, margin))}`);
