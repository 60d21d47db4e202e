/**
 * The local data directory, made ready before the catalog opens it. openCatalog (src/open-catalog.ts)
 * creates it with `mkdirSync(dir, {recursive: true})`, which on Node 20 never returns for a path
 * under /proc (libuv's recursive mkdir retries ENOENT forever, at 100 % CPU). Creating it here one
 * level at a time fails fast instead, with a message naming the directory.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataDirError } from './environment-errors.js';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'its parent cannot hold directories',
  ENOTDIR: 'a part of its path is a file, not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

function fail(dataDir: string, what: string, error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  throw new DataDirError(dataDir, `${what} data directory ${dataDir}: ${REASONS[code] ?? (error as Error).message} (${code || 'error'})`);
}

/** Creates `dir` and its missing parents, one level at a time. */
function create(dir: string, dataDir: string): void {
  try {
    if (statSync(dir).isDirectory()) return;
    throw new DataDirError(dataDir, `cannot use data directory ${dataDir}: ${dir === dataDir ? 'it is a file, not a directory' : `${dir} is a file, not a directory`}`);
  } catch (error) {
    if (error instanceof DataDirError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') fail(dataDir, 'cannot use', error);
  }
  const parent = dirname(dir);
  if (parent !== dir) create(parent, dataDir);
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    fail(dataDir, 'cannot create', error);
  }
}

/**
 * Makes sure the data directory `dataDir` exists and is a directory (creating it and its parents).
 *
 * @throws DataDirError (exit 2) naming the directory when it is a file, lies under a file, or cannot
 *   be created (read-only file system, permission denied, a pseudo file system such as /proc).
 */
export function prepareDataDir(dataDir: string): void {
  create(resolve(dataDir), dataDir);
}
