// Benchmark: the catalog beside Xapian (python3-xapian, BM25, in process) and PostgreSQL
// full-text search on the same parts, in one run: N parts generated from the real device names of
// ../shared/data/catalog (bench/catalog-data.js numberedPartOf: every name ends in its own model
// number, as a real catalog's part numbers, so the term dictionary grows with the catalog; the
// vendor an attribute value repeating across the vendor's parts).
//
// - Import: `catalog parts import` (CLI, local mode, index included) of the parts in ten CSV files
//   of a tenth each, one CLI run per tenth, into the SQLite store and into the PostgreSQL store
//   (`--database-url`, a database of the throwaway cluster): rows/s per tenth and overall, bytes
//   written (SQLite: the CLI's block output, /usr/bin/time %O; PostgreSQL: the cluster's WAL bytes
//   and data pages written, pg_stat_wal / pg_stat_bgwriter), peak RSS, disk size; Xapian's
//   indexing, PostgreSQL's COPY + GIN build; disk size of each.
// - Queries: 70 (20 rare, 20 medium, 10 frequent, 20 two-word), chosen by document frequency. The catalog is asked over HTTP (`catalog serve`, one connection, sequential),
//   Xapian in process, PostgreSQL through pg; 3 rounds (--rounds), systems alternated per round
//   (the catalog servers' order rotated each round), the first round cold (nothing of its queries
//   cached), and only the system measured running: the other servers are stopped (SIGSTOP)
//   meanwhile. Before the rounds each server answers 3,000
//   searches of other words (serveInUse: servers in use, not fresh ones). p50/p99 per class. The catalog on the PostgreSQL store answers the same queries over
//   HTTP (its own `catalog serve`), alternated too.
// - Right: overlap@25 of the catalog's top 25 with an exhaustive scoring of every hit by the
//   documented formula (core/search/engine/bm25.ts, computed here from the generated parts) and
//   with Xapian's BM25 top 25, tie-aware (a hit tied with Xapian's 25th counts); exact totals.
// - Load: 50 connections cycling the 70 queries against `catalog serve`; GET part beside a fastify
//   hello-world in the same run.
// - Start-up: bench/startup.js.
//
// Uses the COMPILED code (npm run build). Usage:
//   nice -n 10 node bench/compare.js [--parts 1000000] [--rounds 3] [--load-seconds 20] [--startup-runs 15] [--import-only] [--no-pg-store] [--keep] [--baseline <checkout>] [--section <name>]
// (--baseline: another built checkout of this project, e.g. a `git worktree` of an older commit;
// its CLI imports the same parts into a catalog of its own, its `catalog serve` answers the same
// queries alternated with this one's in every round, and both servers' start-up is measured.)
// (--import-only: the catalog's CLI import of the same data alone, then stops; prints its figures;
// with --baseline, the baseline's CLI imports the same tenths into its own catalog, alternated.
// --keep: keeps the imported catalog (and the queries, bench/tmp/compare-queries-<parts>.tsv) for
// another look. COMPARE_SERVE_LOG=FILE keeps the server's log. --no-pg-store: the catalog on SQLite
// only. --section <name>: the search comparison goes to the section compare:<name> of results.md,
// beside the default one, e.g. a second pair of builds compared on another day.)
// Writes bench/tmp/compare-<parts>.json and its section of bench/results.md.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, openSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { cpus } from 'node:os';
import Fastify from 'fastify';
import pg from 'pg';
import { Pool } from 'undici';
import { buildEngineDocument, isPairToken, pairTerm } from '../dist/core/search/engine/document.js';
import { idf, tfPart, NAME_WEIGHT, ID_WEIGHT } from '../dist/core/search/engine/bm25.js';
import { compareBinary } from '../dist/core/search/rank.js';
import { BIN, ROOT, freePort, isMain, percentile, runCli, runMeasured, waitUntilQuiet, waitUntilServing, warmClient, writeSection } from './lib.js';
import { ATTRIBUTES, devices, numberedPartOf as partOf } from './catalog-data.js';
import { runStartupBench } from './startup.js';

const K = 25;
/** The words queries are made of: letters only, 4 or more. */
const QUERY_WORD = /^[a-z]{4,}$/;
/** Query rounds (`--rounds`; the first is cold). */
const DEFAULT_ROUNDS = 3;
/** Searches each server answers before it is measured, and the words they take (serveInUse). */
const IN_USE_SEARCHES = 3000;
const IN_USE_WORDS = 500;

/**
 * A server in use: `IN_USE_SEARCHES` searches of words no measured query takes, one word or two,
 * sequential. A fresh server's first thousand or so searches are slower while V8 compiles its
 * request path (the first round shows that; bench/startup.js the start-up itself), and every
 * server measured here answers the same searches first, so the rounds compare servers in use.
 */
async function serveInUse(http, auth, words) {
  for (let i = 0; i < IN_USE_SEARCHES; i++) {
    const a = words[(i * 7) % words.length];
    const text = i % 3 === 2 ? `${a} ${words[(i * 13 + 5) % words.length]} ` : `${a} `;
    const r = await http.request({ method: 'POST', path: '/1/find/search', headers: auth, body: JSON.stringify({ matches: { text }, resultOptions: { limit: K } }) });
    await r.body.dump();
    if (r.statusCode !== 200) throw new Error(`in-use search ${text}: ${r.statusCode}`);
  }
}
const log = (...a) => console.error(`[compare ${new Date().toISOString().slice(11, 19)}]`, ...a);

export function dirBytes(dir) {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? dirBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  return n;
}

const csvField = (s) => `"${s.replaceAll('"', '""')}"`;
const pgText = (s) => s.replaceAll('\\', '\\\\').replaceAll('\t', ' ').replaceAll('\n', ' ');

/** Parts of the CLI import in tenth `k` (0-9) of `parts`: [from, to). */
/** The CLI import runs once per tenth of the parts (rates per tenth show how the rate keeps up as the catalog grows). */
export const TENTHS = 10;
export const tenth = (parts, k) => [Math.floor((parts * k) / TENTHS), Math.floor((parts * (k + 1)) / TENTHS)];
/** The catalog's CSV of tenth `k` (see {@link writeInputs}). */
export const tenthCsv = (dir, k) => join(dir, `parts-${k}.csv`);

