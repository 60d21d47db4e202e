#!/usr/bin/env node
// `npm run bench`: every benchmark of the project, each figure beside its raw baseline measured in
// the same run, written to bench/results.md (and bench/results.json).
// Usage: node bench/run.js [--quick]   (--quick: smaller sizes, for a smoke run; not for the record)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { load, runHttpBench } from './http.js';
import { runImageQuality } from './image-quality.js';
import { runImportBench } from './import.js';
import { ROOT } from './lib.js';
import { runRelationsBench } from './relations.js';
import { runSearchBench } from './search.js';
import { runUploadBench } from './upload.js';

const quick = process.argv.includes('--quick');
const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const started = Date.now();

/** Sequential latency of fastify answering a fixed JSON body: the floor under any search latency. */
async function fixedJsonLatency() {
  const app = Fastify({ logger: false });
  app.post('/fixed', async () => ({ sessionId: '00000000-0000-0000-0000-000000000000', imageId: null, results: [], resultsTotalCount: 0 }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return await load(`http://127.0.0.1:${app.server.address().port}`, { method: 'POST', path: '/fixed', body: '{}', seconds: 3, connections: 1 });
  } finally {
    await app.close();
  }
}

const results = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, quick };
log('import: parts from CSV through the CLI vs better-sqlite3');
results.import = await runImportBench({ parts: quick ? 20_000 : 100_000 });
log('relations: import through the local client vs better-sqlite3');
results.relations = await runRelationsBench(quick ? { parts: 10_000, relations: 20_000 } : {});
log('http: catalog serve vs fastify with a fixed JSON body');
results.http = await runHttpBench({ seconds: quick ? 2 : 5 });
log('upload: catalog images upload vs curl');
results.upload = await runUploadBench(quick ? { images: 200, bigFiles: 6, bigMib: 19 } : {});
log('search: text search over HTTP on generated parts');
results.searchBaseline = await fixedJsonLatency();
results.search = await runSearchBench({ parts: quick ? 50_000 : 1_000_000, iterations: quick ? 50 : 300, warmup: quick ? 5 : 30, importParts: quick ? 10_000 : 50_000, log });
log('image search quality');
results.imageQuality = await runImageQuality({ images: quick ? 300 : 655, refs: 10_000, log: () => {} });
results.seconds = Math.round((Date.now() - started) / 1000);

