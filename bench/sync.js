// Benchmark (issue 46, contributor sync): a parts sheet and a folder of photos synced twice with
// the built CLI; the second run over unchanged sources must send no image bytes, write nothing and
// take at most 10 % of the first run's time. Then one changed photo and one removed part: exactly
// one upload and (with --prune) one deletion.
//
// Data: a sheet of --parts parts (default 100,000) built from the real device names of
// ../shared/data/catalog (bench/catalog-data.js), with the vendor as an attribute value; --photos
// photos (default 10,000), two per part for the first parts, each a small JPEG made from a real
// photo of ../shared/data/images: a crop at its own offset, resized to 160 px wide (sharp), so every
// file is a real image with unique bytes (an EXIF description numbers it). Photos are named by the naming convention
// (<part_id>_<n>.jpg).
//
// The runs keep their sync state (photo hashes by path, size and time; the rows the catalog was
// seen to hold, with the change feed's number) in the run's own folder (XDG_CACHE_HOME), as a user's
// runs keep it in ~/.cache/catalog/sync.
//
// Mode: local (a data directory) by default; --remote starts `catalog serve` on a data directory
// and syncs over HTTP. Writes its own section of bench/results.md (writeSection, bench/lib.js).
//
// Usage: node bench/sync.js [--parts 100000] [--photos 10000] [--remote]
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import sharp from 'sharp';
import { ATTRIBUTES, devices, partOf } from './catalog-data.js';
import { loadavg } from 'node:os';
import { argReader, BIN, freePort, ROOT, round, runCli, tempDir, writeSection } from './lib.js';

const IMAGES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data', 'images');
const arg = argReader(process.argv.slice(2));
const PARTS = Number(arg('parts', '100000'));
const PHOTOS = Number(arg('photos', '10000'));
const REMOTE = process.argv.includes('--remote');

const log = (line) => process.stderr.write(`${line}\n`);

