/**
 * The fixed cost of a rare-word search request over HTTP (issue 12: rare-word p50 ≤ 1 ms), builds
 * A/B/... alternated on one catalog. For each round and each build (the order rotating per round)
 * it starts that build's `catalog serve` on the catalog, waits until it answers, then from ONE
 * undici connection, sequentially:
 *
 * - first: `--words` rare words (≤ 25 hits, or the rarest df + 1 when none has so few: 26-27 at 1,000,000 parts; from the catalog's own part names, each used by ONE
 *   build in ONE round only), `POST /1/find/search` top 25: postings and cards read for the first
 *   time by that server (first20: the first 20 of them alone, the server's first searches, as
 *   compare.js's round 1 of 20 rare words);
 * - page: `GET /1/find/search/state/{sessionId}?skip=0&limit=25` of the last 500 of them (their sessions);
 * - bust + again: one part written (any write empties the result cache, as between compare.js's
 *   rounds), then the same words again: warm but uncached, what compare.js's rounds 2-3 measure;
 * - cached: the same words once more (the result cache answers);
 * - GET part: `GET /1/catalog/parts/{id}` of the hits' part ids;
 * - with `--load S`: 50 connections cycling searches of 20 rare, 20 medium (700-1,400 hits) and 10
 *   frequent words (≥ 20,000 hits) for S seconds, as compare.js's load test cycles its query classes.
 *
 * Per phase: wall p50/p99 ms per request (client side) and the server's CPU per request in µs,
 * the whole process and its main thread alone (from /proc/<pid>/task/<tid>/schedstat, ns), so a
 * loaded machine shows in wall time more than in CPU. The server's stderr (the access log) is read
 * and dropped, as compare.js does. The catalog directory is written to (a token, sessions, the
 * cache-busting part): use a copy, e.g. of /work/prof/1m/catalog.
 *
 * Usage: npm run build && nice -n 10 node bench/request-cost.js --data-dir DIR
 *   --builds main=/tmp/http12-base,new=.[+VAR=value...] [--rounds 3] [--words 300] [--load 0] [--profile DIR]
 * (--profile DIR: the servers run under `node --cpu-prof --cpu-prof-dir DIR/<build>`.)
 */
import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { percentile, waitUntilServing } from './lib.js';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' }, builds: { type: 'string' }, rounds: { type: 'string', default: '3' }, words: { type: 'string', default: '300' },
    load: { type: 'string', default: '0' }, profile: { type: 'string' }, readers: { type: 'string' },
  },
});
if (!args['data-dir'] || !args.builds) throw new Error('usage: node bench/request-cost.js --data-dir DIR --builds name=repoDir,... [--rounds N] [--words N] [--load S] [--profile DIR]');
const dataDir = resolve(args['data-dir']);
const rounds = Number(args.rounds);
const perPhase = Number(args.words);
const loadSeconds = Number(args.load);
const log = (...a) => console.error(`[request-cost ${new Date().toISOString().slice(11, 19)}]`, ...a);
// A build: name=repoDir, optionally +VAR=value (repeatable) for environment variables of its server.
const builds = args.builds.split(',').map((spec) => {
  const [head, ...vars] = spec.split('+');
  const [name, dir] = head.split('=');
  const env = Object.fromEntries(vars.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]));
  return { name, dir: resolve(dir), bin: join(resolve(dir), 'bin', 'catalog.js'), env, results: {} };
});

