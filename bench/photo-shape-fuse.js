// Fusion of the shape probe (bench/photo-shape-probe.js) with today's answers (a `photo-profile.js
// --dump` file of the same query sets; issue 14, eleventh round). Rule: when today's best hit is
// confident (score ≥ 0.5) the answer is today's; otherwise, when the shape matcher's best part
// reaches `tau` and leads its runner-up by `margin`, that part goes first with a confident score
// (so a distractor passing the rule counts as a false hit). Queries the probe did not run keep
// today's answer. Prints R@1 / R@5 per condition and the distractors above 0.5 for a grid of
// (tau, margin), today's first.
// --calibrated: a part's evidence is its z-score against its own chance similarity (mean, sd over
// distractor photos), so a simple template (a bar, a digit) that matches clutter everywhere does
// not win by default. Cross-fitted: a distractor is scored with the statistics of the other half
// of the distractors (even / odd), so no distractor calibrates its own test.
// Usage: node bench/photo-shape-fuse.js DUMP.jsonl SHAPE.json [--calibrated]
import fs from 'node:fs';

const [dumpFile, shapeFile] = process.argv.slice(2);
const CALIBRATED = process.argv.includes('--calibrated');
const today = [];
for (const line of fs.readFileSync(dumpFile, 'utf8').split('\n').filter(Boolean)) {
  const d = JSON.parse(line);
  const [condition, file] = d.query.split('/');
  today.push({ query: d.query, condition, file, hits: d.hits.map(([p, s]) => [p.replace(/^part:/, ''), s]) });
}
const shape = JSON.parse(fs.readFileSync(shapeFile, 'utf8'));
const byQuery = new Map(shape.results.map((r) => [r.query, r]));
const distractorRows = shape.results.filter((r) => r.condition === 'distractor');
distractorRows.forEach((r, i) => { r.fold = i % 2; });
function chanceStats(rows) {
  const stats = new Map();
  for (const part of shape.weak) {
    const v = rows.map((r) => r.all[part] ?? 0);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(Math.max(1e-6, v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length));
    stats.set(part, { mean, sd });
  }
  return stats;
}
const chanceAll = chanceStats(distractorRows);
const chanceFold = [0, 1].map((f) => chanceStats(distractorRows.filter((r) => r.fold !== f)));
function ranked(r) {
  if (!CALIBRATED) return r.top;
  const stats = r.condition === 'distractor' ? chanceFold[r.fold] : chanceAll;
  return Object.entries(r.all).map(([part, s]) => [part, (s - stats.get(part).mean) / stats.get(part).sd]).sort((a, b) => b[1] - a[1]);
}
function evaluate(tau, margin) {
  const by = {};
  for (const q of today) {
    const r = byQuery.get(q.query);
    if (q.condition === 'distractor' && !r) continue; // distractors the probe did not run
    let hits = q.hits;
    const confident = (hits[0]?.[1] ?? 0) >= 0.5;
    if (r && tau !== null && !confident) {
      const [best, second] = ranked(r);
      if (best && best[1] >= tau && best[1] - (second?.[1] ?? -Infinity) >= margin) hits = [[best[0], 0.75], ...hits.filter(([p]) => p !== best[0])];
    }
    const c = (by[q.condition] ??= { n: 0, r1: 0, r5: 0, conf: 0 });
    c.n++;
    if (q.condition === 'distractor') { if ((hits[0]?.[1] ?? 0) >= 0.5) c.conf++; continue; }
    const k = hits.findIndex(([p]) => p === q.file);
    if (k === 0) c.r1++;
    if (k >= 0 && k < 5) c.r5++;
  }
  return by;
}
const fmt = (by) => Object.entries(by).map(([k, c]) => (k === 'distractor' ? `distractors ≥0.5 ${c.conf}/${c.n}` : `${k} ${c.r1}/${c.r5}`)).join('; ');
console.log(`today: ${fmt(evaluate(null, 0))}`);
const TAUS = CALIBRATED ? [3, 3.5, 4, 4.5, 5] : [0.6, 0.7, 0.8, 0.9];
const MARGINS = CALIBRATED ? [0, 0.5, 1, 1.5, 2] : [0, 0.1, 0.2, 0.3];
for (const tau of TAUS) for (const margin of MARGINS) console.log(`tau ${tau} margin ${margin}: ${fmt(evaluate(tau, margin))}`);
