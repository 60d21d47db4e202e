// Benchmark: relevance on real corpora (issue 39), this catalog beside Xapian's BM25 on the same
// parts and queries. Two corpora nobody here wrote:
//
// - npm: the npm registry list (../.library/env/packages/npm.tsv: name, version, downloads a month,
//   summary) as parts: part_id `npm:<name>`, name.en the name, the summary a searchable attribute,
//   the downloads a month a filterable attribute (not searchable); the npm judgments run again
//   with it as the custom ranking attribute (`catalog settings set --custom-ranking`). `--packages N` imports a
//   seeded sample of N packages instead of all of them. A part id holds no `/`: a scoped name's is
//   written `:` (`npm:@types:react`, as `parts import --id-replace '/=:'` does).
// - devices: the PCI and USB ID repositories (../shared/data/catalog, bench/catalog-data.js): part_id
//   `<bus>:<vendor id>:<device id>` (the part number), name.en the device name, the vendor name a
//   searchable attribute.
//
// Query sets, seeded, of what people type (the kinds of issue 39), each written as a judgments CSV
// and judged by the built CLI's `catalog search eval` (success@1/3/10, MRR@10):
//
//   npm exact          a name without separators, as typed (react)                 → success@1
//   npm separators     a name with - . _ / @: as typed (react-dom, @types/react),  → success@1
//                      with other separators (react dom, types-react) and none (reactdom)
//   npm typo           one typo (two from 9 letters), never on the first letter,   → success@3
//                      never a name some package has
//   npm prefix         the first 4–5 letters of a name of 6 or more, never a       → MRR
//                      name some package has (`react` asks for react); beside it
//                      the MRR of every name beginning with the query ranked by
//                      downloads alone (what the popularity signal allows)
//   npm rare words     2–3 of the rarest words of a summary                        → success@10
//   devices id         the part id as typed, with other separators, and none       → success@1
//   devices name       a device name held by at most 3 parts, as typed             → success@1
//   devices typo       that name with one typo in its longest word (two from 9)    → success@3
//   devices rare words 2–3 of the rarest words of the name and vendor              → success@10
//
// Names (exact, separators, typo, prefix) are drawn from the 10,000 most downloaded packages of
// the corpus, each with a chance proportional to its downloads (a package is looked up as often as
// it is used); rare-word queries from every package with a summary, their words each in at most
// 1 of 1,000 documents. A typo query keeps 5 letters (9 for two typos), as typo rules count. A query's
// expected parts are every part that answers it as well (the same name in another case, the same
// name joined, the same summary), so a tie between equals is never a miss.
//
// Xapian (python3-xapian, bench/xapian_bench.py `search`): BM25 (the catalog's k1, b), the name
// weighted 3× the summary or vendor (a device's part id is indexed with its name), each query
// through Xapian's QueryParser: every word required, punctuated words as phrases, the last word
// also a prefix.
//
// `--corpora npm,pypi,nuget,devices` (default npm,devices) adds the other package lists of
// ../.library/env/packages as corpora of the same kinds and queries: pypi (pypi.tsv: 886,000
// names, the 15,000 most downloaded ranked; a package's weight is 10,000,000 / its rank, 0
// unranked) and nuget (nuget.tsv: 2,600 names such as Newtonsoft.Json, every one weighted alike);
// `--pypi N` imports the ranked ones and a seeded sample of the rest, N in all.
//
// Before and after (`--baseline <checkout>`: another built checkout of this project, e.g. a `git
// worktree` of the commit before the ranking rules): its CLI imports the same CSVs into a catalog of
// its own, its `catalog serve` answers, and this checkout's `catalog search eval --remote` judges
// the same queries over HTTP (a baseline without `search eval` is judged all the same).
//
//   node bench/relevance.js [--packages N] [--devices N] [--queries 300] [--seed 39] [--keep] [--baseline <checkout>]
//   (--packages, --devices: a seeded sample of that many; default every one)
//
// Writes the `relevance` section of bench/results.md (writeSection) and prints the figures as JSON.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { argReader, BIN, freePort, prng, ROOT, round, runMeasured, tempDir, waitUntilServing, writeSection } from './lib.js';
import { devices } from './catalog-data.js';

