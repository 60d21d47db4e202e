// Benchmark (issue: part images end to end): `catalog images upload` against `catalog serve`,
// beside a plain multipart upload of the same files with curl, in the same run.
//
// Phase 1: 1,000 real images (the JPEGs of ../shared/data/images, repeated as needed).
// Phase 2: ~1 GB of ~19 MiB files, measuring the server's peak RSS while they pass through.
//
// Every file is made byte-unique, or the server's content-addressed store would dedupe the
// repeats: a JPEG comment segment (FF FE, "catalog-bench copy <n>") is inserted right after the
// SOI marker, so each copy is still a valid JPEG that decoders read like the original. Phase 2
// files are then padded after the EOI marker with repeated real JPEG bytes up to the target size
// (decoders ignore what follows EOI; the type is detected from the first bytes, so they stay JPEG).
//
// CLI and curl each upload into their own fresh data directory and server, so neither benefits
// from blobs the other stored. curl sends one request per batch of files (all 1,000 in one request
// in phase 1; 13 × 19 MiB per request in phase 2, under the 256 MiB request limit), one after
// the other; the CLI uses its defaults (4 requests in flight, 50 files or 32 MB per request).
//
// Usage: node bench/upload.js [--images 1000] [--big-files 54] [--big-mib 19]
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain, runCli, runMeasured, BIN, tempDir, writeSection } from './lib.js';

const IMAGES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data', 'images');

/** A JPEG with a comment segment inserted after SOI: same image, unique bytes. */
export function uniqueJpeg(original, label) {
  if (original[0] !== 0xff || original[1] !== 0xd8) throw new Error('not a JPEG');
  const text = Buffer.from(`catalog-bench copy ${label}`);
  const segment = Buffer.alloc(4 + text.length);
  segment.writeUInt16BE(0xfffe, 0);
  segment.writeUInt16BE(text.length + 2, 2);
  text.copy(segment, 4);
  return Buffer.concat([original.subarray(0, 2), segment, original.subarray(2)]);
}

function realImages() {
  return readdirSync(IMAGES).filter((f) => f.endsWith('.jpg')).sort().map((f) => readFileSync(join(IMAGES, f)));
}

/** Phase 1 files: `count` byte-unique copies of the real images. */
function makeSmallSet(dir, count) {
  mkdirSync(dir, { recursive: true });
  const sources = realImages();
  const files = [];
  for (let i = 0; i < count; i++) {
    const id = `s${String(i).padStart(5, '0')}`;
    const bytes = uniqueJpeg(sources[i % sources.length], id);
    writeFileSync(join(dir, `${id}.jpg`), bytes);
    files.push({ id, name: `${id}.jpg`, size: bytes.length });
  }
  return files;
}

/** Phase 2 files: `count` JPEGs of about `mib` MiB: a unique real JPEG padded after EOI with real JPEG bytes. */
function makeBigSet(dir, count, mib) {
  mkdirSync(dir, { recursive: true });
  const sources = realImages();
  const padding = Buffer.concat(sources.slice(0, 200));
  const target = mib * 1024 * 1024;
  const files = [];
  for (let i = 0; i < count; i++) {
    const id = `b${String(i).padStart(4, '0')}`;
    const head = uniqueJpeg(sources[(i * 7) % sources.length], id);
    const parts = [head];
    let size = head.length;
    while (size < target) {
      const piece = padding.subarray(0, Math.min(padding.length, target - size));
      parts.push(piece);
      size += piece.length;
    }
    writeFileSync(join(dir, `${id}.jpg`), Buffer.concat(parts, size));
    files.push({ id, name: `${id}.jpg`, size });
  }
  return files;
}

