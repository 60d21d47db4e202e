/**
 * The local state a sync keeps between runs (docs/cli.md, "Sync"), so a run over an unchanged
 * source does not redo the previous run's work: `images sync` keeps each photo's SHA-256 by path,
 * size and modification time; `parts import --sync` keeps, per part_id, the hash of the row the
 * catalog was last seen to hold and the change number (POST /1/catalog/changes) it was seen at.
 *
 * One JSON file per source and catalog under `$XDG_CACHE_HOME/catalog/sync/` (default
 * `~/.cache/catalog/sync/`). It is a cache: a missing, unreadable or foreign file means a full run,
 * never a wrong one, and `--no-sync-state` ignores it.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { CliConfig } from '../config.js';

/** Bumped when a state's shape changes: older files are ignored. */
const STATE_VERSION = 1;

/** Where the state of one sync lives, and what it is bound to. */
export interface SyncStateFile {
  path: string;
  /**
   * What the file is bound to (source and catalog), hashed (a database URL may hold a password):
   * a file bound to anything else is ignored.
   */
  key: string;
}

/**
 * The state file of a `kind` of sync (`images`, `parts`) over `source` (a resolved path) into the
 * catalog the configuration reaches (its URL, database URL or data directory).
 */
export function syncStateFile(env: NodeJS.ProcessEnv, config: CliConfig, cwd: string, kind: 'images' | 'parts', source: string): SyncStateFile {
  const target = config.remote.value ?? config.databaseUrl.value ?? resolve(cwd, config.dataDir.value);
  const key = createHash('sha256').update(JSON.stringify([kind, source, target])).digest('hex');
  const base = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(env.HOME ?? homedir(), '.cache');
  return { path: join(base, 'catalog', 'sync', `${kind}-${key.slice(0, 24)}.json`), key };
}

/** The data of a state file, or undefined when it is missing, unreadable, of another version or bound to something else. */
export async function readSyncState<T>(file: SyncStateFile): Promise<T | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file.path, 'utf8')) as { version?: unknown; key?: unknown; data?: T };
    return parsed.version === STATE_VERSION && parsed.key === file.key ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces the state file (written aside, then renamed: a crash leaves the old file or the new,
 * never half of one). Returns the error's message instead of throwing: a state that cannot be
 * written makes the next run slower, not this one fail.
 */
export async function writeSyncState(file: SyncStateFile, data: unknown): Promise<string | undefined> {
  try {
    await mkdir(dirname(file.path), { recursive: true });
    const temp = `${file.path}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify({ version: STATE_VERSION, key: file.key, data }), 'utf8');
    await rename(temp, file.path);
    return undefined;
  } catch (error) {
    return `sync state not saved (${file.path}): ${(error as Error).message}; the next run compares everything again`;
  }
}
