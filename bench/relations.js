// Benchmark: bulk import of part relations in local mode (api-spec.md §4.3), through the
// LocalCatalogClient exactly as `catalog relations import` will use it: N parts, then M relations
// among them in batches of the server's bulk limit. Imports the COMPILED code: build first with
// `npx tsc -p tsconfig.build.json`. Run: `node bench/relations.js [parts] [relations]`.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LocalCatalogClient } from '../dist/client/local-client.js';
import { openCatalog } from '../dist/open-catalog.js';
import { prng, writeSection } from './lib.js';

const TYPES = ['duplicate', 'substitute', 'equivalent', 'not_related'];


function partId(i) {
  return `pci:${(0x1000 + (i % 0xe000)).toString(16)}:${i.toString(16).padStart(6, '0')}`;
}

function batches(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Imports `parts` parts, then `relations` relations among them, in batches of `batchSize`, into a
 * fresh data directory (a temp dir unless `dataDir` is given; removed afterwards unless `keep`).
 * Returns the figures: seconds and items per second of each phase, relations written and stored.
 */
export async function runRelationsBench(options = {}) {
  const parts = options.parts ?? 50_000;
  const relations = options.relations ?? 100_000;
  const batchSize = options.batchSize ?? 1000;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'catalog-bench-relations-'));
  const catalog = openCatalog({ dataDir });
  const client = new LocalCatalogClient(catalog);
  try {
    const partItems = Array.from({ length: parts }, (_, i) => ({ part_id: partId(i), name: { en: `Part ${i}` } }));
    let started = performance.now();
    for (const batch of batches(partItems, batchSize)) {
      const result = await client.upsertParts(batch);
      if (Object.keys(result.errors).length > 0) throw new Error(`part import failed: ${JSON.stringify(result.errors).slice(0, 500)}`);
    }
    const partsSeconds = (performance.now() - started) / 1000;

    const random = prng(options.seed ?? 42);
    const relationItems = [];
    while (relationItems.length < relations) {
      const anchor = Math.floor(random() * parts);
      const related = Math.floor(random() * parts);
      if (anchor === related) continue;
      const n = relationItems.length;
      relationItems.push({
        anchor_part_id: partId(anchor),
        related_part_id: partId(related),
        type: TYPES[n % TYPES.length],
        ...(n % 3 === 0 ? { source: 'confirmed_by_user' } : {}),
      });
    }
    const relationBatches = batches(relationItems, batchSize);

    let written = 0;
    started = performance.now();
    const cpuStarted = process.cpuUsage();
    for (const batch of relationBatches) written += (await client.createRelations(batch)).created;
    const relationsSeconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStarted);
    const relationsCpuSeconds = (cpu.user + cpu.system) / 1e6;

    // Reading back: the relations of a few parts (the GET path, for scale).
    started = performance.now();
    let readBack = 0;
    const reads = Math.min(1000, parts);
    for (let i = 0; i < reads; i++) readBack += (await client.getRelations(partId(i))).length;
    const readSeconds = (performance.now() - started) / 1000;

    const stored = catalog.service.store.db.prepare('SELECT count(*) AS n FROM part_relations').get().n;

    // Baseline in the same run: better-sqlite3 writing the same rows straight into part_relations
    // (part ids looked up by prepared statement, one transaction per batch), after emptying it.
    const db = catalog.service.store.db;
    db.exec('DELETE FROM part_relations');
    const rowidOf = db.prepare('SELECT rowid_ FROM parts WHERE part_id = ?').pluck();
    const upsert = db.prepare(`INSERT INTO part_relations (low_part, high_part, anchor_is_low, type, source, user_id, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (low_part, high_part) DO UPDATE SET anchor_is_low = excluded.anchor_is_low,
      type = excluded.type, source = excluded.source, user_id = excluded.user_id, created_at = excluded.created_at`);
    const writeBatch = db.transaction((batch) => {
      const now = Date.now() * 1000;
      for (const r of batch) {
        const a = rowidOf.get(r.anchor_part_id);
        const b = rowidOf.get(r.related_part_id);
        upsert.run(Math.min(a, b), Math.max(a, b), a < b ? 1 : 0, r.type, r.source ?? 'ingested', 'local', now);
      }
    });
    started = performance.now();
    for (const batch of relationBatches) writeBatch.immediate(batch);
    const directSeconds = (performance.now() - started) / 1000;
    return {
      parts,
      relations,
      batchSize,
      partsSeconds: round(partsSeconds),
      partsPerSecond: Math.round(parts / partsSeconds),
      relationsSeconds: round(relationsSeconds),
      relationsPerSecond: Math.round(relations / relationsSeconds),
      // CPU time of this process only: steadier than wall time on a shared, loaded machine.
      relationsCpuSeconds: round(relationsCpuSeconds),
      relationsPerCpuSecond: Math.round(relations / relationsCpuSeconds),
      directRelationsPerSecond: Math.round(relations / directSeconds),
      ratioToDirect: Number((relations / relationsSeconds / (relations / directSeconds)).toFixed(2)),
      relationsWritten: written,
      relationsStored: stored,
      getRelationsPerSecond: Math.round(reads / readSeconds),
      relationsReadBack: readBack,
      databaseBytes: statSync(join(dataDir, 'catalog.db')).size,
    };
  } finally {
    await client.close();
    if (!options.keep && options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

const n = (v, digits = 0) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(v));
const ok = (met) => (met ? 'met' : '**not met**');

/** Heading of this script's section of bench/results.md. */
export const RELATIONS_TITLE = 'Relations import (local client)';

/** The section of bench/results.md for a {@link runRelationsBench} result (Markdown). */
export function relationsSection(r) {
  return [
    `${n(r.relations)} relations among ${n(r.parts)} parts in batches of ${r.batchSize}.`,
    '',
    '| | relations/s |',
    '|---|---|',
    `| LocalCatalogClient.createRelations | ${n(r.relationsPerSecond)} |`,
    `| better-sqlite3 direct upsert of the same rows (baseline) | ${n(r.directRelationsPerSecond)} |`,
    '',
    `Ratio ${r.ratioToDirect}; target ≥ 30,000 relations/s: ${ok(r.relationsPerSecond >= 30_000)}. Reads: ${n(r.getRelationsPerSecond)} getRelations calls/s.`,
  ].join('\n');
}

function round(seconds) {
  return Math.round(seconds * 1000) / 1000;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const parts = process.argv[2] ? Number(process.argv[2]) : undefined;
  const relations = process.argv[3] ? Number(process.argv[3]) : undefined;
  const figures = await runRelationsBench({ ...(parts ? { parts } : {}), ...(relations ? { relations } : {}) });
  console.log(JSON.stringify(figures, null, 2));
  writeSection('relations', RELATIONS_TITLE, relationsSection(figures));
}
