// Benchmark: how the catalog's costs grow with its size, and where it stops on this machine.
//
// Reads the catalogs bench/compare.js keeps (`--keep`: <dir>/catalog and its figures <dir>.json, e.g.
// bench/tmp/compare-100000, -1000000, -10000000) and, one size at a time, starts `catalog serve` on
// each and measures: start-up (ready, CPU until then), a text search per query class (the same
// queries at every size, compare.js's file; `--rounds` rounds, a cache-busting write before each,
// after `IN_USE` searches of other words), GET part, a session's second page, and resident memory.
// Beside them, each size's import figures (compare.js's JSON: rows/s, last tenth / first, bytes
// written per byte stored, peak RSS) and the catalog's disk size. Then, from the two largest sizes,
// the size at which each resource runs out on this machine (memory, disk, start-up time, import
// time), the first one named.
//
// Usage: npm run build && nice -n 10 node bench/growth.js --catalogs bench/tmp/compare-100000,bench/tmp/compare-1000000,bench/tmp/compare-10000000
//   [--queries bench/tmp/compare-queries-1000000.tsv] [--rounds 3] [--note <text>]
// Writes the section `growth` of bench/results.md.
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { dirBytes } from './compare.js';
import { BIN, argReader, isMain, msStats, processCpuSeconds, residentMb, runCli, spawnServe, waitUntilServing, writeSection } from './lib.js';

const arg = argReader(process.argv.slice(2));
/** Searches of other words before the measured rounds: the server in use, not its first requests. */
const IN_USE = 300;
const GET_PARTS = 200;
const PAGES = 50;
/** Start-up a server must keep within (issue 41: ready in ≤ 5 s). */
const READY_GOAL_S = 5;



/** Existing part ids spread over the catalog (a read-only look at its file). */
function samplePartIds(dataDir, count) {
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  try {
    const max = db.prepare('SELECT max(rowid_) FROM parts').pluck().get() ?? 0;
    const rowids = Array.from({ length: count }, (_, i) => 1 + Math.floor((i * max) / count));
    const parts = db.prepare('SELECT n FROM engine_stats WHERE id = 0').pluck().get();
    return { parts, ids: db.prepare('SELECT part_id FROM parts WHERE rowid_ IN (SELECT value FROM json_each(?))').pluck().all(JSON.stringify(rowids)) };
  } finally {
    db.close();
  }
}

/** The figures of one catalog's server (see the module comment). */
async function measureServer(dataDir, queries, rounds) {
  const { parts, ids } = samplePartIds(dataDir, GET_PARTS);
  const created = await runCli(['--data-dir', dataDir, 'tokens', 'create', '--name', `growth-${process.pid}-${parts}`, '--role', 'catalogAdmin']);
  if (created.code !== 0) throw new Error(`tokens create: ${created.stderr}`);
  const headers = { authorization: `Bearer ${created.stdout.trim()}`, 'content-type': 'application/json' };
  const { child, http, spawnedAt, stderr, stop } = await spawnServe(BIN, dataDir);
  const request = async (options) => {
    const t = performance.now();
    const r = await http.request({ headers, ...options });
    const body = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`${options.method} ${options.path}: ${r.statusCode} ${body.slice(0, 200)}`);
    return { ms: performance.now() - t, body };
  };
  const search = (text) => request({ method: 'POST', path: '/1/find/search', body: JSON.stringify({ matches: { text }, resultOptions: { limit: 25 } }) });
  try {
    await waitUntilServing(http, headers, { why: stderr, exited: () => child.exitCode !== null, tries: 3000 });
    const readyMs = performance.now() - spawnedAt;
    const cpuToReady = processCpuSeconds(child.pid);
    const words = queries.map(([, text]) => text.split(' ')[0]);
    for (let i = 0; i < IN_USE; i++) await search(`zq${i % 50}x ${words[i % words.length]}x`);
    const byClass = {};
    for (let round = 0; round < rounds; round++) {
      await request({ method: 'POST', path: '/1/catalog/parts', body: JSON.stringify([{ part_id: 'bench:cache-buster', name: { en: `zzbuster${round}` } }]) });
      for (const [kind, text] of queries) (byClass[kind] ??= []).push((await search(text)).ms);
    }
    const getPart = [];
    for (const id of ids) getPart.push((await request({ method: 'GET', path: `/1/catalog/parts/${encodeURIComponent(id)}` })).ms);
    const page = [];
    for (let i = 0; i < PAGES; i++) {
      const { body } = await search(queries[i % queries.length][1]);
      const sessionId = JSON.parse(body).sessionId;
      page.push((await request({ method: 'GET', path: `/1/find/search/state/${sessionId}?skip=25&limit=25` })).ms);
    }
    return {
      parts,
      readyS: readyMs / 1000,
      cpuToReadyS: cpuToReady,
      residentMb: residentMb(child.pid),
      classes: Object.fromEntries(Object.entries(byClass).map(([k, v]) => [k, msStats(v)])),
      getPart: msStats(getPart),
      page: msStats(page),
      diskMb: dirBytes(dataDir) / 2 ** 20,
    };
  } finally {
    await stop();
  }
}

