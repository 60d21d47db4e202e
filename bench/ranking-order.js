// Benchmark: what the custom ranking attribute and `sort` cost a text search, and that a search
// using neither costs what it did (docs/decisions/0022). In one process, on N generated parts
// (bench/catalog-data.js: real device names, each with its model number) with a filterable
// number attribute `pop` (seeded), through SearchService.search (rank step, session, first page;
// the result cache off, so every search ranks):
// - none: no setting, no sort; with --baseline <checkout> (another built checkout, e.g. main) the
//   same searches on its own catalog of the same parts, the two alternated query by query;
// - customRanking: `pop` desc set as the catalog's custom ranking attribute (arrays computed once
//   per index version, so warm);
// - sort: `sort: [{attribute_id: pop}]`;
// - first after a write: customRanking, the first search after a part write (arrays recomputed);
// - attributeOrder: `vendor` set as the attribute order (decisions/0037; the custom ranking
//   removed): the setting's write (every part holds a vendor: all are re-indexed), catalog.db's
//   size before and after, and the searches.
// Medians of R rounds per query class. Uses the COMPILED code (npm run build). Usage:
//   nice -n 5 node bench/ranking-order.js [--parts 50000] [--rounds 15] [--baseline <checkout>]
// Writes its section of bench/results.md.
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, isMain, percentile, tempDir, writeSection } from './lib.js';
import { devices, numberedPartOf } from './catalog-data.js';

const QUERIES = { rare: 'gigabit', medium: 'controller', frequent: 'device', 'two words': 'ethernet controller' };
const log = (...a) => console.error(`[ranking-order ${new Date().toISOString().slice(11, 19)}]`, ...a);

/** A catalog of `parts` generated parts opened with the build at `root`. */
async function openBuilt(root, parts) {
  const { openCatalog } = await import(pathToFileURL(join(root, 'dist/open-catalog.js')).href);
  const { LOCAL_OWNER } = await import(pathToFileURL(join(root, 'dist/core/permissions.js')).href);
  const dir = tempDir('catalog-bench-order-');
  // No result cache: every search ranks (a repeated query would otherwise be a cache hit).
  const catalog = openCatalog({ dataDir: dir, searchTuning: { cacheSize: 0 } });
  await catalog.service.upsertAttributes(LOCAL_OWNER, [
    { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
    { attribute_id: 'pop', type: 'text', name: { en: 'Popularity' }, filterable: true },
  ]);
  const list = devices();
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < parts; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(parts, i + 1000); j++) {
      const p = numberedPartOf(j, list);
      p.attributes.push({ attribute_id: 'pop', values: [{ organization: '', value: { en: String(Math.floor(next() * 50_000)) } }] });
      batch.push(p);
    }
    await catalog.service.upsertParts(LOCAL_OWNER, batch);
  }
  return { catalog, owner: LOCAL_OWNER, dir };
}

