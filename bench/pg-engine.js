/**
 * The search engine on PostgreSQL beside SQLite (issue 15; docs/search.md, docs/deploy.md): the same
 * N parts (bench/catalog-data.js) imported through each store (batches of 1,000, index included, in
 * the write's transaction), then the same queries by class on each — a whole search through the
 * local client (rank, session, first page of 25) — alternating the stores query by query, 3 rounds
 * (the first cold); and the rank step alone (the SearchIndex: no session, no page). Checks that both stores return the same total and the same top 25 in the same
 * order for every query (the script fails otherwise). Then page 1 vs page 400 of a session (GET
 * state: skip 0 and skip 399 × 25, limit 25; a lower page when the sessions keep fewer hits), one
 * session per frequent word, 20 rounds; the on-disk size of each store; the 1-minute load average
 * sampled every 10 s (progress lines on stderr, the JSON on stdout). Rare words: those of 1–3 devices
 * (one hit per copy of the device list past 38,144 parts).
 *
 * Uses the COMPILED code: `npm run build && nice -n 10 node bench/pg-engine.js [parts=100000]`.
 * PostgreSQL: $CATALOG_BENCH_DATABASE_URL, else a throwaway cluster started here from Debian's
 * packages (initdb + pg_ctl; fsync ON, shared_buffers 256MB, as a small production server would).
 * `--sqlite-only` measures SQLite alone; `--allow-differences` counts differing answers instead of
 * failing (to measure a build whose PostgreSQL ranking differs, e.g. the tsvector index before issue 15); $CATALOG_BENCH_DIST points at another build (e.g. of main,
 * to compare the SQLite path before and after a change).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { devices, partOf, ATTRIBUTES } from './catalog-data.js';
import { writeSection } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.CATALOG_BENCH_DIST ?? join(here, '..', 'dist'));
const load = (path) => import(pathToFileURL(join(dist, path)).href);
const { openCatalog, openCatalogAt } = await load('open-catalog.js');
const { LOCAL_OWNER } = await load('core/permissions.js');
const { decidePartUpsert } = await load('core/catalog/parts.js');
const { buildEngineDocument } = await load('core/search/engine/document.js');

// The 1-minute load average, sampled every 10 s over the run (the machine is shared: say how loaded).
const loadSamples = [];
const sampleLoad = () => loadSamples.push(loadavg()[0]);
sampleLoad();
setInterval(sampleLoad, 10_000).unref();
const started = performance.now();
/** Progress on stderr (the big run is polled): seconds since start, load, message. */
const progress = (msg) => console.error(`[${((performance.now() - started) / 1000).toFixed(0)} s, load ${loadavg()[0].toFixed(2)}] ${msg}`);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** A throwaway cluster (the test helper's recipe, test/services/postgres-cluster.ts, with fsync on). */
async function startCluster() {
  const debian = '/usr/lib/postgresql';
  const version = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => b - a).find((v) => existsSync(join(debian, v, 'bin', 'initdb'))) : undefined;
  if (!version) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql), or set CATALOG_BENCH_DATABASE_URL');
  const bin = join(debian, version, 'bin');
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'catalog-bench-pg-'));
  if (root) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool, args) => execFileSync(root ? 'runuser' : join(bin, tool), root ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => ok(p));
    });
  });
  run('initdb', ['-D', join(dir, 'data'), '-U', 'catalog', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  run('pg_ctl', ['-D', join(dir, 'data'), '-l', join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses='127.0.0.1' -c shared_buffers=256MB`, '-w', 'start']);
  console.error(`PostgreSQL ${version} on port ${port} (${dir})`);
  return {
    url: `postgres://catalog@127.0.0.1:${port}/postgres`,
    stop() {
      run('pg_ctl', ['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function importParts(catalog, parts, list, name) {
  const { service } = catalog;
  await service.upsertAttributes(LOCAL_OWNER, ATTRIBUTES);
  const started = performance.now();
  for (let from = 0; from < parts; from += 1000) {
    const items = [];
    for (let i = from; i < Math.min(parts, from + 1000); i++) items.push(partOf(i, list));
    const now = service.clock.nowMicros();
    await service.store.upsertParts(items, (item, existing, attributes) => decidePartUpsert(item, existing, attributes, now, () => service.ids.uuid()));
    if ((from + 1000) % 100_000 === 0) progress(`${name}: ${from + 1000} parts imported, ${Math.round((from + 1000) / ((performance.now() - started) / 1000))} rows/s so far`);
  }
  const rate = Math.round(parts / ((performance.now() - started) / 1000));
  progress(`${name}: import done, ${parts} parts at ${rate} rows/s`);
  return rate;
}

/** The section of bench/results.md for a report of this script (Markdown); `names`: the stores measured. */
function pgEngineSection(r, names) {
  const f = (x) => (x ? `${x.p50} / ${x.p99}` : 'n/a');
  const rank = (x) => (x ? `${x.rankP50} / ${x.rankP99}` : 'n/a');
  const far = `page${r.pages.farPage}`;
  return [
    `${r.parts.toLocaleString('en-US')} parts, a whole search through the local client (rank, session, first page of 25), p50 / p99 ms; the rank step alone beside it. Baseline: SQLite, the default store. Same top 25 and total for ${r.sameTop25AndTotal} queries, different for ${r.differentTop25OrTotal}. 1-minute load average ${r.loadAverage1m.min}–${r.loadAverage1m.max}.`,
    '',
    `| class | queries | hits | ${names.map((n) => `${n} search | ${n} rank`).join(' | ')} |`,
    `|---|---|---|${names.map(() => '---|---|').join('')}`,
    ...Object.entries(r.results).map(([cls, c]) => `| ${cls} | ${c.queries} | ${c.hits} | ${names.map((n) => `${f(c[n])} | ${rank(c[n])}`).join(' | ')} |`),
    '',
    `Session pages: ${names.map((n) => `${n} page 1 ${f(r.pages[n]?.page1)}, ${far} ${f(r.pages[n]?.[far])}`).join('; ')} ms. Import: ${names.map((n) => `${n} ${r.importRowsPerSecond[n]} rows/s`).join(', ')}. Disk: SQLite ${r.disk.sqliteMB} MB${r.disk.postgresMB !== undefined ? `, PostgreSQL ${r.disk.postgresMB} MB (search index ${r.disk.postgresIndexMB} MB)` : ''}.${r.pgRoundTripMs ? ` PostgreSQL round trip (SELECT 1): ${f(r.pgRoundTripMs)} ms.` : ''}`,
  ].join('\n');
}

async function main() {
  const parts = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100_000);
  const sqliteOnly = process.argv.includes('--sqlite-only');
  const allowDifferences = process.argv.includes('--allow-differences');
  const list = devices();
  const dir = mkdtempSync(join(tmpdir(), 'catalog-bench-engine-'));
  const stores = {};
  const importRate = {};
  let cluster;
  try {
    stores.sqlite = openCatalog({ dataDir: join(dir, 'sqlite'), searchTuning: { cacheSize: 0 } });
    importRate.sqlite = await importParts(stores.sqlite, parts, list, 'sqlite');
    if (!sqliteOnly) {
      let url = process.env.CATALOG_BENCH_DATABASE_URL;
      if (!url) {
        cluster = await startCluster();
        url = cluster.url;
      }
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query('DROP SCHEMA IF EXISTS bench_engine CASCADE; CREATE SCHEMA bench_engine');
      await admin.end();
      const schemaUrl = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c search_path=bench_engine')}`;
      stores.postgres = await openCatalogAt({ dataDir: join(dir, 'pg-files'), databaseUrl: schemaUrl });
      importRate.postgres = await importParts(stores.postgres, parts, list, 'postgres');
    }

    // Query classes by document frequency of single words (letters only, so the word is its own term).
    const attributes = new Map(ATTRIBUTES.map((a) => [a.attribute_id, { ...a, visibility: 'factoryWorker', per_org_values: false }]));
    const df = new Map();
    for (let i = 0; i < parts; i++) for (const t of buildEngineDocument(partOf(i, list), attributes).terms.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    const words = [...df.entries()].filter(([t]) => /^[a-z]{4,}$/.test(t));
    const pick = (lo, hi, count) => words.filter(([, n]) => n >= lo && n <= hi).sort((a, b) => (a[0] < b[0] ? -1 : 1)).filter((_, i, arr) => i % Math.max(1, Math.floor(arr.length / count)) === 0).slice(0, count).map(([t]) => [t]);
    const frequent = pick(parts * 0.05, parts * 0.3, 10);
    const classes = {
      // Part i is device i mod devices (copies numbered), so past one copy the rarest word has one
      // hit per copy: rare = the words of 1–3 devices.
      rare: pick(1, 3 * Math.ceil(parts / list.length), 20),
      medium: pick((parts / 1000) * 0.7, (parts / 1000) * 1.4, 20),
      frequent,
      'two words': frequent.slice(0, 5).flatMap(([a]) => pick(parts * 0.01, parts * 0.3, 4).map(([b]) => [a, b])).filter(([a, b]) => a !== b).slice(0, 20),
    };
    const names = Object.keys(stores);
    const results = {};
    let compared = 0;
    let differ = 0;
    for (const [cls, queries] of Object.entries(classes)) {
      if (queries.length === 0) throw new Error(`no ${cls} query at ${parts} parts`);
      const hits = [];
      const times = Object.fromEntries(names.map((n) => [n, []]));
      const rankTimes = Object.fromEntries(names.map((n) => [n, []]));
      for (let round = 0; round < 3; round++) {
        for (const q of queries) {
          const text = `${q.join(' ')} `;
          const answers = {};
          for (const n of names) {
            const request = { matches: { text }, resultOptions: { limit: 25 } };
            let t0 = performance.now();
            answers[n] = await stores[n].search.search(LOCAL_OWNER, request);
            times[n].push(performance.now() - t0);
            // The rank step alone (SearchService.rankText: the SearchIndex's work, no session, no page).
            t0 = performance.now();
            await stores[n].search.rankText(LOCAL_OWNER, request);
            rankTimes[n].push(performance.now() - t0);
          }
          if (round === 0) hits.push(answers.sqlite.resultsTotalCount);
          if (round === 0 && answers.postgres) {
            const a = answers.sqlite;
            const b = answers.postgres;
            const same = a.resultsTotalCount === b.resultsTotalCount && a.results.map((r) => r.id).join('\n') === b.results.map((r) => r.id).join('\n');
            if (same) compared++;
            else if (allowDifferences) differ++;
            else throw new Error(`'${text}': SQLite and PostgreSQL differ: ${a.resultsTotalCount} ${a.results.map((r) => r.id).slice(0, 5)} / ${b.resultsTotalCount} ${b.results.map((r) => r.id).slice(0, 5)}`);
          }
        }
      }
      results[cls] = { queries: queries.length, hits: `${Math.min(...hits)}–${Math.max(...hits)}` };
      for (const n of names) {
        const sorted = times[n].sort((x, y) => x - y);
        const rank = rankTimes[n].sort((x, y) => x - y);
        results[cls][n] = { p50: +pct(sorted, 50).toFixed(2), p99: +pct(sorted, 99).toFixed(2), rankP50: +pct(rank, 50).toFixed(2), rankP99: +pct(rank, 99).toFixed(2) };
      }
      progress(`${cls}: ${JSON.stringify(results[cls])}`);
    }

    // Page 1 vs page 400 of a session (GET /1/find/search/state/{id}: skip 0 and skip 399 × 25, limit
    // 25; the session keeps at most maxSessionHits = 10,000 hits, so page 400 is its last page). One
    // session per frequent word on each store, then both pages read alternately, store by store, 20 rounds.
    const PAGE = 25;
    const pages = Object.fromEntries(names.map((n) => [n, { first: [], far: [] }]));
    const sessions = {};
    for (const n of names) {
      sessions[n] = [];
      for (const [w] of frequent) {
        const r = await stores[n].search.search(LOCAL_OWNER, { matches: { text: `${w} ` }, resultOptions: { limit: PAGE } });
        sessions[n].push({ id: r.sessionId, stored: r.resultsPageableCount });
      }
    }
    const farPage = Math.min(400, Math.floor(Math.min(...names.flatMap((n) => sessions[n].map((s) => s.stored))) / PAGE));
    const farSkip = (farPage - 1) * PAGE;
    for (let round = 0; round < 20; round++) {
      for (let k = 0; k < frequent.length; k++) {
        for (const n of names) {
          const { id } = sessions[n][k];
          let t0 = performance.now();
          const a = await stores[n].search.searchState(LOCAL_OWNER, id, { skip: 0, limit: PAGE });
          pages[n].first.push(performance.now() - t0);
          t0 = performance.now();
          const b = await stores[n].search.searchState(LOCAL_OWNER, id, { skip: farSkip, limit: PAGE });
          pages[n].far.push(performance.now() - t0);
          if (a.results.length !== PAGE || b.results.length !== PAGE) throw new Error(`${n}: a page of ${a.results.length} / ${b.results.length} results, expected ${PAGE}`);
        }
      }
    }
    const pageResults = { farPage, sessionsPerStore: frequent.length, readsPerPage: 20 * frequent.length };
    for (const n of names) {
      const f = pages[n].first.sort((x, y) => x - y);
      const g = pages[n].far.sort((x, y) => x - y);
      pageResults[n] = { page1: { p50: +pct(f, 50).toFixed(2), p99: +pct(f, 99).toFixed(2) }, [`page${farPage}`]: { p50: +pct(g, 50).toFixed(2), p99: +pct(g, 99).toFixed(2) } };
    }
    progress(`pages: ${JSON.stringify(pageResults)}`);
    // The machine's PostgreSQL round trip in the same run (a warm search's one statement): p50 of 200.
    let pgRoundTripMs;
    if (stores.postgres) {
      const c = new pg.Client({ connectionString: cluster?.url ?? process.env.CATALOG_BENCH_DATABASE_URL });
      await c.connect();
      const rt = [];
      for (let i = 0; i < 200; i++) {
        const t0 = performance.now();
        await c.query('SELECT 1');
        rt.push(performance.now() - t0);
      }
      rt.sort((x, y) => x - y);
      pgRoundTripMs = { p50: +pct(rt, 50).toFixed(2), p99: +pct(rt, 99).toFixed(2) };
      await c.end();
    }
    const disk = {};
    disk.sqliteMB = Math.round(readdirSync(join(dir, 'sqlite')).reduce((n, f) => n + statSync(join(dir, 'sqlite', f)).size, 0) / 2 ** 20);
    if (stores.postgres) {
      const c = new pg.Client({ connectionString: cluster?.url ?? process.env.CATALOG_BENCH_DATABASE_URL });
      await c.connect();
      const size = await c.query(`SELECT
        (SELECT sum(pg_total_relation_size(quote_ident('bench_engine') || '.' || quote_ident(tablename))) FROM pg_tables WHERE schemaname = 'bench_engine') AS total,
        (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'bench_engine' AND c.relkind = 'r' AND c.relname IN ('engine_terms', 'engine_postings', 'engine_docs', 'search_docs')) AS engine`);
      disk.postgresMB = Math.round(Number(size.rows[0].total) / 2 ** 20);
      disk.postgresIndexMB = Math.round(Number(size.rows[0].engine) / 2 ** 20);
      await c.end();
    }
    for (const n of names) await stores[n].close();
    sampleLoad();
    const load = { min: +Math.min(...loadSamples).toFixed(2), max: +Math.max(...loadSamples).toFixed(2), mean: +(loadSamples.reduce((x, y) => x + y, 0) / loadSamples.length).toFixed(2), samples: loadSamples.length };
    const report = { parts, dist, seconds: Math.round((performance.now() - started) / 1000), loadAverage1m: load, importRowsPerSecond: importRate, disk, sameTop25AndTotal: compared, differentTop25OrTotal: differ, pgRoundTripMs, results, pages: pageResults };
    console.log(JSON.stringify(report, null, 2));
    writeSection('pg-engine', 'Search engine on PostgreSQL beside SQLite', pgEngineSection(report, names));
  } finally {
    // Also on failure: never leave a cluster running or a catalog behind.
    try {
      cluster?.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();
