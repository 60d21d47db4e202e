// Shared helpers of the benchmark scripts (plain ESM; they drive the built code in dist/).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = join(ROOT, 'bin', 'catalog.js');

/** bench/results.md, or the file named by CATALOG_BENCH_RESULTS (a smoke run that must not touch the record). */
export const RESULTS = process.env.CATALOG_BENCH_RESULTS ?? join(ROOT, 'bench', 'results.md');

/**
 * The comment lines that delimit the section of results.md named `name`: `SCRIPT` (bench/SCRIPT.js
 * writes it) or `SCRIPT:PART` for a script with several sections.
 */
export function sectionMarkers(name) {
  const script = name.split(':')[0];
  return { begin: `<!-- bench:${name} (written by bench/${script}.js; do not edit) -->`, end: `<!-- /bench:${name} -->` };
}

/**
 * Replaces script `name`'s own section of `file` (bench/results.md by default): everything between
 * its two marker comments ({@link sectionMarkers}) becomes a `## title` heading, one line saying
 * which command wrote it, when and on what machine, and `body` (Markdown). Other sections are kept
 * byte for byte; a section not yet in the file is appended at the end. The file is replaced
 * atomically (write to a temporary file, then rename), so an interrupted run leaves the old one.
 * @param {string} name the script's file name without `.js` (bench/NAME.js), or `NAME:PART`
 * @param {string} title the section's heading, without the `## `
 * @param {string} body the figures, in Markdown
 * @param {{ command?: string, file?: string, date?: Date }} options `command`: how it was run (default `node bench/NAME.js` and this process's arguments)
 */
export function writeSection(name, title, body, options = {}) {
  const file = options.file ?? RESULTS;
  const command = options.command ?? ['node', `bench/${name.split(':')[0]}.js`, ...process.argv.slice(2)].join(' ');
  const date = (options.date ?? new Date()).toISOString().replace(/\.\d+Z$/, 'Z');
  const { begin, end } = sectionMarkers(name);
  const section = [begin, `## ${title}`, '', `\`${command}\` on ${date}: Node ${process.version}, ${cpus().length} cores${hugePagesNote()}.`, '', body.trim(), end].join('\n');
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const from = old.indexOf(begin);
  const to = from >= 0 ? old.indexOf(end, from) : -1;
  if (from >= 0 && to < 0) throw new Error(`${file}: the section of bench/${name}.js has no end marker (${end})`);
  const next = from >= 0 ? old.slice(0, from) + section + old.slice(to + end.length) : `${old.trimEnd()}\n\n${section}\n`;
  writeFileSync(`${file}.tmp`, next);
  renameSync(`${file}.tmp`, file);
}

/**
 * The machine's transparent huge pages setting (Linux), as `, transparent huge pages: <mode>`, or ''
 * where there is none: it moves search latencies by ~10 % (docs/deploy.md), so a figure says it.
 */
function hugePagesNote() {
  try {
    const mode = /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1];
    return mode ? `, transparent huge pages: ${mode}` : '';
  } catch {
    return '';
  }
}