/**
 * Writes the parts as the catalog's CSV, one file per tenth ({@link tenthCsv}), and as TSV (Xapian;
 * PostgreSQL's text COPY format).
 */
export async function writeInputs(dir, parts, list) {
  let csv;
  const tsv = createWriteStream(join(dir, 'parts.tsv'));
  const pgTsv = createWriteStream(join(dir, 'parts.pg.tsv'));
  const finished = [];
  for (let i = 0, k = -1; i < parts; i++) {
    if (k < TENTHS - 1 && i === tenth(parts, k + 1)[0]) {
      k++;
      if (csv) {
        csv.end();
        finished.push(once(csv, 'finish'));
      }
      csv = createWriteStream(tenthCsv(dir, k));
      csv.write('part_id,name.en,attr:vendor.en\n');
    }
    const p = partOf(i, list);
    const name = p.name.en;
    const vendor = p.attributes[0].values[0].value.en;
    csv.write(`${csvField(p.part_id)},${csvField(name)},${csvField(vendor)}\n`);
    tsv.write(`${p.part_id}\t${name.replaceAll('\t', ' ')}\t${vendor.replaceAll('\t', ' ')}\n`);
    pgTsv.write(`${pgText(p.part_id)}\t${pgText(name)}\t${pgText(vendor)}\n`);
    // Each stream still needing a drain at this moment (one may drain while we wait for another).
    for (const s of [csv, tsv, pgTsv]) if (s.writableNeedDrain) await once(s, 'drain');
  }
  for (const s of [csv, tsv, pgTsv]) s.end();
  await Promise.all([...finished, ...[csv, tsv, pgTsv].map((s) => once(s, 'finish'))]);
}

/**
 * `catalog parts import` of every tenth's CSV, one CLI run each (`args`: the global options naming
 * the store), measured by /usr/bin/time: per tenth rows/s; overall rows/s, CPU seconds, peak RSS
 * and the CLI's bytes written (its block output, %O, 512-byte units: WAL, checkpoints, temp files).
 */
async function importTenths(bin, args, dir, parts) {
  return (await importTenthsAlternated([{ bin, args }], dir, parts))[0];
}

/**
 * {@link importTenths} of several CLIs (`runs`: each a bin and its global options naming its own
 * catalog), tenth by tenth, alternated (the first to run changes every tenth), so a shared
 * machine's load hits each alike. Returns each one's figures, in the order of `runs`.
 */
async function importTenthsAlternated(runs, dir, parts) {
  const acc = runs.map(() => ({ tenths: [], ms: 0, cpu: 0, rssKb: 0, outBlocks: 0 }));
  for (let k = 0; k < TENTHS; k++) {
    const [from, to] = tenth(parts, k);
    for (let j = 0; j < runs.length; j++) {
      const i = (j + k) % runs.length;
      const { bin, args } = runs[i];
      const a = acc[i];
      const r = await runMeasured('/usr/bin/time', ['-f', '%U %S %M %O', bin, ...args, '--quiet', 'parts', 'import', tenthCsv(dir, k)]);
      if (r.code !== 0) throw new Error(`parts import of tenth ${k + 1} by ${bin} (${r.code}): ${r.stderr}`);
      const [user, sys, kb, blocks] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
      a.tenths.push(Math.round((to - from) / (r.ms / 1000)));
      a.ms += r.ms;
      a.cpu += user + sys;
      a.rssKb = Math.max(a.rssKb, kb);
      a.outBlocks += blocks;
      log(`tenth ${k + 1} (${bin}): ${to - from} rows, ${a.tenths[k]} rows/s, ${(user + sys).toFixed(1)} CPU-s, ${Math.round((blocks * 512) / 2 ** 20)} MB written`);
    }
  }
  return acc.map(({ tenths, ms, cpu, rssKb, outBlocks }) => ({ seconds: +(ms / 1000).toFixed(1), rowsPerSecond: Math.round(parts / (ms / 1000)), tenths, lastTenthOfFirst: +(tenths[TENTHS - 1] / tenths[0]).toFixed(2), cpuSeconds: +cpu.toFixed(1), rowsPerCpuSecond: Math.round(parts / cpu), peakRssMB: Math.round(rssKb / 1024), writtenMB: Math.round((outBlocks * 512) / 2 ** 20) }));
}

/** PostgreSQL's bytes written so far (WAL bytes and data pages written by checkpoints, the background writer and backends). */
async function pgWrittenBytes(client) {
  const { rows } = await client.query("SELECT (SELECT wal_bytes FROM pg_stat_wal)::float8 + (SELECT (buffers_checkpoint + buffers_clean + buffers_backend) * current_setting('block_size')::int FROM pg_stat_bgwriter)::float8 AS n");
  return Number(rows[0].n);
}

/**
 * The exhaustive reference, streamed (two passes over the generated parts, nothing per part kept
 * but its length): query classes by document frequency, then every query's exact total and top K
 * by the documented rules and formula (proximity, then words outside the names, then BM25), ties
 * by part id.
 */