function csvCell(value) {
  return /[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** The sheet's rows: part_id, name.en, attr:vendor.en. */
function sheetRows(count) {
  const list = devices();
  const rows = [];
  for (let i = 0; i < count; i++) {
    const part = partOf(i, list);
    rows.push({ id: part.part_id, line: [part.part_id, part.name.en, part.attributes[0].values[0].value.en].map(csvCell).join(',') });
  }
  return rows;
}

function writeSheet(path, rows) {
  writeFileSync(path, `part_id,name.en,attr:vendor.en\n${rows.map((r) => r.line).join('\n')}\n`);
}

/** `count` photos, two per part from the first part on: crops of real photos resized to 160 px. */
async function makePhotos(dir, rows, count) {
  mkdirSync(dir, { recursive: true });
  const sources = readdirSync(IMAGES).filter((f) => f.endsWith('.jpg')).sort().map((f) => join(IMAGES, f));
  const metas = await Promise.all(sources.map((s) => sharp(s).metadata()));
  let next = 0;
  const work = async () => {
    for (let i = next++; i < count; i = next++) {
      const k = i % sources.length;
      const { width = 64, height = 64 } = metas[k];
      const w = Math.max(1, Math.floor(width * 0.6));
      const h = Math.max(1, Math.floor(height * 0.6));
      const step = Math.floor(i / sources.length);
      const left = (step * 7) % (width - w + 1);
      const top = (step * 5) % (height - h + 1);
      const bytes = await sharp(sources[k]).extract({ left, top, width: w, height: h }).resize({ width: 160 }).jpeg({ quality: 80 }).withMetadata({ exif: { IFD0: { ImageDescription: `sync bench ${i}` } } }).toBuffer();
      writeFileSync(join(dir, `${rows[Math.floor(i / 2)].id}_${(i % 2) + 1}.jpg`), bytes);
    }
  };
  await Promise.all([work(), work()]);
}

/** The `-o json` summary of a run, with its wall time. */
async function timed(label, cliArgs, env) {
  const run = await runCli(['-o', 'json', ...cliArgs], { env: { ...process.env, CI: '1', ...env } });
  if (run.code !== 0) throw new Error(`${label}: exit ${run.code}\n${run.stderr}`);
  const summary = JSON.parse(run.stdout);
  log(`${label}: ${round(run.ms / 1000, 2)} s ${JSON.stringify({ ...summary, errors: undefined, deletedIds: undefined })}`);
  return { ms: run.ms, summary, stderr: run.stderr };
}

function startServe(dataDir, port) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', String(port), '--access-log', join(dataDir, '..', 'access.log')], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CATALOG_WARM_UP_REQUESTS: '0' } });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      if (err.includes('catalog serving')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'main.cjs'))) throw new Error('run `npm run build` first');
  const dir = tempDir('catalog-bench-sync-');
  const dataDir = join(dir, 'catalog');
  let server;
  try {
    log(`generating ${PARTS.toLocaleString('en-US')} parts and ${PHOTOS.toLocaleString('en-US')} photos in ${dir}`);
    const rows = sheetRows(PARTS);
    const sheet = join(dir, 'parts.csv');
    writeSheet(sheet, rows);
    const photos = join(dir, 'photos');
    await makePhotos(photos, rows, PHOTOS);
    const photoBytes = readdirSync(photos).reduce((n, f) => n + readFileSync(join(photos, f)).length, 0);
    writeFileSync(join(dir, 'attributes.ndjson'), ATTRIBUTES.map((a) => JSON.stringify(a)).join('\n'));

    // The sync state (hashes remembered between runs) lives with the run's files, not in ~/.cache.
    const cache = { XDG_CACHE_HOME: join(dir, 'cache') };
    let env = { CATALOG_DATA_DIR: dataDir, ...cache };
    if (REMOTE) {
      const token = await runCli(['--data-dir', dataDir, 'tokens', 'create', '--name', 'bench', '--role', 'catalogAdmin', '--role', 'dataContributor'], { env: { ...process.env, CI: '1' } });
      const secret = token.stdout.trim();
      const port = await freePort();
      server = await startServe(dataDir, port);
      env = { CATALOG_URL: `http://127.0.0.1:${port}`, CATALOG_TOKEN: secret, ...cache };
    }
    const attrs = await runCli(['attributes', 'import', join(dir, 'attributes.ndjson')], { env: { ...process.env, CI: '1', ...env } });
    if (attrs.code !== 0) throw new Error(attrs.stderr);

    const partsSync = ['parts', 'import', sheet, '--sync'];
    const imagesSync = ['images', 'sync', photos];
    const firstParts = await timed('first run, parts import --sync', partsSync, env);
    const firstImages = await timed('first run, images sync', imagesSync, env);
    const secondParts = await timed('second run, parts import --sync', partsSync, env);
    const secondImages = await timed('second run, images sync', imagesSync, env);

    // One changed photo, one removed part (one without photos: the last row).
    const changed = readdirSync(photos).sort()[0];
    writeFileSync(join(photos, changed), await sharp(join(photos, changed)).flop().jpeg({ quality: 80 }).toBuffer());
    writeSheet(sheet, rows.slice(0, -1));
    const thirdParts = await timed('third run, parts import --sync --prune', [...partsSync, '--prune'], env);
    const thirdImages = await timed('third run, images sync --prune', [...imagesSync, '--prune'], env);

    const first = firstParts.ms + firstImages.ms;
    const second = secondParts.ms + secondImages.ms;
    const s = (ms) => round(ms / 1000, 2);
    const count = (summary) => `${summary.created} / ${summary.updated} / ${summary.unchanged ?? '–'} / ${summary.deleted}`;
    const load = loadavg().map((l) => l.toFixed(1)).join(', ');
    const markdown = [
      `${REMOTE ? 'Remote mode (`catalog serve` on the same machine)' : 'Local mode'}, ${PARTS.toLocaleString('en-US')} parts (real PCI/USB device names, vendor attribute), ` +
        `${PHOTOS.toLocaleString('en-US')} photos (crops of ../shared/data/images resized to 160 px, ${(photoBytes / 1024 / 1024).toFixed(1)} MB), the built CLI, wall time of each command (start-up included); ` +
        `load average at the end ${load}. Counts: created / updated / unchanged / deleted.`,
      '',
      '| run | parts import --sync | images sync | total | parts counts | images counts |',
      '|---|---|---|---|---|---|',
      `| first (empty catalog) | ${s(firstParts.ms)} s | ${s(firstImages.ms)} s | ${s(first)} s | ${count(firstParts.summary)} | ${count(firstImages.summary)} |`,
      `| second (nothing changed) | ${s(secondParts.ms)} s | ${s(secondImages.ms)} s | ${s(second)} s | ${count(secondParts.summary)} | ${count(secondImages.summary)} |`,
      `| third (one photo changed, one part removed; --prune) | ${s(thirdParts.ms)} s | ${s(thirdImages.ms)} s | ${s(thirdParts.ms + thirdImages.ms)} s | ${count(thirdParts.summary)} | ${count(thirdImages.summary)} |`,
      '',
      `Second run / first run: **${round((100 * second) / first, 1)} %** (goal ≤ 10 %). ` +
        `Image bytes sent by the second run: ${/\(([^)]*) sent in/.exec(secondImages.stderr)?.[1] ?? '?'}.`,
    ].join('\n');
    writeSection(REMOTE ? 'sync:remote' : 'sync', `Contributor sync (issue 46)${REMOTE ? ', remote mode' : ''}`, markdown);
    log(markdown);
  } finally {
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
