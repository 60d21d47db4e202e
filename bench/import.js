// Benchmark (issue: foundation): import N generated parts from CSV through the CLI in local mode,
// beside better-sqlite3 inserting the same rows directly into the same schema, in the same run.
// Usage: node bench/import.js [--parts 100000]
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { isMain, perSecond, runCli, tempDir } from './lib.js';

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
 * better-sqlite3 inserting the same rows directly into the same (migrated) schema, one transaction
 * per 1,000 parts: parts, part_attributes, and the text-search rows the import keeps in sync
 * (result card, current-card pointer, FTS5 document, vocabulary and typo keys). The document text
 * comes from the project's pure buildSearchDocument, so both sides write identical rows; what the
 * ratio measures is everything else the import does (CSV parsing, mapping, validation, rules).
 */
async function directInsert(dataDir, count) {
  const { openDatabase } = await import('../dist/adapters/sqlite/database.js');
  const { buildSearchDocument } = await import('../dist/adapters/sqlite/search/document.js');
  const { deletionVariants, hasTypoKeys } = await import('../dist/core/search/typo.js');
  const db = openDatabase(join(dataDir, 'direct.db'));
  const attributeDefs = new Map(ATTRIBUTES.map((a) => [a.attribute_id, { visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: false, filterable: false, searchable: false, ...a }]));
  const insertPart = db.prepare('INSERT INTO parts (part_id, service_id, name, attributes, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)');
  const insertRef = db.prepare('INSERT INTO part_attributes (attribute_id, part_rowid) VALUES (?, ?)');
  const insertCard = db.prepare('INSERT INTO search_cards (part_rowid, part_id, service_id, names, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)');
  const insertCurrent = db.prepare('INSERT INTO search_current (part_rowid, card_id, holder, org_doc) VALUES (?, ?, ?, ?)');
  const insertDoc = db.prepare('INSERT INTO search_docs (rowid, pid, names, v0, v1, v2, v3, flt, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const insertTerm = db.prepare('INSERT OR IGNORE INTO search_terms (term) VALUES (?)');
  const insertTermKey = db.prepare('INSERT OR IGNORE INTO search_term_keys (key, term) VALUES (?, ?)');
  db.prepare("UPDATE search_state SET value = 'done' WHERE key = 'rebuild'").run();
  const start = performance.now();
  const batch = db.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const p = generatedPart(i);
      const now = Date.now() * 1000;
      const part = {
        part_id: p.id, serviceId: randomUUID(), name: { en: p.nameEn, de: p.nameDe }, createdAt: now, modifiedAt: now,
        attributes: [
          { attribute_id: 'class', values: [{ organization: '', value: { en: p.cls } }] },
          { attribute_id: 'device_id', values: [{ organization: '', value: { en: p.device } }] },
          { attribute_id: 'vendor', values: [{ organization: '', value: { en: p.vendor } }] },
        ],
      };
      const names = JSON.stringify(part.name);
      const rowid = Number(insertPart.run(p.id, part.serviceId, names, JSON.stringify(part.attributes), now, now).lastInsertRowid);
      for (const a of part.attributes) insertRef.run(a.attribute_id, rowid);
      const card = Number(insertCard.run(rowid, p.id, part.serviceId, names, now, now).lastInsertRowid);
      const doc = buildSearchDocument(part, attributeDefs);
      insertCurrent.run(rowid, card, doc.holder ? 1 : 0, doc.orgValues ? 1 : 0);
      const [v0, v1, v2, v3] = doc.values;
      insertDoc.run(card, doc.pid, doc.names, v0, v1, v2, v3, doc.flt, doc.meta);
      for (const term of doc.terms) {
        if (insertTerm.run(term).changes > 0 && hasTypoKeys(term)) {
          insertTermKey.run(term, term);
          for (const key of deletionVariants(term)) insertTermKey.run(key, term);
        }
      }
    }
  });
  for (let i = 0; i < count; i += 1000) batch.immediate(i, Math.min(count, i + 1000));
  const ms = performance.now() - start;
  db.close();
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

if (isMain(import.meta.url)) {
  const arg = process.argv.indexOf('--parts');
  const result = await runImportBench({ parts: arg > 0 ? Number(process.argv[arg + 1]) : 100_000 });
  console.log(JSON.stringify(result, null, 2));
}
