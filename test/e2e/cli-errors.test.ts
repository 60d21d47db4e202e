/**
 * The built CLI's answer to each usage mistake and environment mistake: exit code and first line
 * of stderr, run as a user runs it (bin/catalog.js). The table in
 * docs/cli-errors.md is generated from these runs: `UPDATE_CLI_ERRORS=1 npx vitest run
 * test/e2e/cli-errors.test.ts` rewrites it; otherwise the test fails when the doc and the program differ.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/bin.js';
import { tempDir } from '../helpers/harness.js';

const DOC = join(ROOT, 'docs', 'cli-errors.md');

interface Mistake {
  mistake: string;
  args: string[];
  code: number;
}

describe('CLI mistakes: exit code and first line (docs/cli-errors.md)', () => {
  let dir: string;
  let busy: Server;
  let port = 0;
  beforeAll(async () => {
    dir = tempDir('catalog-cli-errors-');
    writeFileSync(join(dir, 'a-file'), 'not a directory\n');
    writeFileSync(join(dir, 'unknown-attribute.csv'), 'part_id,name.en,attr:sumary.en\np:1,One,First\n');
    mkdirSync(join(dir, 'cantopen', 'catalog.db'), { recursive: true });
    // A catalog a newer program migrated: its schema version is above this program's.
    mkdirSync(join(dir, 'newer'));
    const newer = new Database(join(dir, 'newer', 'catalog.db'));
    newer.pragma('user_version = 99');
    newer.close();
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    port = (busy.address() as { port: number }).port;
    const token = run(['--data-dir', join(dir, 'data'), 'tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin']);
    expect(token.code).toBe(0);
  });
  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the built CLI; a hang (such as a recursive mkdir retrying forever under /proc) ends in a kill after 20 s and fails the test. */
  function run(args: string[]) {
    const result = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: '1', NO_COLOR: '1' }, timeout: 20_000 });
    return { code: result.status, signal: result.signal, stderr: result.stderr ?? '' };
  }

  const mistakes = (): Mistake[] => {
    const data = ['--data-dir', join(dir, 'data')];
    return [
      { mistake: 'unknown command', args: [...data, 'prts', 'list'], code: 2 },
      { mistake: 'unknown subcommand', args: [...data, 'parts', 'lst'], code: 2 },
      { mistake: 'unknown option', args: [...data, 'parts', 'list', '--limt', '5'], code: 2 },
      { mistake: 'missing argument', args: [...data, 'parts', 'show'], code: 2 },
      { mistake: 'missing required option', args: [...data, 'relations', 'add', 'a', 'b'], code: 2 },
      { mistake: 'too many arguments', args: [...data, 'parts', 'list', 'extra'], code: 2 },
      { mistake: 'noun without its verb', args: [...data, 'parts'], code: 2 },
      { mistake: 'invalid value: --limit 0', args: [...data, 'search', 'x', '--limit', '0'], code: 2 },
      { mistake: 'invalid value: --page 0', args: [...data, 'search', 'x', '--page', '0'], code: 2 },
      { mistake: 'invalid value: --port 99999', args: [...data, 'serve', '--port', '99999'], code: 2 },
      { mistake: 'port in use (EADDRINUSE)', args: [...data, 'serve', '--port', String(port)], code: 2 },
      { mistake: 'data dir on /proc (no directories there)', args: ['--data-dir', '/proc/nope', 'tokens', 'create', '--name', 'x', '--role', 'catalogReader'], code: 2 },
      { mistake: 'read of a data dir that does not exist', args: ['--data-dir', join(dir, 'nowhere'), 'parts', 'list'], code: 6 },
      { mistake: 'data dir is a file', args: ['--data-dir', join(dir, 'a-file'), 'parts', 'list'], code: 2 },
      { mistake: 'data dir under a file (ENOTDIR)', args: ['--data-dir', join(dir, 'a-file', 'sub'), 'parts', 'list'], code: 2 },
      { mistake: 'database cannot be opened (SQLITE_CANTOPEN)', args: ['--data-dir', join(dir, 'cantopen'), 'parts', 'list'], code: 2 },
      { mistake: 'database written by a newer catalog', args: ['--data-dir', join(dir, 'newer'), 'parts', 'list'], code: 2 },
      { mistake: 'input file missing', args: [...data, 'parts', 'import', 'missing.csv'], code: 2 },
      { mistake: 'input file missing, extension unknown', args: [...data, 'parts', 'import', 'missing.txt'], code: 2 },
      { mistake: 'backup with neither a directory nor --verify-dump', args: [...data, 'backup'], code: 2 },
      { mistake: 'backup --verify-dump of a file that is missing', args: [...data, 'backup', '--verify-dump', 'missing.sql'], code: 2 },
      { mistake: 'backup --verify-dump of a file that is not a catalog dump', args: [...data, 'backup', '--verify-dump', 'unknown-attribute.csv'], code: 2 },
      { mistake: 'CSV column of an attribute the catalog lacks', args: [...data, 'parts', 'import', 'unknown-attribute.csv'], code: 2 },
      { mistake: '--batch-size over the API limit', args: [...data, 'parts', 'import', 'unknown-attribute.csv', '--batch-size', '5000'], code: 2 },
      { mistake: 'search --limit over 1000', args: [...data, 'search', 'x', '--limit', '100000'], code: 2 },
      { mistake: 'search --filter of an unknown attribute', args: [...data, 'search', 'x', '--filter', 'summary=x'], code: 2 },
      { mistake: 'search --page past the last page', args: [...data, 'search', 'x', '--page', '99999999'], code: 2 },
      { mistake: 'relations add with an unknown type', args: [...data, 'relations', 'add', 'a', 'b', '--type', 'sibling'], code: 2 },
      { mistake: 'a token with a space inside', args: ['--remote', `http://127.0.0.1:${port}`, '--token', 'abc def', 'parts', 'list'], code: 2 },
      { mistake: '--remote host that does not resolve', args: ['--remote', 'http://localhots:18556', 'parts', 'list'], code: 5 },
    ];
  };

  it('each mistake exits with its code and an error line (never "bug:")', async () => {
    const rows: string[] = [];
    for (const m of mistakes()) {
      const result = run(m.args);
      const first = result.stderr.split('\n')[0] ?? '';
      expect({ mistake: m.mistake, code: result.code, signal: result.signal }).toEqual({ mistake: m.mistake, code: m.code, signal: null });
      expect(first).toMatch(/^error: /);
      // Stable across runs: the temp dir and the busy port are placeholders in the doc.
      const shown = (text: string) => text.replaceAll(dir, '<tmp>').replaceAll(String(port), '<port>').replaceAll('|', '\\|');
      rows.push(`| ${m.mistake} | \`catalog ${shown(m.args.join(' '))}\` | ${result.code} | \`${shown(first)}\` |`);
    }
    // Busy and full databases, a read-only one and a full disk cannot be provoked on demand (root
    // ignores permissions; a full disk needs a quota): the built reportError explains real
    // SqliteError / system error objects.
    const { reportError } = (await import(pathToFileURL(join(ROOT, 'dist', 'cli', 'main.js')).href)) as typeof import('../../src/cli/main.js');
    const synthetic: [string, unknown][] = [
      ['database busy (SQLITE_BUSY)', new Database.SqliteError('database is locked', 'SQLITE_BUSY')],
      ['disk full (SQLITE_FULL)', new Database.SqliteError('database or disk is full', 'SQLITE_FULL')],
      ['read-only database (SQLITE_READONLY)', new Database.SqliteError('attempt to write a readonly database', 'SQLITE_READONLY')],
      ['disk full writing a file (ENOSPC)', Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC', syscall: 'write', path: '<tmp>/data/images/tmp/x' })],
      ['read-only file system (EROFS)', Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS', syscall: 'mkdir', path: '<tmp>/data/images' })],
    ];
    for (const [mistake, error] of synthetic) {
      let text = '';
      const stderr = new PassThrough().on('data', (d: Buffer) => (text += d.toString()));
      const code = reportError(error, { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {}, cwd: dir }, { dataDir: '<tmp>/data' });
      expect(text).toMatch(/^error: /);
      rows.push(`| ${mistake} | (reportError of dist/cli/main.js on the error object) | ${code} | \`${text.split('\n')[0] ?? ''}\` |`);
    }
    const doc = [
      '# CLI mistakes: exit code and first line of output',
      '',
      'Generated by running the built CLI (`bin/catalog.js`) in test/e2e/cli-errors.test.ts; regenerate with',
      '`npm run build && UPDATE_CLI_ERRORS=1 npx vitest run test/e2e/cli-errors.test.ts`. `<tmp>` is the',
      "test's temporary directory, `<port>` a port another process listens on. Exit codes: src/cli/exit-codes.ts;",
      'environment errors (5 when the database is busy or the disk full, 2 for a bad path or port):',
      'src/cli/environment-errors.ts.',
      '',
      '| mistake | command | exit code | first line of output |',
      '|---|---|---|---|',
      ...rows,
      '',
    ].join('\n');
    if (process.env.UPDATE_CLI_ERRORS === '1') writeFileSync(DOC, doc);
    expect(readFileSync(DOC, 'utf8')).toBe(doc);
  });
});