/** Peak resident set (VmHWM) of a live process, bytes. */
function peakRss(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** A fresh data directory with a token and parts p0..p9, served on a free port. */
async function freshServer(root, name) {
  const dataDir = join(root, name);
  const token = (await runCli(['--data-dir', dataDir, 'tokens', 'create', '--name', 'bench', '--role', 'catalogAdmin', '--role', 'dataContributor'])).stdout.trim();
  const parts = join(root, `${name}-parts.ndjson`);
  writeFileSync(parts, Array.from({ length: 10 }, (_, i) => JSON.stringify({ part_id: `p${i}`, name: { en: `Part ${i}` } })).join('\n'));
  const imported = await runCli(['--data-dir', dataDir, 'parts', 'import', parts]);
  if (imported.code !== 0) throw new Error(`parts import failed: ${imported.stderr}`);
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (d) => {
      text += d;
      const m = /at (http:\/\/\S+)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${text}`)));
  });
  child.stderr.resume();
  return {
    url,
    token,
    dataDir,
    peakRss: () => peakRss(child.pid),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

function definitions(files) {
  return files.map((f, i) => ({ image_id: f.id, part_id: `p${i % 10}`, info: i % 3 === 0 ? 'display searchable' : 'display' }));
}

/** Uploads with curl in batches of `perRequest` files, sequentially; returns {ms, created}. */
async function curlUpload(server, dir, files, perRequest) {
  let created = 0;
  const start = performance.now();
  for (let i = 0; i < files.length; i += perRequest) {
    const batch = files.slice(i, i + perRequest);
    const defs = join(dir, `defs-${i}.json`);
    writeFileSync(defs, JSON.stringify(definitions(files).slice(i, i + perRequest)));
    const args = ['-sS', '--fail-with-body', '-H', `Authorization: Bearer ${server.token}`, '-F', `images=@${defs};type=application/json`];
    for (const f of batch) args.push('-F', `files=@${join(dir, f.name)};type=image/jpeg`);
    args.push(`${server.url}/1/catalog/images`);
    const run = await runMeasured('curl', args);
    if (run.code !== 0) throw new Error(`curl failed (${run.code}): ${run.stdout} ${run.stderr}`);
    created += JSON.parse(run.stdout).created.length;
  }
  return { ms: performance.now() - start, created };
}

/** Uploads with the CLI (its defaults); returns {ms, created}. */
async function cliUpload(server, dir, files, extra = []) {
  const manifest = join(dir, 'manifest.ndjson');
  writeFileSync(manifest, definitions(files).map((d, i) => JSON.stringify({ ...d, file: files[i].name })).join('\n'));
  const run = await runCli(['--quiet', 'images', 'upload', manifest, '-o', 'json', ...extra], { env: { ...process.env, CATALOG_URL: server.url, CATALOG_TOKEN: server.token } });
  if (run.code !== 0) throw new Error(`catalog images upload failed (${run.code}): ${run.stderr}`);
  return { ms: run.ms, created: JSON.parse(run.stdout).created, clientPeakRssBytes: run.peakRssBytes };
}

const MB = 1e6;

function figures(label, files, result) {
  const bytes = files.reduce((n, f) => n + f.size, 0);
  return { label, files: files.length, bytes, ms: Math.round(result.ms), imagesPerSecond: Math.round((files.length / result.ms) * 1000), mbPerSecond: Number(((bytes / MB / result.ms) * 1000).toFixed(1)), created: result.created };
}

/** Runs both phases; returns the figures. */
export async function runUploadBench({ images = 1000, bigFiles = 54, bigMib = 19 } = {}) {
  const root = tempDir('catalog-bench-upload-');
  try {
    // Phase 1: 1,000 real images.
    const smallDir = join(root, 'small');
    const small = makeSmallSet(smallDir, images);
    const curlServer = await freshServer(root, 'curl-small');
    const curl = figures('curl', small, await curlUpload(curlServer, smallDir, small, 1000));
    await curlServer.stop();
    const cliServer = await freshServer(root, 'cli-small');
    const cliRun = await cliUpload(cliServer, smallDir, small);
    const cli = figures('catalog images upload', small, cliRun);
    await cliServer.stop();
    rmSync(join(root, 'curl-small'), { recursive: true, force: true });
    rmSync(join(root, 'cli-small'), { recursive: true, force: true });

    // Phase 2: ~1 GB of ~19 MiB files; the server's peak RSS while it passes through.
    const bigDir = join(root, 'big');
    const big = makeBigSet(bigDir, bigFiles, bigMib);
    const bigCurlServer = await freshServer(root, 'curl-big');
    const bigCurl = figures('curl', big, await curlUpload(bigCurlServer, bigDir, big, Math.floor((256 * 1024 * 1024) / (bigMib * 1024 * 1024 + 1024))));
    const curlServerRss = bigCurlServer.peakRss();
    await bigCurlServer.stop();
    rmSync(join(root, 'curl-big'), { recursive: true, force: true });
    const bigCliServer = await freshServer(root, 'cli-big');
    const bigCliRun = await cliUpload(bigCliServer, bigDir, big);
    const bigCli = figures('catalog images upload', big, bigCliRun);
    const cliServerRss = bigCliServer.peakRss();
    await bigCliServer.stop();

    return {
      phase1: { cli, curl, ratio: Number((cli.mbPerSecond / curl.mbPerSecond).toFixed(2)), clientPeakRssMB: Math.round(cliRun.clientPeakRssBytes / MB) },
      phase2: {
        cli: bigCli,
        curl: bigCurl,
        ratio: Number((bigCli.mbPerSecond / bigCurl.mbPerSecond).toFixed(2)),
        serverPeakRssMB: { duringCli: Math.round(cliServerRss / MB), duringCurl: Math.round(curlServerRss / MB) },
        clientPeakRssMB: Math.round(bigCliRun.clientPeakRssBytes / MB),
        totalGB: Number((big.reduce((n, f) => n + f.size, 0) / 1e9).toFixed(2)),
      },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const n = (v, digits = 0) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(v));
const ok = (met) => (met ? 'met' : '**not met**');

/** Heading of this script's section of bench/results.md. */
export const UPLOAD_TITLE = 'Image upload';

/** The section of bench/results.md for a {@link runUploadBench} result (Markdown). */
export function uploadSection(r) {
  const peak = Math.max(r.phase2.serverPeakRssMB.duringCli, r.phase2.serverPeakRssMB.duringCurl);
  return [
    '| | CLI | curl (baseline) | ratio (MB/s) |',
    '|---|---|---|---|',
    `| ${n(r.phase1.cli.files)} real images | ${n(r.phase1.cli.imagesPerSecond)} images/s, ${n(r.phase1.cli.mbPerSecond, 1)} MB/s | ${n(r.phase1.curl.imagesPerSecond)} images/s, ${n(r.phase1.curl.mbPerSecond, 1)} MB/s | ${r.phase1.ratio} |`,
    `| ${r.phase2.totalGB} GB of large files | ${n(r.phase2.cli.mbPerSecond, 1)} MB/s | ${n(r.phase2.curl.mbPerSecond, 1)} MB/s | ${r.phase2.ratio} |`,
    '',
    `Target ≥ 0.5 of curl's MB/s: ${ok(r.phase1.ratio >= 0.5)}. Server peak RSS while ${r.phase2.totalGB} GB passed: ${r.phase2.serverPeakRssMB.duringCli} MB with the CLI, ${r.phase2.serverPeakRssMB.duringCurl} MB with curl (target < 200 MB: ${ok(peak < 200)}).`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? fallback : Number(process.argv[i + 1]);
  };
  const result = await runUploadBench({ images: arg('--images', 1000), bigFiles: arg('--big-files', 54), bigMib: arg('--big-mib', 19) });
  const line = (f) => `${f.label.padEnd(24)} ${String(f.files).padStart(5)} files ${(f.bytes / MB).toFixed(1).padStart(8)} MB ${String(f.ms).padStart(7)} ms ${String(f.imagesPerSecond).padStart(6)} images/s ${String(f.mbPerSecond).padStart(7)} MB/s`;
  console.log('Phase 1: real images');
  console.log(line(result.phase1.cli));
  console.log(line(result.phase1.curl));
  console.log(`CLI / curl MB/s: ${result.phase1.ratio} (target >= 0.5); CLI peak RSS ${result.phase1.clientPeakRssMB} MB`);
  console.log(`Phase 2: ${result.phase2.totalGB} GB of large files`);
  console.log(line(result.phase2.cli));
  console.log(line(result.phase2.curl));
  console.log(`CLI / curl MB/s: ${result.phase2.ratio}; server peak RSS ${result.phase2.serverPeakRssMB.duringCli} MB (CLI run), ${result.phase2.serverPeakRssMB.duringCurl} MB (curl run) (target < 200 MB); CLI peak RSS ${result.phase2.clientPeakRssMB} MB`);
  writeSection('upload', UPLOAD_TITLE, uploadSection(result));
}
