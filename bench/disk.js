// Benchmark (disk): the catalog's disk beside PostgreSQL's for the same N parts
// (bench/catalog-data.js, the CSV of bench/compare.js), without the query and load parts of
// compare.js. The catalog: `catalog parts import` of the CSV (CLI, local mode), then the data
// directory's bytes and SQLite's dbstat per table and index. PostgreSQL (--postgres): COPY + GIN as
// in compare.js, pg_total_relation_size (table, toast, indexes).
// Uses the COMPILED code (npm run build). Usage:
//   nice -n 10 node bench/disk.js [--parts 30000] [--postgres]
// Prints JSON.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ROOT, isMain, runCli, runMeasured, BIN, writeSection } from './lib.js';
import { ATTRIBUTES, devices } from './catalog-data.js';
import { dirBytes, startPostgres, tenthCsv, TENTHS, writeInputs } from './compare.js';

const MB = 2 ** 20;

/** Imports `parts` generated parts into a fresh catalog (and PostgreSQL when asked); returns the sizes in MB. */
export async function runDisk({ parts = 30_000, postgres = false } = {}) {
  const dir = join(ROOT, 'bench', 'tmp', `disk-${parts}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await writeInputs(dir, parts, devices());
  const dataDir = join(dir, 'catalog');
  writeFileSync(join(dir, 'attributes.ndjson'), ATTRIBUTES.map((a) => JSON.stringify(a)).join('\n'));
  const setup = await runCli(['--data-dir', dataDir, 'attributes', 'import', join(dir, 'attributes.ndjson')]);
  if (setup.code !== 0) throw new Error(`attributes import: ${setup.stderr}`);
  // writeInputs writes the catalog's CSV in tenths (bench/compare.js).
  let ms = 0;
  for (let k = 0; k < TENTHS; k++) {
    const imp = await runMeasured(BIN, ['--data-dir', dataDir, '--quiet', 'parts', 'import', tenthCsv(dir, k)]);
    if (imp.code !== 0) throw new Error(`parts import (${imp.code}): ${imp.stderr}`);
    ms += imp.ms;
  }
  const out = { parts, importSeconds: +(ms / 1000).toFixed(1), catalogMB: +(dirBytes(dataDir) / MB).toFixed(1) };
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all();
  const total = rows.reduce((s, r) => s + r.bytes, 0);
  out.dbstat = Object.fromEntries(rows.filter((r) => r.bytes / total >= 0.001).map((r) => [r.name, `${(r.bytes / MB).toFixed(2)} MB ${((100 * r.bytes) / total).toFixed(1)} %`]));
  out.freelistPages = db.pragma('freelist_count', { simple: true });
  db.close();
  if (postgres) {
    const server = await startPostgres();
    if (server.missing) out.postgres = server.missing;
    else {
      try {
        server.psql("CREATE TABLE parts (part_id text PRIMARY KEY, name text NOT NULL, vendor text NOT NULL, doc tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', vendor), 'D')) STORED)");
        server.psql(`\\copy parts (part_id, name, vendor) FROM '${join(dir, 'parts.pg.tsv')}'`);
        server.psql('CREATE INDEX parts_doc ON parts USING gin (doc)');
        server.psql('VACUUM ANALYZE parts');
        const client = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'catalog', database: 'postgres' });
        await client.connect();
        const size = Number((await client.query("SELECT pg_total_relation_size('parts') AS n")).rows[0].n);
        await client.end();
        out.postgresMB = +(size / MB).toFixed(1);
        out.ratio = +(out.catalogMB / out.postgresMB).toFixed(2);
      } finally {
        server.stop();
      }
    }
  }
  return out;
}

/** The section of bench/results.md for a {@link runDisk} result (Markdown). */
export function diskSection(r) {
  const pg = typeof r.postgres === 'string' ? r.postgres : r.postgresMB !== undefined ? `PostgreSQL (baseline): ${r.postgresMB} MB for the same rows with a GIN index (ratio ${r.ratio}).` : 'PostgreSQL not measured (run with --postgres).';
  return [
    `${r.parts.toLocaleString('en-US')} parts imported in ${r.importSeconds} s; the catalog's data directory: ${r.catalogMB} MB. ${pg}`,
    '',
    '| table or index | size |',
    '|---|---|',
    ...Object.entries(r.dbstat).map(([name, size]) => `| ${name} | ${size} |`),
    '',
    `Free pages: ${r.freelistPages}.`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--parts');
  const result = await runDisk({ parts: at >= 0 ? Number(args[at + 1]) : 30_000, postgres: args.includes('--postgres') });
  console.log(JSON.stringify(result, null, 2));
  writeSection('disk', 'Disk beside PostgreSQL', diskSection(result));
}
