/**
 * Mistakes of the user's environment, told apart from bugs (design/cli.md, "Conventions": a busy,
 * full, read-only or missing database, a port in use, a path that cannot be read or written are
 * ordinary errors naming the path or port). src/cli/main.ts asks {@link classifyEnvironmentError}
 * before it calls anything a bug.
 *
 * Exit codes: 5 (unavailable) when retrying later may help (database busy, storage full); 2 (usage)
 * when the path or port given must change.
 */
import { SchemaTooNewError } from '../core/schema-too-new.js';
import { IdCollisionError } from '../core/id-collision.js';
import { EXIT } from './exit-codes.js';

/** What the CLI knows about where an error may come from, to name it in the message. */
export interface ErrorScene {
  /** The local data directory in force (absent in remote mode). */
  dataDir?: string | undefined;
}

/** An environment error explained: the message (no `error: ` prefix) and the exit code. */
export interface EnvironmentProblem {
  message: string;
  exitCode: number;
}

/** A data directory that cannot be used (not a directory, cannot be created): thrown by the CLI itself. */
export class DataDirError extends Error {
  readonly dataDir: string;

  /** @param message a complete sentence naming the data directory. */
  constructor(dataDir: string, message: string) {
    super(message);
    this.name = 'DataDirError';
    this.dataDir = dataDir;
  }
}

/** The SQLite result codes of better-sqlite3's SqliteError (its `.code`), by meaning. */
const SQLITE_BUSY = /^SQLITE_(BUSY|LOCKED)/;
const SQLITE_FULL = /^SQLITE_FULL/;
const SQLITE_READONLY = /^SQLITE_READONLY/;
const SQLITE_CANTOPEN = /^SQLITE_CANTOPEN/;
const SQLITE_NOTADB = /^SQLITE_(NOTADB|CORRUPT)/;

/** Node system error codes that mean "this path or port cannot be used". */
const PATH_CODES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
};

function where(scene: ErrorScene): string {
  return scene.dataDir !== undefined ? ` in data directory ${scene.dataDir}` : '';
}

/**
 * Explains `error` when it is an environment problem (SQLite busy/full/read-only/cannot-open/not a
 * database, a database a newer catalog wrote, stored ids the NFC migration cannot merge, a data directory that cannot be used, EADDRINUSE/EADDRNOTAVAIL/EACCES on a port,
 * ENOENT/ENOTDIR/EISDIR/EACCES/EPERM/EROFS/ENOSPC/EDQUOT on a path); `undefined` for anything else,
 * which the caller reports as a bug.
 */
export function classifyEnvironmentError(error: unknown, scene: ErrorScene = {}): EnvironmentProblem | undefined {
  if (error instanceof DataDirError) return { message: error.message, exitCode: EXIT.USAGE };
  if (error instanceof SchemaTooNewError) return { message: error.messageIn(where(scene)), exitCode: EXIT.USAGE };
  if (error instanceof IdCollisionError) return { message: error.message, exitCode: EXIT.ERROR };
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as NodeJS.ErrnoException & { address?: string; port?: number; name?: string };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code === undefined) return undefined;
  if (e.name === 'SqliteError' || code.startsWith('SQLITE_')) {
    if (SQLITE_BUSY.test(code)) {
      return { message: `the catalog database${where(scene)} is busy: another process holds a write lock (${code}); try again when it has finished`, exitCode: EXIT.UNAVAILABLE };
    }
    if (SQLITE_FULL.test(code)) return { message: `the disk holding the catalog database${where(scene)} is full (${code}); free some space and try again`, exitCode: EXIT.UNAVAILABLE };
    if (SQLITE_READONLY.test(code)) return { message: `the catalog database${where(scene)} is read-only (${code}); use a writable data directory (--data-dir)`, exitCode: EXIT.USAGE };
    if (SQLITE_CANTOPEN.test(code)) return { message: `cannot open the catalog database${where(scene)} (${code}): check that the directory and its catalog.db can be read and written`, exitCode: EXIT.USAGE };
    if (SQLITE_NOTADB.test(code)) return { message: `the catalog database${where(scene)} is not a catalog database or is damaged (${code}): ${e.message}`, exitCode: EXIT.USAGE };
    return undefined;
  }
  if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || (e.syscall === 'listen' && (code === 'EACCES' || code === 'EPERM'))) {
    const address = `${e.address ?? 'the address'}${e.port !== undefined ? `:${e.port}` : ''}`;
    const why = code === 'EADDRINUSE' ? 'is already in use by another process; choose another --port (0 = any free port)'
      : code === 'EADDRNOTAVAIL' ? 'is not an address of this machine; check --host'
      : 'needs privileges to listen on; choose a --port above 1023';
    return { message: `cannot listen on ${address}: it ${why} (${code})`, exitCode: EXIT.USAGE };
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return { message: `no space left on the device${e.path !== undefined ? ` writing ${e.path}` : where(scene)} (${code}); free some space and try again`, exitCode: EXIT.UNAVAILABLE };
  }
  const reason = PATH_CODES[code];
  if (reason !== undefined && (e.path !== undefined || e.syscall !== undefined)) {
    const path = e.path ?? scene.dataDir ?? '(unknown path)';
    return { message: `cannot ${verbOf(e.syscall)} ${path}: ${reason} (${code})`, exitCode: EXIT.USAGE };
  }
  return undefined;
}

/** What the failed system call tried to do, in words. */
function verbOf(syscall: string | undefined): string {
  switch (syscall) {
    case 'open':
    case 'read':
    case 'stat':
    case 'lstat':
    case 'scandir':
      return 'use';
    case 'mkdir':
      return 'create directory';
    case 'rename':
    case 'write':
    case 'unlink':
    case 'rmdir':
    case 'copyfile':
      return 'write';
    default:
      return 'use';
  }
}
