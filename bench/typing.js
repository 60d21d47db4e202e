#!/usr/bin/env node
// Search as you type on a large catalog, over HTTP: every keystroke of a word from its second
// letter on is a search (as the web app sends them), and before each word a write adds a part whose
// name holds that word, as an import running beside the typing does. What a person feels is the
// slowest keystroke of a word; a first keystroke of two letters begins thousands of words and part
// numbers on a catalog with a part number in every name.
//
// Usage (after `npm run build`; the catalog of `node bench/compare.js --parts N --import-only --keep`):
//   node bench/typing.js --data-dir bench/tmp/compare-1000000/catalog [--words 40] [--rounds 3] [--seed 7]
//     [--baseline <checkout> --baseline-data-dir <a copy of that catalog>]
// (the baseline's build re-indexes its copy when it first opens it, if its document format differs).
// With a baseline both servers run at once and each word is typed into one, then the other
// (alternating which goes first), so the machine's load falls on both alike.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BIN, msStats, prng, requestText, requireCatalogs, warmServer, writeSection } from './lib.js';
import { devices, modelNumber } from './catalog-data.js';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, baseline: { type: 'string' }, 'baseline-data-dir': { type: 'string' }, words: { type: 'string' }, rounds: { type: 'string' }, seed: { type: 'string' } } });
if (!values['data-dir'] || (values.baseline && !values['baseline-data-dir'])) {
  process.stderr.write('usage: node bench/typing.js --data-dir DIR [--baseline CHECKOUT --baseline-data-dir DIR] [--words 40] [--rounds 3] [--seed 7]\n');
  process.exit(2);
}
requireCatalogs([values['data-dir'], values['baseline-data-dir']]);
const WORDS = Number(values.words ?? '40');
const ROUNDS = Number(values.rounds ?? '3');
const random = prng(Number(values.seed ?? '7'));
const log = (...a) => console.error(`[typing ${new Date().toISOString().slice(11, 19)}]`, ...a);

/** Words people type into a search of these devices: the words of their names, 5 letters or more, letters only, each once. */
function typedWords() {
  const seen = new Set();
  for (const [, , , name, vendor] of devices()) {
    for (const w of `${name} ${vendor}`.toLowerCase().split(/[^a-z]+/)) if (w.length >= 5) seen.add(w);
  }
  const all = [...seen].sort();
  const picked = [];
  while (picked.length < WORDS && picked.length < all.length) {
    const w = all[Math.floor(random() * all.length)];
    if (!picked.includes(w)) picked.push(w);
  }
  return picked;
}

async function serverOf(label, bin, dataDir) {
  return { ...(await warmServer(label, bin, dataDir, `typing-${process.pid}`)), times: new Map(), worst: [] };
}

/** Types `word` into server `s`: a write first, then a search per keystroke from the second letter; records each keystroke's time by letters typed. */
async function typeWord(s, word, n) {
  const name = `${word[0].toUpperCase()}${word.slice(1)} typing ${modelNumber(50_000_000 + n)}`;
  await requestText(s, 'POST', '/1/catalog/parts', [{ part_id: `typing:${process.pid}:${n}`, name: { en: name } }]);
  let worst = 0;
  for (let k = 2; k <= word.length; k++) {
    const t = performance.now();
    await requestText(s, 'POST', '/1/find/search', { matches: { text: word.slice(0, k) }, resultOptions: { limit: 25 } });
    const ms = performance.now() - t;
    const group = k <= 3 ? String(k) : k <= 5 ? '4-5' : '6+';
    if (!s.times.has(group)) s.times.set(group, []);
    s.times.get(group).push(ms);
    worst = Math.max(worst, ms);
  }
  s.worst.push(worst);
}

const words = typedWords();
const servers = [await serverOf('this checkout', BIN, values['data-dir'])];
if (values.baseline) servers.push(await serverOf(`baseline ${values.baseline}`, join(values.baseline, 'bin', 'catalog.js'), values['baseline-data-dir']));
let n = 0;
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, word] of words.entries()) {
      n++;
      const order = (i + round) % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) await typeWord(s, word, n);
    }
    log(`round ${round + 1}: ${servers.map((s) => `${s.label} worst keystroke p50 ${msStats(s.worst).p50} ms`).join('; ')}`);
  }
} finally {
  for (const s of servers) await s.stop();
}

const groups = ['2', '3', '4-5', '6+'];
const header = `| build | ${groups.map((g) => `${g} letters p50 / p99 ms`).join(' | ')} | slowest keystroke of a word p50 / p99 ms |`;
const rows = servers.map((s) => `| ${s.label} | ${groups.map((g) => { const st = msStats(s.times.get(g) ?? []); return `${st.p50} / ${st.p99}`; }).join(' | ')} | ${msStats(s.worst).p50} / ${msStats(s.worst).p99} |`);
const body = [
  `Catalog ${values['data-dir']}${values.baseline ? ` (baseline: its own copy, ${values['baseline-data-dir']})` : ''}; ${words.length} words of the device and vendor names (5 letters or more, seeded), typed ${ROUNDS} times each, one search per keystroke from the second letter (limit 25), a part holding the word written before each word; over HTTP, one connection a server, each server warmed (bench/lib.js warmClient) and quiet before the first word.`,
  '',
  header,
  `|---|${groups.map(() => '---|').join('')}---|`,
  ...rows,
].join('\n');
writeSection('typing', 'Search as you type on a large catalog', body);
console.log(body);
