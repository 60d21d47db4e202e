/**
 * The 50-connection mixed load of issue 40 on `catalog serve` (the built CLI, a child process), on
 * SQLite and then on PostgreSQL in one run: the same parts (bench/catalog-data.js: real PCI and USB
 * device names, ~120,000 parts), the same traffic, one store after the other on this machine.
 *
 * Every connection loops for `--seconds`, each request picked at random (seeded) by the weights of
 * MIX: text searches (one or two words of a device name), session pages of its own searches, facet
 * values of `vendor`, GET part, image uploads (one real JPEG, `display`), part writes (10 existing
 * parts renamed) and relation writes (5 pairs). Per request kind: requests per second, p50, p99,
 * timeouts (no answer within `--timeout` s) and errors (any answer but 2xx; a 503 with Retry-After
 * is counted apart, as the documented answer of a full queue), and `catalog serve`'s CPU time over
 * the load (all its threads, from /proc: a figure less at the mercy of a shared machine), and on
 * PostgreSQL its processes' CPU over the load (the postmaster and every child).
 *
 * Usage: npm run build && nice -n 10 node bench/mixed-load.js [--parts 120000] [--seconds 30]
 *   [--connections 50] [--stores sqlite,postgres] [--readers N] [--timeout 30] [--work DIR] [--cpu-prof DIR]
 *   [--mix search=30,page=10,...] (the weights per 100 requests; kinds left out are not sent: one kind alone measures its cost)
 *   [--searches-out FILE] (every answered search as JSON lines: store, ms since the load began when sent, ms taken, text, resultsTotalCount: which searches make the tail, and when)
 * `--settle S` (default 10): the latencies of the first S seconds of the load and of the rest are also given apart.
 * `--cpu-prof DIR` writes V8 CPU profiles of `catalog serve` (every thread) to DIR. `--work DIR` keeps the seeded catalogs (and the PostgreSQL cluster's files) in DIR and reuses them
 * on the next run (seeding 120,000 parts takes minutes); without it, a throwaway directory.
 * PostgreSQL: a throwaway cluster started here from Debian's packages (initdb + pg_ctl, fsync on,
 * shared_buffers 256MB, as bench/pg-engine.js). Writes its section of bench/results.md.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { ATTRIBUTES, devices, numberedPartOf } from './catalog-data.js';
import { argReader, BIN, freePort, msStats, prng, ROOT, tempDir, waitUntilQuiet, waitUntilServing, writeSection } from './lib.js';

const arg = argReader(process.argv.slice(2));
const PARTS = Number(arg('parts', '120000'));
const SECONDS = Number(arg('seconds', '30'));
const CONNECTIONS = Number(arg('connections', '50'));
const STORES = arg('stores', 'sqlite,postgres').split(',');
const READERS = arg('readers', undefined);
const TIMEOUT_S = Number(arg('timeout', '30'));
const WORK = arg('work', undefined);
const CPU_PROF = arg('cpu-prof', undefined);
/** The first seconds of the load, reported apart: a server just started fills its threads' caches then. */
const SETTLE_S = Number(arg('settle', '10'));
const SEARCHES_OUT = arg('searches-out', undefined);
const progress = (m) => process.stderr.write(`mixed-load [load ${loadavg()[0].toFixed(2)}]: ${m}\n`);

/** Request kinds and how the results name them. */
const LABELS = { search: 'search', page: 'session page', facetValues: 'facet values', getPart: 'GET part', upload: 'image upload', partWrite: 'part write (10 parts)', relationWrite: 'relation write (5 pairs)' };
/** Request kinds and their weights (per 100 requests of a connection). */
const MIX = mixOf(arg('mix', 'search=30,page=10,facetValues=10,getPart=26,upload=4,partWrite=12,relationWrite=8'));

/** `kind=weight,...` as MIX: the weights, per 100 requests of a connection (the kinds of LABELS). */
function mixOf(text) {
  const mix = {};
  for (const pair of text.split(',')) {
    const [kind, weight] = pair.split('=');
    if (!(kind in LABELS) || !(Number(weight) >= 0)) throw new Error(`--mix: '${pair}' is not kind=weight (kinds: ${Object.keys(LABELS).join(', ')})`);
    mix[kind] = Number(weight);
  }
  const total = Object.values(mix).reduce((a, b) => a + b, 0);
  if (total !== 100) throw new Error(`--mix: the weights add up to ${total}, not 100`);
  if ((mix.page ?? 0) > 0 && !((mix.search ?? 0) > 0)) throw new Error('--mix: session pages page a connection\'s own searches: give search a weight too');
  return mix;
}
const KINDS = Object.keys(MIX);
const RELATION_TYPES = ['duplicate', 'substitute', 'equivalent', 'not_related'];
const JPEG = readFileSync(join(ROOT, '..', 'shared', 'data', 'images', '0.jpg'));