/** A fresh temporary directory. */
export function tempDir(prefix = 'catalog-bench-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Peak resident set (VmHWM) of a live process in bytes, or 0 when it is gone. */
function peakRss(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmHWM:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory (VmRSS) of a live process in MB, from /proc/<pid>/status (NaN when unknown). */
export function residentMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** CPU seconds (user + system, every thread) a live process has used, from /proc/<pid>/stat. */
export function processCpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Starts `bin`'s `catalog serve` on `dataDir` (a free port of 127.0.0.1, no access log) and an
 * undici Pool of one connection to it. Returns the child, the pool, when it was spawned
 * (performance.now()), its stderr so far and `stop()` (closes the pool, SIGINT, waits for the exit).
 */
export async function spawnServe(bin, dataDir) {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [bin, '--data-dir', dataDir, 'serve', '--port', String(port), '--access-log', '/dev/null'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const http = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
  const stop = async () => {
    await http.close();
    child.kill('SIGINT');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  };
  return { child, http, spawnedAt, stderr: () => stderr, stop };
}

/**
 * Exits (status 2) naming the directory when one of `dirs` (undefined ones skipped) holds no
 * catalog.db: a CLI given a missing data directory makes an empty catalog there, nothing to measure.
 */
export function requireCatalogs(dirs) {
  for (const dir of dirs) {
    if (dir !== undefined && !existsSync(join(dir, 'catalog.db'))) {
      process.stderr.write(`no catalog in ${dir}: make one with node bench/compare.js --parts N --import-only --keep\n`);
      process.exit(2);
    }
  }
}

/**
 * `bin`'s `catalog serve` on `dataDir` ({@link spawnServe}) with a new catalogAdmin token named
 * `tokenName`, serving, warmed as a server in use ({@link warmClient}) and quiet; `label` names it
 * in tables. Returns spawnServe's fields, `label` and the request `headers`.
 */
export async function warmServer(label, bin, dataDir, tokenName) {
  const token = execFileSync(process.execPath, [bin, '--data-dir', dataDir, 'tokens', 'create', '--name', tokenName, '--role', 'catalogAdmin'], { encoding: 'utf8' }).trim();
  const server = await spawnServe(bin, dataDir);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await waitUntilServing(server.http, headers, { why: server.stderr, exited: () => server.child.exitCode !== null });
  await warmClient(server.http, headers);
  await waitUntilQuiet(server.child.pid);
  return { label, ...server, headers };
}

/** `method path` with JSON `body` on a {@link warmServer}; returns the answer's text, throws on a status of 300 or more. */
export async function requestText(server, method, path, body) {
  const r = await server.http.request({ method, path, headers: server.headers, body: JSON.stringify(body) });
  const text = await r.body.text();
  if (r.statusCode >= 300) throw new Error(`${server.label} ${method} ${path}: ${r.statusCode} ${text.slice(0, 200)}`);
  return text;
}

/**
 * Runs a command, sampling its peak RSS every 10 ms; resolves {code, ms, peakRssBytes, stdout, stderr}.
 */
export function runMeasured(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, peakRss(child.pid));
    }, 10);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ code, ms: performance.now() - start, peakRssBytes: peak, stdout, stderr });
    });
  });
}

/** Runs the built CLI as a user would. */
export function runCli(args, options = {}) {
  return runMeasured(BIN, args, options);
}

/** Formats a rate. */
export function perSecond(count, ms) {
  return Math.round((count / ms) * 1000);
}

/** Percentile of sorted numbers. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/**
 * The option reader of a bench script: `arg('per', '40')` is the value after `--per` in `args`
 * (the script's command line), or the fallback when the flag is absent.
 */
export function argReader(args) {
  return (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
}

/** CPU time of this process so far (user + system), in milliseconds. */
export function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The q-quantile (0–1) of unsorted numbers, lower value (NaN when empty). */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** `x` rounded to `d` decimals. */
export function round(x, d = 1) {
  return Math.round(x * 10 ** d) / 10 ** d;
}

/** p50, p99 and mean (one decimal) and the count of unsorted times in milliseconds. */
export function msStats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { p50: round(at(0.5)), p99: round(at(0.99)), mean: round(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)), n: s.length };
}

/** True when the module at `url` is the script node was started with. */
export function isMain(url) {
  return process.argv[1] !== undefined && fileURLToPath(url) === process.argv[1];
}

/** A small deterministic PRNG (mulberry32) in [0, 1), so every run uses the same data. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A free TCP port of 127.0.0.1 (the OS picks it; resolves the number). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** One search answer as `catalog serve` sends it (default projection): `n` results, ~240 bytes each. */
function cannedSearchAnswer(n) {
  const results = Array.from({ length: n }, (_, i) => ({
    id: `usb:0403:e0d${i % 10}:${i}`, serviceId: `2f3ac21b-a105-4d20-9eaf-19a968f0c5${String(i).padStart(2, '0')}`,
    name: `Total Phase Aardvark I2C/SPI Host Adapter ${i}`, nameLanguage: 'en',
    createdAt: '2026-11-27T15:21:15.542646Z', modifiedAt: '2026-11-27T15:21:15.542646Z',
  }));
  return JSON.stringify({ sessionId: 'a1c9e816-1d5e-4bcf-830f-2084a258b96c', imageId: null, results, resultsTotalCount: n, resultsPageableCount: n });
}

