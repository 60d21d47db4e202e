/* global Blob, FormData */
/**
 * Faults under load (docs/deploy.md): `catalog serve` (the built CLI) on a throwaway PostgreSQL
 * cluster and an S3 server (s3rver), with clients searching, reading and writing parts and
 * uploading images; PostgreSQL is restarted (`pg_ctl restart -m fast`) and the S3 server stopped
 * and started again, each while the load runs. Counts: server crashes, 5xx answers outside the
 * outages (503 with Retry-After inside them is the documented answer), answers that are neither,
 * acknowledged writes that cannot be read back at the end, and the time from each store's return
 * to the server's first successful answer of that kind. Writes its section of bench/results.md.
 *
 *   node bench/faults.js [--clients 8] [--parts 2000] [--outage-ms 3000]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { argReader, freePort, writeSection } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', 'bin', 'catalog.js');
const JPEG = readFileSync(join(here, '..', '..', 'shared', 'data', 'images', '0.jpg'));
const arg = argReader(process.argv.slice(2));
const CLIENTS = Number(arg('clients', '8'));
const PARTS = Number(arg('parts', '2000'));
const OUTAGE_MS = Number(arg('outage-ms', '3000'));
const progress = (m) => process.stderr.write(`faults: ${m}\n`);

function pgBin() {
  const debian = '/usr/lib/postgresql';
  const v = readdirSync(debian).filter((x) => /^\d+$/.test(x)).sort((a, b) => b - a).find((x) => existsSync(join(debian, x, 'bin', 'initdb')));
  return join(debian, v, 'bin');
}

async function startCluster() {
  const bin = pgBin();
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'faults-pg-'));
  if (root) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool, args) => execFileSync(root ? 'runuser' : join(bin, tool), root ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, { stdio: 'pipe', cwd: dir });
  const port = await freePort();
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'catalog', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  const settings = `-p ${port} -k ${dir} -c listen_addresses='127.0.0.1' -c fsync=off -c max_connections=200`;
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', 'start']);
  return {
    url: `postgres://catalog@127.0.0.1:${port}/postgres`,
    restart: () => run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-m', 'fast', '-w', 'restart']),
    stopFor: async (ms) => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      await new Promise((r) => setTimeout(r, ms));
      run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', 'start']);
    },
    stop: () => {
      try { run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']); } finally { rmSync(dir, { recursive: true, force: true }); }
    },
  };
}

/** s3rver in a child process (its own crash on a write cut short must not end this script); `close()` kills it. */
async function startS3(port, directory) {
  const script = `import S3rver from 's3rver'; await new S3rver({ address: '127.0.0.1', port: ${port}, silent: true, directory: ${JSON.stringify(directory)}, configureBuckets: [{ name: 'faults', configs: [] }] }).run(); process.stdout.write('ready\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: join(here, '..'), stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => { if (String(d).includes('ready')) resolve(); });
    child.once('exit', (code) => reject(new Error(`s3rver exited ${code}`)));
  });
  return {
    child,
    close: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGKILL');
    }),
  };
}

async function main() {
  const cluster = await startCluster();
  const s3Dir = mkdtempSync(join(tmpdir(), 'faults-s3-'));
  const s3Port = await freePort();
  let s3 = await startS3(s3Port, s3Dir);
  // s3rver itself sometimes dies on concurrent uploads (a temp file of its own gone): it is started
  // again at once and counted, as the S3 server's fault, not the catalog's.
  let s3Deaths = 0;
  let s3Supervised = true;
  const supervise = () => s3.child.once('exit', async () => {
    if (!s3Supervised) return;
    s3Deaths++;
    s3 = await startS3(s3Port, s3Dir);
    supervise();
  });
  supervise();
  const dataDir = mkdtempSync(join(tmpdir(), 'faults-data-'));
  const env = {
    ...process.env, CI: '1', CATALOG_DATABASE_URL: cluster.url, CATALOG_BLOB_URL: 's3://faults/catalog', CATALOG_DATA_DIR: dataDir,
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${s3Port}`, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  const token = execFileSync(BIN, ['tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin'], { env, encoding: 'utf8' }).trim();
  const child = spawn(BIN, ['serve', '--port', '0', '--access-log', join(dataDir, 'access.log')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let crashed = 0;
  child.on('exit', (code, signal) => { if (!stopping) { crashed++; progress(`SERVER EXITED ${code ?? signal}: ${stderr.slice(-2000)}`); } });
  let stopping = false;
  const url = await new Promise((resolve, reject) => {
    const t = setInterval(() => { const m = /at (http:\/\/\S+)/.exec(stderr); if (m) { clearInterval(t); resolve(m[1]); } }, 50);
    child.once('exit', () => reject(new Error(stderr)));
  });
  const auth = { authorization: `Bearer ${token}` };
  const call = async (method, path, body, headers = {}) => {
    try {
      const r = await fetch(`${url}${path}`, { method, headers: { ...auth, ...headers }, body });
      await r.arrayBuffer();
      return { status: r.status, retryAfter: r.headers.get('retry-after') };
    } catch (error) {
      return { status: -1, error: String(error) };
    }
  };
  const json = (method, path, value) => call(method, path, JSON.stringify(value), { 'content-type': 'application/json' });
  progress(`seeding ${PARTS} parts`);
  for (let from = 0; from < PARTS; from += 500) {
    await json('POST', '/1/catalog/parts', Array.from({ length: Math.min(500, PARTS - from) }, (_, i) => ({ part_id: `p${from + i}`, name: { en: `bolt m${(from + i) % 40} steel ${from + i}` } })));
  }
  const outages = [];
  const inOutage = (t) => outages.some((o) => t >= o.from && t <= (o.to ?? Infinity) + 5000);
  const acknowledged = new Map();
  const tally = { answers: 0, ok: 0, documented503: 0, fivexxOutside: 0, otherErrors: 0, samples: [] };
  let running = true;
  let writeSeq = 0;
  const record = (answer, kind) => {
    tally.answers++;
    const t = performance.now();
    if (answer.status >= 200 && answer.status < 300) tally.ok++;
    else if (answer.status === 503 && answer.retryAfter !== null) tally.documented503++;
    else if ((answer.status >= 500 || answer.status === -1) && !inOutage(t)) { tally.fivexxOutside++; if (tally.samples.length < 5) tally.samples.push({ kind, ...answer }); }
    else if (!(answer.status >= 500 || answer.status === -1)) { tally.otherErrors++; if (tally.samples.length < 5) tally.samples.push({ kind, ...answer }); }
  };
  const client = async (n) => {
    while (running) {
      const pick = (writeSeq + n) % 5;
      if (pick === 0) {
        const id = `w${n}-${writeSeq++}`;
        const value = `written ${id}`;
        const answer = await json('POST', '/1/catalog/parts', [{ part_id: id, name: { en: value } }]);
        record(answer, 'write');
        if (answer.status === 200) acknowledged.set(id, value);
      } else if (pick === 1) {
        const form = new FormData();
        const id = `img${n}-${writeSeq++}`;
        form.append('images', new Blob([JSON.stringify([{ image_id: id, part_id: `p${n}`, info: 'display' }])], { type: 'application/json' }), 'defs.json');
        form.append('files', new Blob([JPEG], { type: 'image/jpeg' }), `${id}.jpg`);
        record(await call('POST', '/1/catalog/images', form), 'upload');
      } else if (pick === 2) {
        record(await call('GET', `/1/catalog/parts/p${(writeSeq * 7 + n) % PARTS}`), 'get');
      } else {
        record(await json('POST', '/1/find/search', { matches: { text: `bolt m${(writeSeq + n) % 40}` } }), 'search');
      }
      writeSeq++;
    }
  };
  const load = Array.from({ length: CLIENTS }, (_, n) => client(n));
  const recoveries = {};
  const firstOk = async (path, body) => {
    const t0 = performance.now();
    for (;;) {
      const a = body === undefined ? await call('GET', path) : await json('POST', path, body);
      if (a.status === 200) return Math.round(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await new Promise((r) => setTimeout(r, 3000));
  progress('PostgreSQL restart (pg_ctl restart -m fast)');
  let o = { what: 'postgres restart', from: performance.now() };
  outages.push(o);
  cluster.restart();
  o.to = performance.now();
  recoveries.postgresRestartMs = await firstOk('/1/find/search', { matches: { text: 'bolt' } });
  await new Promise((r) => setTimeout(r, 3000));
  progress(`PostgreSQL down for ${OUTAGE_MS} ms`);
  o = { what: 'postgres down', from: performance.now() };
  outages.push(o);
  await cluster.stopFor(OUTAGE_MS);
  o.to = performance.now();
  recoveries.postgresOutageMs = await firstOk('/1/find/search', { matches: { text: 'bolt' } });
  await new Promise((r) => setTimeout(r, 3000));
  progress(`S3 down for ${OUTAGE_MS} ms`);
  o = { what: 's3 down', from: performance.now() };
  outages.push(o);
  s3Supervised = false;
  await s3.close();
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  s3 = await startS3(s3Port, s3Dir);
  s3Supervised = true;
  supervise();
  o.to = performance.now();
  recoveries.s3OutageMs = await firstOk(`/1/catalog/images/list`, {});
  await new Promise((r) => setTimeout(r, 3000));
  running = false;
  await Promise.all(load);
  let lost = 0;
  for (const [id, value] of acknowledged) {
    const r = await fetch(`${url}/1/catalog/parts/${encodeURIComponent(id)}`, { headers: auth });
    const part = r.status === 200 ? await r.json() : undefined;
    if (part?.name?.en !== value) lost++;
  }
  stopping = true;
  s3Supervised = false;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await s3.close();
  cluster.stop();
  rmSync(s3Dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
  const result = { clients: CLIENTS, parts: PARTS, crashes: crashed, ...tally, acknowledgedWrites: acknowledged.size, lostAcknowledgedWrites: lost, recoveries, s3rverDeaths: s3Deaths };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  writeSection('faults', 'Faults under load: PostgreSQL restart and outage, S3 outage (bench/faults.js)', [
    `${CLIENTS} clients (searches, GET part, part writes, image uploads) against \`catalog serve\` on PostgreSQL + S3 (s3rver), ${PARTS} parts; PostgreSQL restarted, then stopped for ${OUTAGE_MS} ms, then S3 stopped for ${OUTAGE_MS} ms.`,
    '',
    '| crashes | answers | 2xx | 503 + Retry-After | 5xx outside outages (+5 s) | other errors | acknowledged writes | lost | first 200 after PG restart | after PG outage | after S3 outage |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    `| ${crashed} | ${tally.answers} | ${tally.ok} | ${tally.documented503} | ${tally.fivexxOutside} | ${tally.otherErrors} | ${acknowledged.size} | ${lost} | ${recoveries.postgresRestartMs} ms | ${recoveries.postgresOutageMs} ms | ${recoveries.s3OutageMs} ms |`,
    '',
    `s3rver itself died ${s3Deaths} times on concurrent uploads outside the planned outage (its own temp-file race) and was restarted at once; those are extra S3 outages.`,
    ...(tally.samples.length > 0 ? ['', `Samples of unexpected answers: \`${JSON.stringify(tally.samples)}\``] : []),
  ].join('\n'));
}

await main();
