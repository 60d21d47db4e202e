/**
 * Search engine benchmark (issue 12; docs/search.md): parts generated from the real device names of
 * the PCI and USB ID repositories (../shared/data/catalog), imported through the store in batches of
 * 1,000 (index included), then, in process, the latency of a whole search (rank + session + first
 * page, result cache off) by query class, and overlap@25 of each query's top 25 with an exhaustive
 * scoring of every hit by the documented formula (core/search/engine/bm25.ts), computed here from
 * the generated parts, independently of the index.
 *
 * Uses the COMPILED code: `npm run build && node bench/engine.js [parts=200000]`. Short on purpose
 * (the machine is shared): 60 searches per class.
 */
import { rmSync, statSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalog } from '../dist/open-catalog.js';
import { LOCAL_OWNER } from '../dist/core/permissions.js';
import { decidePartUpsert } from '../dist/core/catalog/parts.js';
import { buildEngineDocument } from '../dist/core/search/engine/document.js';
import { idf, tfPart, NAME_WEIGHT, ID_WEIGHT } from '../dist/core/search/engine/bm25.js';
import { compareBinary } from '../dist/core/search/rank.js';

const { devices, partOf, ATTRIBUTES } = await import('./catalog-data.js');
const here = dirname(fileURLToPath(import.meta.url));

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const parts = Number(process.argv[2] ?? 200_000);
  const dir = join(here, 'tmp', `engine-${parts}`);
  rmSync(dir, { recursive: true, force: true });
  const list = devices();
  const catalog = openCatalog({ dataDir: dir, searchTuning: { cacheSize: 0 } });
  const { service, search } = catalog;
  await service.upsertAttributes(LOCAL_OWNER, ATTRIBUTES);
  const all = [];
  const started = performance.now();
  for (let from = 0; from < parts; from += 1000) {
    const items = [];
    for (let i = from; i < Math.min(parts, from + 1000); i++) items.push(partOf(i, list));
    all.push(...items);
    const now = service.clock.nowMicros();
    await service.store.upsertParts(items, (item, existing, attributes) => decidePartUpsert(item, existing, attributes, now, () => service.ids.uuid()));
  }
  const importRate = parts / ((performance.now() - started) / 1000);
  const rss = process.memoryUsage().rss;

  // The exhaustive reference: every part's document, the formula of bm25.ts, tier 3 (the owner sees everything).
  const attributes = new Map(ATTRIBUTES.map((a) => [a.attribute_id, { ...a, visibility: 'factoryWorker', per_org_values: false }]));
  const docs = all.map((p) => buildEngineDocument(p, attributes));
  const order = all.map((_, i) => i).sort((a, b) => compareBinary(all[a].part_id, all[b].part_id));
  const rank = new Int32Array(parts);
  order.forEach((doc, r) => (rank[doc] = r));
  const dl = docs.map((d) => d.lengths.reduce((x, y) => x + y, 0));
  const avgdl = dl.reduce((x, y) => x + y, 0) / parts;
  const df = new Map();
  for (const d of docs) for (const t of d.terms.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const wtf = (d, t) => {
    const tf = d.terms.get(t);
    if (!tf) return 0;
    return tf[0] * (t.startsWith('\uE001') ? ID_WEIGHT : NAME_WEIGHT) + tf[1] + tf[2] + tf[3] + tf[4];
  };
  function exhaustive(words) {
    const hits = [];
    for (let i = 0; i < parts; i++) {
      const d = docs[i];
      if (!words.every((w) => d.terms.has(w))) continue;
      let score = 0;
      let tier = 0;
      for (const w of words) {
        score += idf(parts, df.get(w)) * tfPart(wtf(d, w), dl[i], avgdl);
        if (d.terms.get(w)[0] === 0) tier = 1;
      }
      hits.push({ i, tier, score });
    }
    hits.sort((a, b) => a.tier - b.tier || b.score - a.score || rank[a.i] - rank[b.i]);
    return { total: hits.length, top: hits.slice(0, 25).map((h) => all[h.i].part_id) };
  }

  // Query classes by document frequency of single words (letters only, so the word is its own term).
  const words = [...df.entries()].filter(([t]) => /^[a-z]{4,}$/.test(t));
  const pick = (lo, hi, count) => words.filter(([, n]) => n >= lo && n <= hi).sort((a, b) => (a[0] < b[0] ? -1 : 1)).filter((_, i, arr) => i % Math.max(1, Math.floor(arr.length / count)) === 0).slice(0, count).map(([t]) => [t]);
  const frequent = pick(parts * 0.05, parts * 0.3, 10);
  const classes = {
    rare: pick(1, 3, 20),
    medium: pick(parts / 1000 * 0.7, parts / 1000 * 1.4, 20),
    frequent,
    'two words': frequent.slice(0, 5).flatMap(([a]) => pick(parts * 0.01, parts * 0.3, 4).map(([b]) => [a, b])).filter(([a, b]) => a !== b).slice(0, 20),
  };
  const results = {};
  for (const [name, queries] of Object.entries(classes)) {
    let overlap = 0;
    let checked = 0;
    const times = [];
    for (const q of queries) {
      const ref = exhaustive(q);
      const text = `${q.join(' ')} `;
      const got = await search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 25 } });
      if (got.resultsTotalCount !== ref.total) throw new Error(`total of '${text}': ${got.resultsTotalCount} != ${ref.total}`);
      const ids = new Set(got.results.map((r) => r.id));
      overlap += ref.top.filter((id) => ids.has(id)).length / Math.max(1, Math.min(25, ref.top.length));
      checked++;
    }
    for (let round = 0; round < 3; round++) {
      for (const q of queries) {
        const t0 = performance.now();
        await search.search(LOCAL_OWNER, { matches: { text: `${q.join(' ')} ` }, resultOptions: { limit: 25 } });
        times.push(performance.now() - t0);
      }
    }
    times.sort((a, b) => a - b);
    const hits = queries.map((q) => exhaustive(q).total).sort((a, b) => a - b);
    results[name] = { queries: queries.length, hitsMedian: hits[Math.floor(hits.length / 2)], p50: +pct(times, 50).toFixed(2), p99: +pct(times, 99).toFixed(2), overlap25: +(overlap / checked).toFixed(3) };
  }
  // The same frequent words as typed (the last word a prefix: every indexed word it begins).
  const prefixTimes = [];
  for (let round = 0; round < 3; round++) for (const [w] of frequent) {
    const t0 = performance.now();
    await search.search(LOCAL_OWNER, { matches: { text: w }, resultOptions: { limit: 25 } });
    prefixTimes.push(performance.now() - t0);
  }
  prefixTimes.sort((a, b) => a - b);
  results['frequent, as a prefix'] = { queries: frequent.length, p50: +pct(prefixTimes, 50).toFixed(2), p99: +pct(prefixTimes, 99).toFixed(2) };
  await catalog.close();
  const bytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  console.log(JSON.stringify({ parts, importRowsPerSecond: Math.round(importRate), rssMB: Math.round(rss / 2 ** 20), diskMB: Math.round(bytes / 2 ** 20), results }, null, 2));
  rmSync(dir, { recursive: true, force: true });
}

await main();
