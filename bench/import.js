// Benchmark (issue: foundation): import N generated parts from CSV through the CLI in local mode,
// beside better-sqlite3 inserting the same rows directly into the same schema, in the same run.
// Usage: node bench/import.js [--parts 100000]
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { isMain, perSecond, runCli, tempDir, writeSection } from './lib.js';

const VENDORS = ['Intel Corporation', 'NVIDIA Corporation', 'Advanced Micro Devices, Inc. [AMD]', 'Realtek Semiconductor Co. Ltd.', 'Broadcom Inc.'];
const CLASSES = ['Ethernet controller', 'VGA compatible controller', 'Host bridge', 'USB controller', 'Audio device'];

/** The generated part of index i, as the CSV row and as the stored columns. */
export function generatedPart(i) {
  const id = `gen:${String(i).padStart(7, '0')}`;
  const vendor = VENDORS[i % VENDORS.length];
  const cls = CLASSES[(i * 7) % CLASSES.length];
  const device = (i % 65536).toString(16).padStart(4, '0');
  return { id, nameEn: `Device ${device} model ${i}`, nameDe: `Gerät ${device} Modell ${i}`, vendor, cls, device };
}

async function writeCsv(path, count) {
  const out = createWriteStream(path);
  out.write('part_id,name.en,name.de,attr:vendor.en,attr:class.en,attr:device_id.en\n');
  for (let i = 0; i < count; i++) {
    const p = generatedPart(i);
    if (!out.write(`${p.id},${p.nameEn},${p.nameDe},"${p.vendor}",${p.cls},${p.device}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const ATTRIBUTES = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
  { attribute_id: 'class', type: 'enum', name: { en: 'Class' }, searchable: true, filterable: true },
  { attribute_id: 'device_id', type: 'text', name: { en: 'Device ID' }, searchable: true },
];

/**
 * The same parts written straight into the SQLite store (openSqliteStores, its own write
 * transactions, search index included), 1,000 per transaction, with a decide callback that accepts
 * every item: what the ratio measures is everything else the import does (CSV parsing, mapping,
 * request validation, the part rules), not the storage and indexing both sides share.
 */
async function directInsert(dataDir, count) {
  const { openSqliteStores } = await import('../dist/adapters/sqlite/stores.js');
  const stores = openSqliteStores({ dataDir: join(dataDir, 'direct'), clock: { nowMicros: () => Date.now() * 1000 } });
  const write = (item) => ({ kind: 'write', value: item, created: true });
  const now = Date.now() * 1000;
  await stores.catalog.upsertAttributes(
    ATTRIBUTES.map((a) => ({ visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: false, filterable: false, searchable: false, serviceId: randomUUID(), createdAt: now, modifiedAt: now, ...a })),
    write,
  );
  const start = performance.now();
  for (let from = 0; from < count; from += 1000) {
    const items = [];
    for (let i = from; i < Math.min(count, from + 1000); i++) {
      const p = generatedPart(i);
      items.push({
        part_id: p.id, serviceId: randomUUID(), name: { en: p.nameEn, de: p.nameDe }, createdAt: now, modifiedAt: now,
        attributes: [
          { attribute_id: 'class', values: [{ organization: '', value: { en: p.cls } }] },
          { attribute_id: 'device_id', values: [{ organization: '', value: { en: p.device } }] },
          { attribute_id: 'vendor', values: [{ organization: '', value: { en: p.vendor } }] },
        ],
      });
    }
    await stores.catalog.upsertParts(items, write);
  }
  const ms = performance.now() - start;
  await stores.close();
  return { ms, rowsPerSecond: perSecond(count, ms) };
}

/** Runs the benchmark; returns the figures. */
export async function runImportBench({ parts = 100_000 } = {}) {
  const dir = tempDir();
  try {
    const csv = join(dir, 'parts.csv');
    await writeCsv(csv, parts);
    const attrs = join(dir, 'attributes.ndjson');
    const out = createWriteStream(attrs);
    out.end(ATTRIBUTES.map((a) => JSON.stringify(a)).join('\n'));
    await once(out, 'finish');
    const dataDir = join(dir, 'catalog');
    const setup = await runCli(['--data-dir', dataDir, 'attributes', 'import', attrs]);
    if (setup.code !== 0) throw new Error(`attributes import failed: ${setup.stderr}`);
    const cli = await runCli(['--data-dir', dataDir, '--quiet', 'parts', 'import', csv]);
    if (cli.code !== 0) throw new Error(`parts import failed (${cli.code}): ${cli.stderr}`);
    const direct = await directInsert(dir, parts);
    const cliRate = perSecond(parts, cli.ms);
    return {
      parts,
      cli: { ms: Math.round(cli.ms), rowsPerSecond: cliRate, peakRssMB: Math.round(cli.peakRssBytes / 1048576) },
      direct: { ms: Math.round(direct.ms), rowsPerSecond: direct.rowsPerSecond },
      ratio: Number((cliRate / direct.rowsPerSecond).toFixed(2)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const n = (v, digits = 0) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(v));
const ok = (met) => (met ? 'met' : '**not met**');

/** Heading of this script's section of bench/results.md. */
export const IMPORT_TITLE = 'Bulk import (CLI, local mode)';

/** The section of bench/results.md for a {@link runImportBench} result (Markdown). */
export function importSection(r) {
  return [
    `${n(r.parts)} generated parts from CSV through \`catalog parts import\` (a real process: start-up, CSV parsing, validation, rules, SQLite with the search index) beside better-sqlite3 inserting the same rows (parts, attribute references and search rows) directly into the same schema.`,
    '',
    '| | rows/s | time | peak RSS |',
    '|---|---|---|---|',
    `| \`catalog parts import\` | ${n(r.cli.rowsPerSecond)} | ${n(r.cli.ms / 1000, 2)} s | ${r.cli.peakRssMB} MB |`,
    `| better-sqlite3 direct (baseline) | ${n(r.direct.rowsPerSecond)} | ${n(r.direct.ms / 1000, 2)} s | |`,
    '',
    `Ratio ${r.ratio} (target ≥ 0.5: ${ok(r.ratio >= 0.5)}); peak RSS ${r.cli.peakRssMB} MB (target < 150 MB: ${ok(r.cli.peakRssMB < 150)}).`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const arg = process.argv.indexOf('--parts');
  const result = await runImportBench({ parts: arg > 0 ? Number(process.argv[arg + 1]) : 100_000 });
  console.log(JSON.stringify(result, null, 2));
  writeSection('import', IMPORT_TITLE, importSection(result));
}