/**
 * Warms the benchmark's own client (undici's request path and the JSON parse of the answers), so
 * that a sequential client's first measured searches time the server rather than this process's
 * JIT, as each system's client is warm in bench/compare.js (PostgreSQL's through 300 queries):
 *
 * 1. `searches` POST searches through a pool like `http` to a fastify app in THIS process that
 *    answers search-shaped JSON of 1, 10 and 25 results (fastify: the same headers as `catalog
 *    serve`'s answers). The server measured sees none of them, so it is exactly as warm as its own
 *    start-up left it. Measured 2026-11-27 at 1,000,000 parts: the client's CPU per rare-word
 *    search 0.35-0.44 ms after the GETs alone, 0.25-0.27 ms after these too.
 * 2. `count` GET /1/catalog/info through `http` itself (its connection; touches no search). Alone,
 *    these took a fresh client's first 20 rare-word searches from 1.5-2.2 ms p50 to 1.0-1.35 ms.
 */
export async function warmClient(http, headers, count = 300, searches = 3000) {
  const { default: Fastify } = await import('fastify');
  const answers = [1, 10, 25].map(cannedSearchAnswer);
  const canned = Fastify({ logger: false });
  let next = 0;
  canned.post('/1/find/search', (request, reply) => reply.type('application/json; charset=utf-8').send(answers[next++ % answers.length]));
  const pool = new Pool(await canned.listen({ host: '127.0.0.1', port: 0 }), { connections: 1 });
  try {
    for (let i = 0; i < searches; i++) {
      const r = await pool.request({ method: 'POST', path: '/1/find/search', headers, body: JSON.stringify({ matches: { text: `word${i} ` }, resultOptions: { limit: 25 } }) });
      await r.body.json();
    }
  } finally {
    await pool.close();
    await canned.close();
  }
  for (let i = 0; i < count; i++) {
    const r = await http.request({ method: 'GET', path: '/1/catalog/info', headers });
    await r.body.json();
  }
}

/** CPU time (user + system, all threads) of process `pid` so far, in ms; from /proc (Linux). */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat (11 and 12 after the name), in clock ticks (100 a second).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Waits until process `pid` is quiet: at most `maxCpuMs` of CPU over `windowMs` (all its
 * threads). A `catalog serve` may still be loading after it listens (its reader threads, the
 * per-part arrays); measuring another system meanwhile would hand it a machine shared with that
 * work, so bench/compare.js waits for it before its query rounds.
 * Resolves with the ms waited; gives up after `timeoutMs` (or where /proc is missing).
 */
export async function waitUntilQuiet(pid, { windowMs = 300, maxCpuMs = 10, timeoutMs = 30_000 } = {}) {
  const started = performance.now();
  try {
    let before = processCpuMs(pid);
    while (performance.now() - started < timeoutMs) {
      await new Promise((r) => setTimeout(r, windowMs));
      const now = processCpuMs(pid);
      if (now - before <= maxCpuMs) break;
      before = now;
    }
  } catch {
    // No /proc (not Linux) or the process is gone: nothing to wait for.
  }
  return Math.round(performance.now() - started);
}

/**
 * Waits until a `catalog serve` answers GET /1/catalog/info with 200 through `http` (an undici
 * Pool) and `headers`; polls every 100 ms. Throws `catalog serve did not start: <why()>` after
 * `tries` polls, or as soon as `exited()` says the server process is gone.
 */
export async function waitUntilServing(http, headers, { why = () => '', exited = () => false, tries = 600 } = {}) {
  for (let i = 0; ; i++) {
    try {
      const r = await http.request({ method: 'GET', path: '/1/catalog/info', headers });
      await r.body.dump();
      if (r.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    if (i > tries || exited()) throw new Error(`catalog serve did not start: ${why()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Applies the experiment overrides in environment variable `name` to `settings` by role: its
 * JSON, e.g. '{"query":{"keypoints":3000}}', is merged into `settings[role]` for each role it names
 * (this process's copy of the product's settings only). Returns whether the variable was set.
 */
export function overrideSettings(settings, name) {
  const value = process.env[name];
  if (!value) return false;
  for (const [role, o] of Object.entries(JSON.parse(value))) Object.assign(settings[role], o);
  return true;
}