/** A PostgreSQL cluster in `dir` (made there if missing): bench/pg-engine.js's recipe; `stop()` stops it. */
async function startCluster(dir) {
  const debian = '/usr/lib/postgresql';
  const version = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => b - a).find((v) => existsSync(join(debian, v, 'bin', 'initdb')));
  if (!version) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
  const bin = join(debian, version, 'bin');
  const root = process.getuid?.() === 0;
  mkdirSync(dir, { recursive: true });
  if (root) {
    // The postgres user must be able to reach its directory through the (0700) work directory.
    chmodSync(join(dir, '..'), 0o711);
    const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
    chmodSync(dir, 0o700);
  }
  const run = (tool, args) => execFileSync(root ? 'runuser' : join(bin, tool), root ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const data = join(dir, 'data');
  if (!existsSync(join(data, 'PG_VERSION'))) run('initdb', ['-D', data, '-U', 'catalog', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses='127.0.0.1' -c shared_buffers=256MB -c max_connections=200`, '-w', 'start']);
  return {
    url: `postgres://catalog@127.0.0.1:${port}/postgres`,
    /** The postmaster's pid (the first line of postmaster.pid). */
    pid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
  };
}

/** Imports `parts` parts into the catalog opened by `open` (batches of 1,000 through the store, as bench/pg-engine.js) and makes a token; resolves the token's secret. */
async function seed(open, list) {
  const { LOCAL_OWNER } = await import('../dist/core/permissions.js');
  const { decidePartUpsert } = await import('../dist/core/catalog/parts.js');
  const catalog = await open();
  try {
    const { service } = catalog;
    await service.upsertAttributes(LOCAL_OWNER, ATTRIBUTES);
    const started = performance.now();
    for (let from = 0; from < PARTS; from += 1000) {
      const items = [];
      for (let i = from; i < Math.min(PARTS, from + 1000); i++) items.push(numberedPartOf(i, list));
      const now = service.clock.nowMicros();
      await service.store.upsertParts(items, (item, existing, attributes) => decidePartUpsert(item, existing, attributes, now, () => service.ids.uuid()));
      if ((from + 1000) % 20_000 === 0) progress(`${from + 1000} parts imported (${Math.round((from + 1000) / ((performance.now() - started) / 1000))} rows/s)`);
    }
    const { secret } = await service.createToken(LOCAL_OWNER, { name: 'mixed-load', roles: ['catalogAdmin'] });
    return secret;
  } finally {
    await catalog.close();
  }
}

/** `catalog serve` on `dataDir` (and `env`), its access log discarded; resolves {child, url}. */
function serve(dataDir, env) {
  const flags = READERS === undefined ? [] : ['--readers', READERS];
  const node = CPU_PROF === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', CPU_PROF];
  const child = spawn(process.execPath, [...node, BIN, '--data-dir', dataDir, 'serve', '--port', '0', '--access-log', '/dev/null', ...flags], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /at (http:\/\/\S+)/.exec(stderr);
      if (m) resolve({ child, url: m[1], stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`catalog serve exited ${code}: ${stderr}`)));
  });
}

/** CPU time (user + system, every thread) of process `pid` so far, in ms (Linux /proc; clock ticks of 10 ms). */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU ms of a PostgreSQL cluster so far: its postmaster (with the children it has reaped: cutime,
 * cstime) and every live child (the backends of the server's connections, the checkpointer, the
 * WAL writer...). Read from /proc; the difference over the load is what PostgreSQL spent on it.
 */
function clusterCpuMs(postmasterPid) {
  const stat = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const own = stat(postmasterPid);
  let ms = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * 10;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = stat(entry);
      // The parent pid is field 4 of stat (1 after the name).
      if (Number(fields[1]) === postmasterPid) ms += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // The process ended meanwhile: its CPU is in the postmaster's reaped children.
    }
  }
  return ms;
}

