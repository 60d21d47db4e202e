/**
 * The web app end to end in a real browser: Debian's Chromium driven by playwright-core
 * against the built `catalog serve` (bin/catalog.js on dist/, web app in dist/web).
 *
 * Without Chromium the suite is SKIPPED with a loud message naming the apt-get line; with
 * CATALOG_REQUIRE_SERVICES=1 (CI) a missing Chromium fails instead.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, startServe } from '../helpers/bin.js';
import { alteredPhoto, buildFixture, PHOTOS, SEVEN_NOT_SHOWN, SEVEN_SHOWN, type Fixture } from './catalog-fixture.js';
import { SHARED_IMAGES } from '../helpers/data.js';
import { loud } from '../helpers/loud.js';

const CHROMIUM = process.env.CATALOG_CHROMIUM ?? '/usr/bin/chromium';
const INSTALL = 'apt-get update && apt-get install -y chromium';
const haveChromium = existsSync(CHROMIUM);
const required = process.env.CATALOG_REQUIRE_SERVICES === '1';

if (!haveChromium) {
  loud([`web app browser tests SKIPPED: no Chromium at ${CHROMIUM}. Install it with:`, `  ${INSTALL}`, '(CATALOG_REQUIRE_SERVICES=1 turns this skip into a failure.)']);
}

/** Serious and critical axe-core violations of the page, as `id: help (n nodes)` lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  await page.addScriptTag({ path: axePath });
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }> };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes: ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))})`);
}

describe.runIf(haveChromium || required)('web app in Chromium', () => {
  let dataDir: string;
  let fixture: Fixture;
  let server: Awaited<ReturnType<typeof startServe>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  const signIn = async (p: Page, token: string) => {
    await p.goto(`${server.url}/`);
    await p.getByLabel('Access token').fill(token);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Search parts' }).waitFor();
  };

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`CATALOG_REQUIRE_SERVICES=1 but there is no Chromium at ${CHROMIUM}: ${INSTALL}`);
    dataDir = mkdtempSync(join(tmpdir(), 'catalog-web-'));
    fixture = await buildFixture(dataDir);
    server = await startServe(dataDir);
    const { chromium } = await import('playwright-core');
    // As root in a container Chromium needs --no-sandbox; /dev/shm may be small.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    // bypassCSP: only so that axe-core can be injected; the app itself runs under its CSP.
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the app publicly, small, with cache headers; the API still needs a token', async () => {
    const index = await fetch(`${server.url}/`, { headers: { 'accept-encoding': 'gzip' } });
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(2);
    let compressed = 0;
    for (const asset of assets) {
      const response = await fetch(`${server.url}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-encoding')).toBe('gzip');
      compressed += Number(response.headers.get('content-length'));
    }
    process.stdout.write(`web app first page JS+CSS: ${compressed} bytes gzip\n`);
    expect(compressed).toBeLessThan(150 * 1024);
    expect((await fetch(`${server.url}/1/catalog/info`)).status).toBe(401);
  });

  it('signs in with a token kept in session storage, never in the URL', async () => {
    await signIn(page, fixture.tokens.admin);
    expect(page.url()).not.toContain(fixture.tokens.admin);
    expect(await page.evaluate('sessionStorage.getItem("catalog.token")')).toBe(fixture.tokens.admin);
  });

  it('text search pages through the session; page 2 is in the URL and reloads', async () => {
    await page.getByLabel('Search text').fill('widget');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('45 parts, page 1 of 3').waitFor();
    expect(await page.locator('.hits > li').count()).toBe(20);
    const session = new URL(page.url()).searchParams.get('session');
    expect(session).toBeTruthy();

    await page.getByRole('link', { name: 'Next' }).click();
    await page.getByText('45 parts, page 2 of 3').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    expect(new URL(page.url()).searchParams.get('session')).toBe(session);
    const page2 = await page.locator('.hits .hit-id').allTextContents();
    expect(page2).toHaveLength(20);
    expect(await page.locator('.hits').getAttribute('start')).toBe('21');

    await page.reload();
    await page.getByText('45 parts, page 2 of 3').waitFor();
    expect(await page.locator('.hits .hit-id').allTextContents()).toEqual(page2);
    // Names follow the chosen language.
    await page.getByLabel('Language').selectOption('de');
    await page.locator('.hits .hit-name', { hasText: 'Bauteil' }).first().waitFor();
    await page.getByLabel('Language').selectOption('en');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('filters on a filterable attribute', async () => {
    await page.goto(`${server.url}/search`);
    await page.getByLabel('Search text').fill('widget');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('group', { name: 'Vendor' }).getByRole('checkbox', { name: /Globex/ }).check();
    await page.getByText('15 parts, page 1 of 1').waitFor();
  });

  it('a part with 7 display images shows the 5 of rule 4 in order, the rest as not shown; the original opens on click', async () => {
    await page.goto(`${server.url}/search`);
    await page.getByLabel('Search text').fill('seven image gear');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: 'Seven-image gear' }).click();
    await page.locator('main[data-ready="true"]').waitFor();
    const render = (await page.evaluate('performance.getEntriesByName("part:render").at(-1)?.duration')) as number;
    expect(await page.locator('.gallery > li').evaluateAll((els) => els.map((e) => e.getAttribute('data-image-id')))).toEqual(SEVEN_SHOWN);
    expect(await page.locator('.not-shown > li').evaluateAll((els) => els.map((e) => e.getAttribute('data-image-id')))).toEqual(SEVEN_NOT_SHOWN);
    expect(await page.locator('.references > li').evaluateAll((els) => els.map((e) => e.getAttribute('data-image-id')))).toEqual(['seven-ref']);
    // Attribute values in display_order (vendor 1, colour 2), then the others.
    expect(await page.locator('.attributes tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-attribute-id')))).toEqual(['vendor', 'colour', 'cost', 'bin']);
    // Relations grouped by type, linking to the related parts.
    expect(await page.locator('.relation-group h3').allTextContents()).toEqual(['substitute', 'equivalent']);
    expect(await page.getByRole('link', { name: 'Successor gear' }).getAttribute('href')).toBe('/parts/gear%3Asuccessor');
    // Names in every language, with the switch.
    await page.getByRole('button', { name: 'Show in de' }).click();
    await page.getByRole('heading', { level: 1, name: 'Zahnrad mit sieben Bildern' }).waitFor();
    expect(await page.locator('tr[data-attribute-id="colour"] td').first().textContent()).toBe('grau');
    await page.getByRole('button', { name: 'Show in en' }).click();

    await page.getByRole('button', { name: 'Image 1: seven-g, open the original' }).click();
    const dialogImage = page.locator('dialog.original img');
    await dialogImage.waitFor();
    expect(await dialogImage.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(320);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.locator('dialog.original[open]').waitFor({ state: 'detached' });
    // The page drops the closed dialog on its next render: wait for its image to go (fails on timeout).
    await dialogImage.waitFor({ state: 'detached' });
    expect(await dialogImage.count()).toBe(0);

    // A direct load of the part page, timed from navigation start to the gallery decoded.
    await page.goto(`${server.url}/parts/gear%3Aseven`);
    await page.locator('main[data-ready="true"]').waitFor();
    const load = (await page.evaluate('(() => { const m = performance.getEntriesByName("part:render").at(-1); return m.startTime + m.duration; })()')) as number;
    process.stdout.write(`part page render (gear:seven, 5 thumbnails): ${render.toFixed(0)} ms after an in-app click, ${load.toFixed(0)} ms from navigation start on a direct load\n`);
  });

  it('serves thumbnails resized with an ETag, 304 on revalidation', async () => {
    const headers = { authorization: `Bearer ${fixture.tokens.worker}` };
    const first = await fetch(`${server.url}/1/catalog/images/photo-crane/thumbnail?size=128`, { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/webp');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{64}-128"$/);
    const { default: sharp } = await import('sharp');
    const meta = await sharp(Buffer.from(await first.arrayBuffer())).metadata();
    expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBe(128);
    const again = await fetch(`${server.url}/1/catalog/images/photo-crane/thumbnail?size=128`, { headers: { ...headers, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await fetch(`${server.url}/1/catalog/images/photo-crane/thumbnail?size=100`, { headers })).status).toBe(400);
  });

  it('photo search finds the part and shows its similarity score; a photo of nothing in the catalog says no part matches confidently', async () => {
    await page.goto(`${server.url}/search`);
    const photo = page.getByLabel('Take or choose a photo to search with');
    expect(await photo.getAttribute('accept')).toBe('image/*');
    expect(await photo.getAttribute('capture')).not.toBeNull();
    // Choosing the photo searches at once (no second button).
    await photo.setInputFiles({ name: 'query.jpg', mimeType: 'image/jpeg', buffer: await alteredPhoto(PHOTOS[0]?.file ?? '') });
    await page.getByText('by photo similarity').waitFor();
    expect(await page.locator('.hits .hit-id').first().textContent()).toBe('photo:penny');
    const score = await page.locator('.hits .score').first().textContent();
    expect(score).toMatch(/^Similarity \d+ %$/);
    expect(Number(/(\d+) %/.exec(score ?? '')?.[1])).toBeGreaterThanOrEqual(50);
    expect(await page.locator('.no-confident-hit').count()).toBe(0);

    // A photo of something not in the catalog: the closest parts, each marked weak, under a note.
    await photo.setInputFiles({ name: 'tiger.jpg', mimeType: 'image/jpeg', buffer: readFileSync(join(SHARED_IMAGES, 'tiger.jpg')) });
    await page.locator('.no-confident-hit').waitFor();
    expect(await page.locator('.no-confident-hit').textContent()).toContain('No part matches this photo confidently');
    for (const text of await page.locator('.hits .score').allTextContents()) expect(text).toMatch(/^Similarity \d+ % \(weak match\)$/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a contributor uploads an image and sees it in place in the display order', async () => {
    const contributorContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const contributorPage = await contributorContext.newPage();
    try {
      await signIn(contributorPage, fixture.tokens.contributor);
      await contributorPage.goto(`${server.url}/parts/gear%3Aupload`);
      await contributorPage.locator('main[data-ready="true"]').waitFor();
      expect(await contributorPage.locator('.gallery > li').evaluateAll((els) => els.map((e) => e.getAttribute('data-image-id')))).toEqual(['upload-low', 'upload-high']);
      const { default: sharp } = await import('sharp');
      const jpeg = await sharp({ create: { width: 200, height: 150, channels: 3, background: { r: 20, g: 160, b: 60 } } }).jpeg().toBuffer();
      await contributorPage.getByLabel('Image files (choose, or drop them here)').setInputFiles([
        { name: 'upload-mid.jpg', mimeType: 'image/jpeg', buffer: jpeg },
        { name: 'not-an-image.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('this is text, not a JPEG') },
      ]);
      await contributorPage.getByLabel('Image id for upload-mid.jpg').fill('upload-mid');
      await contributorPage.getByLabel('Weight for upload-mid.jpg').fill('3');
      await contributorPage.getByRole('button', { name: 'Upload 2 images' }).click();
      await contributorPage.locator('.gallery > li[data-image-id="upload-mid"]').waitFor();
      expect(await contributorPage.locator('.gallery > li').evaluateAll((els) => els.map((e) => e.getAttribute('data-image-id')))).toEqual(['upload-low', 'upload-mid', 'upload-high']);
      // The failed file stays in the form with the API's message for it.
      const error = contributorPage.locator('.row-error td');
      await error.waitFor();
      expect(await error.textContent()).toMatch(/not-an-image/);
      expect(await error.textContent()).toMatch(/JPEG|PNG|image/);
    } finally {
      await contributorContext.close();
    }
  });

  it('a factoryWorker does not see an admin-only value nor the upload form; attributes without display_order follow in creation order', async () => {
    const workerContext = await browser.newContext({ bypassCSP: true });
    try {
      const workerPage = await workerContext.newPage();
      await signIn(workerPage, fixture.tokens.worker);
      await workerPage.goto(`${server.url}/parts/gear%3Aseven`);
      await workerPage.locator('main[data-ready="true"]').waitFor();
      expect(await workerPage.locator('.attributes tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-attribute-id')))).toEqual(['vendor', 'colour', 'bin']);
      expect(await workerPage.locator('main').textContent()).not.toContain('12.40 EUR');
      // A read-only token gets no upload form (GET /1/auth/token says it may not write).
      expect(await workerPage.locator('section.upload').count()).toBe(0);
      // The admin sees it on the same page, and the attributes without display_order in creation
      // order (cost was created before bin), not by id; and the upload form.
      await page.goto(`${server.url}/parts/gear%3Aseven`);
      await page.locator('main[data-ready="true"]').waitFor();
      expect(await page.locator('tr[data-attribute-id="cost"] td').first().textContent()).toBe('12.40 EUR');
      expect(await page.locator('.attributes tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-attribute-id')))).toEqual(['vendor', 'colour', 'cost', 'bin']);
      expect(await page.locator('section.upload').count()).toBe(1);
    } finally {
      await workerContext.close();
    }
  });

  it('sign-in and search pages have no serious axe-core violation; keyboard reaches the search', async () => {
    const fresh = await browser.newContext({ bypassCSP: true });
    try {
      const p = await fresh.newPage();
      await p.goto(`${server.url}/`);
      expect(await seriousViolations(p)).toEqual([]);
      await p.keyboard.press('Tab');
      await p.keyboard.type(fixture.tokens.worker);
      await p.keyboard.press('Enter');
      await p.getByRole('heading', { name: 'Search parts' }).waitFor();
      await p.getByLabel('Search text').focus();
      await p.keyboard.type('widget 4');
      await p.keyboard.press('Enter');
      await p.locator('.hits > li').first().waitFor();
      expect(await seriousViolations(p)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
