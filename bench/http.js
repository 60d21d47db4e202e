// Benchmark: HTTP request rate and latency of `catalog serve` read endpoints beside fastify answering a
// fixed JSON body, on loopback, in the same run (server and load generator share the 2 cores).
// Usage: node bench/http.js [--seconds 5] [--connections 32]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { isMain, percentile, tempDir, writeSection } from './lib.js';

/** Sends requests on `connections` loops for `seconds`; returns req/s and latency percentiles (ms). */
export async function load(url, { method = 'GET', path, body, headers = {}, seconds = 5, connections = 32 }) {
  const origin = new URL(url).origin;
  const pool = new Pool(origin, { connections });
  const latencies = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      const res = await pool.request({ method, path, headers: { 'content-type': 'application/json', ...headers }, ...(body ? { body } : {}) });
      await res.body.dump();
      if (res.statusCode >= 400) errors++;
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = performance.now() - started;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round((latencies.length / elapsed) * 1000),
    p50: Number(percentile(latencies, 50).toFixed(2)),
    p99: Number(percentile(latencies, 99).toFixed(2)),
    errors,
  };
}

/** Runs the HTTP benchmark. */
export async function runHttpBench({ seconds = 5, connections = 32 } = {}) {
  const plain = Fastify({ logger: false });
  const fixed = { result: [{ attribute_id: 'vendor', name: { en: 'Vendor' } }], last_object_id: 'vendor', more_data: false };
  plain.get('/fixed', async () => fixed);
  await plain.listen({ host: '127.0.0.1', port: 0 });
  const baseline = await load(`http://127.0.0.1:${plain.server.address().port}`, { path: '/fixed', seconds, connections });
  await plain.close();

  const dir = tempDir();
  const { openCatalog } = await import('../dist/open-catalog.js');
  const { buildApp } = await import('../dist/http/app.js');
  const { LOCAL_OWNER } = await import('../dist/core/permissions.js');
  const catalog = openCatalog({ dataDir: join(dir, 'catalog') });
  const { secret } = await catalog.service.createToken(LOCAL_OWNER, { name: 'bench', roles: ['catalogAdmin'] });
  await catalog.service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' } }]);
  await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'pci:8086:1539', name: { en: 'I211 Gigabit Network Connection' }, attributes: [{ attribute_id: 'vendor', values: [{ value: { en: 'Intel' } }] }] }]);
  const app = buildApp({ catalog, accessLog: null });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${app.server.address().port}`;
  const auth = { authorization: `Bearer ${secret}` };
  const getPart = await load(url, { path: '/1/catalog/parts/pci%3A8086%3A1539', headers: auth, seconds, connections });
  const listAttributes = await load(url, { method: 'POST', path: '/1/catalog/attributes/list', body: '{}', headers: auth, seconds, connections });
  await app.close();
  await catalog.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    connections,
    baselineFixedJson: baseline,
    getPart,
    listAttributes,
    ratioGetPart: Number((getPart.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)),
    ratioListAttributes: Number((listAttributes.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)),
  };
}

const n = (v, digits = 0) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(v));

/** Heading of this script's section of bench/results.md. */
export const HTTP_TITLE = 'HTTP read endpoints';

/** The section of bench/results.md for a {@link runHttpBench} result (Markdown). */
export function httpSection(r) {
  return [
    `${r.connections} connections on loopback.`,
    '',
    '| | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    `| fastify, fixed JSON body (baseline) | ${n(r.baselineFixedJson.requestsPerSecond)} | ${r.baselineFixedJson.p50} | ${r.baselineFixedJson.p99} |`,
    `| GET /1/catalog/parts/{part_id} | ${n(r.getPart.requestsPerSecond)} | ${r.getPart.p50} | ${r.getPart.p99} |`,
    `| POST /1/catalog/attributes/list | ${n(r.listAttributes.requestsPerSecond)} | ${r.listAttributes.p50} | ${r.listAttributes.p99} |`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const seconds = process.argv.indexOf('--seconds');
  const connections = process.argv.indexOf('--connections');
  const result = await runHttpBench({ ...(seconds > 0 ? { seconds: Number(process.argv[seconds + 1]) } : {}), ...(connections > 0 ? { connections: Number(process.argv[connections + 1]) } : {}) });
  console.log(JSON.stringify(result, null, 2));
  writeSection('http', HTTP_TITLE, httpSection(result));
}