/** The median of some timings. */
function median(values) {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/** Milliseconds of one search. */
async function timed(c, body) {
  const start = process.hrtime.bigint();
  await c.catalog.search.search(c.owner, body);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function runRankingOrder({ parts, rounds, baseline }) {
  log(`${parts} parts, this build${baseline ? ` and ${baseline}` : ''}`);
  const self = await openBuilt(ROOT, parts);
  const base = baseline ? await openBuilt(baseline, parts) : undefined;
  const rows = [];
  const body = (text, extra = {}) => ({ matches: { text }, resultOptions: { limit: 25 }, ...extra });
  // Warm both (first searches load the arrays and lists).
  for (const text of Object.values(QUERIES)) {
    await timed(self, body(text));
    if (base) await timed(base, body(text));
  }
  for (const [kind, text] of Object.entries(QUERIES)) {
    const mine = [];
    const theirs = [];
    for (let r = 0; r < rounds; r++) {
      // Which build goes first alternates, so neither always runs right after the other's garbage.
      if (base && r % 2 === 1) theirs.push(await timed(base, body(text)));
      mine.push(await timed(self, body(text)));
      if (base && r % 2 === 0) theirs.push(await timed(base, body(text)));
    }
    rows.push({ kind, mode: 'none', ms: median(mine), base: base ? median(theirs) : undefined });
  }
  await self.catalog.search.setRanking(self.owner, { customRanking: { attribute_id: 'pop', order: 'desc' } });
  for (const [kind, text] of Object.entries(QUERIES)) {
    await timed(self, body(text));
    const ms = [];
    for (let r = 0; r < rounds; r++) ms.push(await timed(self, body(text)));
    rows.push({ kind, mode: 'customRanking', ms: median(ms) });
  }
  for (const [kind, text] of Object.entries(QUERIES)) {
    const ms = [];
    for (let r = 0; r < rounds; r++) ms.push(await timed(self, body(text, { sort: [{ attribute_id: 'pop' }] })));
    rows.push({ kind, mode: 'sort', ms: median(ms) });
  }
  const cold = [];
  for (let r = 0; r < 5; r++) {
    await self.catalog.service.upsertParts(self.owner, [{ part_id: `write-${r}`, name: { en: 'written part' } }]);
    cold.push(await timed(self, body(QUERIES.rare)));
  }
  rows.push({ kind: 'rare', mode: 'customRanking, first after a write', ms: median(cold) });
  const size = () => statSync(join(self.dir, 'catalog.db')).size + (existsSync(join(self.dir, 'catalog.db-wal')) ? statSync(join(self.dir, 'catalog.db-wal')).size : 0);
  const before = size();
  const start = process.hrtime.bigint();
  await self.catalog.search.setRanking(self.owner, { attributeOrder: ['vendor'] });
  rows.push({ kind: `setting write (re-indexes ${parts} parts)`, mode: 'attributeOrder', ms: Number(process.hrtime.bigint() - start) / 1e6 });
  rows.push({ kind: `catalog.db + WAL: ${(before / 2 ** 20).toFixed(1)} MiB before, ${(size() / 2 ** 20).toFixed(1)} MiB after`, mode: 'attributeOrder', ms: undefined });
  for (const [kind, text] of Object.entries(QUERIES)) {
    await timed(self, body(text));
    const ms = [];
    for (let r = 0; r < rounds; r++) ms.push(await timed(self, body(text)));
    rows.push({ kind, mode: 'attributeOrder', ms: median(ms) });
  }
  for (const c of [self, base]) {
    if (!c) continue;
    await c.catalog.close();
    rmSync(c.dir, { recursive: true, force: true });
  }
  return rows;
}

if (isMain(import.meta.url)) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : def;
  };
  const parts = Number(arg('--parts', '50000'));
  const rounds = Number(arg('--rounds', '15'));
  const baseline = arg('--baseline', undefined);
  const rows = await runRankingOrder({ parts, rounds, baseline });
  const fmt = (v) => (v === undefined ? '' : v.toFixed(2));
  const body = [
    `${parts} generated parts with a number attribute; SearchService.search (rank step, session, first page of 25; no result cache), median of ${rounds} per query, in one process${baseline ? `; baseline: ${baseline}, alternated query by query` : ''}. Shared machine: compare ratios, not absolutes.`,
    '',
    `| query | order | ms (p50) |${baseline ? ' baseline ms (p50) |' : ''}`,
    `|---|---|---|${baseline ? '---|' : ''}`,
    ...rows.map((r) => `| ${r.kind} | ${r.mode} | ${fmt(r.ms)} |${baseline ? ` ${fmt(r.base)} |` : ''}`),
    '',
    'attributeOrder: the searches with `vendor` as the attribute order; its first rows, the write that set it and the size it added.',
  ].join('\n');
  writeSection('ranking-order', 'Custom ranking attribute, sort and attribute order: cost of a search', body);
  console.log(body);
}