function reference(parts, list) {
  const attributes = new Map(ATTRIBUTES.map((a) => [a.attribute_id, { ...a, visibility: 'factoryWorker', per_org_values: false }]));
  const df = new Map();
  const dl = new Float64Array(parts);
  let sum = 0;
  for (let i = 0; i < parts; i++) {
    const d = buildEngineDocument(partOf(i, list), attributes);
    // Only the words a query may take (the model numbers and id terms of 10,000,000 parts would not fit).
    for (const t of d.terms.keys()) if (QUERY_WORD.test(t)) df.set(t, (df.get(t) ?? 0) + 1);
    dl[i] = d.lengths.reduce((x, y) => x + y, 0);
    sum += dl[i];
  }
  const avgdl = sum / parts;
  const words = [...df.entries()];
  const pick = (lo, hi, count) => words.filter(([, n]) => n >= lo && n <= hi).sort((a, b) => (a[0] < b[0] ? -1 : 1)).filter((_, i, arr) => i % Math.max(1, Math.floor(arr.length / count)) === 0).slice(0, count).map(([t]) => [t]);
  const frequent = pick(parts * 0.05, parts * 0.3, 10);
  // Rare: the least frequent words (1-3 hits when the names are not repeated; at 1M parts every
  // device name recurs ~25 times, so the rarest words have ~25 hits).
  const rarest = Math.min(...words.map(([, n]) => n));
  const classes = {
    rare: pick(1, Math.max(3, rarest), 20),
    medium: pick((parts / 1000) * 0.7, (parts / 1000) * 1.4, 20),
    frequent,
    // Candidates; those with no part holding both words are dropped below (an empty search retries
    // with typo neighbours, docs/search.md "Typos", which this reference does not model).
    'two words': frequent.slice(0, 10).flatMap(([a]) => pick(parts * 0.01, parts * 0.3, 8).map(([b]) => [a, b])).filter(([a, b]) => a !== b),
  };
  const queries = Object.entries(classes).flatMap(([cls, qs]) => qs.map((words) => ({ cls, words })));
  const wanted = new Set(queries.flatMap((q) => q.words));
  // Per wanted word: the parts holding it, their weighted tf and whether a name holds it.
  const postings = new Map([...wanted].map((w) => [w, new Map()]));
  for (let i = 0; i < parts; i++) {
    const p = partOf(i, list);
    const d = buildEngineDocument(p, attributes);
    for (const w of wanted) {
      const tf = d.terms.get(w);
      if (!tf) continue;
      const wtf = tf[0] * (w.startsWith('\uE001') ? ID_WEIGHT : NAME_WEIGHT) + tf[1] + tf[2] + tf[3] + tf[4];
      postings.get(w).set(i, { wtf, name: tf[0] > 0 });
    }
  }
  for (const q of queries) {
    const lists = q.words.map((w) => postings.get(w));
    const [first, ...rest] = [...lists].sort((a, b) => a.size - b.size);
    // The proximity rule (docs/search.md): words typed next to each other, held next to each other.
    const pairs = q.words.slice(1).map((w, k) => [q.words[k], w]).filter((pair) => pair.every(isPairToken)).map(([a, b]) => pairTerm(a, b));
    const hits = [];
    for (const [i] of first) {
      if (!rest.every((l) => l.has(i))) continue;
      let score = 0;
      let outside = 0;
      q.words.forEach((w, k) => {
        const e = lists[k].get(i);
        score += idf(parts, df.get(w)) * tfPart(e.wtf, dl[i], avgdl);
        if (!e.name) outside = 1;
      });
      const terms = pairs.length > 0 ? buildEngineDocument(partOf(i, list), attributes).terms : undefined;
      const apart = pairs.filter((t) => !terms?.has(t)).length;
      hits.push({ i, tier: apart * 2 + outside, score });
    }
    for (const h of hits) h.id = partOf(h.i, list).part_id;
    hits.sort((a, b) => a.tier - b.tier || b.score - a.score || compareBinary(a.id, b.id));
    q.total = hits.length;
    q.top = hits.slice(0, K).map((h) => h.id);
  }
  let pairs = 0;
  const kept = queries.filter((q) => q.cls !== 'two words' || (q.total > 0 && ++pairs <= 20));
  // Words of every frequency that no query takes, for the searches a server answers before it is
  // measured (serveInUse).
  const others = words.filter(([t]) => !wanted.has(t)).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  kept.inUseWords = others.filter((_, i) => i % Math.max(1, Math.floor(others.length / IN_USE_WORDS)) === 0).slice(0, IN_USE_WORDS).map(([t]) => t);
  return kept;
}

/**
 * A Python with the xapian module: `python3` on the PATH or the system's /usr/bin/python3 (where
 * Debian's python3-xapian installs it; a pyenv python3 first on the PATH does not see it), or
 * installed with apt-get when we are root; `missing` says why not.
 */
function findXapian() {
  const probe = () => {
    for (const python of ['python3', '/usr/bin/python3']) {
      const r = spawnSync(python, ['-c', 'import xapian; print(xapian.version_string())'], { encoding: 'utf8' });
      if (r.status === 0) return { python, version: r.stdout.trim() };
    }
    return undefined;
  };
  let found = probe();
  if (found) return { ...found, how: 'found installed' };
  if (process.getuid?.() === 0) {
    log('python3-xapian is missing: installing it (apt-get install -y python3-xapian)');
    spawnSync('apt-get', ['install', '-y', 'python3-xapian'], { stdio: 'ignore' });
    found = probe();
    if (found) return { ...found, how: 'installed by this run (apt-get)' };
  }
  return { missing: 'python3-xapian is not installed and could not be installed (run as root: apt-get install -y python3-xapian); Xapian skipped' };
}

