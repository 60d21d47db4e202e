/**
 * Rare-word searches in process, builds A/B/... alternated in one process over one catalog (issue 12:
 * a rare word's fixed cost). Each build opens the same catalog directory as `catalog serve` does
 * (memory-mapped reads, sessions written after answering) and runs `warm()`; then:
 *
 * - first-time words: rare words (10-30 parts, from the catalog's own part names), each searched
 *   by ONE build only (assigned round-robin, the order of builds rotating word by word), so every
 *   search reads its postings and cards for the first time on its connection;
 * - repeats: the same words again, `--rounds` times (the result and card caches answer);
 * - with `--bust`, each build writes one part on its own connection right before each repeat (as
 *   `catalog serve`'s main thread, which writes and runs rare searches): the result cache is
 *   emptied, the cards stay cached but for the chunks the writes changed.
 *
 * Per search: wall time of `SearchService.search` (limit 25) and process CPU until the deferred
 * session write ran (one turn of the event loop). The catalog directory is written to (sessions,
 * and parts with --bust): use a copy.
 *
 * Usage: npm run build && nice -n 10 node bench/rare-ab.js --data-dir DIR --builds main=/work/main,new=. [--words 400] [--rounds 4] [--bust] [--seed 1]
 */
import Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setImmediate as turn } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' }, builds: { type: 'string' }, words: { type: 'string', default: '400' }, rounds: { type: 'string', default: '4' },
    bust: { type: 'boolean', default: false }, seed: { type: 'string', default: '1' },
  },
});
if (!args['data-dir'] || !args.builds) throw new Error('usage: node bench/rare-ab.js --data-dir DIR --builds name=repoDir,name=repoDir [--words N] [--rounds N] [--bust] [--seed N]');
const dataDir = resolve(args['data-dir']);
const perBuild = Number(args.words);

/** Rare words of the catalog's part names (every language), shuffled by `seed`. */
function rareWords(seed) {
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  const df = new Map();
  for (const names of db.prepare('SELECT name FROM parts').pluck().iterate()) {
    const words = new Set(Object.values(JSON.parse(names)).join(' ').toLowerCase().split(/[^a-z0-9]+/));
    for (const w of words) if (/^[a-z]{4,}$/.test(w)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  db.close();
  const words = [...df].filter(([, n]) => n >= 10 && n <= 30).map(([w]) => w).sort();
  let s = seed;
  const random = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = words.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [words[i], words[j]] = [words[j], words[i]];
  }
  return words;
}

const words = rareWords(Number(args.seed));
const builds = [];
for (const spec of args.builds.split(',')) {
  const [name, dir] = spec.split('=');
  const load = (path) => import(pathToFileURL(join(resolve(dir), 'dist', path)).href);
  const { openCatalog } = await load('open-catalog.js');
  const { SERVE_MMAP_BYTES } = await load('adapters/sqlite/database.js');
  const { LOCAL_OWNER } = await load('core/permissions.js');
  const catalog = openCatalog({ dataDir, mmapBytes: SERVE_MMAP_BYTES, deferSessionWrites: true });
  await catalog.search.warm?.();
  builds.push({ name, catalog, owner: LOCAL_OWNER, words: [], first: { wall: [], cpu: [] }, repeat: { wall: [], cpu: [] } });
}
const k = builds.length;
if (words.length < k * perBuild + 30) throw new Error(`only ${words.length} rare words`);
words.slice(0, k * perBuild).forEach((w, i) => builds[i % k].words.push(w));

async function timed(build, word, into) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await build.catalog.search.search(build.owner, { matches: { text: `${word} ` }, resultOptions: { limit: 25 } });
  const wall = performance.now() - t0;
  await turn(); // the deferred session write
  const cpu = process.cpuUsage(cpu0);
  into?.wall.push(wall);
  into?.cpu.push((cpu.user + cpu.system) / 1000);
}

// Warm-up words (compiled code), then the first-time words, then the repeats.
for (const build of builds) for (const w of words.slice(k * perBuild, k * perBuild + 30)) await timed(build, w);
for (let i = 0; i < perBuild; i++) {
  for (let j = 0; j < k; j++) {
    const build = builds[(i + j) % k];
    await timed(build, build.words[i], build.first);
  }
}
for (let round = 0; round < Number(args.rounds); round++) {
  for (let i = 0; i < perBuild; i++) {
    for (let j = 0; j < k; j++) {
      const build = builds[(i + round + j) % k];
      if (args.bust) await build.catalog.service.upsertParts(build.owner, [{ part_id: `bench:rare-ab-${build.name}`, name: { en: `zzrareab${round}x${i}` } }]);
      await timed(build, build.words[i], build.repeat);
    }
  }
}

const pct = (values, p) => [...values].sort((a, b) => a - b)[Math.floor(values.length * p)];
const ms = (values) => `p50 ${pct(values, 0.5).toFixed(3)} p90 ${pct(values, 0.9).toFixed(3)}`;
console.log(`| build | first-time wall ms | CPU ms p50 | ${args.bust ? 'after a write' : 'repeated'} wall ms | CPU ms p50 |`);
console.log('|---|---|---|---|---|');
for (const b of builds) {
  console.log(`| ${b.name} | ${ms(b.first.wall)} | ${pct(b.first.cpu, 0.5).toFixed(3)} | ${ms(b.repeat.wall)} | ${pct(b.repeat.cpu, 0.5).toFixed(3)} |`);
}
for (const b of builds) await b.catalog.close();
