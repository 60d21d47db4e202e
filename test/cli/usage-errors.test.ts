/**
 * Usage errors exit 2 at every level (design/cli.md, "Conventions"), with a first
 * line `error: ...` as commander writes it and a "did you mean" for near misses; mistakes of the
 * environment are explained, never reported as a bug.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELATION_SOURCES, RELATION_TYPES, ROLES } from '../../src/api/schemas.js';
import { RELATION_SOURCE_NAMES, RELATION_TYPE_NAMES } from '../../src/cli/commands/relations/vocabulary.js';
import { ROLE_NAMES } from '../../src/cli/commands/tokens/create.js';
import { reportError } from '../../src/cli/main.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';

const firstLine = (text: string) => text.split('\n')[0];

describe('usage errors exit 2 with an error line', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('catalog-cli-usage-');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['unknown command', ['prts', 'list'], "error: unknown command 'prts'", '(Did you mean parts?)'],
    ['unknown subcommand', ['parts', 'lst'], "error: unknown command 'lst'", '(Did you mean list?)'],
    ['unknown option', ['parts', 'list', '--limt', '5'], "error: unknown option '--limt'", '(Did you mean --limit?)'],
    ['unknown global option', ['--data-dri', 'x', 'parts', 'list'], "error: unknown option '--data-dri'", '(Did you mean --data-dir?)'],
    ['missing argument', ['parts', 'show'], "error: missing required argument 'id'", undefined],
    ['missing required option', ['relations', 'add', 'a', 'b'], "error: required option '--type <type>' not specified", undefined],
    ['too many arguments', ['parts', 'list', 'extra'], "error: too many arguments for 'list'. Expected 0 arguments but got 1.", undefined],
    ['noun without its verb', ['parts'], "error: missing command for 'parts'; one of: import, list, get, delete, show", undefined],
    ['search --limit 0', ['search', 'x', '--limit', '0'], "error: option '--limit <n>' argument '0' is invalid. Expected an integer from 1 to 1000.", undefined],
    ['search --page 0', ['search', 'x', '--page', '0'], "error: option '--page <n>' argument '0' is invalid. Expected an integer of at least 1.", undefined],
    ['list --limit abc', ['parts', 'list', '--limit', 'abc'], "error: option '--limit <n>' argument 'abc' is invalid. Expected an integer of at least 1.", undefined],
    ['serve --port 99999', ['serve', '--port', '99999'], "error: option '--port <port>' argument '99999' is invalid. Expected an integer from 0 to 65535.", undefined],
    ['our own usage error', ['parts', 'import', '-'], 'error: reading stdin (-) needs --format csv|tsv|json|ndjson', undefined],
  ])('%s', async (_name, args, first, suggestion) => {
    const result = await cli(['--data-dir', join(dir, 'data'), ...args], { cwd: dir });
    expect(result.code).toBe(2);
    expect(firstLine(result.stderr)).toBe(first);
    if (suggestion !== undefined) expect(result.stderr.split('\n')[1]).toBe(suggestion);
    expect(result.stderr).not.toContain('bug:');
  });

  it('--help and --version still exit 0', async () => {
    expect((await cli(['--version'], { cwd: dir })).code).toBe(0);
    expect((await cli(['parts', '--help'], { cwd: dir })).code).toBe(0);
  });

  it('help texts name the same vocabulary as the API schemas', () => {
    expect([...RELATION_TYPE_NAMES]).toEqual([...RELATION_TYPES]);
    expect([...RELATION_SOURCE_NAMES]).toEqual([...RELATION_SOURCES]);
    expect([...ROLE_NAMES]).toEqual([...ROLES]);
  });
});

describe('mistakes of the environment are explained, not called bugs', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('catalog-cli-env-');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['a data directory that is a file', (d: string) => { writeFileSync(join(d, 'file'), 'x'); return join(d, 'file'); }, 'it is a file, not a directory'],
    ['a data directory under a file (ENOTDIR)', (d: string) => { writeFileSync(join(d, 'file2'), 'x'); return join(d, 'file2', 'sub'); }, 'a part of its path is a file, not a directory (ENOTDIR)'],
    ['a catalog.db that cannot be opened (SQLITE_CANTOPEN)', (d: string) => { mkdirSync(join(d, 'cant', 'catalog.db'), { recursive: true }); return join(d, 'cant'); }, '(SQLITE_CANTOPEN)'],
    ['a catalog.db a newer catalog wrote (schema version 99)', (d: string) => { mkdirSync(join(d, 'newer')); const db = new Database(join(d, 'newer', 'catalog.db')); db.pragma('user_version = 99'); db.close(); return join(d, 'newer'); }, "has schema version 99, newer than this program's"],
    ['a catalog.db that is not a database (SQLITE_NOTADB)', (d: string) => { mkdirSync(join(d, 'notadb')); writeFileSync(join(d, 'notadb', 'catalog.db'), 'not a database '.repeat(40)); return join(d, 'notadb'); }, '(SQLITE_NOTADB)'],
  ])('%s: exit 2 naming the directory', async (_name, make, reason) => {
    const dataDir = make(dir);
    const result = await cli(['--data-dir', dataDir, 'parts', 'list'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(firstLine(result.stderr)).toMatch(/^error: /);
    expect(firstLine(result.stderr)).toContain(dataDir);
    expect(firstLine(result.stderr)).toContain(reason);
  });

  const io = () => {
    const stderr = new PassThrough();
    let text = '';
    stderr.on('data', (d: Buffer) => (text += d.toString()));
    return { io: { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {}, cwd: dir }, text: () => text };
  };
  const sqliteError = (code: string) => new Database.SqliteError(`${code.toLowerCase()} message`, code);
  const systemError = (code: string, props: Record<string, unknown>) => Object.assign(new Error(`${code}: ${JSON.stringify(props)}`), { code, ...props });

  it.each([
    ['SQLITE_BUSY', sqliteError('SQLITE_BUSY'), 5, 'error: the catalog database in data directory /data is busy: another process holds a write lock (SQLITE_BUSY); try again when it has finished'],
    ['SQLITE_FULL', sqliteError('SQLITE_FULL'), 5, 'error: the disk holding the catalog database in data directory /data is full (SQLITE_FULL); free some space and try again'],
    ['SQLITE_READONLY', sqliteError('SQLITE_READONLY'), 2, 'error: the catalog database in data directory /data is read-only (SQLITE_READONLY); use a writable data directory (--data-dir)'],
    ['SQLITE_CANTOPEN', sqliteError('SQLITE_CANTOPEN'), 2, 'error: cannot open the catalog database in data directory /data (SQLITE_CANTOPEN): check that the directory and its catalog.db can be read and written'],
    ['EADDRINUSE', systemError('EADDRINUSE', { syscall: 'listen', address: '127.0.0.1', port: 8080 }), 2, 'error: cannot listen on 127.0.0.1:8080: it is already in use by another process; choose another --port (0 = any free port) (EADDRINUSE)'],
    ['EACCES on a port', systemError('EACCES', { syscall: 'listen', address: '0.0.0.0', port: 80 }), 2, 'error: cannot listen on 0.0.0.0:80: it needs privileges to listen on; choose a --port above 1023 (EACCES)'],
    ['EACCES on a path', systemError('EACCES', { syscall: 'open', path: '/data/x.csv' }), 2, 'error: cannot use /data/x.csv: permission denied (EACCES)'],
    ['ENOENT', systemError('ENOENT', { syscall: 'open', path: '/nope/x.jpg' }), 2, 'error: cannot use /nope/x.jpg: no such file or directory (ENOENT)'],
    ['EROFS', systemError('EROFS', { syscall: 'mkdir', path: '/ro/images' }), 2, 'error: cannot create directory /ro/images: read-only file system (EROFS)'],
    ['ENOSPC', systemError('ENOSPC', { syscall: 'write', path: '/data/images/tmp/x' }), 5, 'error: no space left on the device writing /data/images/tmp/x (ENOSPC); free some space and try again'],
  ])('%s', (_name, error, code, first) => {
    const { io: streams, text } = io();
    expect(reportError(error, streams, { dataDir: '/data' })).toBe(code);
    expect(firstLine(text())).toBe(first);
  });

  it('a real bug is still reported as a bug, exit 1', () => {
    const { io: streams, text } = io();
    expect(reportError(new TypeError('x is not a function'), streams)).toBe(1);
    expect(firstLine(text())).toBe('bug: an unexpected error occurred; please report it with this text.');
  });
});
