#!/usr/bin/env node
// Screenshots of the web app for the README, made from the demo catalog so they can be
// regenerated: `npm run screenshots` (builds, makes ./demo-catalog with `npm run demo` when it is
// missing, starts `catalog serve` on it, drives Debian's Chromium with playwright-core, writes
// docs/screenshots/search.png and part.png at 1200×860, and search-phone.png, photo-phone.png and
// part-phone.png at a phone's 390×844). The token it creates is revoked at the end.
// Options: --data-dir <dir> (default ./demo-catalog), --chromium <path> (default /usr/bin/chromium).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, chromium: { type: 'string' } } });
const dataDir = values['data-dir'] ?? join(root, 'demo-catalog');
const chromiumPath = values.chromium ?? process.env.CATALOG_CHROMIUM ?? '/usr/bin/chromium';
const bin = join(root, 'bin', 'catalog.js');
const out = join(root, 'docs', 'screenshots');

if (!existsSync(chromiumPath)) {
  process.stderr.write(`no Chromium at ${chromiumPath}: apt-get update && apt-get install -y chromium\n`);
  process.exit(2);
}
if (!existsSync(join(dataDir, 'catalog.db'))) {
  process.stderr.write(`no catalog in ${dataDir}: building the demo catalog first (npm run demo)\n`);
  const demo = spawnSync(process.execPath, [join(root, 'scripts', 'demo.js')], { cwd: root, stdio: 'inherit' });
  if (demo.status !== 0) process.exit(demo.status ?? 1);
}

/** Runs the CLI on the data directory; exits on failure. */
function catalog(args) {
  const run = spawnSync(bin, ['--data-dir', dataDir, ...args], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) {
    process.stderr.write(`catalog ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
    process.exit(1);
  }
  return run.stdout.trim();
}

const tokenName = `screenshots-${process.pid}`;
const token = catalog(['tokens', 'create', '--name', tokenName, '--role', 'catalogAdmin', '--role', 'admin', '--role', 'factoryWorker']);
const server = spawn(bin, ['--data-dir', dataDir, 'serve', '--port', '0'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
let browser;
try {
  const url = await new Promise((resolve, reject) => {
    let stderr = '';
    server.stderr.on('data', (chunk) => {
      stderr += chunk;
      const m = /at (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    server.once('exit', (code) => reject(new Error(`catalog serve exited ${code}: ${stderr}`)));
  });
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const page = await browser.newPage({ viewport: { width: 1200, height: 860 }, deviceScaleFactor: 1, bypassCSP: true });
  mkdirSync(out, { recursive: true });

  await page.goto(`${url}/`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Search text').fill('bird');
  await page.getByText(/\d+ parts?, page 1/).waitFor();
  // Wait until the thumbnails of the visible hits are in.
  await page.waitForFunction('[...document.querySelectorAll(".hits .thumb")].slice(0, 6).every((t) => t.tagName === "IMG" && t.complete)');
  await page.screenshot({ path: join(out, 'search.png') });

  await page.getByRole('link', { name: 'Crowned Crane' }).first().click();
  await page.locator('main[data-ready="true"]').waitFor();
  await page.screenshot({ path: join(out, 'part.png') });

  // A phone: the search as typed, then a photo search, then the part.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, bypassCSP: true });
  await phone.goto(`${url}/`);
  await phone.getByLabel('Access token').fill(token);
  await phone.getByRole('button', { name: 'Sign in' }).click();
  await phone.getByLabel('Search text').fill('intel ethernet');
  await phone.getByLabel('Search text').press('Enter');
  await phone.getByText(/\d+ parts?, page 1/).waitFor();
  await phone.waitForTimeout(300);
  await phone.screenshot({ path: join(out, 'search-phone.png') });
  // The altered photo `npm run demo` makes (cropped, resized, brightened), else a reference photo.
  const altered = join(dataDir, 'query', 'wrench-like.jpg');
  const images = join(root, 'fixtures', 'demo', 'images');
  const query = existsSync(altered) ? altered : join(images, readdirSync(images).find((f) => /\.jpe?g$/i.test(f)) ?? '');
  await phone.goto(`${url}/search`);
  await phone.getByLabel('Take or choose a photo to search with').setInputFiles(query);
  await phone.getByText('by photo similarity').waitFor();
  await phone.waitForFunction('[...document.querySelectorAll(".hits .thumb")].slice(0, 2).every((t) => t.tagName === "IMG" && t.complete)');
  await phone.screenshot({ path: join(out, 'photo-phone.png') });
  await phone.locator('.hits .hit-name').first().click();
  await phone.locator('main[data-ready="true"]').waitFor();
  await phone.screenshot({ path: join(out, 'part-phone.png') });
  process.stderr.write(`wrote search.png, part.png, search-phone.png, photo-phone.png and part-phone.png in ${out}\n`);
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  catalog(['tokens', 'revoke', tokenName]);
}
