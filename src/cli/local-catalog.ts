/**
 * Opening the catalog of a local data directory from the CLI: the directory is made ready first
 * (./data-dir.ts), so a path that cannot be a data directory fails fast with a message naming it.
 * The core and its adapters (better-sqlite3, sharp) load only here, when a command needs them.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CatalogError } from '../api/errors.js';
import type { Catalog } from '../core/services.js';
import type { CatalogLocation } from '../open-catalog.js';
import { prepareDataDir } from './data-dir.js';

/**
 * Verbs that only read (design/cli.md: the data directory is created on the first WRITE): on a
 * data directory that does not exist they fail instead of creating an empty catalog.
 */
export const READ_VERBS: ReadonlySet<string> = new Set(['list', 'get', 'show', 'search', 'order', 'download', 'export', 'status', 'eval']);

/**
 * Refuses to read a data directory that does not exist (a mistyped --data-dir would
 * otherwise answer with an empty catalog, exit 0).
 *
 * @throws CatalogError `not_found` (exit 6) naming the directory.
 */
export function assertDataDirExists(dataDir: string): void {
  try {
    statSync(resolve(dataDir));
    return;
  } catch (error) {
    // A path under a file (ENOTDIR) or unreadable: opening it explains that (exit 2, data-dir.ts).
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
  }
  throw new CatalogError('not_found', `data directory ${dataDir} does not exist: nothing to read (an import, upload or tokens create makes it; check --data-dir, CATALOG_DATA_DIR or the profile)`);
}

/**
 * Opens the catalog in `dataDir`, creating the directory if needed; in PostgreSQL and/or S3 when
 * `location` names them (--database-url, --blob-url).
 *
 * @throws DataDirError (exit 2) when the directory cannot be used; better-sqlite3's SqliteError
 *   (classified by src/cli/environment-errors.ts) when the database cannot be opened.
 */
export async function openLocalCatalog(dataDir: string, location: CatalogLocation = {}): Promise<Catalog> {
  // With both a database and a blob URL nothing lives in the data directory.
  if (location.databaseUrl === undefined || location.blobUrl === undefined) prepareDataDir(dataDir);
  const { openCatalogAt } = await import('../open-catalog.js');
  return openCatalogAt({ dataDir, ...location });
}