const arg = argReader(process.argv.slice(2));
const PACKAGES = arg('packages', undefined) === undefined ? undefined : Number(arg('packages'));
const DEVICES = arg('devices', undefined) === undefined ? undefined : Number(arg('devices'));
const PER_KIND = Number(arg('queries', '300'));
const SEED = Number(arg('seed', '39'));
const KEEP = process.argv.includes('--keep');
const BASELINE = arg('baseline', undefined);
const BASELINE_BIN = BASELINE === undefined ? undefined : join(BASELINE, 'bin', 'catalog.js');
const PACKAGE_LISTS = join(ROOT, '..', '.library', 'env', 'packages');
const NPM_LIST = join(PACKAGE_LISTS, 'npm.tsv');
const CORPORA = arg('corpora', 'npm,devices').split(',');
const PYPI = arg('pypi', undefined) === undefined ? undefined : Number(arg('pypi'));
/** Names people look up are drawn from this many of the most downloaded packages. */
const POPULAR = 10_000;
const SEPARATORS = /[-._/@]/;
const K = 10;

const log = (...a) => console.error(new Date().toISOString().slice(11, 19), ...a);

if (!existsSync(BIN) || !existsSync(join(ROOT, 'dist', 'bundle'))) {
  console.error('bench/relevance.js drives the built CLI: run npm run build first');
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Corpora

/** The npm list: {name, downloads, summary}; the `[tested here: ...]` notes this workplace put before some summaries are not the authors' and are left out. */
function npmPackages() {
  const lines = readFileSync(NPM_LIST, 'utf8').split('\n').slice(1);
  const out = [];
  for (const line of lines) {
    if (line === '') continue;
    const [name, , downloads, summary = ''] = line.split('\t');
    out.push({ name, downloads: Number(downloads) || 0, summary: summary.replace(/^\[tested here:[^\]]*\]\s*/, '').replace(/[\r\n\t]+/g, ' ').trim() });
  }
  return out;
}

/** The PyPI list: {name, downloads (10,000,000 / its rank among the most downloaded, 0 unranked), summary}. */
function pypiPackages() {
  const out = [];
  for (const line of readFileSync(join(PACKAGE_LISTS, 'pypi.tsv'), 'utf8').split('\n').slice(1)) {
    if (line === '') continue;
    const [name, , , rank = '', summary = ''] = line.split('\t');
    out.push({ name, downloads: rank === '' ? 0 : Math.round(10_000_000 / Number(rank)), summary: summary.replace(/[\r\n\t]+/g, ' ').trim() });
  }
  return out;
}

/** The NuGet list: {name, downloads (1: none is known), summary}; rows not served are left out. */
function nugetPackages() {
  const out = [];
  for (const line of readFileSync(join(PACKAGE_LISTS, 'nuget.tsv'), 'utf8').split('\n').slice(1)) {
    if (line === '') continue;
    const [name, version, , summary = ''] = line.split('\t');
    if (version === 'not-served') continue;
    out.push({ name, downloads: 1, summary: summary.replace(/[\r\n\t]+/g, ' ').trim() });
  }
  return out;
}

/** The ranked PyPI packages and a seeded sample of the others, `n` in all (all of them when undefined). */
function pypiSample(all, n, random) {
  if (n === undefined || n >= all.length) return all;
  const ranked = all.filter((p) => p.downloads > 0);
  const rest = sample(all.filter((p) => p.downloads === 0), Math.max(0, n - ranked.length), random);
  return [...ranked, ...rest].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** A seeded sample of `n` of `items` (all of them when n is undefined or larger), in their order. */
function sample(items, n, random) {
  if (n === undefined || n >= items.length) return items;
  const picked = new Set();
  while (picked.size < n) picked.add(Math.floor(random() * items.length));
  return [...picked].sort((a, b) => a - b).map((i) => items[i]);
}

/**
 * Seeded choice of `n` of `items` without repetition, each drawn with a chance proportional to
 * `weight(item)` (Efraimidis–Spirakis: the n largest random()^(1/w)): a stream of queries in which
 * a package is looked up as often as it is downloaded.
 */
function chooseWeighted(items, n, random, weight) {
  return items
    .map((item) => ({ item, key: Math.log(random() || Number.MIN_VALUE) / Math.max(weight(item), 1) }))
    .sort((a, b) => b.key - a.key)
    .slice(0, n)
    .map((x) => x.item);
}

/** Seeded choice of `n` of `items` (without repetition). */
function choose(items, n, random) {
  const copy = [...items];
  const out = [];
  while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(random() * copy.length), 1)[0]);
  return out;
}

