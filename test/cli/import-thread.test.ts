/**
 * The reader thread of `<noun> import` (src/cli/import/entries-thread.ts): a file read,
 * parsed and mapped on a second thread gives exactly what the in-thread path gives — the catalog,
 * the summary, the errors file, the exit code, and a resumed run — and a failing reader is an
 * error naming the input and the line, never a bug report.
 *
 * CATALOG_IMPORT_THREAD=1 / 0 force either path (by default only files of 1 MiB or more use the
 * thread). Uses the built worker (dist/cli/import/entries-worker.js: `npm test` builds first).
 */
import { readFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import type { Attribute, PartInput } from '../../src/api/schemas.js';
import { DICTIONARY_WORDS } from '../../src/cli/import/entries-protocol.js';
import { partsResource } from '../../src/cli/commands/parts/resource.js';
import { EngineStore } from '../../src/adapters/sqlite/search/engine-store.js';
import { mapBlocksInThread, mapEntriesInThread, readerThreadWanted, THREAD_MIN_BYTES } from '../../src/cli/import/entries-thread.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import { definitionsKey, PREPARED_DOCUMENTS, preparePartDocuments, unpackPreparedDocuments, type PreparedPartInput } from '../../src/core/search/engine/prepared-documents.js';
import { openCatalog } from '../../src/open-catalog.js';
import { InputReadError } from '../../src/cli/import/input-read-error.js';
import { rowHash } from '../../src/cli/sync/row-hash.js';
import { reportError } from '../../src/cli/main.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';
import { indexTables } from '../helpers/sqlite-catalog.js';

const ATTRIBUTES = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
  { attribute_id: 'bin', type: 'text', name: { en: 'Bin' }, per_org_values: true },
].map((a) => JSON.stringify(a)).join('\n');

/** Parts with every kind of bad row: unreadable, unmappable, invalid for the API, refused by the rules, repeated ids. */
const CSV = [
  'part_id,name.en,attr:vendor.en,attr:bin@acme.en',
  'p1,First,Intel,',
  'p2,Second,"AMD, Inc.",A-1',
  'p3,"broken "quote",x,',
  'p4,Too,many,cells,here',
  `${'x'.repeat(300)},Id too long,Intel,`,
  'p5,,Intel,', // no name on create: refused by the part rules
  'p1,First again,NVIDIA,', // the later row wins
  'p6,Sixth,,B-2',
  'p7,"Multi',
  'line name",Realtek,',
  'p2,Second again,,', // the vendor stays (an empty cell leaves a value as it is)
  'p8,Eighth,Broadcom,',
  '',
  'p9,Ninth,Intel,C-3',
].join('\n');

const NDJSON = [
  '{"part_id":"n1","name":{"en":"One"}}',
  '{"part_id":"n2","name":{"en":"Two"},"attributes":[{"attribute_id":"nope","values":[{"organization":"","value":{"en":"x"}}]}]}',
  'not json',
  '{"part_id":"n1","name":{"de":"Eins"}}',
  '{"part_id":"n3","name":{}}',
  '{"part_id":"n4","name":{"en":"Four"},"serviceId":"ignored"}',
].join('\n');

interface Outcome {
  code: number;
  summary: unknown;
  stderr: string;
  errors: string | null;
  parts: unknown[];
}

