/**
 * Opening the catalog of a local data directory from the CLI: the directory is made ready first
 * (./data-dir.ts), so a path that cannot be a data directory fails fast with a message naming it.
 * The core and its adapters (better-sqlite3, sharp) load only here, when a command needs them.
 */
import type { Catalog } from '../core/services.js';
import { prepareDataDir } from './data-dir.js';

/**
 * Opens the catalog in `dataDir`, creating the directory if needed.
 *
 * @throws DataDirError (exit 2) when the directory cannot be used; better-sqlite3's SqliteError
 *   (classified by src/cli/environment-errors.ts) when the database cannot be opened.
 */
export async function openLocalCatalog(dataDir: string): Promise<Catalog> {
  prepareDataDir(dataDir);
  const { openCatalog } = await import('../open-catalog.js');
  return openCatalog({ dataDir });
}
