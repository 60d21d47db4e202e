#!/usr/bin/env node
// Searches of misspelled words on a large catalog, over HTTP: what a person typing a device's name
// wrong waits for. A query word of 5-8 letters tolerates one typo (deletion keys), one of 9 or more
// that the catalog does not hold two (the keys, and the vocabulary's words with its first letter:
// docs/search.md "Typos"), so the cost of the long ones follows the vocabulary's size.
//
// Usage (after `npm run build`; the catalog of `node bench/compare.js --parts N --import-only --keep`):
//   node bench/typos.js --data-dir bench/tmp/compare-1000000/catalog [--words 40] [--rounds 3] [--seed 11]
//     [--baseline <checkout> --baseline-data-dir <a copy of that catalog>] [--section <name>]
// With a baseline both servers run at once and each query goes to one, then the other (alternating
// which goes first). A write before each query empties the servers' result caches.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BIN, msStats, prng, requestText, requireCatalogs, warmServer, writeSection } from './lib.js';
import { devices, modelNumber } from './catalog-data.js';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, baseline: { type: 'string' }, 'baseline-data-dir': { type: 'string' }, words: { type: 'string' }, rounds: { type: 'string' }, seed: { type: 'string' }, section: { type: 'string' } } });
if (!values['data-dir'] || (values.baseline && !values['baseline-data-dir'])) {
  process.stderr.write('usage: node bench/typos.js --data-dir DIR [--baseline CHECKOUT --baseline-data-dir DIR] [--words 40] [--rounds 3] [--seed 11] [--section NAME]\n');
  process.exit(2);
}
requireCatalogs([values['data-dir'], values['baseline-data-dir']]);
const WORDS = Number(values.words ?? '40');
const ROUNDS = Number(values.rounds ?? '3');
const random = prng(Number(values.seed ?? '11'));
const log = (...a) => console.error(`[typos ${new Date().toISOString().slice(11, 19)}]`, ...a);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const pick = (s) => s[Math.floor(random() * s.length)];

/** The letter words of the device and vendor names: what the catalog holds. */
function knownWords() {
  const seen = new Set();
  for (const [, , , name, vendor] of devices()) for (const w of `${name} ${vendor}`.toLowerCase().split(/[^a-z]+/)) if (w.length >= 3) seen.add(w);
  return seen;
}

/** `word` with one random edit: a substitution, a deletion, an insertion or a swap of neighbours. */
function edit(word) {
  const i = Math.floor(random() * word.length);
  switch (Math.floor(random() * 4)) {
    case 0: return `${word.slice(0, i)}${pick(LETTERS)}${word.slice(i + 1)}`;
    case 1: return `${word.slice(0, i)}${word.slice(i + 1)}`;
    case 2: return `${word.slice(0, i)}${pick(LETTERS)}${word.slice(i)}`;
    default: return i + 1 < word.length ? `${word.slice(0, i)}${word[i + 1]}${word[i]}${word.slice(i + 2)}` : `${word.slice(0, i)}${pick(LETTERS)}`;
  }
}

/**
 * Query words by class: known words of 5-8 letters with one edit, of 9 or more with one and with
 * two; each misspelling a word the catalog does not hold, its first letter kept (people rarely
 * mistype the first letter, and the two-typo range is the first letter's).
 */
function queries(known) {
  const all = [...known].sort();
  const classes = [
    { cls: '5-8 letters, one typo', min: 5, max: 8, edits: 1 },
    { cls: '9+ letters, one typo', min: 9, max: 40, edits: 1 },
    { cls: '9+ letters, two typos', min: 9, max: 40, edits: 2 },
  ];
  const out = [];
  for (const c of classes) {
    const pool = all.filter((w) => w.length >= c.min && w.length <= c.max);
    const words = [];
    for (let tries = 0; words.length < WORDS && tries < WORDS * 100; tries++) {
      const word = pick(pool);
      let typed = word;
      for (let e = 0; e < c.edits; e++) typed = edit(typed);
      if (typed[0] !== word[0] || known.has(typed) || typed.length < c.min || words.includes(typed)) continue;
      words.push(typed);
    }
    for (const w of words) out.push({ cls: c.cls, text: `${w} ` });
  }
  return out;
}

async function serverOf(label, bin, dataDir) {
  return { ...(await warmServer(label, bin, dataDir, `typos-${process.pid}`)), times: new Map(), hits: new Map() };
}

/** A write (empties the result cache), then the query, timed. */
async function ask(s, q, n) {
  await requestText(s, 'POST', '/1/catalog/parts', [{ part_id: `typos:${process.pid}:${n}`, name: { en: `Typos probe ${modelNumber(60_000_000 + n)}` } }]);
  const t = performance.now();
  const found = JSON.parse(await requestText(s, 'POST', '/1/find/search', { matches: { text: q.text }, resultOptions: { limit: 25 } }));
  const ms = performance.now() - t;
  if (!s.times.has(q.cls)) s.times.set(q.cls, []);
  s.times.get(q.cls).push(ms);
  if (!s.hits.has(q.cls)) s.hits.set(q.cls, []);
  s.hits.get(q.cls).push(found.resultsTotalCount ?? 0);
}

const list = queries(knownWords());
const servers = [await serverOf('this checkout', BIN, values['data-dir'])];
if (values.baseline) servers.push(await serverOf(`baseline ${values.baseline}`, join(values.baseline, 'bin', 'catalog.js'), values['baseline-data-dir']));
let n = 0;
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, q] of list.entries()) {
      n++;
      const order = (i + round) % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) await ask(s, q, n);
    }
    log(`round ${round + 1} done`);
  }
} finally {
  for (const s of servers) await s.stop();
}

const classes = [...new Set(list.map((q) => q.cls))];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const header = `| build | ${classes.map((c) => `${c} p50 / p99 ms (median hits)`).join(' | ')} |`;
const rows = servers.map((s) => `| ${s.label} | ${classes.map((c) => { const st = msStats(s.times.get(c) ?? []); return `${st.p50} / ${st.p99} (${median(s.hits.get(c) ?? [])})`; }).join(' | ')} |`);
const body = [
  `Catalog ${values['data-dir']}${values.baseline ? ` (baseline: its own copy, ${values['baseline-data-dir']})` : ''}; per class ${WORDS} misspelled words of the device and vendor names (seeded edits: substitution, deletion, insertion, swap; the first letter kept; never a word the catalog holds), each searched ${ROUNDS} times (limit 25), a part written before each search; over HTTP, one connection a server, each server warmed and quiet before the first search.`,
  '',
  header,
  `|---|${classes.map(() => '---|').join('')}`,
  ...rows,
].join('\n');
writeSection(values.section ? `typos:${values.section}` : 'typos', `Misspelled words on a large catalog${values.section ? ` (${values.section})` : ''}`, body);
console.log(body);
