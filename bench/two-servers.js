// Benchmark (issue 15): one `catalog serve` beside two on the same PostgreSQL catalog, serving GET
// part and text search from 64 connections (spread evenly over the servers, as a round-robin load
// balancer does): requests/s, p50 and p99. Real processes of the built CLI (dist/); the servers, the
// load generator and PostgreSQL share this machine's cores, so the figures show what a second
// process adds on the SAME machine, not what a second machine adds.
// Usage: CATALOG_BENCH_DATABASE_URL=postgres://... node bench/two-servers.js [--parts 20000] [--seconds 10] [--connections 64]
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { BIN, percentile, prng, runCli, tempDir, writeSection } from './lib.js';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const PARTS = flag('parts', 20_000);
const SECONDS = flag('seconds', 10);
const CONNECTIONS = flag('connections', 64);
const admin = process.env.CATALOG_BENCH_DATABASE_URL;
if (!admin) throw new Error('set CATALOG_BENCH_DATABASE_URL (a PostgreSQL URL allowed to CREATE DATABASE)');

const WORDS = ['gigabit', 'ethernet', 'controller', 'bridge', 'audio', 'wireless', 'storage', 'sensor', 'adapter', 'switch', 'memory', 'display'];

/** Sends requests from `connections` loops spread over `origins` for `seconds`; returns req/s, p50, p99 (ms) and errors. */
async function load(origins, request, { seconds, connections }) {
  const pools = origins.map((o) => new Pool(o, { connections: Math.ceil(connections / origins.length) }));
  const latencies = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async (k) => {
    const pool = pools[k % pools.length];
    const random = prng(k + 1);
    while (performance.now() < deadline) {
      const start = performance.now();
      const res = await pool.request(request(random));
      await res.body.dump();
      if (res.statusCode >= 400) errors++;
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, (_, k) => worker(k)));
  const elapsed = performance.now() - started;
  await Promise.all(pools.map((p) => p.close()));
  latencies.sort((a, b) => a - b);
  return { requestsPerSecond: Math.round((latencies.length / elapsed) * 1000), p50: Number(percentile(latencies, 50).toFixed(1)), p99: Number(percentile(latencies, 99).toFixed(1)), errors };
}

function serve(env, dataDir) {
  const child = spawn(BIN, ['--data-dir', dataDir, 'serve', '--port', '0', '--access-log', '/dev/null'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /at (http:\/\/\S+)/.exec(stderr);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

const stop = (child) => new Promise((resolve) => {
  child.once('exit', resolve);
  child.kill('SIGTERM');
});

const dir = tempDir('catalog-bench-two-');
const name = `bench_two_${Date.now()}`;
const client = new pg.Client({ connectionString: admin });
await client.connect();
await client.query(`CREATE DATABASE ${name}`);
const u = new URL(admin);
u.pathname = `/${name}`;
const env = { CATALOG_DATABASE_URL: u.toString() };
try {
  // The catalog: PARTS parts with two or three words each, imported through the CLI.
  const random = prng(42);
  const lines = Array.from({ length: PARTS }, (_, i) => {
    const words = [WORDS[Math.floor(random() * WORDS.length)], WORDS[Math.floor(random() * WORDS.length)], `model${i % 997}`];
    return JSON.stringify({ part_id: `p${String(i).padStart(7, '0')}`, name: { en: words.join(' ') } });
  });
  writeFileSync(join(dir, 'parts.ndjson'), lines.join('\n') + '\n');
  const imported = await runCli(['--data-dir', join(dir, 'd'), 'parts', 'import', join(dir, 'parts.ndjson')], { env: { ...process.env, ...env } });
  if (imported.code !== 0) throw new Error(imported.stderr);
  const token = (await runCli(['--data-dir', join(dir, 'd'), 'tokens', 'create', '--name', 'bench', '--role', 'catalogAdmin'], { env: { ...process.env, ...env } })).stdout.trim();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const getPart = (r) => ({ method: 'GET', path: `/1/catalog/parts/p${String(Math.floor(r() * PARTS)).padStart(7, '0')}`, headers });
  const search = (r) => ({ method: 'POST', path: '/1/find/search', headers, body: JSON.stringify({ matches: { text: `${WORDS[Math.floor(r() * WORDS.length)]} ${WORDS[Math.floor(r() * WORDS.length)]}` }, resultOptions: { limit: 20 } }) });

  const results = [];
  for (const servers of [1, 2]) {
    const started = await Promise.all(Array.from({ length: servers }, (_, k) => serve(env, join(dir, `s${k}`))));
    const origins = started.map((s) => s.url);
    // Warm-up: connections, prepared plans, PostgreSQL's buffers.
    await load(origins, getPart, { seconds: 2, connections: CONNECTIONS });
    await load(origins, search, { seconds: 2, connections: CONNECTIONS });
    results.push({ servers, endpoint: 'GET part', ...(await load(origins, getPart, { seconds: SECONDS, connections: CONNECTIONS })) });
    results.push({ servers, endpoint: 'search (2 words, 20 hits)', ...(await load(origins, search, { seconds: SECONDS, connections: CONNECTIONS })) });
    await Promise.all(started.map((s) => stop(s.child)));
  }
  const table = [
    `${PARTS.toLocaleString('en-US')} parts on PostgreSQL, ${CONNECTIONS} connections, ${SECONDS} s per row. Baseline: one server.`,
    '',
    '| servers | endpoint | requests/s | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|',
    ...results.map((r) => `| ${r.servers} | ${r.endpoint} | ${r.requestsPerSecond.toLocaleString('en-US')} | ${r.p50} | ${r.p99} | ${r.errors} |`),
  ].join('\n');
  console.log(table);
  writeSection('two-servers', 'Two servers on one PostgreSQL catalog', table);
} finally {
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
  rmSync(dir, { recursive: true, force: true });
}
