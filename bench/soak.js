// Soak benchmark of `catalog serve` under abuse (issue 11): for a while (default 60 s) 64 connections
// send mixed reads, searches, session pages and writes, while 20 slow-body connections trickle one
// byte every 5 s and 32 loops send decompression-bomb image searches. Before the soak, one bulk
// write of 1,000 parts runs beside GET probes (how long a read waits behind it).
//
// Reports: error rate, p50/p99 of GET part and of search, the bulk-write probe, server RSS and open
// file descriptors at start and end, sessions.db size, and how the slow and bomb connections ended.
// The server is a child process (its RSS and fds are its own); Linux only (/proc).
//
// Usage: npm run build && node bench/soak.js [--seconds 60] [--parts 5000] [--no-abuse]
// (--no-abuse: the same mixed traffic without the slow-body and bomb connections, for comparison)
// Not part of `npm run bench` (it takes over a minute and both cores).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { Agent, Pool } from 'undici';
import { percentile, ROOT, tempDir, writeSection } from './lib.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 60);
const PARTS = arg('parts', 5000);
const CONNECTIONS = 64;
const ABUSE = !args.includes('--no-abuse');
const SLOW = ABUSE ? 20 : 0;
const BOMBS = ABUSE ? 32 : 0;

/** A 1-bit black PNG of width × height: a few KB on the wire, width × height pixels to decode. */
function onebitPng(width, height) {
  const chunk = (type, data) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1;
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

function multipartSearch(image) {
  const b = 'soak-boundary';
  return {
    body: Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="input"\r\nContent-Type: application/json\r\n\r\n{}\r\n`),
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="image"; filename="q.png"\r\nContent-Type: image/png\r\n\r\n`),
      image,
      Buffer.from(`\r\n--${b}--\r\n`),
    ]),
    contentType: `multipart/form-data; boundary=${b}`,
  };
}

const WORDS = 'steel bolt washer nut plate rotor stator bearing seal gasket spring valve pump motor shaft gear bracket clamp hose filter'.split(' ');
const word = (i) => WORDS[i % WORDS.length];
function makeParts(n, prefix, valueLength = 60) {
  return Array.from({ length: n }, (_, i) => ({
    part_id: `${prefix}-${i}`,
    name: { en: `${word(i)} ${word(i * 7 + 3)} ${i}`, de: `Teil ${i}` },
    attributes: Array.from({ length: 8 }, (_, j) => ({
      attribute_id: `a${j}`,
      values: [{ organization: '', value: { en: Array.from({ length: Math.ceil(valueLength / 6) }, (_, k) => word(i * 3 + j + k)).join(' ').slice(0, valueLength) } }],
    })),
  }));
}