describe('import on a reader thread = import in one thread', () => {
  let work: string;
  beforeAll(() => {
    work = tempDir('catalog-thread-');
    writeFileSync(join(work, 'attributes.ndjson'), ATTRIBUTES);
    writeFileSync(join(work, 'parts.csv'), CSV);
    writeFileSync(join(work, 'parts.ndjson'), NDJSON);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Imports `file` into a fresh data directory with the reader thread on or off. */
  async function run(file: string, thread: '0' | '1', extra: string[] = []): Promise<Outcome> {
    const dir = join(work, `${file}-${thread}-${extra.join('')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, file), readFileSync(join(work, file)));
    const env = { CATALOG_IMPORT_THREAD: thread };
    expect((await cli(['--data-dir', 'data', 'attributes', 'import', join(work, 'attributes.ndjson')], { cwd: dir, env })).code).toBe(0);
    const imported = await cli(['--data-dir', 'data', '-o', 'json', 'parts', 'import', file, '--batch-size', '2', ...extra], { cwd: dir, env });
    const summary = JSON.parse(imported.stdout) as { errorsFile: string | null };
    const errorsPath = summary.errorsFile;
    const errors = errorsPath !== null && existsSync(errorsPath) ? readFileSync(errorsPath, 'utf8') : null;
    const listed = await cli(['--data-dir', 'data', 'parts', 'list', '-o', 'json', '--fields', 'part_id,name,attributes'], { cwd: dir, env });
    expect(listed.code, listed.stderr).toBe(0);
    return { code: imported.code, summary: { ...summary, errorsFile: errorsPath?.replace(dir, '<dir>') ?? null }, stderr: imported.stderr.replaceAll(dir, '<dir>'), errors, parts: JSON.parse(listed.stdout) as unknown[] };
  }

  it('CSV with unreadable, invalid and refused rows and repeated ids: same catalog, summary, errors file and exit code', async () => {
    const threaded = await run('parts.csv', '1');
    const inThread = await run('parts.csv', '0');
    expect(threaded).toEqual(inThread);
    // What both give (so that "equal" is not "equally empty").
    expect(threaded.code).toBe(3);
    expect(threaded.parts.map((p) => (p as { part_id: string }).part_id)).toEqual(['p1', 'p2', 'p6', 'p7', 'p8', 'p9']);
    expect(threaded.parts[0]).toMatchObject({ name: { en: 'First again' }, attributes: [{ attribute_id: 'vendor', values: [{ value: { en: 'NVIDIA' } }] }] });
    expect(threaded.parts[3]).toMatchObject({ name: { en: 'Multi\nline name' } });
    expect(threaded.errors?.split('\n')[0]).toBe('part_id,name.en,attr:vendor.en,attr:bin@acme.en,_line,_error,_raw');
    // Lines 4, 5 (unreadable), 6 (id too long) and 7 (no name), in line order.
    expect(threaded.errors?.match(/,(\d+),/g)?.map((m) => Number(m.slice(1, -1)))).toEqual([4, 5, 6, 7]);
    expect(threaded.stderr).toContain('parts import: 6 created, 2 updated, 4 rejected');
  });

  it('NDJSON: same outcome, item errors keyed alike', async () => {
    const threaded = await run('parts.ndjson', '1');
    const inThread = await run('parts.ndjson', '0');
    expect(threaded).toEqual(inThread);
    expect(threaded.code).toBe(3);
    expect(threaded.parts.map((p) => (p as { part_id: string }).part_id)).toEqual(['n1', 'n4']);
    expect(Object.keys((threaded.summary as { errors: Record<string, string[]> }).errors)).toEqual(['n2', 'line:3', 'n3']);
  });

  it('stopped by --max-errors, then --resume: the threaded run ends with exactly the catalog of the in-thread run', async () => {
    // Where --max-errors stops depends on when a batch's answer arrives (both paths): what must
    // not differ is the catalog after --resume, which neither skips a row that was not stored nor
    // stores one twice.
    const catalogs: unknown[][] = [];
    for (const thread of ['1', '0'] as const) {
      const dir = join(work, `resume-${thread}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'parts.csv'), CSV);
      const env = { CATALOG_IMPORT_THREAD: thread };
      expect((await cli(['--data-dir', 'data', 'attributes', 'import', join(work, 'attributes.ndjson')], { cwd: dir, env })).code).toBe(0);
      const first = await cli(['--data-dir', 'data', 'parts', 'import', 'parts.csv', '--batch-size', '2', '--max-errors', '3'], { cwd: dir, env });
      expect(first.stderr).toContain('stopped early at --max-errors');
      expect(existsSync(join(dir, 'parts.csv.checkpoint.json'))).toBe(true);
      const resumed = await cli(['--data-dir', 'data', 'parts', 'import', 'parts.csv', '--batch-size', '2', '--resume'], { cwd: dir, env });
      expect(resumed.stderr).toMatch(/resuming parts import of parts.csv: \d+ finished batches are skipped/);
      expect(existsSync(join(dir, 'parts.csv.checkpoint.json'))).toBe(false);
      const listed = await cli(['--data-dir', 'data', 'parts', 'list', '-o', 'json', '--fields', 'part_id,name,attributes'], { cwd: dir, env });
      catalogs.push(JSON.parse(listed.stdout) as unknown[]);
    }
    expect(catalogs[0]).toEqual(catalogs[1]);
    expect(catalogs[0]).toEqual((await run('parts.csv', '0')).parts);
  });
});

