// Shared helpers of the benchmark scripts (plain ESM; they drive the built code in dist/).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = join(ROOT, 'bin', 'catalog.js');

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

/**
 * Sends `count` GET /1/catalog/info through `http` (an undici Pool) and parses each answer as
 * JSON, as the measured searches do: the benchmark's own client code (undici's request path, the
 * JSON parse) then runs optimized, so the first measured searches time the server rather than
 * the client process's JIT (a fresh client's first 20 rare-word searches measured 1.5-2.2 ms p50
 * against 1.0-1.35 ms after this warm-up, the server's share unchanged). Touches no search.
 */
export async function warmClient(http, headers, count = 300) {
  for (let i = 0; i < count; i++) {
    const r = await http.request({ method: 'GET', path: '/1/catalog/info', headers });
    await r.body.json();
  }
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