const n = (v, digits = 0) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(v));
const ok = (met) => (met ? 'met' : '**not met**');
const r = results;
const s = r.search;
const q = r.imageQuality;
const lines = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` (bench/run.js) on ${r.date}: Node ${r.node}, ${r.cpus} cores${quick ? ', **--quick sizes: not the record**' : ''}; ${r.seconds} s in all.`,
  'Every figure stands beside its raw baseline, measured in the same run on the same machine. Server and load generator share the cores.',
  '',
  '## Bulk import (CLI, local mode)',
  '',
  `${n(r.import.parts)} generated parts from CSV through \`catalog parts import\` (a real process: start-up, CSV parsing, validation, rules, SQLite with the search index) beside better-sqlite3 inserting the same rows (parts, attribute references and search rows) directly into the same schema.`,
  '',
  '| | rows/s | time | peak RSS |',
  '|---|---|---|---|',
  `| \`catalog parts import\` | ${n(r.import.cli.rowsPerSecond)} | ${n(r.import.cli.ms / 1000, 2)} s | ${r.import.cli.peakRssMB} MB |`,
  `| better-sqlite3 direct | ${n(r.import.direct.rowsPerSecond)} | ${n(r.import.direct.ms / 1000, 2)} s | |`,
  '',
  `Ratio ${r.import.ratio} (target ≥ 0.5: ${ok(r.import.ratio >= 0.5)}); peak RSS ${r.import.cli.peakRssMB} MB (target < 150 MB: ${ok(r.import.cli.peakRssMB < 150)}).`,
  '',
  '## Relations import (local client)',
  '',
  `${n(r.relations.relations)} relations among ${n(r.relations.parts)} parts in batches of ${r.relations.batchSize}.`,
  '',
  '| | relations/s |',
  '|---|---|',
  `| LocalCatalogClient.createRelations | ${n(r.relations.relationsPerSecond)} |`,
  `| better-sqlite3 direct upsert of the same rows | ${n(r.relations.directRelationsPerSecond)} |`,
  '',
  `Ratio ${r.relations.ratioToDirect}; target ≥ 30,000 relations/s: ${ok(r.relations.relationsPerSecond >= 30_000)}. Reads: ${n(r.relations.getRelationsPerSecond)} getRelations calls/s.`,
  '',
  '## HTTP read endpoints',
  '',
  `${r.http.connections} connections on loopback.`,
  '',
  '| | req/s | p50 ms | p99 ms |',
  '|---|---|---|---|',
  `| fastify, fixed JSON body (baseline) | ${n(r.http.baselineFixedJson.requestsPerSecond)} | ${r.http.baselineFixedJson.p50} | ${r.http.baselineFixedJson.p99} |`,
  `| GET /1/catalog/parts/{part_id} | ${n(r.http.getPart.requestsPerSecond)} | ${r.http.getPart.p50} | ${r.http.getPart.p99} |`,
  `| POST /1/catalog/attributes/list | ${n(r.http.listAttributes.requestsPerSecond)} | ${r.http.listAttributes.p50} | ${r.http.listAttributes.p99} |`,
  '',
  '## Image upload',
  '',
  '| | CLI | curl (baseline) | ratio (MB/s) |',
  '|---|---|---|---|',
  `| ${n(r.upload.phase1.cli.files ?? r.upload.phase1.cli.images ?? 1000)} real images | ${n(r.upload.phase1.cli.imagesPerSecond)} images/s, ${n(r.upload.phase1.cli.mbPerSecond, 1)} MB/s | ${n(r.upload.phase1.curl.imagesPerSecond)} images/s, ${n(r.upload.phase1.curl.mbPerSecond, 1)} MB/s | ${r.upload.phase1.ratio} |`,
  `| ${r.upload.phase2.totalGB} GB of large files | ${n(r.upload.phase2.cli.mbPerSecond, 1)} MB/s | ${n(r.upload.phase2.curl.mbPerSecond, 1)} MB/s | ${r.upload.phase2.ratio} |`,
  '',
  `Target ≥ 0.5 of curl's MB/s: ${ok(r.upload.phase1.ratio >= 0.5)}. Server peak RSS while ${r.upload.phase2.totalGB} GB passed: ${r.upload.phase2.serverPeakRssMB.duringCli} MB with the CLI, ${r.upload.phase2.serverPeakRssMB.duringCurl} MB with curl (target < 200 MB: ${ok(Math.max(r.upload.phase2.serverPeakRssMB.duringCli, r.upload.phase2.serverPeakRssMB.duringCurl) < 200)}).`,
  '',
  '## Text search over HTTP',
  '',
  `${n(s.parts ?? (quick ? 50_000 : 1_000_000))} generated parts; one connection, sequential requests; latency in ms. Baseline: fastify answering a fixed JSON body the same way.`,
  '',
  '| query | hits | p50 | p99 |',
  '|---|---|---|---|',
  `| fastify fixed JSON (baseline) | | ${r.searchBaseline.p50} | ${r.searchBaseline.p99} |`,
  ...Object.entries(s.search ?? {}).filter(([, v]) => v && typeof v === 'object' && 'p50' in v).map(([k, v]) => `| ${k} \`${v.text}\` (cold) | ${n(v.resultsTotalCount)} | ${v.p50} | ${v.p99} |`),
  ...Object.entries(s.searchWarm ?? {}).filter(([, v]) => v && typeof v === 'object' && 'p50' in v).map(([k, v]) => `| ${k} \`${v.text}\` (repeated, cache) | ${n(v.resultsTotalCount)} | ${v.p50} | ${v.p99} |`),
  '',
  `Session pages (limit ${s.pages.limit}): page 1 p50 ${s.pages.page1.p50} ms, page 1000 p50 ${s.pages.page1000.p50} ms: ratio ${s.pages.ratioP50} (target ≤ 1.2: ${ok(s.pages.ratioP50 <= 1.2)}).`,
  `Targets p50 ≤ 20 ms and p99 ≤ 100 ms, rare and frequent (cold): ${ok(['rare', 'frequent'].every((k) => s.search[k].p50 <= 20 && s.search[k].p99 <= 100))}.`,
  '',
  ...explainLines(s),
  '## Image search quality',
  '',
  `${q.config.images} real images of ../shared/data/images, each queried with copies made in the run. Recall@1:`,
  '',
  '| | resize 50 % | JPEG q60 | crop 5 % | +10 % brightness | all four |',
  '|---|---|---|---|---|---|',
  ...[['catalog', q.recall.ours], ['pHash 64-bit (baseline)', q.recall.phash], ['dHash 64-bit (baseline)', q.recall.dhash], [`catalog, ${n(q.config.paddedIndexSize)} references`, q.recallPadded.shortlist]].map(([label, v]) => `| ${label} | ${v.resize50} | ${v.jpeg60} | ${v.crop5} | ${v.bright10} | ${v.all} |`),
  '',
  `Per query over ${n(q.config.paddedIndexSize)} references: ${q.timing.queryFeatureMs.mean.toFixed(1)} ms features + ${q.timing.scanMsPadded.shortlist.mean.toFixed(1)} ms scan = ${q.timing.totalMsPerQueryPadded} ms (target ≤ 50 ms; an exhaustive scan would take ${q.timing.scanMsPadded.exhaustive.mean.toFixed(1)} ms). Targets (≥ 0.98 single, ≥ 0.95 all four): ${ok(q.targets.met)}.`,
  '',
];
/**
 * The markers around the part of results.md this script writes. Everything after the end marker
 * (the issues' own measurements, written by their scripts and by hand) is kept as it is.
 */