/** A multipart image upload body: definitions and one JPEG. */
function uploadBody(imageId, partId) {
  const b = 'mixed-load-boundary';
  return {
    body: Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="images"; filename="images.json"\r\nContent-Type: application/json\r\n\r\n`),
      Buffer.from(JSON.stringify([{ image_id: imageId, part_id: partId, info: 'display' }])),
      Buffer.from(`\r\n--${b}\r\nContent-Disposition: form-data; name="files"; filename="${imageId}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
      JPEG,
      Buffer.from(`\r\n--${b}--\r\n`),
    ]),
    contentType: `multipart/form-data; boundary=${b}`,
  };
}

/** Runs the mixed load against `url` with `token`; resolves the per-kind figures. */
async function mixedLoad(url, token, list, store) {
  const pool = new Pool(url, { connections: CONNECTIONS, headersTimeout: TIMEOUT_S * 1000, bodyTimeout: TIMEOUT_S * 1000 });
  const auth = { authorization: `Bearer ${token}` };
  const times = Object.fromEntries(KINDS.map((k) => [k, []]));
  /** Per answered request of `times`, when it was answered (ms since the load began). */
  const answeredAt = Object.fromEntries(KINDS.map((k) => [k, []]));
  const loadStart = performance.now();
  const tally = Object.fromEntries(KINDS.map((k) => [k, { timeouts: 0, errors: 0, busy503: 0, statuses: {} }]));
  const samples = [];
  const searchLog = [];
  const words = (random) => {
    const name = list[Math.floor(random() * list.length)][3].split(/[^A-Za-z0-9]+/).filter((w) => w.length >= 3);
    if (name.length === 0) return 'controller';
    const first = Math.floor(random() * name.length);
    return random() < 0.5 || first + 1 >= name.length ? name[first] : `${name[first]} ${name[first + 1]}`;
  };
  const part = (random) => Math.floor(random() * PARTS);
  let writeSeq = 0;
  const send = async (kind, options) => {
    const start = performance.now();
    try {
      const res = await pool.request({ ...options, headers: { ...auth, ...options.headers } });
      const text = await res.body.text();
      const ms = performance.now() - start;
      const t = tally[kind];
      t.statuses[res.statusCode] = (t.statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode === 503 && res.headers['retry-after'] !== undefined) t.busy503++;
      else if (res.statusCode >= 300) {
        t.errors++;
        if (samples.length < 8) samples.push(`${kind} ${res.statusCode} ${text.slice(0, 160)}`);
      } else {
        times[kind].push(ms);
        answeredAt[kind].push(performance.now() - loadStart);
      }
      return { status: res.statusCode, text };
    } catch (error) {
      if (/timeout/i.test(error.code ?? '') || /timeout/i.test(error.message)) tally[kind].timeouts++;
      else {
        tally[kind].errors++;
        if (samples.length < 8) samples.push(`${kind} ${error.code ?? error.message}`);
      }
      return { status: -1, text: '' };
    }
  };
  const json = (body) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const until = performance.now() + SECONDS * 1000;
  let uploads = 0;
  const loop = async (k) => {
    const random = prng(1000 + k);
    const sessions = [];
    while (performance.now() < until) {
      let pick = random() * 100;
      const kind = KINDS.find((name) => (pick -= MIX[name]) < 0) ?? 'getPart';
      if (kind === 'search') {
        const text = words(random);
        const sent = performance.now();
        const r = await send(kind, { method: 'POST', path: '/1/find/search', ...json({ matches: { text }, resultOptions: { limit: 25 } }) });
        if (r.status === 200) {
          const answer = JSON.parse(r.text);
          sessions.push(answer.sessionId);
          if (SEARCHES_OUT !== undefined) searchLog.push(JSON.stringify({ store, at: Math.round(sent - loadStart), ms: Math.round(performance.now() - sent), text, resultsTotalCount: answer.resultsTotalCount }));
        }
        // Each connection pages its last 3 sessions. A token keeps its newest 1,000 live sessions
        // (docs/api.md): at ~160 searches a second that is 6 s of them, and a connection whose
        // requests are mostly other kinds may take longer than that for 10 searches of its own.
        if (sessions.length > 3) sessions.shift();
      } else if (kind === 'page') {
        const session = sessions[Math.floor(random() * sessions.length)];
        if (session === undefined) continue;
        await send(kind, { method: 'GET', path: `/1/find/search/state/${session}?skip=25&limit=25` });
      } else if (kind === 'facetValues') {
        const vendor = list[Math.floor(random() * list.length)][4];
        await send(kind, { method: 'POST', path: '/1/find/facet-values', ...json({ attribute_id: 'vendor', prefix: vendor.slice(0, 2), ...(random() < 0.5 ? { matches: { text: words(random) } } : {}) }) });
      } else if (kind === 'getPart') {
        await send(kind, { method: 'GET', path: `/1/catalog/parts/${encodeURIComponent(numberedPartOf(part(random), list).part_id)}` });
      } else if (kind === 'upload') {
        const form = uploadBody(`load-${store}-${k}-${uploads++}`, numberedPartOf(part(random), list).part_id);
        await send(kind, { method: 'POST', path: '/1/catalog/images', headers: { 'content-type': form.contentType }, body: form.body });
      } else if (kind === 'partWrite') {
        const seq = writeSeq++;
        const items = Array.from({ length: 10 }, () => {
          const p = numberedPartOf(part(random), list);
          return { ...p, name: { en: `${p.name.en} w${seq}` } };
        });
        await send(kind, { method: 'POST', path: '/1/catalog/parts', ...json(items) });
      } else {
        const items = Array.from({ length: 5 }, () => {
          const a = part(random);
          return { anchor_part_id: numberedPartOf(a, list).part_id, related_part_id: numberedPartOf((a + 1 + part(random)) % PARTS, list).part_id, type: RELATION_TYPES[Math.floor(random() * 4)] };
        });
        await send(kind, { method: 'POST', path: '/v1/parts/relations', ...json(items) });
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, k) => loop(k)));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  if (SEARCHES_OUT !== undefined) appendFileSync(SEARCHES_OUT, searchLog.map((line) => `${line}\n`).join(''));
  const within = (k, settled) => times[k].filter((_, i) => (answeredAt[k][i] >= SETTLE_S * 1000) === settled);
  const kinds = Object.fromEntries(KINDS.map((k) => [k, { ...msStats(times[k]), perSecond: Math.round((times[k].length / elapsed) * 10) / 10, ...tally[k], settling: msStats(within(k, false)), settled: msStats(within(k, true)) }]));
  return { seconds: Math.round(elapsed), kinds, samples };
}