/** Starts `catalog serve`'s startServer in a child process; resolves {url, child}. */
function startServerProcess(dataDir) {
  const code = `
    const { startServer } = await import(${JSON.stringify(join(ROOT, 'dist', 'http', 'server.js'))});
    const server = await startServer({ dataDir: ${JSON.stringify(dataDir)}, host: '127.0.0.1', port: 0, accessLog: null });
    process.stdout.write(server.url + '\\n');
    process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ url: String(d).trim(), child }));
    child.once('exit', (c) => reject(new Error(`server exited with ${c}`)));
  });
}

function processStats(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  return { rssMiB: Number((rss / 1048576).toFixed(1)), fds: readdirSync(`/proc/${pid}/fd`).length };
}

function fileSize(path) {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** A slow-body connection: POST with a large Content-Length, one byte every 5 s; reconnects when closed. */
function slowBody(url, authorization, stats, until) {
  const { hostname, port } = new URL(url);
  const once = () =>
    new Promise((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) });
      let answer = '';
      const headers = `POST /1/catalog/parts HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n${authorization ? `Authorization: ${authorization}\r\n` : ''}\r\n`;
      socket.on('connect', () => socket.write(`${headers}[`));
      socket.setEncoding('latin1');
      socket.on('data', (d) => (answer += d));
      const timer = setInterval(() => socket.writable && socket.write(' '), 5000);
      const stop = setTimeout(() => socket.destroy(), Math.max(0, until - performance.now()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        clearTimeout(stop);
        const status = /^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 'none';
        if (performance.now() < until) stats[`closed by server (${status})`] = (stats[`closed by server (${status})`] ?? 0) + 1;
        resolve();
      });
    });
  return (async () => {
    while (performance.now() < until) await once();
  })();
}

async function main() {
  const dir = tempDir('catalog-soak-');
  const dataDir = join(dir, 'catalog');
  const { openCatalog } = await import('../dist/open-catalog.js');
  const { LOCAL_OWNER } = await import('../dist/core/permissions.js');
  const { LocalCatalogClient } = await import('../dist/client/local-client.js');
  {
    const catalog = openCatalog({ dataDir });
    const local = new LocalCatalogClient(catalog);
    await catalog.service.upsertAttributes(LOCAL_OWNER, Array.from({ length: 8 }, (_, j) => ({ attribute_id: `a${j}`, type: 'text', name: { en: `A${j}` }, searchable: true })));
    for (let i = 0; i < PARTS; i += 1000) await catalog.service.upsertParts(LOCAL_OWNER, makeParts(Math.min(1000, PARTS - i), `base${i}`));
    const images = join(ROOT, '..', 'shared', 'data', 'images');
    const files = readdirSync(images).filter((f) => f.endsWith('.jpg')).slice(0, 20);
    await local.uploadImages(files.map((f, i) => ({ image_id: `img${i}`, part_id: `base0-${i}`, info: 'searchable' })), files.map((f, i) => ({ filename: `img${i}.jpg`, data: readFileSync(join(images, f)) })));
    await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] }).then((t) => (process.env.SOAK_ADMIN = t.secret));
    await catalog.service.createToken(LOCAL_OWNER, { name: 'worker', roles: ['factoryWorker'] }).then((t) => (process.env.SOAK_WORKER = t.secret));
    await catalog.close();
  }
  const admin = { authorization: `Bearer ${process.env.SOAK_ADMIN}` };
  const worker = { authorization: `Bearer ${process.env.SOAK_WORKER}` };
  const { url, child } = await startServerProcess(dataDir);
  const pool = new Pool(url, { connections: CONNECTIONS });
  const send = async (method, path, headers, body) => {
    const start = performance.now();
    const res = await pool.request({ method, path, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body } : {}) });
    const text = await res.body.text();
    return { status: res.statusCode, ms: performance.now() - start, text };
  };
  // Warm up (sharp's first load, caches), then the start figures.
  await send('POST', '/1/find/search', worker, JSON.stringify({ matches: { text: 'washer' } }));
  await send('GET', '/1/catalog/images/img0/original', worker);
  const start = processStats(child.pid);

  // One bulk write of 1,000 parts beside GET probes: how long does a read wait behind it?
  const bulkBody = JSON.stringify(makeParts(1000, 'bulk', 120));
  let bulkDone = false;
  const probes = [];
  const prober = (async () => {
    while (!bulkDone) {
      probes.push((await send('GET', '/1/catalog/parts/base0-1', worker)).ms);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const bulk = await send('POST', '/1/catalog/parts', admin, bulkBody);
  bulkDone = true;
  await prober;

  // The soak.
  const until = performance.now() + SECONDS * 1000;
  const lat = { getPart: [], search: [], state: [], write: [] };
  const counts = { requests: 0, errors: 0, statuses: {} };
  const sessions = [];
  let n = 0;
  const loop = async (id) => {
    while (performance.now() < until) {
      const r = (n++ * 7919 + id) % 100;
      let kind;
      let res;
      if (r < 55) {
        kind = 'getPart';
        res = await send('GET', `/1/catalog/parts/base0-${r * 13}`, worker);
      } else if (r < 85) {
        kind = 'search';
        res = await send('POST', '/1/find/search', worker, JSON.stringify({ matches: { text: `${word(r)} ${word(n).slice(0, 3)}` }, resultOptions: { limit: 10 } }));
        if (res.status === 200) sessions.push(JSON.parse(res.text).sessionId);
      } else if (r < 95) {
        kind = 'state';
        const session = sessions[Math.floor(Math.random() * sessions.length)];
        res = session ? await send('GET', `/1/find/search/state/${session}?skip=10&limit=10`, worker) : await send('GET', '/1/catalog/parts/base0-1', worker);
      } else {
        kind = 'write';
        res = await send('POST', '/1/catalog/parts', admin, JSON.stringify(makeParts(10, `w${id}-${n}`)));
      }
      lat[kind].push(res.ms);
      counts.requests++;
      counts.statuses[res.status] = (counts.statuses[res.status] ?? 0) + 1;
      // An evicted session (per-token cap) answers 404: expected, not an error.
      if (res.status >= 400 && !(kind === 'state' && res.status === 404)) counts.errors++;
    }
  };
  const slowStats = {};
  const slow = Array.from({ length: SLOW }, (_, i) => slowBody(url, i % 2 === 0 ? undefined : admin.authorization, slowStats, until));
  const bombStats = {};
  const bombAgent = new Agent({ connections: BOMBS });
  const overLimit = multipartSearch(onebitPng(16383, 16383));
  const underLimit = multipartSearch(onebitPng(7000, 7000));
  const bombs = Array.from({ length: BOMBS }, async (_, i) => {
    const form = i % 2 === 0 ? overLimit : underLimit;
    const label = i % 2 === 0 ? '16383²' : '7000²';
    while (performance.now() < until) {
      try {
        const res = await bombAgent.request({ origin: url, path: '/1/find/search', method: 'POST', headers: { ...worker, 'content-type': form.contentType }, body: form.body });
        await res.body.dump();
        bombStats[`${label} ${res.statusCode}`] = (bombStats[`${label} ${res.statusCode}`] ?? 0) + 1;
        if (res.statusCode === 503) await new Promise((r) => setTimeout(r, 200));
      } catch (error) {
        bombStats[`${label} ${error.code ?? 'error'}`] = (bombStats[`${label} ${error.code ?? 'error'}`] ?? 0) + 1;
      }
    }
  });
  await Promise.all([...Array.from({ length: CONNECTIONS }, (_, i) => loop(i)), ...slow, ...bombs]);
  await pool.close();
  await bombAgent.close();
  // Let the server drop the closed sockets before counting fds.
  await new Promise((r) => setTimeout(r, 2000));
  const end = processStats(child.pid);
  const sessionsDb = join(dataDir, 'sessions.db');
  const sessionBytes = { db: fileSize(sessionsDb), wal: fileSize(`${sessionsDb}-wal`) };
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));

  const summary = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { n: sorted.length, p50: Number(percentile(sorted, 50).toFixed(1)), p99: Number(percentile(sorted, 99).toFixed(1)) };
  };
  probes.sort((a, b) => a - b);
  const report = {
    seconds: SECONDS,
    abuse: ABUSE,
    parts: PARTS,
    bulkWrite: { status: bulk.status, bodyMiB: Number((bulkBody.length / 1048576).toFixed(1)), ms: Math.round(bulk.ms), probes: probes.length, probeMaxMs: Number((probes.at(-1) ?? 0).toFixed(1)) },
    requests: counts.requests,
    errorRate: Number((counts.errors / Math.max(1, counts.requests)).toFixed(5)),
    statuses: counts.statuses,
    getPart: summary(lat.getPart),
    search: summary(lat.search),
    searchState: summary(lat.state),
    write10: summary(lat.write),
    slowBodies: slowStats,
    bombSearches: bombStats,
    server: { start, end },
    sessionsDbMiB: { db: Number((sessionBytes.db / 1048576).toFixed(2)), wal: Number((sessionBytes.wal / 1048576).toFixed(2)) },
  };
  console.log(JSON.stringify(report, null, 2));
  writeSection(ABUSE ? 'soak' : 'soak:no-abuse', ABUSE ? 'Soak under abuse' : 'Soak without abuse (the baseline of the soak under abuse)', soakSection(report));
}

/** The section of bench/results.md for a soak report (Markdown). */
function soakSection(r) {
  const kinds = Object.entries(r.bombSearches).map(([k, v]) => `${k}: ${v}`).join(', ');
  return [
    `${r.seconds} s, ${r.parts.toLocaleString('en-US')} parts, ${r.abuse ? 'with' : 'without'} the slow-body and decompression-bomb connections; ${r.requests.toLocaleString('en-US')} requests, error rate ${r.errorRate}.`,
    '',
    '| request | n | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...[['GET part', r.getPart], ['search', r.search], ['session page', r.searchState], ['write of 10 parts', r.write10]].map(([label, s]) => `| ${label} | ${s.n} | ${s.p50} | ${s.p99} |`),
    '',
    `Bulk write of ${r.bulkWrite.bodyMiB} MiB: status ${r.bulkWrite.status} in ${r.bulkWrite.ms} ms; the slowest of ${r.bulkWrite.probes} GET probes beside it ${r.bulkWrite.probeMaxMs} ms.`,
    `Server RSS ${r.server.start.rssMiB} MiB → ${r.server.end.rssMiB} MiB, open fds ${r.server.start.fds} → ${r.server.end.fds}; sessions.db ${r.sessionsDbMiB.db} MiB (WAL ${r.sessionsDbMiB.wal} MiB).`,
    ...(r.abuse ? [`Slow bodies: ${JSON.stringify(r.slowBodies)}. Bomb searches: ${kinds || 'none'}.`] : []),
  ].join('\n');
}

await main();