const BEGIN = '<!-- written by `npm run bench` (bench/run.js) down to the end marker -->';
const END = '<!-- end of the part `npm run bench` writes: the sections below are kept as they are -->';

/** Writes `generated` as results.md's first part, keeping what follows the end marker (or, without markers, the whole old file below). */
function writeResults(path, generated) {
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const end = old.indexOf(END);
  const kept = end >= 0 ? old.slice(end + END.length).replace(/^\n+/, '') : old;
  writeFileSync(path, `${BEGIN}\n${generated.trimEnd()}\n\n${END}\n\n${kept}`);
}

/**
 * Issue 13 (`explain` of bench/search.js): facet counts by word frequency, the cost of highlights
 * and richer hits beside the same search without them, and a synonym joining two words.
 */
function explainLines(search) {
  const e = search.explain ?? {};
  if (Object.keys(e).length === 0) return [];
  const row = (label, key) => (e[key] ? [`| ${label} \`${e[key].text.trim()}\` | ${n(e[key].resultsTotalCount)} | ${e[key].p50} | ${e[key].p99} |`] : []);
  return [
    '## Search explains itself (issue 13)',
    '',
    `${n(search.parts)} generated parts, cache off (each search ranks anew); latency in ms over HTTP, one connection.`,
    '',
    '| search | hits | p50 | p99 |',
    '|---|---|---|---|',
    ...row('rare word + facets (vendor)', 'facetsRare'),
    ...row('medium word + facets (vendor)', 'facetsMedium'),
    ...row('frequent word + facets (vendor)', 'facetsFrequent'),
    ...row('frequent word, plain', 'plainFrequent'),
    ...row('frequent word + highlights, images, attributes', 'explainedFrequent'),
    ...row('rare word, plain', 'plainRare'),
    ...row('rare word + highlights, images, attributes', 'explainedRare'),
    ...row('frequent word with synonym vendor7', 'synonymFrequent'),
    ...row('vendor7 with synonym of the frequent word', 'synonymMedium'),
    '',
  ];
}

writeResults(join(ROOT, 'bench', 'results.md'), lines.join('\n'));
writeFileSync(join(ROOT, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
log(`wrote bench/results.md in ${results.seconds} s`);
