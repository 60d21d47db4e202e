// Photo search in the field: two builds side by side on the same query sets, from the JSON reports
// bench/photo-search.js wrote for each (--out). The baseline is the build of main (PHOTO_DIST
// pointing at a copy of its dist/), the candidate a change under trial (--label names it); both runs use the same seeded
// sets (--references unseen for images the method was never tuned on) and ran at the same time
// on the same machine. Writes its section of bench/results.md.
//
// Usage:
//   (cd bench && PHOTO_DIST=./tmp/dist-main node photo-search.js --sizes real --references unseen --out /tmp/base.json)
//   (cd bench && node photo-search.js --sizes real --references unseen --out /tmp/new.json)
//   node bench/photo-field-compare.js --baseline /tmp/base.json --candidate /tmp/new.json [--label "…"] [--note "…"]
import fs from 'node:fs';
import { argReader, round, writeSection } from './lib.js';

const arg = argReader(process.argv.slice(2));
const baseline = JSON.parse(fs.readFileSync(arg('baseline'), 'utf8'));
const candidate = JSON.parse(fs.readFileSync(arg('candidate'), 'utf8'));
const note = arg('note', '');
const label = arg('label', 'this build');

const lines = [
  `Photo search (global + local features, one thread, times include decoding and extraction): main's build (baseline) beside ${label},`,
  'on the same seeded queries. R@1 / R@5: the query\'s part first / in the first five; confident: its score ≥ the',
  `documented threshold (${candidate.threshold}); distractors: photos of things not in the catalog whose best hit is confident.`,
];
if (note) lines.push('', note);
for (const [n, c] of Object.entries(candidate.sizes)) {
  const b = baseline.sizes[n];
  if (!b) continue;
  lines.push('', `**${n} references**: photo index ${b.localIndexMB} / ${c.localIndexMB} MB, index build ${round(b.buildMs / 1000, 2)} / ${round(c.buildMs / 1000, 2)} s, all queries p50 ${b.queryMs.ours.p50} / ${c.queryMs.ours.p50} ms, p99 ${b.queryMs.ours.p99} / ${c.queryMs.ours.p99} ms (baseline / candidate).`, '');
  lines.push('| condition | n | R@1 baseline / candidate | R@5 baseline / candidate | confident baseline / candidate | ms p50 baseline / candidate |', '|---|---|---|---|---|---|');
  for (const [cond, cr] of Object.entries(c.table)) {
    const br = b.table[cond];
    const d = cond === 'distractor';
    lines.push(`| ${d ? 'distractors (confident false hits)' : cond} | ${cr.n} | ${d ? '' : `${br.ours.r1} / ${cr.ours.r1}`} | ${d ? '' : `${br.ours.r5} / ${cr.ours.r5}`} | ${br.ours.confident} / ${cr.ours.confident} | ${br.ours.p50} / ${cr.ours.p50} |`);
  }
}
writeSection('photo-field-compare', 'Photo search in the field: main beside a candidate', lines.join('\n'));
console.log(lines.join('\n'));