describe('search documents prepared on the reader thread (local import)', () => {
  let work: string;
  beforeAll(() => {
    work = tempDir('catalog-prepared-');
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Searchable per-organization values (search_org_docs) and a value tier of their own. */
  const DEFINITIONS = [
    { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
    { attribute_id: 'bin', type: 'text', name: { en: 'Bin' }, per_org_values: true, searchable: true, visibility: 'csa' },
  ].map((a) => JSON.stringify(a)).join('\n');

  /** Every kind of part the documents depend on: languages, non-ASCII words, per-organization values, updates of earlier rows, refused rows. */
  const PARTS_CSV = [
    'part_id,name.en,name.de,attr:vendor.en,attr:bin@acme.en,attr:bin@beta.en',
    ...Array.from({ length: 60 }, (_, i) => [
      `p${i % 45}`,
      `"Part ${i} ${['Crème brûlée', 'Ethernet controller', 'ＦＵＬＬ width', 'torch'][i % 4]}"`,
      i % 3 === 0 ? `Teil ${i}` : '',
      i % 5 === 0 ? '' : `"Vendor ${i % 7}, Inc."`,
      i % 4 === 0 ? `Shelf ${i}` : '',
      i % 6 === 0 ? `Box ${i}` : '',
    ].join(',')),
    'p98,,,Intel,,', // no name on create: refused by the part rules
  ].join('\n');

  /** The index tables of a data directory's catalog.db, comparable across runs. */
  function indexTablesOf(dir: string): Record<string, unknown[]> {
    const db = new Database(join(dir, 'data', 'catalog.db'), { readonly: true });
    try {
      return indexTables(db);
    } finally {
      db.close();
    }
  }

  /** A directory holding parts.csv and a data directory with DEFINITIONS imported, and the env forcing the reader thread on ('1') or off ('0'). */
  async function withDefinitions(name: string, thread: '0' | '1'): Promise<{ dir: string; env: Record<string, string> }> {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'parts.csv'), PARTS_CSV);
    writeFileSync(join(dir, 'attributes.ndjson'), DEFINITIONS);
    const env = { CATALOG_IMPORT_THREAD: thread };
    expect((await cli(['--data-dir', 'data', 'attributes', 'import', 'attributes.ndjson'], { cwd: dir, env })).code).toBe(0);
    return { dir, env };
  }

  it('the catalog and its index are byte for byte those of the in-thread import (which builds every document on the writer)', async () => {
    const outcomes: { tables: Record<string, unknown[]>; stderr: string; search: string[] }[] = [];
    for (const thread of ['1', '0'] as const) {
      const { dir, env } = await withDefinitions(`run-${thread}`, thread);
      const imported = await cli(['--data-dir', 'data', 'parts', 'import', 'parts.csv', '--batch-size', '7'], { cwd: dir, env });
      const found = await cli(['--data-dir', 'data', '-o', 'json', 'search', 'creme'], { cwd: dir, env });
      const search = (JSON.parse(found.stdout) as { results: { id: string }[] }).results.map((r) => r.id);
      outcomes.push({ tables: indexTablesOf(dir), stderr: imported.stderr.replaceAll(dir, '<dir>'), search });
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]?.stderr).toContain('45 created, 15 updated, 1 rejected');
    expect(outcomes[0]?.tables.orgDocs?.length).toBeGreaterThan(5);
    expect(outcomes[0]?.search.length).toBeGreaterThan(5);
  });

  it('a threaded import writes every new part from the documents its reader thread prepared, and an in-thread import none', async () => {
    // The links are tested one by one above and in test/store/prepared-documents.test.ts; this is
    // the whole chain through `catalog parts import`, whose only visible effect is speed.
    const used: Record<string, number> = {};
    for (const thread of ['1', '0'] as const) {
      const { dir, env } = await withDefinitions(`chain-${thread}`, thread);
      const putPrepared = vi.spyOn(EngineStore.prototype, 'putPrepared');
      try {
        const imported = await cli(['--data-dir', 'data', 'parts', 'import', 'parts.csv', '--batch-size', '7'], { cwd: dir, env });
        expect(imported.stderr).toContain('45 created, 15 updated, 1 rejected');
        used[thread] = putPrepared.mock.calls.length;
      } finally {
        putPrepared.mockRestore();
      }
    }
    // 45 parts created (the 15 updates and the refused row are built on the writer, as before).
    expect(used).toEqual({ '1': 45, '0': 0 });
  });

  it('the definitions the import lists give the key of those the store reads (else no document prepared would ever be used)', async () => {
    const dir = join(work, 'key');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'attributes.ndjson'), DEFINITIONS);
    expect((await cli(['--data-dir', 'data', 'attributes', 'import', 'attributes.ndjson'], { cwd: dir })).code).toBe(0);
    const catalog = openCatalog({ dataDir: join(dir, 'data') });
    let listed: Attribute[] | undefined;
    try {
      listed = await partsResource.definitions?.(new LocalCatalogClient(catalog));
    } finally {
      await catalog.close();
    }
    expect(listed).toHaveLength(2);
    // As the store reads them (SqliteCatalogStore's attribute map: the bodies of the attributes table).
    const db = new Database(join(dir, 'data', 'catalog.db'), { readonly: true });
    const stored = (db.prepare('SELECT body FROM attributes').pluck().all() as string[]).map((body) => JSON.parse(body) as Attribute);
    db.close();
    expect(definitionsKey(listed ?? [])).toBe(definitionsKey(stored));
  });
});

