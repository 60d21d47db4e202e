/**
 * Search benchmark (decisions §8; docs/search.md): generates a catalog of generated parts through
 * the store in batches of 1,000 (the part import path, search index included), serves it with the
 * real HTTP app on 127.0.0.1, and measures with undici:
 * - text search latency (p50, p99) for a rare word and for a word in 10 % of the parts, cold (the
 *   result cache off: every search ranks anew) and warm (the same query again, cache on),
 * - reading page 1 and page 1000 of a session (limit 10),
 * - the generation rate, and the import rate with and without the search index (a smaller run;
 *   through the store, and through CatalogService.upsertParts with request validation),
 * - issue 13 (`explain`): facet counts (vendor, 200 values) for a rare, a medium (`vendor7`, 0.5 %)
 *   and a frequent word (10 %), and a search with highlights and richer hits beside the same search
 *   without them (cache off, so each search ranks anew).
 *   Also a multi-way synonym set joining the frequent word and `vendor7` (query time, issue 13).
 * `importParts: 0` skips the import runs; `only: 'explain'` runs only the issue-13 figures.
 *
 * Uses the COMPILED code: `npx tsc -p tsconfig.build.json && node bench/search.js [--parts N] [explain]`.
 * The catalog is kept under bench/tmp/search-<parts> and reused by later runs (`fresh: true` to regenerate).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { openCatalog } from '../dist/open-catalog.js';
import { buildApp } from '../dist/http/app.js';
import { LOCAL_OWNER } from '../dist/core/permissions.js';
import { decidePartUpsert } from '../dist/core/catalog/parts.js';
import { load } from './http.js';
import { writeSection } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
export const RARE_WORD = 'zanzibarite';
export const FREQUENT_WORD = 'controller';

/** Deterministic pseudo-random numbers (so every run builds the same catalog). */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A vocabulary of letter-only pseudo-words; low indexes are drawn more often (Zipf-like). */
function vocabulary(size, rnd) {
  const syllables = ['ka', 'lo', 'mi', 'ner', 'tos', 'ul', 'ra', 'pin', 'dex', 'vor', 'sa', 'te', 'gri', 'bal', 'fon', 'quo', 'zel', 'mar', 'cor', 'lin', 'bu', 'het'];
  const words = new Set();
  while (words.size < size) {
    let w = '';
    const n = 2 + Math.floor(rnd() * 3);
    for (let j = 0; j < n; j++) w += syllables[Math.floor(rnd() * syllables.length)];
    if (w !== FREQUENT_WORD && w !== RARE_WORD) words.add(w);
  }
  return [...words];
}

const ATTRIBUTES = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
  { attribute_id: 'note', type: 'text', name: { en: 'Note' }, searchable: true, visibility: 'csa' },
  { attribute_id: 'price', type: 'text', name: { en: 'Price' }, searchable: true, per_org_values: true, org_visibility: 'sub', default_value: { en: 'list price' } },
];

/** Part i of the generated catalog: 4 words (+ the frequent word in 10 %, the rare word in 3 parts), a vendor, sometimes a note and an organization price. */
function generatedPart(i, words, rnd) {
  const name = [];
  for (let k = 0; k < 4; k++) name.push(words[Math.floor(rnd() ** 2 * words.length)]);
  if (i % 10 === 3) name.splice(1 + (i % 3), 0, FREQUENT_WORD);
  if (i % 333_331 === 7) name.push(RARE_WORD);
  const attributes = [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: `vendor${i % 200}` } }] }];
  if (i % 7 === 0) attributes.push({ attribute_id: 'note', values: [{ organization: '', value: { en: words[Math.floor(rnd() * words.length)] } }] });
  if (i % 100 === 0) attributes.push({ attribute_id: 'price', values: [{ organization: 'acme', value: { en: `${i % 997} USD` } }] });
  const en = name.join(' ');
  return { part_id: `gen:${(i % 65521).toString(16).padStart(4, '0')}:${i.toString(16).padStart(6, '0')}`, name: i % 4 === 0 ? { en, de: `${en} teil` } : { en }, attributes };
}

