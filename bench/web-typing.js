#!/usr/bin/env node
// The web app on the demo catalog, measured in Chromium: results as you type (from the last
// keystroke to the results on screen, the page's own `search:as-you-type` performance measure) and
// the first load's compressed size (index.html + its JS and CSS, gzip as served). Needs `npm run build`
// and `npm run demo` (./demo-catalog). Writes its section of bench/results.md (writeSection).
// Usage: node bench/web-typing.js [--data-dir demo-catalog] [--chromium /usr/bin/chromium] [--rounds 2]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeSection } from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, chromium: { type: 'string' }, rounds: { type: 'string' } } });
const dataDir = values['data-dir'] ?? join(root, 'demo-catalog');
const chromiumPath = values.chromium ?? process.env.CATALOG_CHROMIUM ?? '/usr/bin/chromium';
const rounds = Number(values.rounds ?? '2');
const bin = join(root, 'bin', 'catalog.js');
/** What people type into a parts search of PCI devices: vendors, device words, numbers, a typo. */
const QUERIES = ['intel ethernet', 'nvidia', 'realtek audio', 'usb 3.0 controller', 'wireless', 'raid', 'gigabit', 'radeon', 'broadcom', 'sata ahci', 'thunderbolt', 'etherent', '8086', 'crane', 'bird'];

if (!existsSync(join(dataDir, 'catalog.db'))) {
  process.stderr.write(`no catalog in ${dataDir}: run npm run demo first\n`);
  process.exit(2);
}
function catalog(args) {
  const run = spawnSync(bin, ['--data-dir', dataDir, ...args], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`catalog ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return run.stdout.trim();
}
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const tokenName = `web-typing-${process.pid}`;
const token = catalog(['tokens', 'create', '--name', tokenName, '--role', 'factoryWorker']);
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

  // First load: index.html and the assets it names, as a browser gets them (gzip).
  const html = await (await fetch(`${url}/`)).text();
  let firstLoad = (await (await fetch(`${url}/`, { headers: { 'accept-encoding': 'gzip' } })).arrayBuffer()).byteLength;
  for (const [, asset] of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
    const response = await fetch(`${url}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
    firstLoad += Number(response.headers.get('content-length'));
  }

  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  // bypassCSP only so that the measuring script can wait on page state; the app runs as served.
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, bypassCSP: true });
  await page.goto(`${url}/`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Search parts' }).waitFor();
  const box = page.getByLabel('Search text');
  const samples = [];
  for (let round = 0; round < rounds; round++) {
    for (const query of QUERIES) {
      await box.fill('');
      await page.waitForFunction('!new URLSearchParams(location.search).get("q")');
      // About 8 characters a second, as people type on a phone.
      await box.pressSequentially(query, { delay: 120 });
      await page.waitForFunction(`document.querySelector('main')?.getAttribute('data-results-for') === ${JSON.stringify(query)}`, undefined, { timeout: 30_000 });
      samples.push(await page.evaluate('performance.getEntriesByName("search:as-you-type").at(-1)?.duration ?? -1'));
    }
  }
  samples.sort((a, b) => a - b);
  const body = [
    `Chromium at 390×844, the catalog in ${dataDir.startsWith(root) ? dataDir.slice(root.length + 1) : dataDir}, ${QUERIES.length} queries × ${rounds} typed at 120 ms a key; the page's own measure from the last keystroke to the results on screen (its 60 ms debounce included). Server, browser and the machine's other work share the cores.`,
    '',
    '| measure | value |',
    '|---|---|',
    `| results as you type, p50 | ${quantile(samples, 0.5).toFixed(0)} ms |`,
    `| results as you type, p90 | ${quantile(samples, 0.9).toFixed(0)} ms |`,
    `| results as you type, max | ${samples.at(-1).toFixed(0)} ms |`,
    `| first load (index.html + JS + CSS, gzip) | ${(firstLoad / 1024).toFixed(1)} KB |`,
  ].join('\n');
  writeSection('web-typing', 'Web app on the demo catalog: results as you type, first load', body);
  process.stdout.write(`${body}\n`);
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  catalog(['tokens', 'revoke', tokenName]);
}
