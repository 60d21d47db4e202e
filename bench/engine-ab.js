/**
 * The SQLite search path before and after a change, A/B in one process (issue 15: the engine's
 * query code moved behind a store-neutral EngineReader; it must not slow SQLite down). N parts
 * (bench/catalog-data.js) are imported once with this build, then the SAME catalog directory is
 * opened by this build (B) and by another build (A, $CATALOG_BENCH_DIST_A, e.g. main's), and the
 * rank step alone (SearchService.rankText: the SearchIndex's work) is timed for the same queries,
 * alternating A and B query by query, 5 rounds after a warm-up round. Both must return the same hits.
 *
 * Usage: npm run build && CATALOG_BENCH_DIST_A=/path/to/other/dist nice -n 10 node bench/engine-ab.js [parts=100000]
 * With CATALOG_BENCH_SEPARATE=1 (builds whose index formats differ, or whose rankings differ by
 * design) each build opens its own copy of the imported catalog (re-indexing it on open if its
 * format differs) and the hits are not required to agree: how many queries agree is printed.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { devices, partOf, ATTRIBUTES } from './catalog-data.js';

const here = dirname(fileURLToPath(import.meta.url));
const distB = join(here, '..', 'dist');
const distA = process.env.CATALOG_BENCH_DIST_A ? resolve(process.env.CATALOG_BENCH_DIST_A) : undefined;
if (!distA) throw new Error('set CATALOG_BENCH_DIST_A to the build to compare with');
const load = (dist, path) => import(pathToFileURL(join(dist, path)).href);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const parts = Number(process.argv[2] ?? 100_000);
  const list = devices();
  const dir = mkdtempSync(join(tmpdir(), 'catalog-bench-ab-'));
  const { openCatalog } = await load(distB, 'open-catalog.js');
  const { LOCAL_OWNER } = await load(distB, 'core/permissions.js');
  const { decidePartUpsert } = await load(distB, 'core/catalog/parts.js');
  const { buildEngineDocument } = await load(distB, 'core/search/engine/document.js');
  const writer = openCatalog({ dataDir: dir });
  await writer.service.upsertAttributes(LOCAL_OWNER, ATTRIBUTES);
  for (let from = 0; from < parts; from += 1000) {
    const items = [];
    for (let i = from; i < Math.min(parts, from + 1000); i++) items.push(partOf(i, list));
    const now = writer.service.clock.nowMicros();
    await writer.service.store.upsertParts(items, (item, existing, attributes) => decidePartUpsert(item, existing, attributes, now, () => writer.service.ids.uuid()));
  }
  await writer.close();

  const attributes = new Map(ATTRIBUTES.map((a) => [a.attribute_id, { ...a, visibility: 'factoryWorker', per_org_values: false }]));
  const df = new Map();
  for (let i = 0; i < parts; i++) for (const t of buildEngineDocument(partOf(i, list), attributes).terms.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const words = [...df.entries()].filter(([t]) => /^[a-z]{4,}$/.test(t));
  const pick = (lo, hi, count) => words.filter(([, n]) => n >= lo && n <= hi).sort((a, b) => (a[0] < b[0] ? -1 : 1)).filter((_, i, arr) => i % Math.max(1, Math.floor(arr.length / count)) === 0).slice(0, count).map(([t]) => [t]);
  const frequent = pick(parts * 0.05, parts * 0.3, 10);
  const classes = {
    rare: pick(1, 3, 20),
    medium: pick((parts / 1000) * 0.7, (parts / 1000) * 1.4, 20),
    frequent,
    'two words': frequent.slice(0, 5).flatMap(([a]) => pick(parts * 0.01, parts * 0.3, 4).map(([b]) => [a, b])).filter(([a, b]) => a !== b).slice(0, 20),
  };
  const separate = process.env.CATALOG_BENCH_SEPARATE === '1';
  const dirA = separate ? `${dir}-a` : dir;
  if (separate) cpSync(dir, dirA, { recursive: true });
  const catalogs = {
    A: (await load(distA, 'open-catalog.js')).openCatalog({ dataDir: dirA, searchTuning: { cacheSize: 0 } }),
    B: openCatalog({ dataDir: dir, searchTuning: { cacheSize: 0 } }),
  };
  const results = {};
  let agree = 0;
  let asked = 0;
  for (const [cls, queries] of Object.entries(classes)) {
    const times = { A: [], B: [] };
    for (let round = 0; round < 6; round++) {
      for (const q of queries) {
        const request = { matches: { text: `${q.join(' ')} ` } };
        const got = {};
        for (const n of round % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
          const t0 = performance.now();
          got[n] = await catalogs[n].search.rankText(LOCAL_OWNER, request);
          if (round > 0) times[n].push(performance.now() - t0);
        }
        const same = got.A.hits.total === got.B.hits.total;
        if (round === 0) {
          asked++;
          if (same) agree++;
        }
        if (!separate && (!same || got.A.hits.cardIds.join() !== got.B.hits.cardIds.join())) throw new Error(`'${q.join(' ')}': A and B differ`);
      }
    }
    results[cls] = {};
    for (const n of ['A', 'B']) {
      const sorted = times[n].sort((x, y) => x - y);
      results[cls][n] = { p50: +pct(sorted, 50).toFixed(3), p90: +pct(sorted, 90).toFixed(3), mean: +(sorted.reduce((x, y) => x + y, 0) / sorted.length).toFixed(3) };
    }
  }
  await catalogs.A.close();
  await catalogs.B.close();
  rmSync(dir, { recursive: true, force: true });
  if (separate) rmSync(dirA, { recursive: true, force: true });
  console.log(JSON.stringify({ parts, A: distA, B: distB, sameTotals: `${agree} of ${asked}`, results }, null, 2));
}

await main();
