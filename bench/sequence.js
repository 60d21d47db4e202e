// One sequential client replaying bench/compare.js's query sequence against `catalog serve`, builds
// alternated (issue 12): where the slow searches of a class fall, round by round, and which build
// is faster. compare.js measures everything once beside Xapian and PostgreSQL; this script repeats
// only its catalog-over-HTTP part, cheaply, to compare two builds of the server.
//
// - Queries: the TSV compare.js writes (bench/tmp/compare-queries-<parts>.tsv: class, words), in
//   its order (rare, medium, frequent, two words).
// - Each run: a copy of the catalog's catalog.db in a fresh directory (no sessions.db: a new
//   server's first sessions, as in compare.js, whose catalog was just imported), `catalog serve`,
//   `--rounds` rounds with a cache-busting write before rounds 2.. (as compare.js).
// - Per class: p50 / p99 of the warm rounds (2..) and of all rounds, each round's slowest search,
//   and the three slowest searches with their round.
//
// Usage (after `npm run build`; a catalog from compare.js: run it with --keep, or any data dir):
//   node bench/sequence.js --data-dir DIR --queries FILE [--builds a=/path/to/checkout,b=...] [--runs 3] [--rounds 3]
// A build is a checkout with bin/catalog.js and a built dist/ (default: this one).
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { BIN, freePort, percentile, tempDir, waitUntilQuiet, waitUntilServing, warmClient } from './lib.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const dataDir = arg('data-dir');
const queryFile = arg('queries');
if (!dataDir || !queryFile) {
  console.error('usage: node bench/sequence.js --data-dir DIR --queries FILE [--builds a=DIR,b=DIR] [--runs 3] [--rounds 3]');
  process.exit(2);
}
const builds = (arg('builds') ?? `this=${join(BIN, '..', '..')}`).split(',').map((b) => b.split('='));
const RUNS = Number(arg('runs', '3'));
const ROUNDS = Number(arg('rounds', '3'));
const queries = readFileSync(queryFile, 'utf8').trim().split('\n').map((line) => line.split('\t'));

/** Starts `bin` on `dir` and resolves { http, auth, stop } once it answers. */
async function serve(bin, dir) {
  const secret = execFileSync('node', [bin, '--data-dir', dir, 'tokens', 'create', '--name', 'sequence', '--role', 'catalogAdmin'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const port = await freePort();
  const server = spawn('node', [bin, '--data-dir', dir, 'serve', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let exited = false;
  let stderr = '';
  server.stderr.on('data', (d) => (stderr += d));
  server.on('exit', () => (exited = true));
  const auth = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const http = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
  await waitUntilServing(http, auth, { why: () => `${bin}: ${stderr.slice(-2000)}`, exited: () => exited, tries: 1200 });
  await warmClient(http, auth);
  // As bench/compare.js: the server's idle warm-up done first.
  await waitUntilQuiet(server.pid);
  const stop = async () => {
    await http.close();
    server.kill('SIGINT');
    await new Promise((r) => server.on('exit', r));
  };
  return { http, auth, stop };
}

/** One run of one build: times[query][round] in ms. */
async function run(bin) {
  const dir = tempDir('catalog-sequence-');
  copyFileSync(join(dataDir, 'catalog.db'), join(dir, 'catalog.db'));
  const { http, auth, stop } = await serve(bin, dir);
  const times = queries.map(() => []);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      if (round > 0) {
        const bust = await http.request({ method: 'POST', path: '/1/catalog/parts', headers: auth, body: JSON.stringify([{ part_id: 'bench:cache-buster', name: { en: `zzbuster${round}` } }]) });
        await bust.body.dump();
      }
      for (const [qi, [, words]] of queries.entries()) {
        const t0 = performance.now();
        const r = await http.request({ method: 'POST', path: '/1/find/search', headers: auth, body: JSON.stringify({ matches: { text: `${words} ` }, resultOptions: { limit: 25 } }) });
        await r.body.json();
        times[qi].push(performance.now() - t0);
      }
    }
  } finally {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return times;
}

const fmt = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${percentile(sorted, 50).toFixed(2)} / ${percentile(sorted, 99).toFixed(2)}`;
};
for (let r = 0; r < RUNS; r++) {
  for (const [name, checkout] of builds) {
    const times = await run(join(checkout, 'bin', 'catalog.js'));
    console.log(`${name}, run ${r + 1}:`);
    for (const cls of [...new Set(queries.map((q) => q[0]))]) {
      const idx = queries.map((q, i) => (q[0] === cls ? i : -1)).filter((i) => i >= 0);
      const warm = idx.flatMap((i) => times[i].slice(1));
      const all = idx.flatMap((i) => times[i]);
      const perRound = Array.from({ length: ROUNDS }, (_, round) => Math.max(...idx.map((i) => times[i][round])).toFixed(1)).join(' / ');
      const slowest = idx.flatMap((i) => times[i].map((ms, round) => [ms, round + 1, queries[i][1]])).sort((a, b) => b[0] - a[0]).slice(0, 3);
      console.log(`  ${cls}: p50 / p99 warm ${fmt(warm)}, all ${fmt(all)}; slowest by round ${perRound}; ${slowest.map(([ms, round, w]) => `${w} @${round} ${ms.toFixed(1)}`).join(', ')}`);
    }
  }
}
