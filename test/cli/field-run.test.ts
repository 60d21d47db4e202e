/**
 * What a new user met with a real catalog, each as the user typed it: exit codes a
 * pipeline gates on, one-line errors for a mistyped or TLS-less --remote and a token with a trailing
 * newline, errors said once and in the command line's words, `search --all` never silently short,
 * and the smaller items (wording of a missing id, a missing input file, --batch-size bounds).
 * Terminal behaviour (tables, progress, completion) is in test/e2e/field-run-tty.test.ts.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogError } from '../../src/api/errors.js';
import type { SearchResponse } from '../../src/api/schemas.js';
import { reportError } from '../../src/cli/main.js';
import type { CatalogClient } from '../../src/client/types.js';
import { run as runSearch } from '../../src/cli/commands/search/search.js';
import type { CommandContext } from '../../src/cli/context.js';
import { buildApp } from '../../src/http/app.js';
import { openCatalog } from '../../src/open-catalog.js';
import type { Catalog } from '../../src/core/services.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const PARTS = 300;

describe('a new user with a real catalog', () => {
  let dir: string;
  let dataDir: string;
  let token: string;
  let catalog: Catalog | undefined;
  let app: FastifyInstance | undefined;
  let url: string;
  let plain: Server;
  let plainPort: number;
  const run = (args: string[], env: Record<string, string> = {}, stdin?: string) => cli(['--data-dir', dataDir, ...args], { cwd: dir, env, ...(stdin !== undefined ? { stdin } : {}) });
  const remote = (args: string[], env: Record<string, string> = {}) => cli(['--remote', url, ...args], { cwd: dir, env: { CATALOG_TOKEN: token, ...env } });

  beforeAll(async () => {
    dir = tempDir('catalog-field-run-');
    dataDir = join(dir, 'data');
    const csv = readFileSync(join(FIXTURES, 'demo', 'parts.csv'), 'utf8').split('\n');
    writeFileSync(join(dir, 'parts.csv'), `${csv.slice(0, PARTS + 1).join('\n')}\n`);
    expect((await run(['attributes', 'import', join(FIXTURES, 'demo', 'attributes.csv')])).code).toBe(0);
    expect((await run(['parts', 'import', join(dir, 'parts.csv')])).code).toBe(0);
    const created = await run(['tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin']);
    token = created.stdout.trim();
    catalog = openCatalog({ dataDir });
    app = buildApp({ catalog, accessLog: null });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    plain = createServer((_q, s) => s.end('plain'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const plainAddress = plain.address();
    plainPort = typeof plainAddress === 'object' && plainAddress ? plainAddress.port : 0;
  });
  afterAll(async () => {
    await app?.close();
    await catalog?.close();
    await new Promise((resolve) => plain.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('1: maintenance status exits 5 while maintenance is on, 0 when off (a pipeline gates on it)', async () => {
    expect((await run(['maintenance', 'on'])).code).toBe(0);
    const on = await run(['maintenance', 'status']);
    expect(on.stdout).toBe('maintenance mode is on\n');
    expect(on.code).toBe(5);
    expect((await run(['maintenance', 'off'])).code).toBe(0);
    const off = await run(['maintenance', 'status']);
    expect([off.code, off.stdout]).toEqual([0, 'maintenance mode is off\n']);
  });

  it('2: a mistyped --remote host is one line, exit 5, no bug report', async () => {
    const result = await cli(['--remote', 'http://localhots:18556', 'parts', 'list'], { cwd: dir, env: { CATALOG_TOKEN: 'x' } });
    expect(result.stderr).not.toContain('bug:');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: cannot reach http:\/\/localhots:18556: (host 'localhots' not found \(ENOTFOUND\)|.*EAI_AGAIN)/);
    expect(result.code).toBe(5);
  });

  it('2: https:// against a plain-HTTP server says the server does not speak TLS, exit 5', async () => {
    const result = await cli(['--remote', `https://127.0.0.1:${plainPort}`, 'parts', 'list'], { cwd: dir, env: { CATALOG_TOKEN: 'x' } });
    expect(result.stderr).toBe(`error: cannot reach https://127.0.0.1:${plainPort}: the server does not speak TLS (ERR_SSL_WRONG_VERSION_NUMBER); use http:// instead of https://, or put it behind a TLS proxy\n`);
    expect(result.code).toBe(5);
  });

  it('3: CATALOG_TOKEN with a trailing newline works; one with a space inside is a usage error naming it', async () => {
    const ok = await remote(['attributes', 'get', 'vendor', '-o', 'json'], { CATALOG_TOKEN: `${token}\n` });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const bad = await remote(['attributes', 'get', 'vendor'], { CATALOG_TOKEN: `${token} x` });
    expect(bad.stderr).toBe('error: CATALOG_TOKEN holds a space or a control character inside the token; a token is one word\n');
    expect(bad.code).toBe(2);
  });

  it.each([
    ['--limit 100000', ['search', 'x', '--limit', '100000'], /^error: option '--limit <n>' argument '100000' is invalid\. Expected an integer from 1 to 1000\.\n/],
    ['--filter of an unknown attribute', ['search', 'x', '--filter', 'summary=x'], "error: --filter summary=x: attribute 'summary' does not exist\n"],
    ['--page 99999999', ['search', 'controller', '--page', '99999999'], /^error: --page 99999999 is past the last page, \d+ \(\d+ hits at 25 per page\)\n$/],
    ['--session --page past the end', ['search', '--session', 'SESSION', '--page', '99999999'], /^error: --page 99999999 is past the last page, \d+ \(\d+ hits at 25 per page\)\n$/],
    ['relations add --type sibling', ['relations', 'add', 'a', 'b', '--type', 'sibling'], /^error: option '--type <type>' argument 'sibling' is invalid\. Allowed choices are duplicate, substitute, equivalent, not_related\.\n/],
    ['--batch-size 5000', ['parts', 'import', 'parts.csv', '--batch-size', '5000'], /^error: option '--batch-size <n>' argument '5000' is invalid\. Expected an integer from 1 to 1000\.\n/],
  ])('8, 14: %s is refused once, in the command line\'s words, exit 2', async (_name, args, expected) => {
    let argv = args;
    if (args.includes('SESSION')) {
      const session = JSON.parse((await run(['search', 'controller', '--limit', '1', '-o', 'json'])).stdout) as { sessionId: string };
      argv = args.map((a) => (a === 'SESSION' ? session.sessionId : a));
    }
    const result = await run(argv);
    if (typeof expected === 'string') expect(result.stderr).toBe(expected);
    else expect(result.stderr).toMatch(expected);
    expect(result.stderr).not.toMatch(/resultOptions|skip|matches\./);
    expect(result.code).toBe(2);
  });

  it.each([
    ['to itself', ['relations', 'add', 'a', 'a', '--type', 'duplicate'], "error: the relation a -> a was not written: <related>: must differ from <anchor>: part 'a' cannot relate to itself; part 'a' does not exist\n", 2],
    ['to a part that does not exist', ['relations', 'add', 'PART', 'nope', '--type', 'duplicate'], "error: the relation PART -> nope was not written: part 'nope' does not exist\n", 6],
  ])('audit: relations add %s speaks of <anchor>, <related>, not items[0].related_part_id', async (_name, args, expected, code) => {
    const part = JSON.parse((await run(['parts', 'list', '--limit', '1', '-o', 'ndjson'])).stdout) as { part_id: string };
    const result = await run(args.map((a) => (a === 'PART' ? part.part_id : a)));
    expect(result.stderr).toBe(expected.replace('PART', part.part_id));
    expect(result.code).toBe(code);
  });

  it.each([
    ['a part', ['parts', 'delete', 'nope'], 6],
    ['an attribute', ['attributes', 'delete', 'nope'], 6],
    ['a synonym set', ['synonyms', 'delete', 'nope'], 6],
    ['a part among stored ones', ['parts', 'delete', 'PART', 'nope'], 3],
  ])('audit: deleting %s that does not exist is not found (6), as get says; with others deleted it is partial (3)', async (_name, args, code) => {
    const part = JSON.parse((await run(['parts', 'list', '--limit', '1', '-o', 'ndjson'])).stdout) as { part_id: string };
    const result = await run(args.map((a) => (a === 'PART' ? part.part_id : a)));
    expect(result.stderr).toMatch(/nope: .*does not exist\n$/);
    expect(result.code).toBe(code);
  });

  it('audit: search --all with --page is refused, exit 2 (--all reads every page)', async () => {
    const result = await run(['search', 'controller', '--all', '--page', '2']);
    expect(result.stderr).toMatch(/^error: option '--all' cannot be used with option '--page <n>'\n/);
    expect(result.code).toBe(2);
  });

  it('8: a field problem the detail already names is not printed a second time', () => {
    let text = '';
    const stderr = new PassThrough().on('data', (d: Buffer) => (text += d.toString()));
    const error = new CatalogError('bad_request', 'invalid relations (1 bad item, nothing was written): items[0].type: must be one of: duplicate, substitute', [
      { path: 'items[0].type', message: 'must be one of: duplicate, substitute' },
      { path: 'items[0].source', message: 'not named in the detail' },
    ]);
    const code = reportError(error, { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {}, cwd: dir });
    expect(text).toBe('error: invalid relations (1 bad item, nothing was written): items[0].type: must be one of: duplicate, substitute\n  items[0].source: not named in the detail\n');
    expect(code).toBe(2);
  });

  it('14: parts get and parts show word a missing id alike', async () => {
    const get = await run(['parts', 'get', 'nope']);
    const show = await run(['parts', 'show', 'nope']);
    expect(get.stderr).toBe("error: part 'nope' does not exist\n");
    expect(show.stderr).toBe("error: part 'nope' does not exist\n");
    expect([get.code, show.code]).toEqual([6, 6]);
  });

  it('5: a column of an attribute the catalog does not have is refused before any row, with a did you mean (exit 2)', async () => {
    writeFileSync(join(dir, 'misspelt.csv'), 'part_id,name.en,attr:vendr.en,attr:class.en\nnew:1,One,Acme,Ethernet controller\nnew:2,Two,Acme,Ethernet controller\n');
    const result = await run(['parts', 'import', 'misspelt.csv']);
    expect(result.stderr).toBe("error: the header of misspelt.csv names an attribute the catalog does not have: 'attr:vendr.en' (did you mean 'attr:vendor.en'?); create it first (catalog attributes import) or fix the column name. Nothing was imported.\n");
    expect(result.code).toBe(2);
    expect((await run(['parts', 'get', 'new:1'])).code).toBe(6);
  });

  it('7: search --fields takes attr: columns in every format, and asks for the attributes it names', async () => {
    const csv = await run(['search', 'ethernet', '--limit', '3', '-o', 'csv', '--fields', 'id,attr:class.en']);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('id,attr:class.en');
    expect(lines).toHaveLength(4);
    for (const line of lines.slice(1)) expect(line).toMatch(/^[^,]+,.*controller/i);
    const json = JSON.parse((await run(['search', 'ethernet', '--limit', '3', '-o', 'json', '--fields', 'id,attr:class.en'])).stdout) as { results: Record<string, string>[] };
    expect(Object.keys(json.results[0] ?? {})).toEqual(['id', 'attr:class.en']);
    // `attributes` without --attributes: asked for, never an empty column; in csv its attr: columns.
    const flat = await run(['search', 'ethernet', '--limit', '3', '-o', 'tsv', '--fields', 'id,attributes']);
    const header = flat.stdout.split('\n')[0]?.split('\t') ?? [];
    expect(header[0]).toBe('id');
    expect(header).toContain('attr:class.en');
    expect(header.every((c) => c === 'id' || c.startsWith('attr:'))).toBe(true);
  });

  it('14: a part export prints part_id, names, attr: columns, then the read-only columns', async () => {
    // A column that only a late part has (here the last in part_id order) came after the read-only ones.
    writeFileSync(join(dir, 'late.csv'), 'part_id,name.en,attr:unit_cost.en\nzzz:late,Late,12.50\n');
    expect((await run(['parts', 'import', 'late.csv'])).code).toBe(0);
    const header = (await run(['parts', 'list', '-o', 'csv'])).stdout.split('\n')[0]?.split(',') ?? [];
    expect(header).toContain('attr:unit_cost.en');
    const kind = (c: string) => (c === 'part_id' ? 0 : c.startsWith('name.') ? 1 : c.startsWith('attr:') ? 2 : 3);
    expect(header.map(kind)).toEqual([...header.map(kind)].sort());
    expect(header.slice(-3)).toEqual(['serviceId', 'createdAt', 'modifiedAt']);
  });

  it('14: -q with rejected rows still names the errors file; a rerun without --resume says it starts over', async () => {
    writeFileSync(join(dir, 'bad.csv'), 'part_id,name.en\nok:1,Fine\nbad/1,Slash\n');
    const quiet = await run(['-q', 'parts', 'import', 'bad.csv']);
    expect(quiet.code).toBe(3);
    expect(quiet.stderr).toBe(`1 rejected rows with their errors: ${join(dir, 'bad.errors.csv')}\n`);
    const checkpoint = join(dir, 'big.csv.checkpoint.json');
    const rows = Array.from({ length: 30 }, (_, i) => `big:${i},Big ${i}`);
    writeFileSync(join(dir, 'big.csv'), `part_id,name.en\n${rows.join('\n')}\n`);
    // An interrupted run's checkpoint: what a run that stopped after its first batch leaves.
    const { Checkpoint, describeInput } = await import('../../src/cli/bulk/checkpoint.js');
    const saved = Checkpoint.fresh(checkpoint, { input: await describeInput(join(dir, 'big.csv')), options: { format: 'csv', batchSize: 10 } }, () => Promise.resolve({ catalogId: 'x', dataDir }));
    await saved.markDone(0);
    await saved.flush();
    const again = await run(['parts', 'import', 'big.csv', '--batch-size', '10']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`note: ${checkpoint} records 1 finished batches of an interrupted run; this run imports everything again`);
  });

  it.each(['0', '1'])('13: --id-replace maps ids with "/" as they are read (reader thread: %s); the help states the rule', async (thread) => {
    writeFileSync(join(dir, `npm-${thread}.csv`), `part_id,name.en\nnpm${thread}/react,React\n@types${thread}/node,Node types\n`);
    writeFileSync(join(dir, `npm-rel-${thread}.csv`), `anchor_part_id,related_part_id,type\nnpm${thread}/react,@types${thread}/node,equivalent\n`);
    const refused = await run(['parts', 'import', `npm-${thread}.csv`], { CATALOG_IMPORT_THREAD: thread });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('must not contain control characters or "/"');
    const mapped = await run(['parts', 'import', `npm-${thread}.csv`, '--id-replace', '/=:'], { CATALOG_IMPORT_THREAD: thread });
    expect(mapped.stderr).toBe('parts import: 2 created, 0 updated, 0 rejected\n');
    expect(mapped.code).toBe(0);
    expect((await run(['parts', 'get', `npm${thread}:react`, `@types${thread}:node`, '-o', 'ndjson'])).code).toBe(0);
    const relations = await run(['relations', 'import', `npm-rel-${thread}.csv`, '--id-replace', '/=:'], { CATALOG_IMPORT_THREAD: thread });
    expect(relations.code).toBe(0);
    expect((await run(['relations', 'get', `npm${thread}:react`, '-o', 'ndjson'])).stdout).toContain(`@types${thread}:node`);
    expect((await run(['parts', 'import', `npm-${thread}.csv`, '--id-replace', ':'])).stderr).toBe("error: --id-replace ':' must look like <from>=<to>, e.g. '/=:'\n");
    const help = await run(['parts', 'import', '--help']);
    expect(help.stdout).toContain("A part_id is 1 to 256 characters, any but '/' and control characters");
    expect(help.stdout).toContain("--id-replace '/=:'");
  });

  it.each(['0', '1'])('6: broken CSV rows keep their text in _raw, an unclosed quote swallows no good row, and the fixed errors file completes the catalog (reader thread: %s)', async (thread) => {
    const file = join(dir, `broken-${thread}.csv`);
    writeFileSync(file, [
      'part_id,name.en,attr:vendor.en',
      `b${thread}:1,First,Acme`,
      `b${thread}:2,Too,many,cells`,
      `b${thread}:3,"Unclosed,Acme`,
      `b${thread}:4,Fourth,Acme`,
      `b${thread}:5,"Fifth, quoted",Acme`,
      '',
    ].join('\n'));
    const first = await run(['parts', 'import', file], { CATALOG_IMPORT_THREAD: thread });
    expect(first.code).toBe(3);
    expect(first.stderr).toContain('3 created, 0 updated, 2 rejected');
    const errorsPath = join(dir, `broken-${thread}.errors.csv`);
    const { parse } = await import('csv-parse/sync');
    const rows = parse(readFileSync(errorsPath, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r._line, r._raw, r.part_id])).toEqual([['3', `b${thread}:2,Too,many,cells`, ''], ['4', `b${thread}:3,"Unclosed,Acme`, '']]);
    expect(rows[1]?._error).toMatch(/quote opened in this row is not closed.*reading goes on at line 5/);
    // The user fixes each row from its _raw text, into its cells, and imports the errors file again.
    const fixes: Record<string, string> = { [`b${thread}:2,Too,many,cells`]: `b${thread}:2,"Too, many",cells`, [`b${thread}:3,"Unclosed,Acme`]: `b${thread}:3,Unclosed,Acme` };
    const fixed = rows.map((r) => {
      const [cells] = parse(fixes[r._raw ?? ''] ?? '') as string[][];
      return { ...r, part_id: cells?.[0] ?? '', 'name.en': cells?.[1] ?? '', 'attr:vendor.en': cells?.[2] ?? '' };
    });
    const { csvRow } = await import('../../src/cli/output/write.js');
    writeFileSync(errorsPath, [Object.keys(fixed[0] ?? {}), ...fixed.map((r) => Object.values(r))].map((cells) => csvRow(cells)).join(''));
    const again = await run(['parts', 'import', errorsPath], { CATALOG_IMPORT_THREAD: thread });
    expect([again.code, again.stderr]).toEqual([0, 'parts import: 2 created, 0 updated, 0 rejected\n']);
    const listed = await run(['parts', 'get', ...[1, 2, 3, 4, 5].map((i) => `b${thread}:${i}`), '-o', 'csv', '--fields', 'part_id,name.en,attr:vendor.en']);
    expect(listed.stdout).toBe(`part_id,name.en,attr:vendor.en\nb${thread}:1,First,Acme\nb${thread}:2,"Too, many",cells\nb${thread}:3,Unclosed,Acme\nb${thread}:4,Fourth,Acme\nb${thread}:5,"Fifth, quoted",Acme\n`);
  });

  it('14: serve says what it is doing before it listens (a large catalog takes seconds)', async () => {
    const { startServer } = await import('../../src/http/server.js');
    const stages: string[] = [];
    const server = await startServer({ dataDir, host: '127.0.0.1', port: 0, readers: 1, accessLog: null, onStage: (stage) => stages.push(stage) });
    await server.close();
    expect(stages).toEqual(['opening the catalog', 'checking the image files a crash may have left', 'loading the search index on 1 reader thread and a writer thread']);
  });

  it('14: importing a file that does not exist says so, whatever its extension', async () => {
    const result = await run(['parts', 'import', 'missing.txt']);
    expect(result.stderr).toBe('error: cannot read missing.txt: no such file\n');
    expect(result.code).toBe(2);
  });
});

describe('14: parts list in a pipe streams its csv/tsv rows', () => {
  it.each(['csv', 'tsv'] as const)('%s: the header and the first page are written before the second page is asked for, each page once', async (format) => {
    const { emitList } = await import('../../src/cli/output/emit.js');
    const { partsResource } = await import('../../src/cli/commands/parts/resource.js');
    let out = '';
    const stdout = new PassThrough().on('data', (d: Buffer) => (out += d.toString()));
    const asked: { after: string | undefined; printed: number }[] = [];
    const part = (i: number) => ({ part_id: `p${String(i).padStart(4, '0')}`, name: { en: `Part ${i}` }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme' } }] }] });
    const ctx = { io: { stdout, stderr: new PassThrough(), env: {}, cwd: '/' }, flags: {}, format, color: false, info: () => undefined } as unknown as CommandContext;
    await emitList(ctx, partsResource as never, async (request) => {
      // What a pipe's reader has seen by now: the lines written so far.
      await new Promise((resolve) => setImmediate(resolve));
      asked.push({ after: request.paging.last_object_id, printed: out.split('\n').length - 1 });
      const start = request.paging.last_object_id === undefined ? 0 : Number(request.paging.last_object_id.slice(1)) + 1;
      const result = Array.from({ length: Math.max(0, Math.min(request.paging.limit, 2500 - start)) }, (_, i) => part(start + i));
      return { result, last_object_id: result.at(-1)?.part_id ?? '', more_data: start + result.length < 2500 };
    }, { knownColumns: () => Promise.resolve(['name.en', 'attr:vendor.en', 'attr:class.en']) });
    expect(asked.map((a) => a.after)).toEqual([undefined, 'p0999', 'p1999']);
    expect(asked[1]?.printed).toBeGreaterThanOrEqual(1001);
    const sep = format === 'csv' ? ',' : '\t';
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe(['part_id', 'name.en', 'attr:class.en', 'attr:vendor.en'].join(sep));
    expect(lines).toHaveLength(2501);
    expect(lines[2500]).toBe(['p2499', 'Part 2499', '', 'Acme'].join(sep));
  });
});

/** A context over a fake client, for `search --all` against a session that keeps fewer hits than it found. */
function fakeContext(quiet: boolean, found: number, kept: number): { ctx: CommandContext; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const hit = (i: number) => ({ id: `p${i}`, name: `Part ${i}`, nameLanguage: 'en', serviceId: 's', createdAt: 'c', modifiedAt: 'm' });
  const page = (skip: number, limit: number): SearchResponse => ({
    sessionId: 'S1', imageId: null, resultsTotalCount: found, resultsPageableCount: kept,
    results: Array.from({ length: Math.max(0, Math.min(limit, kept - skip)) }, (_, i) => hit(skip + i)),
  }) as unknown as SearchResponse;
  const client = {
    search: (request: { resultOptions: { limit: number } }) => Promise.resolve(page(0, request.resultOptions.limit)),
    searchState: (_id: string, paging: { skip: number; limit: number }) => Promise.resolve(page(paging.skip, paging.limit)),
  } as unknown as CatalogClient;
  const ctx = {
    io: { stdout, stderr, env: {}, cwd: '/' },
    config: { output: { value: undefined }, remote: { value: undefined } },
    flags: { quiet },
    format: 'ndjson',
    color: false,
    client: () => Promise.resolve(client),
    close: () => Promise.resolve(),
    info: (line: string) => { if (!quiet) err += `${line}\n`; },
  } as unknown as CommandContext;
  return { ctx, out: () => out, err: () => err };
}

describe('4: search --all past what a session keeps', () => {
  it.each([false, true])('exits 3 and says why (quiet: %s)', async (quiet) => {
    const { ctx, out, err } = fakeContext(quiet, 2500, 2000);
    const code = await runSearch(ctx, 'react', { all: true });
    expect(out().trim().split('\n')).toHaveLength(2000);
    expect(err()).toBe('warning: 2000 of 2500 hits printed: a search session keeps the first 2000 in rank order; narrow the search (more words, --filter) to get every hit (exit 3) · session S1\n');
    expect(code).toBe(3);
  });

  it('exits 0 when every hit was printed, or --max-items asked for fewer', async () => {
    const every = fakeContext(false, 1500, 1500);
    expect(await runSearch(every.ctx, 'react', { all: true })).toBe(0);
    expect(every.out().trim().split('\n')).toHaveLength(1500);
    const capped = fakeContext(false, 2500, 2000);
    expect(await runSearch(capped.ctx, 'react', { all: true, maxItems: 10 })).toBe(0);
    expect(capped.err()).toContain('--max-items reached');
  });
});