/** Writes `count` generated parts through the store in batches of `batch`; returns parts per second. */
async function generate(catalog, count, { batch = 1000, seed = 42, onProgress, viaService = false } = {}) {
  const { service } = catalog;
  const rnd = random(seed);
  const words = vocabulary(20_000, rnd);
  await service.upsertAttributes(LOCAL_OWNER, ATTRIBUTES);
  await service.upsertOrganizations(LOCAL_OWNER, [{ org_id: 'acme' }, { org_id: 'acme-eu', parent_id: 'acme' }]);
  const started = performance.now();
  for (let from = 0; from < count; from += batch) {
    const items = [];
    for (let i = from; i < Math.min(count, from + batch); i++) items.push(generatedPart(i, words, rnd));
    if (viaService) {
      // The import path of the API and the CLI: validation with the wire schemas, then the store.
      const result = await service.upsertParts(LOCAL_OWNER, items);
      if (Object.keys(result.errors).length > 0) throw new Error(`generation failed: ${JSON.stringify(result.errors)}`);
    } else {
      const now = service.clock.nowMicros();
      const decisions = await service.store.upsertParts(items, (item, existing, attributes) => decidePartUpsert(item, existing, attributes, now, () => service.ids.uuid()));
      const failed = decisions.find((d) => d.kind === 'error');
      if (failed) throw new Error(`generation failed: ${JSON.stringify(failed)}`);
    }
    onProgress?.(Math.min(count, from + batch));
  }
  return count / ((performance.now() - started) / 1000);
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: +percentile(sorted, 50).toFixed(2), p99: +percentile(sorted, 99).toFixed(2), max: +sorted[sorted.length - 1].toFixed(2), n: sorted.length };
}

