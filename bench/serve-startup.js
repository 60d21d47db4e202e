// Benchmark: `catalog serve` start-up on a large catalog, beside baseline checkouts.
//
// For each run and each build (this checkout, then each baseline; alternated), starts `catalog
// serve` on the same data directory and measures, from the spawn: when its port first answers
// (accepts), when GET /1/catalog/info answers 200 (ready), the server's CPU time until ready (all
// its threads, from /proc), then the first search of every query of a queries file (the first pass
// of a fresh server, p50 per class), and its resident memory after them.
//
// Usage: npm run build && nice -n 10 node bench/serve-startup.js --data-dir <catalog dir>
//   [--queries bench/tmp/compare-queries-1000000.tsv] [--baseline <checkout>[,<checkout>…]] [--runs 3]
// The queries file is bench/compare.js's (`--keep`): one `class<TAB>text` a line. Each baseline
// checkout must be built and able to open the catalog (same schema). Writes the section
// `serve-startup:<parts>` of bench/results.md.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BIN, argReader, isMain, processCpuSeconds, quantile, residentMb, runCli, spawnServe, writeSection } from './lib.js';

const arg = argReader(process.argv.slice(2));



/** The median (the lower middle value) of unsorted numbers. */
const median = (xs) => quantile(xs, 0.5);

/** One start of `bin`'s `catalog serve` on `dataDir`: the figures described above. */
async function startOnce(bin, dataDir, token, queries) {
  const { child, http, spawnedAt, stderr, stop } = await spawnServe(bin, dataDir);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  try {
    let acceptsMs;
    let readyMs;
    let cpuToReady;
    for (let i = 0; readyMs === undefined; i++) {
      if (child.exitCode !== null || i > 3000) throw new Error(`catalog serve (${bin}) did not start: ${stderr()}`);
      try {
        const r = await http.request({ method: 'GET', path: '/1/catalog/info', headers });
        await r.body.dump();
        acceptsMs ??= performance.now() - spawnedAt;
        if (r.statusCode === 200) {
          readyMs = performance.now() - spawnedAt;
          cpuToReady = processCpuSeconds(child.pid);
        }
      } catch {
        // not listening yet
      }
      if (readyMs === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    const firstPass = {};
    for (const [kind, text] of queries) {
      const t = performance.now();
      const r = await http.request({ method: 'POST', path: '/1/find/search', headers, body: JSON.stringify({ matches: { text }, resultOptions: { limit: 25 } }) });
      await r.body.dump();
      if (r.statusCode !== 200) throw new Error(`search ${text}: ${r.statusCode}`);
      (firstPass[kind] ??= []).push(performance.now() - t);
    }
    return { acceptsMs, readyMs, cpuToReady, rssMb: residentMb(child.pid), firstPass: Object.fromEntries(Object.entries(firstPass).map(([k, v]) => [k, median(v)])) };
  } finally {
    await stop();
  }
}

/** Runs the benchmark; returns the parts count and, per build, each run's figures. */
export async function runServeStartup({ dataDir, queriesFile, baseline, runs = 3 }) {
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  const parts = db.prepare('SELECT n FROM engine_stats WHERE id = 0').pluck().get();
  db.close();
  const queries = queriesFile && existsSync(queriesFile)
    ? readFileSync(queriesFile, 'utf8').trim().split('\n').map((line) => line.split('\t'))
    : [];
  const builds = [{ name: 'this checkout', bin: BIN }];
  for (const checkout of baseline ? baseline.split(',') : []) builds.push({ name: `baseline ${checkout}`, bin: join(checkout, 'bin', 'catalog.js') });
  const created = await runCli(['--data-dir', dataDir, 'tokens', 'create', '--name', `serve-startup-${process.pid}`, '--role', 'factoryWorker']);
  if (created.code !== 0) throw new Error(`tokens create: ${created.stderr}`);
  const token = created.stdout.trim();
  const results = Object.fromEntries(builds.map((b) => [b.name, []]));
  for (let run = 0; run < runs; run++) {
    for (const build of builds) {
      const r = await startOnce(build.bin, dataDir, token, queries);
      process.stderr.write(`serve-startup: ${build.name} run ${run + 1}: ${JSON.stringify(r)}\n`);
      results[build.name].push(r);
    }
  }
  return { parts, queries: queries.length, results };
}

/** The section of bench/results.md for a {@link runServeStartup} result (Markdown). */
export function serveStartupSection(r) {
  const classes = [...new Set(Object.values(r.results).flatMap((runs) => runs.flatMap((x) => Object.keys(x.firstPass))))];
  const ms = (x) => Math.round(x);
  const lines = [
    `\`catalog serve\` on a catalog of ${r.parts.toLocaleString('en-US')} parts, started ${Object.values(r.results)[0].length} times per build, builds alternated. From the spawn: the port answers (accepts), GET /1/catalog/info answers 200 (ready), the server's CPU until ready (every thread); then the first search of each of ${r.queries} queries (a fresh server's first pass, p50 ms per class) and the resident memory after them. Medians over the runs, each run's figure in brackets.`,
    '',
    `| build | accepts ms | ready ms | CPU to ready s | ${classes.map((c) => `first ${c} ms`).join(' | ')} | resident MB |`,
    `|---|---|---|---|${classes.map(() => '---|').join('')}---|`,
  ];
  for (const [name, runs] of Object.entries(r.results)) {
    const cell = (pick, fmt = ms) => `${fmt(median(runs.map(pick)))} (${runs.map((x) => fmt(pick(x))).join(', ')})`;
    lines.push(`| ${name} | ${cell((x) => x.acceptsMs)} | ${cell((x) => x.readyMs)} | ${cell((x) => x.cpuToReady, (v) => v.toFixed(1))} | ${classes.map((c) => cell((x) => x.firstPass[c] ?? NaN, (v) => v.toFixed(1))).join(' | ')} | ${cell((x) => x.rssMb)} |`);
  }
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const dataDir = arg('data-dir', undefined);
  if (!dataDir) throw new Error('usage: node bench/serve-startup.js --data-dir <catalog dir> [--queries <tsv>] [--baseline <checkout>[,<checkout>…]] [--runs 3]');
  const result = await runServeStartup({ dataDir, queriesFile: arg('queries', undefined), baseline: arg('baseline', undefined), runs: Number(arg('runs', '3')) });
  console.log(JSON.stringify(result, null, 2));
  writeSection(`serve-startup:${result.parts}`, `\`catalog serve\` start-up at ${result.parts.toLocaleString('en-US')} parts`, serveStartupSection(result));
}