const csvCell = (v) => (/[",\n\r]/.test(v) || /^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const csvLine = (cells) => cells.map((c) => csvCell(String(c))).join(',');
/** A CSV cell as the catalog's import reads it back: a leading = + - @ would be taken for a spreadsheet formula guard's quote, so it gets one (docs/import-formats.md). */
const guarded = (v) => (/^'*[=+\-@\t\r]/.test(v) ? `'${v}` : v);

const words = (text) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3 && !/^\d+$/.test(w));
const joined = (name) => name.toLowerCase().replace(/[-._/@\s:]+/g, '');

/**
 * One typo (two from 9 letters) in `word`, never on its first letter: substitution, deletion,
 * insertion or transposition; undefined when the word typed would be shorter than the typo rules
 * of the engines people pick allow (5 letters for one typo, 9 for two).
 */
function typo(word, random) {
  let w = word;
  const edits = word.length >= 9 ? 2 : 1;
  for (let e = 0; e < edits; e++) {
    const at = 1 + Math.floor(random() * (w.length - 1));
    const letter = String.fromCharCode(97 + Math.floor(random() * 26));
    const kind = Math.floor(random() * 4);
    if (kind === 0) w = w.slice(0, at) + letter + w.slice(at + 1);
    else if (kind === 1) w = w.slice(0, at) + w.slice(at + 1);
    else if (kind === 2) w = w.slice(0, at) + letter + w.slice(at);
    else if (at < w.length - 1) w = w.slice(0, at) + w[at + 1] + w[at] + w.slice(at + 2);
    else w = w.slice(0, at) + letter + w.slice(at + 1);
  }
  return w.length >= (edits === 2 ? 9 : 5) ? w : undefined;
}

/**
 * The 2–3 rarest words of `text` (document frequency `df` over `documents`), in the text's order;
 * undefined when fewer than 2 of its words are rare (in at most 1 of 1,000 documents, at least 5).
 */
function rareWords(text, df, documents, random) {
  const limit = Math.max(5, Math.floor(documents / 1000));
  const distinct = [...new Set(words(text))];
  if (distinct.length < 3) return undefined;
  const n = 2 + Math.floor(random() * 2);
  const rarest = [...distinct].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0) || (a < b ? -1 : 1)).slice(0, n).filter((w) => (df.get(w) ?? 0) <= limit);
  if (rarest.length < 2) return undefined;
  return distinct.filter((w) => rarest.includes(w)).join(' ');
}

function documentFrequencies(texts) {
  const df = new Map();
  for (const t of texts) for (const w of new Set(words(t))) df.set(w, (df.get(w) ?? 0) + 1);
  return df;
}

/** A package list's query sets: {kind: [{group, query, expected: [part_id]}]}; `idOf(name)` is a package's part id. */
function packageQueries(packages, random, idOf) {
  const byLower = new Map();
  const byJoined = new Map();
  const bySummary = new Map();
  for (const p of packages) {
    const id = idOf(p.name);
    for (const [map, key] of [[byLower, p.name.toLowerCase()], [byJoined, joined(p.name)], [bySummary, `${p.summary.toLowerCase()}`]]) {
      const list = map.get(key);
      if (list) list.push(id);
      else map.set(key, [id]);
    }
  }
  const popular = [...packages].sort((a, b) => b.downloads - a.downloads || (a.name < b.name ? -1 : 1)).slice(0, POPULAR);
  const plain = popular.filter((p) => /^[a-z0-9]+$/i.test(p.name));
  const punctuated = popular.filter((p) => SEPARATORS.test(p.name));
  const letters = popular.filter((p) => /^[a-z]{5,}$/i.test(p.name));
  const prefixable = popular.filter((p) => /^[a-z]{5}/i.test(p.name) && p.name.length >= 6);
  const described = packages.filter((p) => words(p.summary).length >= 3);
  const df = documentFrequencies(packages.map((p) => `${p.name} ${p.summary}`));

  const exact = chooseWeighted(plain, PER_KIND, random, (p) => p.downloads).map((p) => ({ group: 'exact name', query: p.name, expected: byLower.get(p.name.toLowerCase()) }));
  const separators = [];
  for (const p of chooseWeighted(punctuated, PER_KIND, random, (p) => p.downloads)) {
    separators.push({ group: 'as typed', query: p.name, expected: byLower.get(p.name.toLowerCase()) });
    const bare = p.name.replace(/^@/, '');
    const other = bare.replace(/[-._/@]+/g, (run) => {
      const options = [' ', '-', '_', '.'].filter((s) => s !== run);
      return options[Math.floor(random() * options.length)];
    });
    separators.push({ group: 'other separators', query: other.trim(), expected: byJoined.get(joined(p.name)) });
    separators.push({ group: 'no separators', query: joined(p.name), expected: byJoined.get(joined(p.name)) });
  }
  const typos = [];
  for (const p of chooseWeighted(letters, letters.length, random, (p) => p.downloads)) {
    if (typos.length >= PER_KIND) break;
    const t = typo(p.name.toLowerCase(), random);
    if (t === undefined || t === p.name.toLowerCase() || byLower.has(t)) continue;
    typos.push({ group: p.name.length >= 9 ? 'two typos (9+ letters)' : 'one typo', query: t, expected: byLower.get(p.name.toLowerCase()) });
  }
  const prefixes = [];
  // The best a popularity signal allows: every name beginning with the query, most downloaded first.
  const byDownloads = [...packages].sort((a, b) => b.downloads - a.downloads || (a.name < b.name ? -1 : 1));
  for (const p of chooseWeighted(prefixable, prefixable.length, random, (p) => p.downloads)) {
    if (prefixes.length >= PER_KIND) break;
    const query = p.name.slice(0, 4 + Math.floor(random() * 2));
    // A prefix that is some package's whole name (`react`) asks for that package: another kind.
    if (byLower.has(query.toLowerCase())) continue;
    const lower = query.toLowerCase();
    const rank = byDownloads.filter((o) => o.name.toLowerCase().startsWith(lower)).findIndex((o) => o.name === p.name) + 1;
    prefixes.push({ group: 'prefix', query, expected: [idOf(p.name)], ceiling: rank >= 1 && rank <= K ? 1 / rank : 0 });
  }
  const rare = [];
  for (const p of choose(described, Math.min(described.length, PER_KIND * 20), random)) {
    if (rare.length >= PER_KIND) break;
    const query = rareWords(p.summary, df, packages.length, random);
    if (query !== undefined) rare.push({ group: 'rare summary words', query, expected: bySummary.get(p.summary.toLowerCase()) });
  }
  return { exact, separators, typo: typos, prefix: prefixes, 'rare words': rare };
}

/** The device parts: {part_id, name, vendor}. */
function deviceParts() {
  const seen = new Set();
  const out = [];
  for (const [bus, vendor, device, name, vendorName] of devices()) {
    const part_id = `${bus}:${vendor}:${device}`;
    if (seen.has(part_id)) continue;
    seen.add(part_id);
    out.push({ part_id, name, vendor: vendorName });
  }
  return out;
}

/** The device query sets. */
function deviceQueries(parts, random) {
  const byName = new Map();
  const byText = new Map();
  for (const p of parts) {
    for (const [map, key] of [[byName, p.name.toLowerCase()], [byText, `${p.name} ${p.vendor}`.toLowerCase()]]) {
      const list = map.get(key);
      if (list) list.push(p.part_id);
      else map.set(key, [p.part_id]);
    }
  }
  const ids = [];
  for (const p of choose(parts, PER_KIND, random)) {
    ids.push({ group: 'id as typed', query: p.part_id, expected: [p.part_id] });
    const sep = [' ', '-', '.'][Math.floor(random() * 3)];
    ids.push({ group: 'id, other separators', query: p.part_id.replace(/:/g, sep), expected: [p.part_id] });
    ids.push({ group: 'id, no separators', query: p.part_id.replace(/:/g, ''), expected: [p.part_id] });
  }
  const named = parts.filter((p) => (byName.get(p.name.toLowerCase())?.length ?? 0) <= 3);
  const names = choose(named, PER_KIND, random).map((p) => ({ group: 'device name', query: p.name, expected: byName.get(p.name.toLowerCase()) }));
  const typos = [];
  for (const p of choose(named, named.length, random)) {
    if (typos.length >= PER_KIND) break;
    const longest = p.name.split(/\s+/).filter((w) => /^[a-z]{5,}$/i.test(w)).sort((a, b) => b.length - a.length)[0];
    if (longest === undefined) continue;
    const typed = typo(longest.toLowerCase(), random);
    if (typed === undefined) continue;
    const query = p.name.replace(longest, typed);
    if (byName.has(query.toLowerCase())) continue;
    typos.push({ group: longest.length >= 9 ? 'device name, two typos (9+ letters)' : 'device name, one typo', query, expected: byName.get(p.name.toLowerCase()) });
  }
  const df = documentFrequencies(parts.map((p) => `${p.name} ${p.vendor}`));
  const rare = [];
  for (const p of choose(parts, Math.min(parts.length, PER_KIND * 20), random)) {
    if (rare.length >= PER_KIND) break;
    const query = rareWords(`${p.name} ${p.vendor}`, df, parts.length, random);
    if (query !== undefined) rare.push({ group: 'rare name and vendor words', query, expected: byText.get(`${p.name} ${p.vendor}`.toLowerCase()) });
  }
  return { id: ids, name: names, typo: typos, 'rare words': rare };
}

// ---------------------------------------------------------------------------------------------
// Runs

/** Runs the built CLI (or the baseline's, `bin`) with `env` added; throws with its stderr unless it exits with one of `ok`. */
async function catalog(args, ok = [0], bin = BIN, env = {}) {
  const r = await runMeasured(bin, args, { env: { ...process.env, ...env } });
  if (!ok.includes(r.code)) throw new Error(`catalog ${args.join(' ')}: exit ${r.code}\n${r.stderr.slice(-2000)}`);
  return r;
}

/**
 * Writes a judgments CSV of `queries` and judges it with `catalog search eval` (-o json): on the
 * catalog in `dataDir`, or on `remote` ({url, token}: the baseline's server).
 */
async function evaluate(dataDir, file, queries, remote = undefined) {
  writeFileSync(file, `${['group,query,expected', ...queries.map((q) => csvLine([q.group, guarded(q.query), q.expected.join('|')]))].join('\n')}\n`);
  const started = performance.now();
  const where = remote ? ['--remote', remote.url] : ['--data-dir', dataDir];
  const r = await catalog([...where, '-o', 'json', 'search', 'eval', file, '--worst', '5'], [0, 3], BIN, remote ? { CATALOG_TOKEN: remote.token } : {});
  return { report: JSON.parse(r.stdout), seconds: (performance.now() - started) / 1000 };
}

/**
 * The baseline's catalog of the same parts (`importParts` run with its CLI), served by its own
 * `catalog serve` while `work(remote)` runs.
 */
async function withBaselineServer(dataDir, importParts, work) {
  await importParts(dataDir, BASELINE_BIN);
  const token = execFileSync(BASELINE_BIN, ['--data-dir', dataDir, 'tokens', 'create', '--name', 'relevance', '--role', 'catalogAdmin'], { encoding: 'utf8' }).trim();
  const port = await freePort();
  const server = spawn(BASELINE_BIN, ['--data-dir', dataDir, 'serve', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let serverErr = '';
  server.stderr.on('data', (d) => (serverErr += d));
  const url = `http://127.0.0.1:${port}`;
  const http = new Pool(url, { connections: 1 });
  try {
    await waitUntilServing(http, { authorization: `Bearer ${token}` }, { why: () => serverErr, exited: () => server.exitCode !== null });
    return await work({ url, token });
  } finally {
    await http.close();
    server.kill('SIGINT');
    if (server.exitCode === null) await new Promise((resolve) => server.once('exit', resolve));
  }
}

/** A judged report's figures per group, for the log. */
const figuresLine = (report) => report.groups.map((g) => `${g.group}: s@1 ${g['success@1']} s@3 ${g['success@3']} s@10 ${g['success@10']} mrr ${g.mrr}`).join(' · ');

/** Puts each group of `report` (judged for `kind`) on its row of `rows` as `key`. */
function attach(rows, kind, report, key) {
  for (const g of report.groups) {
    const row = rows.find((r) => r.kind === kind && r.group === g.group);
    if (row) row[key] = g;
  }
}

/** A Python with the xapian module (as bench/compare.js finds it), or undefined. */
function xapianPython() {
  for (const python of ['python3', '/usr/bin/python3']) {
    const r = spawnSync(python, ['-c', 'import xapian; print(xapian.version_string())'], { encoding: 'utf8' });
    if (r.status === 0) return { python, version: r.stdout.trim() };
  }
  return undefined;
}

/** Xapian's figures per group of `queries` (the same definitions as `catalog search eval`). */
function xapianFigures(xapian, db, dir, queries) {
  const texts = join(dir, 'xapian-queries.json');
  writeFileSync(texts, JSON.stringify(queries.map((q) => q.query)));
  const r = spawnSync(xapian.python, [join(ROOT, 'bench', 'xapian_bench.py'), 'search', db, texts, String(K)], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`xapian search: ${r.stderr}`);
  const hits = JSON.parse(r.stdout);
  const ranks = queries.map((q, i) => {
    const at = hits[i].findIndex((id) => q.expected.includes(id));
    return { group: q.group, rank: at < 0 ? null : at + 1 };
  });
  const figures = (list) => {
    const n = list.length;
    const share = (k) => round(list.filter((x) => x.rank !== null && x.rank <= k).length / n, 3);
    return { queries: n, 'success@1': share(1), 'success@3': share(3), 'success@10': share(10), mrr: round(list.reduce((s, x) => s + (x.rank ? 1 / x.rank : 0), 0) / n, 3) };
  };
  const out = {};
  for (const g of new Set(ranks.map((x) => x.group))) out[g] = figures(ranks.filter((x) => x.group === g));
  return out;
}

/** The figure each kind is judged by, and the goal of issue 39. */
const MEASURE = {
  exact: ['success@1', 0.98], separators: ['success@1', 0.97], typo: ['success@3', 0.9], prefix: ['mrr', 0.7], 'rare words': ['success@10', 0.93],
  id: ['success@1', 0.98], name: ['success@1', 0.98],
};

async function runCorpus(corpus, dir, setsOf, importParts, xapianRows, rankByPopularity) {
  const dataDir = join(dir, `${corpus}-data`);
  const started = performance.now();
  await importParts(dataDir);
  const importSeconds = (performance.now() - started) / 1000;
  log(corpus, 'imported in', round(importSeconds), 's');
  const xapian = xapianPython();
  let db;
  if (xapian) {
    const tsv = join(dir, `${corpus}-xapian.tsv`);
    writeFileSync(tsv, xapianRows().map((r) => r.map((c) => c.replace(/[\t\n\r]+/g, ' ')).join('\t')).join('\n') + '\n');
    db = join(dir, `${corpus}-xapian`);
    const r = spawnSync(xapian.python, [join(ROOT, 'bench', 'xapian_bench.py'), 'index', tsv, db, '3'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`xapian index: ${r.stderr}`);
  } else log('python3-xapian is not installed (apt-get install -y python3-xapian): Xapian skipped');
  const rows = [];
  for (const [kind, queries] of Object.entries(setsOf)) {
    const { report, seconds } = await evaluate(dataDir, join(dir, `${corpus}-${kind.replace(/ /g, '-')}.csv`), queries);
    const x = db ? xapianFigures(xapian, db, dir, queries) : {};
    for (const g of report.groups) {
      if (g.group === 'all' && report.groups.length > 1) continue;
      const ceilings = queries.filter((q) => q.group === g.group && q.ceiling !== undefined).map((q) => q.ceiling);
      rows.push({ corpus, kind, ...g, xapian: x[g.group], seconds: round(seconds, 1), worst: report.worst.filter((w) => w.group === g.group).slice(0, 2), ...(ceilings.length > 0 ? { ceiling: ceilings.reduce((a, b) => a + b, 0) / ceilings.length } : {}) });
    }
    log(corpus, kind, figuresLine(report));
  }
  // The same judgments on the baseline's catalog, before the popularity signal is set here.
  if (BASELINE_BIN !== undefined) {
    await withBaselineServer(join(dir, `${corpus}-baseline-data`), importParts, async (remote) => {
      for (const [kind, queries] of Object.entries(setsOf)) {
        const { report } = await evaluate(undefined, join(dir, `${corpus}-${kind.replace(/ /g, '-')}.csv`), queries, remote);
        attach(rows, kind, report, 'baseline');
        log(corpus, kind, 'baseline:', figuresLine(report));
      }
    });
  }
  // The same judgments once more with the popularity signal as the custom ranking attribute.
  if (rankByPopularity !== undefined) {
    await rankByPopularity(dataDir);
    for (const kind of Object.keys(setsOf)) {
      const { report } = await evaluate(dataDir, join(dir, `${corpus}-${kind.replace(/ /g, '-')}.csv`), setsOf[kind]);
      attach(rows, kind, report, 'popular');
      log(corpus, kind, 'custom ranking:', figuresLine(report));
    }
  }
  return { importSeconds: round(importSeconds, 1), rows, xapianVersion: xapian?.version };
}

/**
 * Imports a corpus into `dataDir` with the CLI `bin`: its attributes (CSV rows after the header
 * attribute_id,type,name.en,searchable,filterable) and its parts (CSV lines, header first).
 */
async function importCorpus(dir, corpus, attributes, partLines, dataDir, bin) {
  writeFileSync(join(dir, `${corpus}-attributes.csv`), `attribute_id,type,name.en,searchable,filterable\n${attributes}\n`);
  writeFileSync(join(dir, `${corpus}-parts.csv`), `${partLines.join('\n')}\n`);
  await catalog(['--data-dir', dataDir, '-q', 'attributes', 'import', join(dir, `${corpus}-attributes.csv`)], [0], bin);
  await catalog(['--data-dir', dataDir, '-q', 'parts', 'import', join(dir, `${corpus}-parts.csv`)], [0], bin);
}

/** A package list as a corpus: part_id `<corpus>:<name>` (`/` as `:`), name.en the name, the summary searchable, the popularity a filterable number. */
async function runPackageCorpus(corpus, dir, packages, random) {
  const idOf = (name) => `${corpus}:${name.replace(/\//g, ':')}`;
  const sets = packageQueries(packages, random, idOf);
  const attributes = 'summary,text,Summary,true,false\ndownloads_a_month,text,Downloads a month,false,true';
  const rows = ['part_id,name.en,attr:summary.en,attr:downloads_a_month.en', ...packages.map((p) => csvLine([idOf(p.name), guarded(p.name), guarded(p.summary), String(p.downloads)]))];
  return runCorpus(corpus, dir, sets, (dataDir, bin = BIN) => importCorpus(dir, corpus, attributes, rows, dataDir, bin), () => packages.map((p) => [idOf(p.name), p.name, p.summary]), packages.some((p) => p.downloads !== packages[0]?.downloads) ? async (dataDir) => {
    await catalog(['--data-dir', dataDir, '-q', 'settings', 'set', '--custom-ranking', 'downloads_a_month:desc']);
  } : undefined);
}

async function main() {
  const dir = tempDir('catalog-relevance-');
  const random = prng(SEED);
  const results = [];
  const described = [];
  for (const corpus of CORPORA) {
    if (corpus === 'devices') {
      const allDevices = deviceParts();
      const parts = sample(allDevices, DEVICES, random);
      log(`devices: ${parts.length} parts`);
      const deviceSets = deviceQueries(parts, random);
      const rows = ['part_id,name.en,attr:vendor.en', ...parts.map((p) => csvLine([p.part_id, guarded(p.name), guarded(p.vendor)]))];
      const dev = await runCorpus('devices', dir, deviceSets, (dataDir, bin = BIN) => importCorpus(dir, 'devices', 'vendor,text,Vendor,true,true', rows, dataDir, bin), () => parts.map((p) => [p.part_id, `${p.part_id} ${p.name}`, p.vendor]));
      results.push(dev);
      described.push(`devices, ${parts.length.toLocaleString('en')} of the ${allDevices.length.toLocaleString('en')} PCI and USB devices, imported in ${dev.importSeconds} s`);
      continue;
    }
    const lists = { npm: npmPackages, pypi: pypiPackages, nuget: nugetPackages };
    if (!(corpus in lists)) throw new Error(`--corpora: unknown corpus '${corpus}' (npm, pypi, nuget, devices)`);
    const all = lists[corpus]();
    const packages = corpus === 'pypi' ? pypiSample(all, PYPI, random) : corpus === 'npm' ? sample(all, PACKAGES, random) : all;
    log(`${corpus}: ${packages.length} of ${all.length} packages`);
    const result = await runPackageCorpus(corpus, dir, packages, random);
    results.push(result);
    described.push(`${corpus}, ${packages.length.toLocaleString('en')} of the ${all.length.toLocaleString('en')} packages of the ${corpus} list${packages.length < all.length ? (corpus === 'pypi' ? ' (the 15,000 ranked and a seeded sample of the rest)' : ` (a sample, seed ${SEED})`) : ''}, imported in ${result.importSeconds} s`);
  }
  const rows = results.flatMap((r) => r.rows);
  const xapianVersion = results.find((r) => r.xapianVersion)?.xapianVersion;
  const f = (x) => (x === undefined ? 'n/a' : x.toFixed(3));
  const lines = [
    `Corpora: ${described.join('; ')}. Queries: ${PER_KIND} drawn per kind (seed ${SEED}); a figure is the share of queries with a right answer at rank 1 (success@1), in the first 3 or 10, or the mean reciprocal rank over the first 10 (MRR). Xapian ${xapianVersion ?? '(not installed)'}: BM25, name 3×, QueryParser (every word, phrases, last word a prefix). The judgments of a package list with download figures (npm; pypi: 10,000,000 / rank) run twice: as imported, then with \`catalog settings set --custom-ranking downloads_a_month:desc\`.${BASELINE !== undefined ? ` Before: the checkout ${BASELINE} (its CLI imports the same CSVs, its \`catalog serve\` answers, this checkout's \`search eval --remote\` judges), as imported.` : ''}`,
    '',
    '| corpus | query kind | group | queries | figure | goal | before | catalog | catalog, downloads as custom ranking | Xapian | catalog success@1 / @3 / @10 / MRR | eval s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const [figure, goal] = MEASURE[r.kind];
      return `| ${r.corpus} | ${r.kind} | ${r.group} | ${r.queries} | ${figure} | ≥ ${goal} | ${f(r.baseline?.[figure])} | ${f(r[figure])} | ${f(r.popular?.[figure])} | ${f(r.xapian?.[figure])} | ${f(r['success@1'])} / ${f(r['success@3'])} / ${f(r['success@10'])} / ${f(r.mrr)} | ${r.seconds} |`;
    }),
    '',
    ...rows.filter((r) => r.ceiling !== undefined).map((r) => `- ${r.corpus} ${r.group}: the MRR of an order that puts every name beginning with the query first, most downloaded first (ranking by the popularity signal alone): ${f(r.ceiling)}.`),
    '',
    'Worst queries of each group (what came first):',
    '',
    ...rows.flatMap((r) => r.worst.map((w) => `- ${r.corpus} ${r.group}: \`${w.query}\` → ${w.expected.slice(0, 3).join(' | ')} ${w.rank === null ? 'not in the first 10' : `at ${w.rank}`}; first: ${w.first.map((h) => `\`${h.id}\``).join(', ') || 'no hit'}`)),
  ];
  writeSection('relevance', 'Relevance on real corpora beside Xapian (issue 39)', lines.join('\n'));
  console.log(JSON.stringify({ corpora: described, rows: rows.map(({ worst: _w, ...r }) => r) }, null, 2));
  if (!KEEP) rmSync(dir, { recursive: true, force: true });
  else log('kept', dir);
}

await main();