async function timed(pool, token, method, path, body) {
  const started = performance.now();
  const res = await pool.request({
    method,
    path,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.body.json();
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`${method} ${path}: HTTP ${res.statusCode} ${JSON.stringify(json)}`);
  return { ms, json };
}

/** Import rate (parts/s) of `count` parts into a fresh catalog, with or without the search index listening. */
async function importRate(dir, count, withIndex, viaService) {
  rmSync(dir, { recursive: true, force: true });
  const catalog = openCatalog({ dataDir: dir });
  try {
    if (!withIndex) catalog.service.store.listeners.length = 0;
    return await generate(catalog, count, { seed: 7, viaService });
  } finally {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the benchmark; returns the figures (milliseconds; rates in parts per second).
 * Options: parts (1,000,000), iterations per measurement (300), warmup (30), pageLimit (10),
 * importParts (100,000; 0 to skip the with/without-index import comparison), fresh (false), dataDir, log.
 */
export async function runSearchBench(options = {}) {
  const parts = options.parts ?? 1_000_000;
  const iterations = options.iterations ?? 300;
  const warmup = options.warmup ?? 30;
  const pageLimit = options.pageLimit ?? 10;
  const importParts = options.importParts ?? 100_000;
  const dataDir = options.dataDir ?? join(here, 'tmp', `search-${parts}`);
  const log = options.log ?? (() => {});
  const metaFile = join(dataDir, 'bench-meta.json');
  const figures = { parts, generation: undefined, import: undefined, search: {}, searchWarm: {}, pages: {}, explain: {} };

  if (options.fresh || !existsSync(metaFile)) {
    rmSync(dataDir, { recursive: true, force: true });
    const catalog = openCatalog({ dataDir });
    let last = 0;
    const rate = await generate(catalog, parts, {
      onProgress: (n) => {
        if (n - last >= 100_000 || n === parts) {
          last = n;
          log(`generated ${n} parts`);
        }
      },
    });
    await catalog.close();
    figures.generation = { partsPerSecond: Math.round(rate), reused: false };
    writeFileSync(metaFile, JSON.stringify(figures.generation));
  } else {
    figures.generation = { ...JSON.parse(readFileSync(metaFile, 'utf8')), reused: true };
  }

  if (importParts > 0) {
    const dir = join(here, 'tmp', 'search-import');
    figures.import = { parts: importParts };
    for (const [path, viaService] of [['store', false], ['service', true]]) {
      const without = await importRate(dir, importParts, false, viaService);
      const withIndex = await importRate(dir, importParts, true, viaService);
      figures.import[path] = { withoutSearchIndex: Math.round(without), withSearchIndex: Math.round(withIndex), ratio: +(withIndex / without).toFixed(2) };
    }
    log(`import ${JSON.stringify(figures.import)}`);
  }

  // Issue 13: facets and the cost of highlights and richer hits.
  {
    const server = await serve(dataDir, { cacheSize: 0 });
    try {
      const cases = [
        ...[['facetsRare', RARE_WORD], ['facetsMedium', 'vendor7 '], ['facetsFrequent', FREQUENT_WORD]].map(([label, text]) => [label, { matches: { text, facets: ['vendor'] } }]),
        ...[['plainFrequent', FREQUENT_WORD], ['plainRare', RARE_WORD]].map(([label, text]) => [label, { matches: { text }, resultOptions: { limit: 25 } }]),
        ...[['explainedFrequent', FREQUENT_WORD], ['explainedRare', RARE_WORD]].map(([label, text]) => [label, {
          matches: { text }, resultOptions: { limit: 25 },
          projection: ['results.id', 'results.name', 'results.highlights', 'results.images', 'results.attributes'],
        }]),
      ];
      for (const [label, body] of cases) {
        for (let i = 0; i < warmup; i++) await timed(server.pool, server.token, 'POST', '/1/find/search', body);
        const times = [];
        let total = 0;
        for (let i = 0; i < iterations; i++) {
          const { ms, json } = await timed(server.pool, server.token, 'POST', '/1/find/search', body);
          times.push(ms);
          total = json.resultsTotalCount;
        }
        figures.explain[label] = { text: body.matches.text, resultsTotalCount: total, ...summary(times) };
        log(`explain ${label}: ${JSON.stringify(figures.explain[label])}`);
      }
      // Synonyms (applied at query time): the frequent word and vendor7 made one multi-way set, so
      // each search also finds the other's parts (a union of both lists, synonym hits ranked below).
      await server.catalog.service.upsertSynonyms(LOCAL_OWNER, [{ synonym_id: 'bench-synonyms', synonyms: [FREQUENT_WORD, 'vendor7'] }]);
      try {
        for (const [label, text] of [['synonymFrequent', `${FREQUENT_WORD} `], ['synonymMedium', 'vendor7 ']]) {
          const body = { matches: { text }, resultOptions: { limit: 25 } };
          for (let i = 0; i < warmup; i++) await timed(server.pool, server.token, 'POST', '/1/find/search', body);
          const times = [];
          let total = 0;
          for (let i = 0; i < iterations; i++) {
            const { ms, json } = await timed(server.pool, server.token, 'POST', '/1/find/search', body);
            times.push(ms);
            total = json.resultsTotalCount;
          }
          figures.explain[label] = { text, synonyms: [FREQUENT_WORD, 'vendor7'], resultsTotalCount: total, ...summary(times) };
          log(`explain ${label}: ${JSON.stringify(figures.explain[label])}`);
        }
      } finally {
        await server.catalog.service.deleteSynonyms(LOCAL_OWNER, ['bench-synonyms']);
      }
    } finally {
      await server.close();
    }
  }
  if (options.only === 'explain') return figures;

  figures.baseline = await fixedJsonLatency();

  const queries = [['rare', RARE_WORD], ['frequent', FREQUENT_WORD], ['frequentPrefix', FREQUENT_WORD.slice(0, 5)], ['frequentTwoWords', `${FREQUENT_WORD} vendor7`], ['typo', 'zanzibarrite']];
  for (const [target, cacheSize] of [['search', 0], ['searchWarm', undefined]]) {
    const server = await serve(dataDir, cacheSize === undefined ? {} : { cacheSize });
    try {
      for (const [label, text] of queries) {
        const body = { matches: { text }, resultOptions: { limit: 25 } };
        for (let i = 0; i < warmup; i++) await timed(server.pool, server.token, 'POST', '/1/find/search', body);
        const times = [];
        let total = 0;
        for (let i = 0; i < iterations; i++) {
          const { ms, json } = await timed(server.pool, server.token, 'POST', '/1/find/search', body);
          times.push(ms);
          total = json.resultsTotalCount;
        }
        figures[target][label] = { text, resultsTotalCount: total, ...summary(times) };
        log(`${target} ${label}: ${JSON.stringify(figures[target][label])}`);
      }
    } finally {
      await server.close();
    }
  }

  const { pool, token, close } = await serve(dataDir, {});
  try {
    const { json: session } = await timed(pool, token, 'POST', '/1/find/search', { matches: { text: FREQUENT_WORD }, resultOptions: { limit: pageLimit } });
    const page = (k) => `/1/find/search/state/${session.sessionId}?skip=${k * pageLimit}&limit=${pageLimit}`;
    const first = [];
    const thousandth = [];
    for (let i = 0; i < warmup; i++) {
      await timed(pool, token, 'GET', page(0));
      await timed(pool, token, 'GET', page(999));
    }
    for (let i = 0; i < iterations; i++) {
      first.push((await timed(pool, token, 'GET', page(0))).ms);
      const { ms, json } = await timed(pool, token, 'GET', page(999));
      const expected = Math.max(0, Math.min(pageLimit, Math.min(session.resultsTotalCount, 10_000) - 999 * pageLimit));
      if (json.results.length !== expected) throw new Error(`page 1000 has ${json.results.length} results, expected ${expected}`);
      thousandth.push(ms);
    }
    figures.pages = { limit: pageLimit, page1: summary(first), page1000: summary(thousandth) };
    figures.pages.ratioP50 = +(figures.pages.page1000.p50 / figures.pages.page1.p50).toFixed(2);
    log(`pages: ${JSON.stringify(figures.pages)}`);
  } finally {
    await close();
  }
  return figures;
}

const n = (v, digits = 0) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(v));
const ok = (met) => (met ? 'met' : '**not met**');

/** Sequential latency of fastify answering a fixed JSON body: the floor under any search latency. */
export async function fixedJsonLatency() {
  const app = Fastify({ logger: false });
  app.post('/fixed', async () => ({ sessionId: '00000000-0000-0000-0000-000000000000', imageId: null, results: [], resultsTotalCount: 0 }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return await load(`http://127.0.0.1:${app.server.address().port}`, { method: 'POST', path: '/fixed', body: '{}', seconds: 3, connections: 1 });
  } finally {
    await app.close();
  }
}

/** Heading of the section of bench/results.md with the main figures of {@link runSearchBench}. */
export const SEARCH_TITLE = 'Text search over HTTP';

/** The section of bench/results.md for the main figures of a {@link runSearchBench} result (Markdown). */
export function searchSection(s) {
  const rows = (figures, how) => Object.entries(figures ?? {}).filter(([, v]) => v && typeof v === 'object' && 'p50' in v).map(([k, v]) => `| ${k} \`${v.text}\` (${how}) | ${n(v.resultsTotalCount)} | ${v.p50} | ${v.p99} |`);
  return [
    `${n(s.parts)} generated parts; one connection, sequential requests; latency in ms. Baseline: fastify answering a fixed JSON body the same way.`,
    '',
    '| query | hits | p50 | p99 |',
    '|---|---|---|---|',
    `| fastify fixed JSON (baseline) | | ${s.baseline.p50} | ${s.baseline.p99} |`,
    ...rows(s.search, 'cold'),
    ...rows(s.searchWarm, 'repeated, cache'),
    '',
    `Session pages (limit ${s.pages.limit}): page 1 p50 ${s.pages.page1.p50} ms, page 1000 p50 ${s.pages.page1000.p50} ms: ratio ${s.pages.ratioP50} (target ≤ 1.2: ${ok(s.pages.ratioP50 <= 1.2)}).`,
    `Targets p50 ≤ 20 ms and p99 ≤ 100 ms, rare and frequent (cold): ${ok(['rare', 'frequent'].every((k) => s.search[k].p50 <= 20 && s.search[k].p99 <= 100))}.`,
  ].join('\n');
}

/** Heading of the section of bench/results.md with the facet, highlight and synonym figures. */
export const SEARCH_EXPLAIN_TITLE = 'Facets, highlights and synonyms';

/** The section of bench/results.md for the `explain` figures of a {@link runSearchBench} result (Markdown). */
export function searchExplainSection(s) {
  const e = s.explain ?? {};
  const row = (label, key) => (e[key] ? [`| ${label} \`${e[key].text.trim()}\` | ${n(e[key].resultsTotalCount)} | ${e[key].p50} | ${e[key].p99} |`] : []);
  return [
    `${n(s.parts)} generated parts, cache off (each search ranks anew); latency in ms over HTTP, one connection. Baseline: the same word plain.`,
    '',
    '| search | hits | p50 | p99 |',
    '|---|---|---|---|',
    ...row('rare word + facets (vendor)', 'facetsRare'),
    ...row('medium word + facets (vendor)', 'facetsMedium'),
    ...row('frequent word + facets (vendor)', 'facetsFrequent'),
    ...row('frequent word, plain (baseline)', 'plainFrequent'),
    ...row('frequent word + highlights, images, attributes', 'explainedFrequent'),
    ...row('rare word, plain (baseline)', 'plainRare'),
    ...row('rare word + highlights, images, attributes', 'explainedRare'),
    ...row('frequent word with synonym vendor7', 'synonymFrequent'),
    ...row('vendor7 with synonym of the frequent word', 'synonymMedium'),
  ].join('\n');
}

/** The real HTTP app over the catalog on 127.0.0.1, a factoryWorker token, and an undici pool of one connection. */
async function serve(dataDir, searchTuning) {
  const catalog = openCatalog({ dataDir, searchTuning });
  const app = buildApp({ catalog, accessLog: null });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address();
  const { secret: token } = await catalog.service.createToken(LOCAL_OWNER, { name: `bench-${Date.now()}-${Math.random().toString(36).slice(2)}`, roles: ['factoryWorker'] });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1, pipelining: 1 });
  return {
    pool,
    token,
    catalog,
    async close() {
      await pool.close();
      await app.close();
      await catalog.close();
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `node bench/search.js [--parts N | N] [explain]`
  const args = process.argv.slice(2);
  const flag = args.indexOf('--parts');
  const partsArg = flag >= 0 ? args.splice(flag, 2)[1] : args.shift();
  const parts = partsArg !== undefined && partsArg !== 'explain' ? Number(partsArg) : undefined;
  const only = partsArg === 'explain' ? 'explain' : args[0];
  const figures = await runSearchBench({ ...(parts ? { parts } : {}), ...(only ? { only, importParts: 0 } : {}), log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  if (only !== 'explain') writeSection('search', SEARCH_TITLE, searchSection(figures));
  writeSection('search:explain', SEARCH_EXPLAIN_TITLE, searchExplainSection(figures));
}