/** Words of the part names by document frequency (every language), shuffled deterministically. */
function wordsByFrequency() {
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  const df = new Map();
  for (const names of db.prepare('SELECT name FROM parts').pluck().iterate()) {
    const words = new Set(Object.values(JSON.parse(names)).join(' ').toLowerCase().split(/[^a-z0-9]+/));
    for (const w of words) if (/^[a-z]{4,}$/.test(w)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const partIds = db.prepare('SELECT part_id FROM parts ORDER BY random() LIMIT 2000').pluck().all();
  // Words of the first 1,000 parts by part id are what a server's start-up warm-up searches
  // (src/http/warm-up.ts): left out, so no build measures a word its own warm-up has read.
  const warmed = new Set();
  for (const names of db.prepare('SELECT name FROM parts ORDER BY part_id LIMIT 1000').pluck().iterate()) {
    for (const w of Object.values(JSON.parse(names)).join(' ').toLowerCase().split(/[^a-z0-9]+/)) warmed.add(w);
  }
  const all0 = [...df].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const medium = all0.filter(([, n]) => n >= 700 && n <= 1400).map(([w]) => w).slice(0, 20);
  const frequent = all0.filter(([, n]) => n >= 20_000).map(([w]) => w).slice(0, 10);
  for (const w of warmed) df.delete(w);
  db.close();
  let s = 7;
  const random = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const shuffled = (list) => {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
    return list;
  };
  const all = [...df].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  // The rarest words: at 1,000,000 parts every name recurs ~25 times, so they have 26-27 hits (compare.js's rare class).
  const rarest = Math.min(...df.values()) + 1;
  return {
    rare: shuffled(all.filter(([, n]) => n <= Math.max(25, rarest)).map(([w]) => w)),
    medium,
    frequent,
    partIds,
  };
}

/** On-CPU ns of each thread of `pid` (schedstat's first field), by thread id. */
function threadCpu(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** CPU µs of the whole process and of its main thread since `before`, per request. */
function cpuSince(pid, before, requests) {
  const now = threadCpu(pid);
  let total = 0;
  for (const [tid, ns] of now) total += ns - (before.get(tid) ?? 0);
  const main = (now.get(String(pid)) ?? 0) - (before.get(String(pid)) ?? 0);
  return { cpuUs: Math.round(total / 1000 / requests), mainCpuUs: Math.round(main / 1000 / requests) };
}

function summary(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  return { n: sorted.length, p50: +percentile(sorted, 50).toFixed(3), p99: +percentile(sorted, 99).toFixed(3) };
}

async function startServer(build, token, port) {
  const started = performance.now();
  const nodeArgs = [];
  if (args.profile) {
    const dir = resolve(args.profile, build.name);
    mkdirSync(dir, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  const serveArgs = ['--data-dir', dataDir, 'serve', '--port', String(port), ...(args.readers ? ['--readers', args.readers] : [])];
  const child = spawn(process.execPath, [...nodeArgs, build.bin, ...serveArgs], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...build.env } });
  let stderr = '';
  child.stderr.on('data', (d) => {
    if (stderr.length < 100_000) stderr += d;
  });
  const origin = `http://127.0.0.1:${port}`;
  const http = new Pool(origin, { connections: 1 });
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await waitUntilServing(http, auth, { why: () => `${build.name}: ${stderr}`, exited: () => child.exitCode !== null });
  return {
    child, http, auth, origin, startMs: performance.now() - started,
    async stop() {
      await http.close();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** Sequential requests on one connection; wall ms each and the server's CPU per request. */
async function phase(server, requests, check) {
  const wall = [];
  const before = threadCpu(server.child.pid);
  const answers = [];
  for (const request of requests) {
    const t0 = performance.now();
    const r = await server.http.request(request);
    const body = await r.body.text();
    wall.push(performance.now() - t0);
    if (r.statusCode !== 200) throw new Error(`${request.method} ${request.path}: ${r.statusCode} ${body}`);
    answers.push(check ? JSON.parse(body) : undefined);
  }
  return { ...summary(wall), ...cpuSince(server.child.pid, before, requests.length), answers, wall };
}

async function load(server, bodies, seconds) {
  const pool = new Pool(server.origin, { connections: 50, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const latencies = [];
  let errors = 0;
  const before = threadCpu(server.child.pid);
  const deadline = performance.now() + seconds * 1000;
  const loop = async (w) => {
    for (let n = 0; performance.now() < deadline; n++) {
      const t0 = performance.now();
      try {
        const r = await pool.request({ method: 'POST', path: '/1/find/search', headers: server.auth, body: bodies[(w * 7 + n) % bodies.length] });
        await r.body.dump();
        if (r.statusCode >= 400) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 50 }, (_, w) => loop(w)));
  const elapsed = performance.now() - started;
  await pool.close();
  return { perSecond: Math.round((latencies.length / elapsed) * 1000), ...summary(latencies), errors, ...cpuSince(server.child.pid, before, latencies.length) };
}

const searchBody = (word) => JSON.stringify({ matches: { text: `${word} ` }, resultOptions: { limit: 25 } });

const { rare, medium, frequent, partIds } = wordsByFrequency();
log(`${rare.length} rare words; load: 20 of them, medium ${medium.join(' ')}, frequent ${frequent.join(' ')}`);
if (rare.length < rounds * builds.length * perPhase) throw new Error(`only ${rare.length} rare words for ${rounds} rounds × ${builds.length} builds × ${perPhase}`);
const token = execFileSync(process.execPath, [builds[0].bin, '--data-dir', dataDir, 'tokens', 'create', '--name', `bench-${Date.now()}`, '--role', 'catalogAdmin'], { encoding: 'utf8' }).trim();
const port = 20_000 + Math.floor(Math.random() * 20_000);
let next = 0;
const loadBodies = [...rare.slice(-20), ...medium, ...frequent].map(searchBody);
for (let round = 0; round < rounds; round++) {
  const order = builds.map((_, i) => builds[(i + round) % builds.length]);
  for (const build of order) {
    const words = rare.slice(next, next + perPhase);
    next += perPhase;
    const server = await startServer(build, token, port);
    const search = (w) => ({ method: 'POST', path: '/1/find/search', headers: server.auth, body: searchBody(w) });
    // No warm-up of our own: as in compare.js, the rare words are the server's first searches.
    const first = await phase(server, words.map(search), true);
    const first20 = { ...summary(first.wall.slice(0, 20)), cpuUs: '', mainCpuUs: '' };
    // The newest 500 sessions (a token keeps 1,000).
    const page = await phase(server, first.answers.slice(-500).map((a) => ({ method: 'GET', path: `/1/find/search/state/${a.sessionId}?skip=0&limit=25`, headers: server.auth })));
    const bust = await server.http.request({ method: 'POST', path: '/1/catalog/parts', headers: server.auth, body: JSON.stringify([{ part_id: 'bench:cache-buster', name: { en: `zzbuster${round}${build.name}` } }]) });
    await bust.body.dump();
    const again = await phase(server, words.map(search));
    const cached = await phase(server, words.map(search));
    const getPart = await phase(server, partIds.slice(0, 2 * perPhase).map((id) => ({ method: 'GET', path: `/1/catalog/parts/${encodeURIComponent(id)}`, headers: server.auth })));
    const loaded = loadSeconds > 0 ? await load(server, loadBodies, loadSeconds) : undefined;
    await server.stop();
    const startUp = { p50: Math.round(server.startMs), p99: '', cpuUs: '', mainCpuUs: '' };
    const result = { startUp, first20, first, page, again, cached, getPart, ...(loaded ? { load: loaded } : {}) };
    for (const [k, v] of Object.entries(result)) {
      delete v.answers;
      delete v.wall;
      (build.results[k] ??= []).push(v);
    }
    log(`round ${round + 1} ${build.name}: ${Object.entries(result).map(([k, v]) => `${k} ${v.p50}/${v.p99} ms ${v.cpuUs}/${v.mainCpuUs} µs${v.perSecond ? ` ${v.perSecond}/s` : ''}`).join('; ')}`);
  }
}

// Markdown: per phase, each build's runs (p50 / p99 ms; CPU µs per request: process / main thread).
const phases = Object.keys(builds[0].results);
const lines = ['| phase | ' + builds.map((b) => `${b.name}: p50 / p99 ms, CPU µs (process / main)`).join(' | ') + ' |', '|---|' + builds.map(() => '---|').join('')];
for (const p of phases) {
  lines.push(`| ${p} | ` + builds.map((b) => b.results[p].map((r) => `${r.p50} / ${r.p99}, ${r.cpuUs} / ${r.mainCpuUs}${r.perSecond ? `, ${r.perSecond}/s` : ''}`).join('; ')).join(' | ') + ' |');
}
console.log(lines.join('\n'));
if (existsSync(join(dataDir, 'catalog.db'))) log('done');