/** Seeds (or reuses) one store's catalog, serves it, runs the load; resolves its figures. */
async function measure(store, work, list) {
  const dataDir = join(work, store);
  const tokenFile = join(work, `${store}.token`);
  let cluster;
  const env = {};
  try {
    let open;
    if (store === 'postgres') {
      cluster = await startCluster(join(work, 'pg'));
      env.CATALOG_DATABASE_URL = cluster.url;
      const { openCatalogAt } = await import('../dist/open-catalog.js');
      open = () => openCatalogAt({ dataDir, databaseUrl: cluster.url });
    } else {
      const { openCatalog } = await import('../dist/open-catalog.js');
      open = () => openCatalog({ dataDir });
    }
    if (!existsSync(tokenFile)) {
      progress(`${store}: seeding ${PARTS} parts`);
      writeFileSync(tokenFile, await seed(open, list));
    }
    const token = readFileSync(tokenFile, 'utf8').trim();
    const server = await serve(dataDir, env);
    try {
      const probe = new Pool(server.url, { connections: 1 });
      await waitUntilServing(probe, { authorization: `Bearer ${token}` }, { why: server.stderr, exited: () => server.child.exitCode !== null });
      await probe.close();
      await waitUntilQuiet(server.child.pid, { timeoutMs: 60_000 });
      progress(`${store}: ${CONNECTIONS} connections for ${SECONDS} s`);
      const cpuBefore = processCpuMs(server.child.pid);
      const pgCpuBefore = cluster ? clusterCpuMs(cluster.pid()) : 0;
      const figures = await mixedLoad(server.url, token, list, store);
      const cpuMs = processCpuMs(server.child.pid) - cpuBefore;
      const pgCpuMs = cluster ? clusterCpuMs(cluster.pid()) - pgCpuBefore : undefined;
      const answered = Object.values(figures.kinds).reduce((sum, k) => sum + k.n, 0);
      const perAnswer = (ms) => Math.round((ms / Math.max(1, answered)) * 10) / 10;
      return {
        ...figures,
        serverCpuSeconds: Math.round(cpuMs / 100) / 10,
        serverCpuMsPerAnswer: perAnswer(cpuMs),
        ...(pgCpuMs === undefined ? {} : { postgresCpuSeconds: Math.round(pgCpuMs / 100) / 10, postgresCpuMsPerAnswer: perAnswer(pgCpuMs) }),
      };
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once('exit', r)));
    }
  } finally {
    cluster?.stop();
  }
}

