#!/usr/bin/env node
// The quick start (`npm run demo`): builds a fresh local catalog from the real data in fixtures/demo
// through the real CLI, then searches it. Data goes to ./demo-catalog, recreated on each run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, 'demo-catalog');
// `npm ci` builds dist/ (the prepare script); the demo uses that build rather than making it again.
if (!existsSync(join(root, 'dist', 'bundle', 'main.cjs')) || !existsSync(join(root, 'dist', 'cli', 'command-line.js'))) {
  process.stderr.write('dist/ is not built: run `npm run build` (npm ci runs it), then `npm run demo` again\n');
  process.exit(1);
}
// The commands shown are the ones run, global options included and shell-quoted, so each can be
// copied into a shell opened in the repository (design/cli.md, "Conventions"): as ./bin/catalog.js,
// since a fresh clone has no `catalog` on the PATH.
const { shellJoin } = await import(join(root, 'dist', 'cli', 'command-line.js'));
const shown = (args) => shellJoin(['./bin/catalog.js', '--data-dir', relative(root, dataDir), ...args]);
const bin = join(root, 'bin', 'catalog.js');
const bold = (s) => (process.stderr.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const started = performance.now();

/** Runs `catalog <args>` showing its output; returns what it printed. Exits on an unexpected code. */
function catalog(title, args, { capture = false, quiet = false } = {}) {
  if (!quiet) process.stderr.write(`\n${bold(`$ ${shown(args)}`)}   # ${title}\n`);
  const run = spawnSync(bin, ['--data-dir', dataDir, ...args], { cwd: root, encoding: 'utf8', stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  if (capture && !quiet) {
    process.stdout.write(run.stdout);
    process.stderr.write(run.stderr);
  }
  if (run.status !== 0) {
    process.stderr.write(`demo step failed with exit code ${run.status}\n${capture ? run.stderr : ''}`);
    process.exit(run.status ?? 1);
  }
  return { stdout: run.stdout ?? '', stderr: run.stderr ?? '' };
}

rmSync(dataDir, { recursive: true, force: true });
catalog('attribute definitions', ['attributes', 'import', 'fixtures/demo/attributes.csv']);
catalog('bulk import: 17,616 PCI devices and 120 photographed objects as parts', ['parts', 'import', 'fixtures/demo/parts.csv']);
catalog('relations between parts', ['relations', 'import', 'fixtures/demo/relations.csv']);
catalog('reference and display images', ['images', 'upload', 'fixtures/demo/images.csv', '--dir', 'fixtures/demo/images']);

const first = catalog('text search: a page of hits with its footer', ['search', 'gigabit ethernet', '--limit', '8', '-o', 'table', '--fields', 'id,name'], { capture: true });
const session = /--session (\S+)/.exec(first.stderr)?.[1];
if (session) catalog('the next page of the same session', ['search', '--session', session, '--page', '2', '--limit', '8', '-o', 'table', '--fields', 'id,name'], { capture: true });

// An image search with a changed copy of a reference photo: half size, cropped, brighter.
const { default: sharp } = await import('sharp');
const query = join(dataDir, 'query', 'wrench-like.jpg');
mkdirSync(dirname(query), { recursive: true });
const source = join(root, 'fixtures', 'demo', 'images', 'wrench.jpg');
const meta = await sharp(source).metadata();
const cropX = Math.round((meta.width ?? 100) * 0.05);
const cropY = Math.round((meta.height ?? 100) * 0.05);
await sharp(source)
  .extract({ left: cropX, top: cropY, width: (meta.width ?? 100) - 2 * cropX, height: (meta.height ?? 100) - 2 * cropY })
  .resize({ width: Math.round((meta.width ?? 100) / 2) })
  .modulate({ brightness: 1.1 })
  .jpeg({ quality: 60 })
  .toFile(query);
const image = catalog('image search with a cropped, resized, brightened photo', ['search', '--image', query, '--limit', '3', '-o', 'table', '--fields', 'id,name'], { capture: true });
const imageSession = /--session (\S+)/.exec(image.stderr)?.[1] ?? /session (\S+)/.exec(image.stderr)?.[1];
let topHit = 'stamp:wrench';
if (imageSession) {
  const page = JSON.parse(catalog('', ['search', '--session', imageSession, '--page', '1', '--limit', '1', '-o', 'json'], { capture: true, quiet: true }).stdout);
  topHit = page.results?.[0]?.id ?? topHit;
}
catalog('the best hit as a person reads it', ['parts', 'show', topHit]);
catalog('a PCI device with its relations (the same NVMe controller listed under two vendors: equivalent)', ['parts', 'show', 'pci:8086:5845']);
process.stderr.write(
  `\ndemo finished in ${((performance.now() - started) / 1000).toFixed(1)} s; the catalog is in ${dataDir}\n` +
    `try, from ${root}:\n  ${shown(['search', 'nvme', 'controller'])}\n  ${shown(['parts', 'show', 'pci:8086:5845'])}\n` +
    '(`npm link` once puts `catalog` on your PATH)\n',
);