/** Runs the benchmark over compare.js's kept `catalogs` (folders), smallest first. */
export async function runGrowth({ catalogs, queriesFile, rounds = 3 }) {
  const queries = readFileSync(queriesFile, 'utf8').trim().split('\n').map((line) => line.split('\t'));
  const sizes = [];
  for (const dir of catalogs) {
    const server = await measureServer(join(dir, 'catalog'), queries, rounds);
    const json = `${dir}.json`;
    const imported = existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')).catalogImport : undefined;
    process.stderr.write(`growth: ${dir}: ${JSON.stringify(server)}\n`);
    sizes.push({ dir, ...server, imported });
  }
  sizes.sort((a, b) => a.parts - b.parts);
  return { sizes, limits: limitsOf(sizes, catalogs[0]) };
}

/**
 * Where each resource runs out, from the growth between the two largest sizes (linear in parts):
 * the parts count at which it reaches this machine's bound.
 */
function limitsOf(sizes, someDir) {
  if (sizes.length < 2) return [];
  const [a, b] = sizes.slice(-2);
  const at = (pick, bound) => {
    const slope = (pick(b) - pick(a)) / (b.parts - a.parts);
    if (!(slope > 0)) return Number.POSITIVE_INFINITY;
    return Math.round(b.parts + (bound - pick(b)) / slope);
  };
  const fs = statfsSync(dirname(someDir));
  const freeDiskMb = (fs.bavail * fs.bsize) / 2 ** 20;
  const memoryMb = totalmem() / 2 ** 20;
  const limits = [
    { resource: `memory of \`catalog serve\` (${Math.round(memoryMb / 1024)} GiB on this machine)`, parts: at((s) => s.residentMb, memoryMb) },
    { resource: `disk (${Math.round(freeDiskMb / 1024)} GiB free beside the largest catalog)`, parts: at((s) => s.diskMb, b.diskMb + freeDiskMb) },
    { resource: `start-up within ${READY_GOAL_S} s`, parts: at((s) => s.readyS, READY_GOAL_S) },
    { resource: 'start-up within 60 s (a deploy\'s usual health-check patience)', parts: at((s) => s.readyS, 60) },
  ];
  if (a.imported && b.imported) {
    // A whole import of N parts at the largest size's rate falling as measured: hours for a day's window.
    limits.push({ resource: 'a full import within 24 h at the largest size\'s rate', parts: Math.round(b.imported.rowsPerSecond * 86_400) });
  }
  return limits.filter((l) => Number.isFinite(l.parts) && l.parts > 0).sort((x, y) => x.parts - y.parts);
}

/** The section of bench/results.md for a {@link runGrowth} result (Markdown). */
export function growthSection(r) {
  const f = (x, d = 1) => (x === undefined || Number.isNaN(x) ? '' : x.toFixed(d));
  const classes = [...new Set(r.sizes.flatMap((s) => Object.keys(s.classes)))];
  const lines = [
    'Catalogs of bench/compare.js (names ending in a model number of their own), one `catalog serve` at a time. Import: compare.js\'s CLI import (its JSON). Searches: the same queries at every size, p50 / p99 ms over HTTP, a cache-busting write before each round.',
    '',
    `| parts | import rows/s (last tenth ÷ first) | written ÷ disk | import peak RSS MB | disk MB | serve ready s (CPU s) | serve resident MB | ${classes.join(' | ')} | GET part p50 / p99 | session page p50 / p99 |`,
    `|---|---|---|---|---|---|---|${classes.map(() => '---|').join('')}---|---|`,
  ];
  for (const s of r.sizes) {
    const i = s.imported;
    lines.push(`| ${s.parts.toLocaleString('en-US')} | ${i ? `${i.rowsPerSecond} (${i.lastTenthOfFirst})` : ''} | ${i ? `${i.writtenPerDisk}×` : ''} | ${i?.peakRssMB ?? ''} | ${f(s.diskMb, 0)} | ${f(s.readyS)} (${f(s.cpuToReadyS)}) | ${s.residentMb} | ${classes.map((c) => (s.classes[c] ? `${f(s.classes[c].p50)} / ${f(s.classes[c].p99)}` : '')).join(' | ')} | ${f(s.getPart.p50, 2)} / ${f(s.getPart.p99, 2)} | ${f(s.page.p50, 2)} / ${f(s.page.p99, 2)} |`);
  }
  if (r.limits.length > 0) {
    lines.push('', 'Where it stops on this machine (each figure grown linearly from the two largest sizes):', '');
    for (const l of r.limits) lines.push(`- ${l.resource}: at ~${l.parts.toLocaleString('en-US')} parts`);
    lines.push('', `The first limit reached: ${r.limits[0].resource}.`);
  }
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const catalogs = arg('catalogs', undefined)?.split(',');
  if (!catalogs) throw new Error('usage: node bench/growth.js --catalogs <compare dir>,<compare dir>,... [--queries <tsv>] [--rounds 3]');
  const result = await runGrowth({ catalogs, queriesFile: arg('queries', 'bench/tmp/compare-queries-1000000.tsv'), rounds: Number(arg('rounds', '3')) });
  console.log(JSON.stringify(result, null, 2));
  const note = arg('note', undefined);
  writeSection('growth', 'How the costs grow with the catalog', `${growthSection(result)}${note ? `\n\n${note}` : ''}`);
}