/** A throwaway PostgreSQL cluster (as test/services/postgres-cluster.ts), or why not. */
export async function startPostgres() {
  const base = '/usr/lib/postgresql';
  let bin;
  if (existsSync(base)) {
    const v = readdirSync(base).filter((x) => /^\d+$/.test(x)).sort((a, b) => b - a).find((x) => existsSync(join(base, x, 'bin', 'initdb')));
    if (v) bin = join(base, v, 'bin');
  }
  if (!bin) return { missing: 'PostgreSQL is not installed (no initdb under /usr/lib/postgresql); apt-get install -y postgresql' };
  const dir = join(ROOT, 'bench', 'tmp', `pg-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const root = process.getuid?.() === 0;
  const uid = root ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()) : undefined;
  const gid = root ? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()) : undefined;
  if (root) {
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool, args) => execFileSync(root ? 'runuser' : join(bin, tool), root ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, timeout: 300_000 });
  const port = await freePort();
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'catalog', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  const settings = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses='127.0.0.1'", '-c shared_buffers=128MB', '-c maintenance_work_mem=256MB', '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'].join(' ');
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', '-t', '60', 'start']);
  return {
    bin, port, dir,
    version: execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim(),
    psql: (sql) => execFileSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'catalog', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', sql], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 3_600_000 }),
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Sends requests on `connections` loops for `seconds`; `next(i)` gives loop i's next request. */
async function load(origin, { connections, seconds, next }) {
  const pool = new Pool(origin, { connections, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const latencies = [];
  let errors = 0;
  let timeouts = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async (w) => {
    for (let n = 0; performance.now() < deadline; n++) {
      const start = performance.now();
      try {
        const res = await pool.request(next(w, n));
        await res.body.dump();
        if (res.statusCode >= 400) errors++;
      } catch (error) {
        if (/timeout/i.test(String(error?.code ?? error?.message))) timeouts++;
        else errors++;
      }
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, (_, w) => loop(w)));
  const elapsed = performance.now() - started;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: Math.round((latencies.length / elapsed) * 1000), p50: +percentile(latencies, 50).toFixed(2), p99: +percentile(latencies, 99).toFixed(2), errors, timeouts };
}

const summary = (times) => {
  const s = [...times].sort((a, b) => a - b);
  return { p50: +percentile(s, 50).toFixed(2), p99: +percentile(s, 99).toFixed(2) };
};

/** Runs the comparison; returns every figure. */
export async function runCompare({ parts = 1_000_000, rounds = DEFAULT_ROUNDS, loadSeconds = 20, startupRuns = 15, importOnly = false, keep = false, baseline, pgStore = true } = {}) {
  const dir = join(ROOT, 'bench', 'tmp', `compare-${parts}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const out = { parts, rounds, date: new Date().toISOString(), node: process.version };
  const list = devices();
  log(`writing ${parts} parts`);
  await writeInputs(dir, parts, list);

  // -- import: catalog (CLI), Xapian, PostgreSQL --
  const dataDir = join(dir, 'catalog');
  writeFileSync(join(dir, 'attributes.ndjson'), ATTRIBUTES.map((a) => JSON.stringify(a)).join('\n'));
  const setup = await runCli(['--data-dir', dataDir, 'attributes', 'import', join(dir, 'attributes.ndjson')]);
  if (setup.code !== 0) throw new Error(`attributes import: ${setup.stderr}`);
  log('catalog parts import');
  const cpu0 = spawnSync('sh', ['-c', 'cat /proc/loadavg'], { encoding: 'utf8' }).stdout.trim();
  // The baseline's own catalog of the same parts, imported by its own CLI: a build may not open a
  // catalog of a newer schema, so each server gets the catalog its build made. With --import-only
  // both imports run tenth by tenth, alternated.
  const baseDataDir = join(dir, 'baseline-catalog');
  const importRuns = [{ bin: BIN, args: ['--data-dir', dataDir] }];
  if (baseline && importOnly) {
    const setupBase = spawnSync(join(baseline, 'bin', 'catalog.js'), ['--data-dir', baseDataDir, 'attributes', 'import', join(dir, 'attributes.ndjson')], { encoding: 'utf8' });
    if (setupBase.status !== 0) throw new Error(`baseline attributes import: ${setupBase.stderr}`);
    importRuns.push({ bin: join(baseline, 'bin', 'catalog.js'), args: ['--data-dir', baseDataDir] });
  }
  const [imported, baseImported] = await importTenthsAlternated(importRuns, dir, parts);
  out.catalogImport = { ...imported, diskMB: +(dirBytes(dataDir) / 2 ** 20).toFixed(1), loadAverageBefore: cpu0 };
  out.catalogImport.writtenPerDisk = +(out.catalogImport.writtenMB / out.catalogImport.diskMB).toFixed(1);
  log('catalog', out.catalogImport);
  if (baseImported) {
    out.baselineImport = { ...baseImported, checkout: baseline, diskMB: +(dirBytes(baseDataDir) / 2 ** 20).toFixed(1) };
    out.baselineImport.writtenPerDisk = +(out.baselineImport.writtenMB / out.baselineImport.diskMB).toFixed(1);
    log('baseline', out.baselineImport);
  }
  if (baseline && !importOnly) {
    const baseBin = join(baseline, 'bin', 'catalog.js');
    log('baseline parts import');
    for (const args of [['attributes', 'import', join(dir, 'attributes.ndjson')], ...Array.from({ length: TENTHS }, (_, k) => ['--quiet', 'parts', 'import', tenthCsv(dir, k)])]) {
      const r = spawnSync(baseBin, ['--data-dir', baseDataDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
      if (r.status !== 0) throw new Error(`baseline ${args.join(' ')}: ${r.stderr}`);
    }
  }
  if (importOnly) {
    // --keep: the imported catalog stays (the same catalog a full run keeps), and its import
    // figures go into the run's JSON beside the catalog (bench/growth.js reads them).
    if (keep) {
      const json = join(ROOT, 'bench', 'tmp', `compare-${parts}.json`);
      const kept = existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')) : {};
      writeFileSync(json, JSON.stringify({ ...kept, parts, catalogImport: { ...out.catalogImport, date: out.date, node: out.node } }, null, 2));
      log(`kept ${dataDir}`);
    } else rmSync(dataDir, { recursive: true, force: true });
    rmSync(baseDataDir, { recursive: true, force: true });
    return out;
  }

  const xapian = findXapian();
  out.xapian = { ...xapian };
  const xdb = join(dir, 'xapian');
  if (!xapian.missing) {
    log('xapian index');
    const r = spawnSync(xapian.python, [join(ROOT, 'bench', 'xapian_bench.py'), 'index', join(dir, 'parts.tsv'), xdb], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`xapian index: ${r.stderr}`);
    const x = JSON.parse(r.stdout);
    out.xapian.import = { seconds: +x.seconds.toFixed(1), rowsPerSecond: Math.round(parts / x.seconds), diskMB: +(dirBytes(xdb) / 2 ** 20).toFixed(1) };
    log('xapian', out.xapian.import);
  } else log(xapian.missing);

  let postgres;
  try {
    postgres = await startPostgres();
  } catch (error) {
    postgres = { missing: `PostgreSQL did not start: ${error.stderr?.toString().trim() || error.message}` };
  }
  let pgClient;
  out.postgres = postgres.missing ? { missing: postgres.missing } : { version: postgres.version };
  if (!postgres.missing) {
    log('postgres COPY + GIN');
    postgres.psql("CREATE TABLE parts (part_id text PRIMARY KEY, name text NOT NULL, vendor text NOT NULL, doc tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', vendor), 'D')) STORED)");
    const t0 = performance.now();
    postgres.psql(`\\copy parts (part_id, name, vendor) FROM '${join(dir, 'parts.pg.tsv')}'`);
    const t1 = performance.now();
    postgres.psql('CREATE INDEX parts_doc ON parts USING gin (doc)');
    const t2 = performance.now();
    postgres.psql('VACUUM ANALYZE parts');
    pgClient = new pg.Client({ host: '127.0.0.1', port: postgres.port, user: 'catalog', database: 'postgres' });
    await pgClient.connect();
    const size = (await pgClient.query("SELECT pg_total_relation_size('parts') AS n")).rows[0].n;
    out.postgres.import = { copySeconds: +((t1 - t0) / 1000).toFixed(1), ginSeconds: +((t2 - t1) / 1000).toFixed(1), rowsPerSecond: Math.round(parts / ((t2 - t0) / 1000)), diskMB: +(Number(size) / 2 ** 20).toFixed(1) };
    log('postgres', out.postgres.import);
  } else log(postgres.missing);

  // -- the catalog on the PostgreSQL store: the same CLI import, into a database of the same cluster --
  let pgStoreArgs;
  if (pgClient && pgStore) {
    postgres.psql('CREATE DATABASE catalog');
    pgStoreArgs = ['--database-url', `postgres://catalog@127.0.0.1:${postgres.port}/catalog`, '--data-dir', join(dir, 'pg-store-data')];
    const setupPg = await runCli([...pgStoreArgs, 'attributes', 'import', join(dir, 'attributes.ndjson')]);
    if (setupPg.code !== 0) throw new Error(`attributes import (PostgreSQL store): ${setupPg.stderr}`);
    log('catalog parts import (PostgreSQL store)');
    await pgClient.query('CHECKPOINT');
    const written0 = await pgWrittenBytes(pgClient);
    const imported = await importTenths(BIN, pgStoreArgs, dir, parts);
    await pgClient.query('CHECKPOINT');
    const written = (await pgWrittenBytes(pgClient)) - written0;
    const size = Number((await pgClient.query("SELECT pg_database_size('catalog') AS n")).rows[0].n);
    // The CLI's own block output is its temporary files only; the server writes the store.
    out.catalogPgImport = { ...imported, writtenMB: Math.round(written / 2 ** 20), diskMB: +(size / 2 ** 20).toFixed(1) };
    out.catalogPgImport.writtenPerDisk = +(out.catalogPgImport.writtenMB / out.catalogPgImport.diskMB).toFixed(1);
    log('catalog (PostgreSQL store)', out.catalogPgImport);
  }

  // -- the reference --
  log('exhaustive reference');
  const queries = reference(parts, list);
  writeFileSync(join(dir, 'queries.json'), JSON.stringify(queries.map((q) => q.words)));
  // The same queries as text (class, words; in this order), for another look at the kept catalog.
  writeFileSync(join(ROOT, 'bench', 'tmp', `compare-queries-${parts}.tsv`), `${queries.map((q) => `${q.cls}\t${q.words.join(' ')}`).join('\n')}\n`);

  // -- the catalog server --
  const token = execFileSync(BIN, ['--data-dir', dataDir, 'tokens', 'create', '--name', 'bench', '--role', 'catalogAdmin'], { encoding: 'utf8' }).trim();
  const port = await freePort();
  // COMPARE_SERVE_LOG=FILE keeps the server's access log (each request's server-side time), to set
  // beside the client's times of the slowest searches.
  const serveLog = process.env.COMPARE_SERVE_LOG;
  const logFd = serveLog ? openSync(serveLog, 'w') : undefined;
  const spawnedAt = performance.now();
  const server = spawn(BIN, ['--data-dir', dataDir, 'serve', '--port', String(port)], { stdio: ['ignore', logFd ?? 'ignore', logFd ?? 'pipe'] });
  const listening = untilListening(port, () => server.exitCode !== null).then(() => performance.now() - spawnedAt);
  let serverErr = logFd === undefined ? '' : `(see ${serveLog})`;
  server.stderr?.on('data', (d) => (serverErr += d));
  const origin = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const http = new Pool(origin, { connections: 1 });
  await waitUntilServing(http, auth, { why: () => serverErr, exited: () => server.exitCode !== null });
  // `catalog serve` start-up: its port accepts connections (listening), then it answers a request
  // that reads the catalog (ready; polled every 100 ms).
  out.serveStartup = { listeningMs: Math.round(await listening), readyMs: Math.round(performance.now() - spawnedAt) };
  log('catalog serve start-up', out.serveStartup);
  // Each system's client warm before its first measured query (Xapian's script is not a JIT).
  await warmClient(http, auth);
  // The server's start-up work done before any system is measured: none shares the machine with it.
  out.serverQuietAfterMs = await waitUntilQuiet(server.pid);
  await serveInUse(http, auth, queries.inUseWords);
  await waitUntilQuiet(server.pid);
  log(`catalog serve quiet after ${out.serverQuietAfterMs} ms more`);
  if (pgClient) for (let i = 0; i < 300; i++) await pgClient.query({ name: 'warm-up', text: 'SELECT 1' });
  // The baseline's server on the same catalog (it sees the same cache-busting writes), started once
  // this one is quiet, and measured only once it is quiet itself.
  let base;
  if (baseline) {
    const baseBin = join(baseline, 'bin', 'catalog.js');
    const basePort = await freePort();
    const started = performance.now();
    const baseToken = execFileSync(baseBin, ['--data-dir', baseDataDir, 'tokens', 'create', '--name', 'bench', '--role', 'catalogAdmin'], { encoding: 'utf8' }).trim();
    const baseAuth = { authorization: `Bearer ${baseToken}`, 'content-type': 'application/json' };
    const baseServer = spawn(baseBin, ['--data-dir', baseDataDir, 'serve', '--port', String(basePort)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let baseErr = '';
    baseServer.stderr.on('data', (d) => (baseErr += d));
    const baseHttp = new Pool(`http://127.0.0.1:${basePort}`, { connections: 1 });
    await waitUntilServing(baseHttp, baseAuth, { why: () => baseErr, exited: () => baseServer.exitCode !== null });
    out.baseline = { checkout: baseline, serveStartupMs: Math.round(performance.now() - started) };
    await warmClient(baseHttp, baseAuth);
    out.baseline.quietAfterMs = await waitUntilQuiet(baseServer.pid);
    await serveInUse(baseHttp, baseAuth, queries.inUseWords);
    await waitUntilQuiet(baseServer.pid);
    log(`baseline serve answered ${out.baseline.serveStartupMs} ms after its start, quiet ${out.baseline.quietAfterMs} ms later`);
    base = { http: baseHttp, server: baseServer, auth: baseAuth };
  }
  // The catalog on the PostgreSQL store: its own server, started once the others are quiet.
  let onPg;
  if (pgStoreArgs) {
    const pgPort = await freePort();
    const pgToken = execFileSync(BIN, [...pgStoreArgs, 'tokens', 'create', '--name', 'bench', '--role', 'catalogAdmin'], { encoding: 'utf8' }).trim();
    const pgAuth = { authorization: `Bearer ${pgToken}`, 'content-type': 'application/json' };
    const started = performance.now();
    const pgServer = spawn(BIN, [...pgStoreArgs, 'serve', '--port', String(pgPort)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let pgErr = '';
    pgServer.stderr.on('data', (d) => (pgErr += d));
    const pgHttp = new Pool(`http://127.0.0.1:${pgPort}`, { connections: 1 });
    await waitUntilServing(pgHttp, pgAuth, { why: () => pgErr, exited: () => pgServer.exitCode !== null });
    out.catalogPgServe = { readyMs: Math.round(performance.now() - started) };
    await warmClient(pgHttp, pgAuth);
    out.catalogPgServe.quietAfterMs = await waitUntilQuiet(pgServer.pid);
    await serveInUse(pgHttp, pgAuth, queries.inUseWords);
    await waitUntilQuiet(pgServer.pid);
    log('catalog serve (PostgreSQL store)', out.catalogPgServe);
    onPg = { http: pgHttp, server: pgServer, auth: pgAuth };
  }
  const searchBody = (words) => JSON.stringify({ matches: { text: `${words.join(' ')} ` }, resultOptions: { limit: K } });

  // -- queries, systems alternated per round --
  const times = { catalog: queries.map(() => []), catalogPg: queries.map(() => []), baseline: queries.map(() => []), xapian: queries.map(() => []), postgres: queries.map(() => []) };
  let xapianTop;
  // Only the system being measured runs: the other servers are stopped (SIGSTOP) meanwhile, so
  // no background work of one (a build with idle-time warm-up, a sweep, a backfill) takes the
  // machine's cores from another's measured round, nor from Xapian's or PostgreSQL's.
  const catalogSystems = [
    {
      name: 'catalog', label: 'catalog', server, http, auth,
      answered: (round, q, body, ms) => {
        if (serveLog) appendFileSync(`${serveLog}.client`, `${new Date().toISOString()} round ${round + 1} ${q.cls} ${q.words.join(' ')} ${ms.toFixed(2)}\n`);
        if (round === 0) {
          q.got = body.results.map((x) => x.id);
          q.gotTotal = body.resultsTotalCount;
        }
      },
    },
    ...(onPg ? [{ name: 'catalogPg', label: 'PostgreSQL store', ...onPg, answered: (round, q, body) => round === 0 && (q.gotPgTotal = body.resultsTotalCount) }] : []),
    ...(base ? [{ name: 'baseline', label: 'baseline', ...base }] : []),
  ];
  const servers = catalogSystems.map((system) => system.server);
  /** `list` rotated left by `by` places. */
  const rotated = (list, by) => list.map((_, i) => list[(i + by) % list.length]);
  /** Resumes `which` ('all': every server) and stops the others. */
  const running = (which) => {
    for (const s of servers) if (s.exitCode === null) s.kill(which === 'all' || s === which ? 'SIGCONT' : 'SIGSTOP');
  };
  try {
    for (let round = 0; round < rounds; round++) {
      log(`query round ${round + 1}`);
      // A write between rounds empties the server's result cache (any write does, docs/search.md), so
      // rounds 2.. measure warm but uncached searches; the engine re-reads only what the write changed.
      // (Not before round 1, whose answers are checked against the reference: the extra part would
      // move N and avgdl.)
      // The cache-busting writes reach every server.
      running('all');
      if (round > 0) {
        for (const system of catalogSystems) {
          const bust = await system.http.request({ method: 'POST', path: '/1/catalog/parts', headers: system.auth, body: JSON.stringify([{ part_id: 'bench:cache-buster', name: { en: `zzbuster${round}` } }]) });
          await bust.body.dump();
          if (bust.statusCode >= 300) throw new Error(`${system.label} cache-busting write: ${bust.statusCode}`);
        }
      }
      // The catalog servers in turn, the order rotated each round: none is always the first after
      // Xapian's and PostgreSQL's queries (cold caches) or always after another catalog server.
      for (const system of rotated(catalogSystems, round)) {
        running(system.server);
        for (const [qi, q] of queries.entries()) {
          const t0 = performance.now();
          const r = await system.http.request({ method: 'POST', path: '/1/find/search', headers: system.auth, body: searchBody(q.words) });
          const body = await r.body.json();
          const ms = performance.now() - t0;
          times[system.name][qi].push(ms);
          if (r.statusCode !== 200) throw new Error(`${system.label} search ${q.words}: ${r.statusCode} ${JSON.stringify(body)}`);
          system.answered?.(round, q, body, ms);
        }
      }
      running(undefined);
      if (!xapian.missing) {
        const r = spawnSync(xapian.python, [join(ROOT, 'bench', 'xapian_bench.py'), 'query', xdb, join(dir, 'queries.json'), String(K)], { encoding: 'utf8', maxBuffer: 1 << 28 });
        if (r.status !== 0) throw new Error(`xapian query: ${r.stderr}`);
        const res = JSON.parse(r.stdout);
        res.forEach((x, qi) => times.xapian[qi].push(x.ms));
        if (round === 0) xapianTop = res;
      }
      if (pgClient) {
        for (const [qi, q] of queries.entries()) {
          const t0 = performance.now();
          await pgClient.query({ name: 'search', text: "SELECT part_id FROM parts, plainto_tsquery('simple', $1) AS q WHERE doc @@ q ORDER BY ts_rank(doc, q) DESC, part_id LIMIT 25", values: [q.words.join(' ')] });
          times.postgres[qi].push(performance.now() - t0);
        }
      }
    }
  } finally {
    running('all');
  }

  // -- right: totals and overlaps --
  const classes = [...new Set(queries.map((q) => q.cls))];
  out.classes = {};
  for (const cls of classes) {
    const idx = queries.map((q, i) => (q.cls === cls ? i : -1)).filter((i) => i >= 0);
    let overlapExhaustive = 0;
    let overlapXapian = 0;
    let wrongTotals = 0;
    let typoTotals = 0;
    for (const i of idx) {
      const q = queries[i];
      // The reference leaves typo neighbours out (docs/search.md, "Typos": a known word's neighbours
      // found in at least as many parts also match, ranked below it), so a larger total is those
      // hits; a smaller one is a hit missed.
      if (q.gotTotal < q.total) {
        wrongTotals++;
        (out.mismatches ??= []).push({ words: q.words, total: q.total, got: q.gotTotal, top: q.top.slice(0, 5), gotTop: q.got.slice(0, 5) });
      } else if (q.gotTotal > q.total) typoTotals++;
      const got = new Set(q.got);
      const want = Math.max(1, Math.min(K, q.top.length));
      overlapExhaustive += q.top.filter((id) => got.has(id)).length / want;
      if (xapianTop) {
        const eligible = new Set(xapianTop[i].top.map(([id]) => id));
        overlapXapian += Math.min(want, q.got.filter((id) => eligible.has(id)).length) / want;
      }
    }
    const hits = idx.map((i) => queries[i].total).sort((a, b) => a - b);
    out.classes[cls] = {
      queries: idx.length,
      hitsMedian: hits[Math.floor(hits.length / 2)],
      catalogHttp: summary(idx.flatMap((i) => times.catalog[i])),
      // Rounds 2.. only: the first round is cold (each reader thread loads the doc arrays and the postings it meets).
      catalogHttpWarm: summary(idx.flatMap((i) => times.catalog[i].slice(1))),
      // The three slowest searches (words, round from 1, ms): with few rounds a class's p99 is its slowest.
      catalogSlowest: idx.flatMap((i) => times.catalog[i].map((ms, round) => ({ words: queries[i].words.join(' '), round: round + 1, ms: +ms.toFixed(2) }))).sort((a, b) => b.ms - a.ms).slice(0, 3),
      ...(onPg ? { catalogPg: summary(idx.flatMap((i) => times.catalogPg[i])), catalogPgWrongTotals: idx.filter((i) => queries[i].gotPgTotal < queries[i].total).length } : {}),
      ...(base ? { baseline: summary(idx.flatMap((i) => times.baseline[i])), baselineWarm: summary(idx.flatMap((i) => times.baseline[i].slice(1))) } : {}),
      ...(xapianTop ? { xapian: summary(idx.flatMap((i) => times.xapian[i])) } : {}),
      ...(pgClient ? { postgres: summary(idx.flatMap((i) => times.postgres[i])) } : {}),
      overlapExhaustive: +(overlapExhaustive / idx.length).toFixed(3),
      ...(xapianTop ? { overlapXapian: +(overlapXapian / idx.length).toFixed(3) } : {}),
      wrongTotals,
      typoTotals,
    };
  }
  await http.close();
  if (onPg) {
    await onPg.http.close();
    onPg.server.kill('SIGTERM');
    await once(onPg.server, 'exit');
  }
  if (base) {
    await base.http.close();
    base.server.kill('SIGTERM');
    await once(base.server, 'exit');
  }

  // -- load: 50 connections cycling the 70 queries; GET part beside fastify hello-world --
  log('load test');
  const bodies = queries.map((q) => searchBody(q.words));
  out.load = await load(origin, { connections: 50, seconds: loadSeconds, next: (w, n) => ({ method: 'POST', path: '/1/find/search', headers: auth, body: bodies[(w * 7 + n) % bodies.length] }) });
  const partPath = `/1/catalog/parts/${encodeURIComponent(partOf(12345 % parts, list).part_id)}`;
  out.getPart = await load(origin, { connections: 50, seconds: Math.max(5, loadSeconds / 2), next: () => ({ method: 'GET', path: partPath, headers: auth }) });
  const hello = Fastify({ logger: false });
  hello.get('/', async () => ({ hello: 'world' }));
  await hello.listen({ host: '127.0.0.1', port: 0 });
  out.helloWorld = await load(`http://127.0.0.1:${hello.server.address().port}`, { connections: 50, seconds: Math.max(5, loadSeconds / 2), next: () => ({ method: 'GET', path: '/' }) });
  await hello.close();
  out.getPartRatio = +(out.getPart.perSecond / out.helloWorld.perSecond).toFixed(2);
  log('load', out.load, 'get part', out.getPart, 'hello', out.helloWorld);
  server.kill('SIGTERM');
  await once(server, 'exit');
  if (pgClient) await pgClient.end();
  if (!postgres.missing) postgres.stop();

  log('start-up');
  out.startup = startupRuns > 0 ? await runStartupBench({ runs: startupRuns }) : undefined;
  writeFileSync(join(ROOT, 'bench', 'tmp', `compare-${parts}.json`), JSON.stringify(out, null, 2));
  if (keep) log(`kept ${dataDir}`);
  else rmSync(dir, { recursive: true, force: true });
  return out;
}

/** Resolves once 127.0.0.1:`port` accepts a TCP connection (polled every 20 ms), or when `exited()`. */
async function untilListening(port, exited) {
  const { connect } = await import('node:net');
  for (;;) {
    const ok = await new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok || exited()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The import table of a {@link runCompare} result (Markdown): the catalog beside Xapian and PostgreSQL. */
export function importMarkdown(r) {
  const lines = [`${r.parts.toLocaleString('en-US')} parts, names ending in their own model number (bench/catalog-data.js numberedPartOf).`, '', '| import | rows/s | rows/s per tenth (last / first) | written MB (÷ disk) | disk MB |', '|---|---|---|---|---|'];
  const cli = (label, c) => lines.push(`| ${label} | ${c.rowsPerSecond} (${c.rowsPerCpuSecond} per CPU-s; ${c.seconds} s, peak RSS ${c.peakRssMB} MB) | ${c.tenths.join(', ')} (${c.lastTenthOfFirst}) | ${c.writtenMB} (${c.writtenPerDisk}×) | ${c.diskMB} |`);
  cli('catalog parts import (CLI, SQLite; one run per tenth)', r.catalogImport);
  if (r.baselineImport) cli(`baseline ${r.baselineImport.checkout} (its CLI, SQLite; tenths alternated with the row above)`, r.baselineImport);
  // The rates mean little on a busy machine: the load average before the import is part of the record.
  if (r.catalogPgImport) cli('catalog parts import (CLI, PostgreSQL store; written: the server\'s WAL and data pages)', r.catalogPgImport);
  if (r.xapian?.import) lines.push(`| Xapian (${r.xapian.version}) | ${r.xapian.import.rowsPerSecond} | | | ${r.xapian.import.diskMB} |`);
  if (r.postgres?.import) lines.push(`| ${r.postgres.version}: COPY ${r.postgres.import.copySeconds} s + GIN ${r.postgres.import.ginSeconds} s | ${r.postgres.import.rowsPerSecond} | | | ${r.postgres.import.diskMB} |`);
  lines.push('', `Load average before the import (1, 5, 15 min; ${cpus().length} cores): ${r.catalogImport.loadAverageBefore.split(' ').slice(0, 3).join(', ')}.`);
  return lines.join('\n');
}

/** The figures as Markdown (bench/results.md). */
export function markdown(r) {
  const lines = [];
  const f = (x) => (x ? `${x.p50} / ${x.p99}` : 'n/a');
  lines.push('| query class | queries | median hits | catalog (SQLite) over HTTP p50 / p99 ms (warm rounds) | catalog (PostgreSQL store) over HTTP | Xapian in process | PostgreSQL full-text search | overlap@25 vs exhaustive | vs Xapian (tie-aware) | totals below the exhaustive one (SQLite / PostgreSQL store) | searches with typo-neighbour hits beyond it |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [cls, c] of Object.entries(r.classes)) lines.push(`| ${cls} | ${c.queries} | ${c.hitsMedian} | ${f(c.catalogHttp)} (${f(c.catalogHttpWarm)}) | ${f(c.catalogPg)} | ${f(c.xapian)} | ${f(c.postgres)} | ${c.overlapExhaustive} | ${c.overlapXapian ?? 'n/a'} | ${c.wrongTotals} / ${c.catalogPgWrongTotals ?? 'n/a'} | ${c.typoTotals ?? 'n/a'} |`);
  lines.push('');
  if (r.baseline) {
    lines.push(`Beside the baseline ${r.baseline.checkout}, same catalog, same ${r.rounds} rounds (the two servers' order rotated each round, the one not measured stopped meanwhile): p50 / p99 ms, all rounds (warm rounds).`);
    lines.push('');
    lines.push('| query class | this checkout | baseline | p50 change |');
    lines.push('|---|---|---|---|');
    for (const [cls, c] of Object.entries(r.classes)) lines.push(`| ${cls} | ${f(c.catalogHttp)} (${f(c.catalogHttpWarm)}) | ${f(c.baseline)} (${f(c.baselineWarm)}) | ${c.baseline ? `${(((c.catalogHttp.p50 - c.baseline.p50) / c.baseline.p50) * 100).toFixed(0)} %` : 'n/a'} |`);
    lines.push('');
    lines.push(`\`catalog serve\` start-up (spawn to first answer): this checkout ${r.serveStartup.readyMs} ms; baseline ${r.baseline.serveStartupMs} ms (then busy ${r.baseline.quietAfterMs} ms more).`);
    lines.push('');
  }
  lines.push(importMarkdown(r));
  lines.push('');
  lines.push(`Load (50 connections cycling the ${Object.values(r.classes).reduce((n, c) => n + c.queries, 0)} queries of the table): ${r.load.perSecond} searches/s, p50 ${r.load.p50} ms, p99 ${r.load.p99} ms, ${r.load.errors} errors, ${r.load.timeouts} timeouts. GET part ${r.getPart.perSecond}/s (p99 ${r.getPart.p99} ms) against fastify hello-world ${r.helloWorld.perSecond}/s: ${r.getPartRatio}.`);
  if (r.serveStartup) lines.push(`\`catalog serve\` start-up: accepts connections after ${r.serveStartup.listeningMs} ms, answers GET /1/catalog/info after ${r.serveStartup.readyMs} ms${r.catalogPgServe ? `; on the PostgreSQL store answers after ${r.catalogPgServe.readyMs} ms` : ''}.`);
  const s = r.startup;
  if (s) lines.push(`Start-up (median of ${s.runs}): node -e 0 ${s.figures['node -e 0'].medianMs} ms (CPU ${s.figures['node -e 0'].medianCpuMs}); catalog --version ${s.figures['catalog --version'].medianMs} ms (${s.ratios['catalog --version'].median}×, CPU ${s.ratios['catalog --version'].cpu}×); catalog search x ${s.figures['catalog search x'].medianMs} ms (${s.ratios['catalog search x'].median}×, CPU ${s.ratios['catalog search x'].cpu}×).`);
  if (r.xapian.missing) lines.push(r.xapian.missing);
  if (r.postgres.missing) lines.push(r.postgres.missing);
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : def;
  };
  const importOnly = process.argv.includes('--import-only');
  const keep = process.argv.includes('--keep');
  const baselineAt = process.argv.indexOf('--baseline');
  const baseline = baselineAt > 0 ? process.argv[baselineAt + 1] : undefined;
  const r = await runCompare({ parts: arg('--parts', 1_000_000), rounds: arg('--rounds', DEFAULT_ROUNDS), loadSeconds: arg('--load-seconds', 20), startupRuns: arg('--startup-runs', 15), importOnly, keep, baseline, pgStore: !process.argv.includes('--no-pg-store') });
  console.log(JSON.stringify(r, null, 2));
  // One section per size: the 100,000- and 1,000,000-part imports are read side by side.
  if (importOnly) writeSection(`compare:import:${r.parts}`, `Import of ${r.parts.toLocaleString('en-US')} parts${r.baselineImport ? ', beside the baseline' : ''}`, importMarkdown(r));
  else {
    const sectionAt = process.argv.indexOf('--section');
    const section = sectionAt > 0 ? process.argv[sectionAt + 1] : undefined;
    writeSection(section ? `compare:${section}` : 'compare', `Text search beside Xapian and PostgreSQL${section ? ` (${section})` : ''}`, markdown(r));
  }
}