describe('the reader thread', () => {
  let work: string;
  beforeAll(() => {
    work = tempDir('catalog-reader-');
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('a reader that dies is an InputReadError naming the input and the last line read, reported as an error (exit 1), not a bug', async () => {
    // A stand-in reader: one block of two rows, then at once an uncaught error (which reaches the
    // parent on another channel than the block, often first: the block must still be taken).
    const worker = join(work, 'dying-worker.mjs');
    writeFileSync(worker, [
      "import { parentPort } from 'node:worker_threads';",
      "parentPort.postMessage({ type: 'block', lines: [2, 3], items: '[{\"part_id\":\"a\"},{\"part_id\":\"b\"}]', records: '[{},{}]', rejected: [], refused: [], validated: false });",
      "throw new Error('reader exploded');",
    ].join('\n'));
    const rows: number[] = [];
    let failure: unknown;
    try {
      for await (const row of mapEntriesInThread({ path: join(work, 'x.csv'), inputName: 'parts.csv', format: 'csv', mapper: 'parts', readOnly: [], workerFile: worker })) rows.push(row.line);
    } catch (error) {
      failure = error;
    }
    expect(rows).toEqual([2, 3]);
    expect(failure).toBeInstanceOf(InputReadError);
    expect((failure as Error).message).toBe('reading parts.csv stopped after line 3: reader exploded');
    const stderr = new PassThrough();
    let text = '';
    stderr.on('data', (d: Buffer) => (text += d.toString()));
    const code = reportError(failure, { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {}, cwd: work });
    expect(code).toBe(1);
    expect(text).toBe('error: reading parts.csv stopped after line 3: reader exploded\n');
  });

  it('an I/O error of the reader arrives as the same error the in-thread path throws (code, path)', async () => {
    const failure = await (async () => {
      for await (const row of mapEntriesInThread({ path: work, inputName: 'dir', format: 'csv', mapper: 'parts', readOnly: [] })) void row;
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'EISDIR' });
  });

  it('the rows of a file, records parsed on demand, in order, across blocks', async () => {
    const file = join(work, 'many.csv');
    writeFileSync(file, ['part_id,name.en', ...Array.from({ length: 25 }, (_, i) => `q${i},Q ${i}`)].join('\n'));
    const seen: { line: number; id: unknown; record: unknown }[] = [];
    for await (const row of mapEntriesInThread({ path: file, inputName: 'many.csv', format: 'csv', mapper: 'parts', readOnly: [], blockRows: 4 })) {
      seen.push({ line: row.line, id: row.item?.part_id, record: row.line === 20 ? row.record : undefined });
    }
    expect(seen.map((r) => r.line)).toEqual(Array.from({ length: 25 }, (_, i) => i + 2));
    expect(seen.map((r) => r.id)).toEqual(Array.from({ length: 25 }, (_, i) => `q${i}`));
    expect(seen.find((r) => r.line === 20)?.record).toEqual({ part_id: 'q18', 'name.en': 'Q 18' });
  });

  it('a sync\'s known rows: every row carries its hash as mapped, and those known are not validated (the others are)', async () => {
    const file = join(work, 'known.csv');
    writeFileSync(file, ['part_id,name.en', 'k1,One', 'k2,Two', 'k3,Three'].join('\n'));
    const known = [rowHash({ part_id: 'k1', name: { en: 'One' } }), rowHash({ part_id: 'k3', name: { en: 'Old' } })];
    const rows = [];
    for await (const row of mapEntriesInThread({ path: file, inputName: 'known.csv', format: 'csv', mapper: 'parts', readOnly: [], validate: true, known, blockRows: 2 })) rows.push(row);
    expect(rows.map((r) => [r.item?.part_id, r.hash, r.validated])).toEqual([
      ['k1', known[0], false],
      ['k2', rowHash({ part_id: 'k2', name: { en: 'Two' } }), true],
      ['k3', rowHash({ part_id: 'k3', name: { en: 'Three' } }), true],
    ]);
  });

  it('prepared documents arrive as the writer would build them, across blocks and a reset of the word dictionary', async () => {
    const file = join(work, 'words.csv');
    // ~6 new words a row: the dictionary passes DICTIONARY_WORDS and starts over mid-file.
    const rows = Math.ceil((DICTIONARY_WORDS * 1.5) / 6);
    writeFileSync(file, ['part_id,name.en,attr:vendor.en', ...Array.from({ length: rows }, (_, i) => `q${i},alpha${i} beta${i} gamma${i} common,Vendor ${i % 50} delta${i}`)].join('\n'));
    const definitions = [{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true, visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: false }] as Attribute[];
    const map = new Map(definitions.map((a) => [a.attribute_id, a]));
    let seen = 0;
    for await (const row of mapEntriesInThread({ path: file, inputName: 'words.csv', format: 'csv', mapper: 'parts', readOnly: [], validate: true, definitions, blockRows: 100 })) {
      const prepared = (row.item as PreparedPartInput)[PREPARED_DOCUMENTS];
      expect(prepared?.definitions).toBe(definitionsKey(definitions));
      expect(prepared && unpackPreparedDocuments(prepared)).toEqual(preparePartDocuments(row.item as PartInput, map));
      seen++;
    }
    expect(seen).toBe(rows);
  });

  it('a block ends early when its packed documents reach blockChars bytes (many short words: little JSON, many terms)', async () => {
    const file = join(work, 'short-words.csv');
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const words = Array.from({ length: 600 }, (_, i) => `${letters[i % 26]}${letters[Math.floor(i / 26) % 26]}`).join(' ');
    writeFileSync(file, ['part_id,name.en', ...Array.from({ length: 4 }, (_, i) => `s${i},${words}`)].join('\n'));
    const definitions = [] as Attribute[];
    const sizes: number[] = [];
    // ~3,700 characters of JSON a row (item and record), ~5,000 bytes of packed documents.
    for await (const block of mapBlocksInThread({ path: file, inputName: 'short-words.csv', format: 'csv', mapper: 'parts', readOnly: [], validate: true, definitions, blockChars: 4000 })) sizes.push(block.length);
    expect(sizes).toEqual([1, 1, 1, 1]);
    const unprepared: number[] = [];
    for await (const block of mapBlocksInThread({ path: file, inputName: 'short-words.csv', format: 'csv', mapper: 'parts', readOnly: [], validate: true, blockChars: 4000 })) unprepared.push(block.length);
    expect(unprepared).toEqual([2, 2]);
  });

  it('is used for files of 1 MiB or more unless CATALOG_IMPORT_THREAD says otherwise', async () => {
    const small = join(work, 'small.csv');
    const large = join(work, 'large.csv');
    writeFileSync(small, 'part_id\n');
    writeFileSync(large, Buffer.alloc(THREAD_MIN_BYTES, 0x61));
    expect(await readerThreadWanted(undefined, small)).toBe(false);
    expect(await readerThreadWanted(undefined, large)).toBe(true);
    expect(await readerThreadWanted('0', large)).toBe(false);
    expect(await readerThreadWanted('1', small)).toBe(true);
    expect(await readerThreadWanted(undefined, join(work, 'missing.csv'))).toBe(false);
  });
});
