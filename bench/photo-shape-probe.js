// Probe (issue 14, eleventh round): a gradient-orientation template matcher (LINE-2D, bench/photo-shape.js)
// for references whose local features are weak, over the cached query sets of bench/photo-queries.js.
// Writes, per query, every weak part's best verified similarity (`all`; top 10 and the true part's
// rank), with CPU time; bench/photo-shape-fuse.js fuses it with today's answers from a
// `photo-profile.js --dump` file (docs/search.md "Eleventh round").
// Usage: node bench/photo-shape-probe.js [--per 40] [--max-side 128] [--pad 9486] [--out file]
//   --max-side N: a reference is "weak" when its part (the cut-out's long side) is at most N px;
//   --pad N: also the synthetic padding references of bench/photo-search.js (re-made from the same
//   seeded augmentation, so a weak padding photo gets templates too);
//   --only-weak: only queries of weak parts (and the distractors); --distractors N: the first N;
//   SHAPE='{"MAJORITY":1}' overrides settings of bench/photo-shape.js.
import fs from 'node:fs';
import { augment, photoSets, CONDITIONS } from './photo-queries.js';
import { argReader, cpuMs, prng } from './lib.js';
import { SHAPE, setResponse, referenceCutout, referenceTemplates, queryResponses, matchTemplate, verifyPose } from './photo-shape.js';
const VERIFY_K = Number(process.env.SHAPE_VERIFY_K ?? 4);

const args = process.argv.slice(2);
const arg = argReader(args);
const PER = Number(arg('per', '40'));
const MAX_SIDE = Number(arg('max-side', '128'));
const PAD = Number(arg('pad', '0'));
const OUT = arg('out', `/tmp/shape-${PAD}.json`);
const CONDS = arg('conds', [...CONDITIONS, 'distractor'].join(',')).split(',');
Object.assign(SHAPE, JSON.parse(process.env.SHAPE ?? '{}'));
if (process.env.SHAPE_RESPONSE) setResponse(JSON.parse(process.env.SHAPE_RESPONSE));
const now = cpuMs;

const sets = await photoSets({ perCondition: PER });
const refs = [];
const t0 = now();
let noMask = 0;
const sides = [];
for (const r of sets.references) {
  const cut = await referenceCutout(r.bytes);
  if (!cut) { noMask++; continue; }
  const side = Math.max(cut.width, cut.height);
  sides.push(side);
  if (side > MAX_SIDE) continue;
  refs.push({ part: r.file, templates: await referenceTemplates(cut) });
}
const t1 = now();
console.error(`real: ${sets.references.length} references, ${noMask} without a plain background, ${refs.length} weak (part ≤ ${MAX_SIDE} px); template extraction ${((t1 - t0) / Math.max(1, refs.length)).toFixed(1)} ms CPU a weak reference`);
for (const s of [32, 48, 64, 96, 128, 160, 200]) console.error(`  part ≤ ${s} px: ${sides.filter((x) => x <= s).length}`);

// The padding of bench/photo-search.js (same seeded augmentation, same order).
if (PAD > 0) {
  const rnd = prng(4242);
  let weakPad = 0;
  for (let i = 0; i < PAD; i++) {
    const src = i % sets.references.length;
    const bytes = await augment(sets.references[src].bytes, rnd);
    const cut = await referenceCutout(bytes);
    if (!cut || Math.max(cut.width, cut.height) > MAX_SIDE) continue;
    weakPad++;
    refs.push({ part: sets.references[src].file, templates: await referenceTemplates(cut), synthetic: true });
  }
  console.error(`padding: ${PAD} synthetic references, ${weakPad} weak`);
}
const templateCount = refs.reduce((a, r) => a + r.templates.length, 0);
const templateBytes = refs.reduce((a, r) => a + r.templates.reduce((b, t) => b + t.dx.length * 5 + 8, 0), 0);
console.error(`${refs.length} weak references, ${templateCount} templates, ≈${(templateBytes / 2 ** 20).toFixed(1)} MB as int16/uint8 arrays`);

