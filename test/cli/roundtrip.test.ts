/**
 * Round trips (design/cli.md "every export re-imports"): export every resource in every
 * format (`list -o csv|tsv|json|ndjson` for attributes, parts and relations; `images export` for
 * images), import the export into a fresh catalog, export again: byte-identical. On a subset of the
 * demo catalog and on a catalog of adversarial values, in local mode and against a server.
 *
 * The only values allowed to differ are those the service sets on every write (serviceId, createdAt,
 * modifiedAt): they are masked in both exports before comparing.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/api/schemas.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { cli, type CliResult } from '../helpers/cli.js';
import { createHarness, tempDir, type Harness } from '../helpers/harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DEMO = join(ROOT, 'fixtures', 'demo');
const FORMATS = ['csv', 'tsv', 'json', 'ndjson'] as const;
type Format = (typeof FORMATS)[number];

/** Values the service sets itself: timestamps and serviceIds (UUIDs). */
function mask(text: string): string {
  return text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>');
}

/** A catalog the CLI can reach: local (a data directory) or remote (a loopback server). */
interface Target {
  args: string[];
  env: Record<string, string>;
  close(): Promise<void>;
}

async function openTarget(mode: 'local' | 'http'): Promise<Target> {
  if (mode === 'local') {
    const dir = tempDir('catalog-rt-data-');
    return { args: ['--data-dir', dir], env: {}, close: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const h: Harness = await createHarness('http');
  const { secret } = await h.service.createToken(LOCAL_OWNER, { name: 'rt', roles: [...ROLES] });
  return { args: ['--remote', h.url ?? ''], env: { CATALOG_TOKEN: secret }, close: () => h.close() };
}

/** The demo subset: the first 1,050 PCI parts (two pages of a listing), 4 photographed parts with one image each, their relations. */
function demoSubset(dir: string): void {
  const parts = readFileSync(join(DEMO, 'parts.csv'), 'utf8').split('\n');
  const images = readFileSync(join(DEMO, 'images.csv'), 'utf8').trim().split('\n');
  const imageRows = images.slice(1, 5);
  const imageParts = new Set(imageRows.map((r) => r.split(',')[1]));
  const kept = [parts[0] ?? '', ...parts.slice(1, 1051), ...parts.slice(1).filter((l) => imageParts.has(l.split(',')[0]))];
  const ids = new Set(kept.slice(1).map((l) => l.split(',')[0]));
  const relations = readFileSync(join(DEMO, 'relations.csv'), 'utf8').trim().split('\n');
  const keptRelations = [relations[0], ...relations.slice(1).filter((l) => ids.has(l.split(',')[0]) && ids.has(l.split(',')[1]))];
  expect(keptRelations.length).toBeGreaterThan(100);
  writeFileSync(join(dir, 'attributes.csv'), readFileSync(join(DEMO, 'attributes.csv')));
  writeFileSync(join(dir, 'parts.csv'), `${kept.join('\n')}\n`);
  writeFileSync(join(dir, 'relations.csv'), `${keptRelations.join('\n')}\n`);
  writeFileSync(join(dir, 'images.csv'), `${[images[0], ...imageRows].join('\n')}\n`);
  mkdirSync(join(dir, 'img'));
  for (const row of imageRows) {
    const file = row.split(',').at(-1) ?? '';
    copyFileSync(join(DEMO, 'images', file), join(dir, 'img', file));
  }
}

/** Values that break naive CSV/TSV handling: every one must come back exactly. */
const NASTY = [
  ' lead', 'trail ', '  ', '\u00a0nbsp\u00a0', 'tab\tinside', '\ttab lead', 'new\nline', 'cr\r\nlf', 'quo"te', '"quoted"', "it's",
  'pipe|bar', 'comma, here', '=SUM(A1:A2)', '+cmd', '-1', '@at', 'back\\slash', '\\t not a tab', 'emoji 🔧🦀', 'RTL עברית ومرحبا',
  'ünïcödé', 'null', 'NULL', '0', 'true',
];

/** The adversarial catalog, as NDJSON files (the exact values) plus two images. */
function adversarial(dir: string): void {
  const attributes = [
    { attribute_id: 'plain', type: 'text', name: { en: ' Plain name ', de: 'Quote "de"', he: 'שם' }, searchable: true, filterable: true, visibility: 'factoryWorker', org_visibility: 'parent', labels: ['sku', 'ean'], per_org_values: false, default_value: null, display_order: 1 },
    { attribute_id: 'mail@host.example', type: 'text', name: { en: 'At and dots' }, searchable: true, filterable: false, visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: false, default_value: null, display_order: null },
    { attribute_id: 'back\\slash@x', type: 'text', name: { en: 'Backslash, at' }, searchable: false, filterable: false, visibility: 'admin', org_visibility: 'parent', labels: [], per_org_values: false, default_value: null, display_order: 3 },
    { attribute_id: 'bin', type: 'text', name: { en: '=bin' }, searchable: false, filterable: false, visibility: 'factoryWorker', org_visibility: 'sub', labels: [], per_org_values: true, default_value: { en: ' default\tvalue ' }, display_order: 2 },
  ];
  const parts = NASTY.map((text, i) => ({
    part_id: `${text.replace(/[\t\r\n]/g, ' ')}#${i}`,
    name: i % 3 === 0 ? { en: text, de: `${text} (de)` } : { en: text },
    attributes: [
      { attribute_id: 'back\\slash@x', values: [{ organization: '', value: { en: text } }] },
      { attribute_id: 'bin', values: [{ organization: 'acme', value: { en: `R${i}` } }, { organization: 'org.with@at', value: { en: text, de: '|' } }] },
      { attribute_id: 'mail@host.example', values: [{ organization: '', value: { en: `a${i}@b.c` } }] },
      { attribute_id: 'plain', values: [{ organization: '', value: { en: text, ar: 'مرحبا' } }] },
    ],
  }));
  const relations = parts.slice(1).map((p, i) => ({
    anchor_part_id: p.part_id,
    related_part_id: parts[(i * 7) % parts.length]?.part_id === p.part_id ? (parts[0]?.part_id ?? '') : (parts[(i * 7) % parts.length]?.part_id ?? ''),
    type: (['duplicate', 'substitute', 'equivalent', 'not_related'] as const)[i % 4],
    source: i % 2 === 0 ? 'ingested' : 'confirmed_by_user',
  }));
  const ndjson = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
  writeFileSync(join(dir, 'attributes.ndjson'), ndjson(attributes));
  writeFileSync(join(dir, 'parts.ndjson'), ndjson(parts));
  writeFileSync(join(dir, 'relations.ndjson'), ndjson(relations));
  mkdirSync(join(dir, 'img'));
  copyFileSync(join(DEMO, 'images', 'wrench.jpg'), join(dir, 'img', 'w.jpg'));
  const [first] = readFileSync(join(DEMO, 'images.csv'), 'utf8').split('\n').slice(1);
  copyFileSync(join(DEMO, 'images', first?.split(',').at(-1) ?? ''), join(dir, 'img', 'x.jpg'));
  writeFileSync(
    join(dir, 'images.ndjson'),
    ndjson([
      { image_id: 'img, "one" ü', part_id: parts[1]?.part_id, info: 'searchable display weight=2', position: 1, file: 'img/w.jpg' },
      { image_id: '=img|two', part_id: parts[5]?.part_id, info: 'display', file: 'img/x.jpg' },
      { image_id: 'same bytes', part_id: parts[5]?.part_id, info: 'searchable', file: 'img/w.jpg' },
    ]),
  );
}

/** Runs the CLI against a target and expects exit 0. */
async function run(target: Target, cwd: string, args: string[]): Promise<CliResult> {
  const result = await cli([...target.args, ...args], { cwd, env: target.env });
  expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result;
}

/** Everything the catalog holds, exported in `format` into `dir` (images: files and manifest). */
async function exportAll(target: Target, cwd: string, format: Format, dir: string): Promise<Record<string, string>> {
  mkdirSync(dir, { recursive: true });
  const out: Record<string, string> = {};
  for (const noun of ['attributes', 'parts', 'relations'] as const) {
    out[noun] = (await run(target, cwd, [noun, 'list', '-o', format])).stdout;
    writeFileSync(join(dir, `${noun}.${format}`), out[noun]);
  }
  out.imagesList = (await run(target, cwd, ['images', 'list', '-o', format])).stdout;
  await run(target, cwd, ['images', 'export', '--dir', join(dir, 'images'), '--format', format]);
  out.imagesManifest = readFileSync(join(dir, 'images', `images.${format}`), 'utf8');
  const files = join(dir, 'images', 'files');
  out.imageFiles = readdirSync(files).sort().map((f) => `${f} ${readFileSync(join(files, f)).toString('base64').length}`).join('\n');
  return out;
}

/** Imports an export (from exportAll) into a target. */
async function importAll(target: Target, cwd: string, format: Format, dir: string): Promise<void> {
  for (const noun of ['attributes', 'parts', 'relations'] as const) await run(target, cwd, [noun, 'import', join(dir, `${noun}.${format}`)]);
  await run(target, cwd, ['images', 'upload', join(dir, 'images', `images.${format}`)]);
}

for (const mode of ['local', 'http'] as const) {
  describe.each([
    ['the demo subset', demoSubset, ['attributes.csv', 'parts.csv', 'relations.csv'], ['images.csv', '--dir', 'img']],
    ['adversarial values', adversarial, ['attributes.ndjson', 'parts.ndjson', 'relations.ndjson'], ['images.ndjson']],
  ] as const)(`round trip of %s (${mode} mode)`, (_name, build, files, upload) => {
    let work: string;
    let source: Target;
    beforeAll(async () => {
      work = tempDir('catalog-rt-');
      build(work);
      source = await openTarget(mode);
      const [attributes, parts, relations] = files;
      await run(source, work, ['attributes', 'import', attributes]);
      await run(source, work, ['parts', 'import', parts]);
      await run(source, work, ['relations', 'import', relations]);
      await run(source, work, ['images', 'upload', ...upload]);
    }, 120_000);
    afterAll(async () => {
      await source.close();
      rmSync(work, { recursive: true, force: true });
    });

    // The demo subset goes through one delimited and one JSON format in each mode, all four formats
    // between the two modes (each format's own encoding is the adversarial values' business).
    const formats = build !== demoSubset ? FORMATS : mode === 'http' ? (['csv', 'ndjson'] as const) : (['tsv', 'json'] as const);
    it.each(formats)('%s: export, import into an empty catalog, export again: byte-identical', async (format) => {
      const first = await exportAll(source, work, format, join(work, `${format}-1`));
      expect(first.parts?.length).toBeGreaterThan(1000);
      expect(first.relations?.split('\n').length).toBeGreaterThan(20);
      expect(first.imageFiles?.split('\n').length).toBeGreaterThanOrEqual(2);
      const copy = await openTarget(mode);
      try {
        await importAll(copy, work, format, join(work, `${format}-1`));
        const second = await exportAll(copy, work, format, join(work, `${format}-2`));
        for (const key of Object.keys(first)) expect(mask(second[key] ?? ''), `${format} ${key}`).toBe(mask(first[key] ?? ''));
      } finally {
        await copy.close();
      }
    }, 120_000);
  });
}