/** The section of bench/results.md (Markdown). */
function section(report) {
  const stores = Object.keys(report.stores);
  const row = (store, kind) => {
    const k = report.stores[store].kinds[kind];
    return `| ${store} | ${LABELS[kind]} | ${k.n} | ${k.perSecond} | ${k.p50} | ${k.p99} | ${k.timeouts} | ${k.errors} | ${k.busy503} |`;
  };
  const ratio = report.stores.postgres && report.stores.sqlite ? Math.round((report.stores.postgres.kinds.search.p50 / report.stores.sqlite.kinds.search.p50) * 10) / 10 : undefined;
  return [
    `${CONNECTIONS} connections for ${SECONDS} s per store, ${PARTS.toLocaleString('en-US')} parts (real PCI/USB device names), \`catalog serve\`${READERS === undefined ? '' : ` --readers ${READERS}`}; mix per 100 requests: ${KINDS.map((k) => `${LABELS[k]} ${MIX[k]}`).join(', ')}. Answered requests only in the latencies; a timeout is no answer within ${TIMEOUT_S} s; errors: any other answer but 2xx; 503: the documented busy answer (Retry-After). 1-minute load average ${report.load.join('–')} (the machine's 2 cores are shared with other work).`,
    '',
    '| store | request | answered | per s | p50 ms | p99 ms | timeouts | errors | 503 |',
    '|---|---|---|---|---|---|---|---|---|',
    ...stores.flatMap((s) => KINDS.map((k) => row(s, k))),
    '',
    `\`catalog serve\`'s CPU during the load (all its threads): ${stores.map((s) => `${s} ${report.stores[s].serverCpuSeconds} s, ${report.stores[s].serverCpuMsPerAnswer} ms per answer`).join('; ')}.${stores.includes('postgres') ? ` PostgreSQL's processes besides it: ${report.stores.postgres.postgresCpuSeconds} s, ${report.stores.postgres.postgresCpuMsPerAnswer} ms per answer.` : ''}`,
    ...(ratio === undefined ? [] : [`PostgreSQL search p50 / SQLite's: ${ratio}×.`]),
    '',
    `The same latencies, p50 / p99 ms, in the first ${SETTLE_S} s of the load (a server just started: each thread's caches of posting lists, dictionary ranges and cards still filling) and after them:`,
    '',
    `| store | request | first ${SETTLE_S} s: answered | p50 / p99 | after: answered | p50 / p99 |`,
    '|---|---|---|---|---|---|',
    ...stores.flatMap((s) => KINDS.map((k) => {
      const { settling, settled } = report.stores[s].kinds[k];
      return `| ${s} | ${LABELS[k]} | ${settling.n} | ${settling.p50} / ${settling.p99} | ${settled.n} | ${settled.p50} / ${settled.p99} |`;
    })),
    ...(stores.some((s) => report.stores[s].samples.length > 0) ? ['', `Samples of errors: \`${JSON.stringify(stores.flatMap((s) => report.stores[s].samples.map((x) => `${s}: ${x}`)))}\``] : []),
  ].join('\n');
}

async function main() {
  const work = WORK ?? tempDir('catalog-mixed-load-');
  const list = devices();
  const load = [loadavg()[0]];
  const report = { parts: PARTS, connections: CONNECTIONS, seconds: SECONDS, mix: MIX, stores: {}, load: [] };
  try {
    for (const store of STORES) {
      report.stores[store] = await measure(store, work, list);
      load.push(loadavg()[0]);
    }
  } finally {
    if (WORK === undefined) rmSync(work, { recursive: true, force: true });
  }
  report.load = [Math.min(...load).toFixed(2), Math.max(...load).toFixed(2)];
  console.log(JSON.stringify(report, null, 2));
  writeSection('mixed-load', 'Mixed load: 50 connections on SQLite and PostgreSQL (bench/mixed-load.js)', section(report));
}

await main();