// --only-weak: only queries of weak parts (the others cannot change: the matcher proposes weak
// parts only, and only when today's answer is not confident); --distractors N: the first N.
const ONLY_WEAK = args.includes('--only-weak');
const weakSet = new Set(refs.map((r) => r.part));
const qs = [
  ...sets.queries.filter((q) => CONDS.includes(q.condition) && (!ONLY_WEAK || weakSet.has(q.file))),
  ...(CONDS.includes('distractor') ? sets.distractors.slice(0, Number(arg('distractors', '100'))).map((d) => ({ ...d, condition: 'distractor', file: '-' })) : []),
];
const results = [];
const cpu = [];
for (const q of qs) {
  const a = now();
  const resp = await queryResponses(q.bytes);
  const b = now();
  const perPart = new Map();
  for (const r of refs) {
    const scored = r.templates.map((t) => ({ t, m: matchTemplate(resp, t) })).sort((x, y) => y.m.score - x.m.score);
    let best = { score: -2 };
    // Stage 2: the K best poses verified densely (outline coverage less edges on the flat inside).
    for (const { t, m } of scored.slice(0, VERIFY_K)) {
      const v = verifyPose(resp, t, m.x, m.y);
      if (v.score > best.score) best = { ...m, stage1: m.score, score: v.score, coverage: v.coverage, clutter: v.clutter, colour: v.colour, size: t.size, rotation: t.rotation };
    }
    best.z = Math.max(...scored.map(({ m }) => (m.score - m.mean) / m.sd));
    const prev = perPart.get(r.part);
    if (prev) prev.z = Math.max(prev.z, best.z);
    if (!prev || best.score > prev.score) perPart.set(r.part, best);
  }
  const c = now();
  cpu.push({ responses: b - a, match: c - b });
  const RANK = process.env.SHAPE_RANK ?? 'score';
  const ranked = [...perPart.entries()].sort((x, y) => y[1][RANK] - x[1][RANK]);
  const rank = ranked.findIndex(([p]) => p === `${q.file}`);
  results.push({
    query: `${q.condition}/${q.file}/${q.name ?? ''}`, condition: q.condition, file: q.file,
    edgeShare: resp.edgeShare,
    top: ranked.slice(0, 10).map(([p, m]) => [p, +m.score.toFixed(4), +m.z.toFixed(2), m.size, m.rotation, +m.stage1.toFixed(3), +m.coverage.toFixed(3), +m.clutter.toFixed(3), +(m.colour ?? 1).toFixed(3)]),
    all: Object.fromEntries([...perPart.entries()].map(([p, m]) => [p, +m.score.toFixed(4)])),
    trueRank: rank, trueScore: rank >= 0 ? +ranked[rank][1].score.toFixed(4) : null, trueZ: rank >= 0 ? +ranked[rank][1].z.toFixed(2) : null,
  });
}
const p = (a, q) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(1); };
console.error(`CPU ms a query: responses p50 ${p(cpu.map((c) => c.responses), 0.5)} p99 ${p(cpu.map((c) => c.responses), 0.99)}; matching p50 ${p(cpu.map((c) => c.match), 0.5)} p99 ${p(cpu.map((c) => c.match), 0.99)}`);
fs.writeFileSync(OUT, JSON.stringify({ settings: { ...SHAPE, MAX_SIDE, PAD }, weak: [...new Set(refs.map((r) => r.part))], templateCount, results }, null, 0));
// Shape alone: among queries of weak parts, found first by the matcher.
const byCond = {};
const weakParts = new Set(refs.map((r) => r.part));
for (const r of results) {
  const c = (byCond[r.condition] ??= { n: 0, weak: 0, first: 0 });
  c.n++;
  if (weakParts.has(r.file)) { c.weak++; if (r.trueRank === 0) c.first++; }
}
console.log(JSON.stringify(byCond));
