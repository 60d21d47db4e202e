/**
 * When the photo index is read from its snapshot file and when it is written there (start-up;
 * docs/search.md). The stored records stay the truth: a snapshot
 * names the change number of the catalog's feature change log it is current to
 * (ReferenceFeatureStore.changeVersion), the owner (image-search.ts) applies the later changes, and
 * anything that does not fit — another catalog's history, a newer snapshot than the catalog, a
 * damaged file, another format — is a rebuild from the records, never a wrong answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ReferenceFeatureStore } from '../../core/ports.js';
import type { SnapshotReader } from '../../core/search/photo/index-snapshot.js';
import type { PhotoReferenceIndex } from '../../core/search/photo/photo-search.js';
import { openPhotoIndexFile, PendingSnapshot, writePhotoIndexFile } from './photo-index-file.js';

/** Options of {@link PhotoIndexSnapshots}. */
export interface PhotoIndexSnapshotOptions {
  /** The snapshot file (a SQLite catalog's: `<dataDir>/photo-index.snapshot`; open-catalog.ts). */
  file: string;
  /**
   * Fewest references worth a snapshot (default 1,000): below, a build from the records takes a
   * few hundred milliseconds and a file would only take disk space.
   */
  minReferences?: number;
  /**
   * Changes on top of a snapshot that make writing it again worthwhile: max(minChanges, 5 % of the
   * references) (default 500; each costs a start-up about what an upload costs the running index).
   */
  minChanges?: number;
}

/** What the snapshots did (diagnostics, tests). */
export interface PhotoIndexSnapshotStats {
  /** Indexes read from the file. */
  loads: number;
  /** Files written. */
  writes: number;
  /** Writes that failed (a full disk, a read-only directory). */
  failedWrites: number;
  /** Bytes and wall milliseconds of the last write. */
  lastWriteBytes: number;
  lastWriteMs: number;
  /** Why the last snapshot was not read or not written (undefined: no problem yet). */
  lastProblem: string | undefined;
}

/** Bytes a snapshot takes per reference, with a margin (~30 KB: 10,000 references, 299 MB). */
export const SNAPSHOT_BYTES_PER_REFERENCE = 32_768;

/** The snapshot file's name in a data directory. */
export const PHOTO_INDEX_FILE = 'photo-index.snapshot';

/**
 * The photo index's snapshot file of a catalog: none when the catalog is opened without one
 * (`photoIndexSnapshot` false: `catalog serve`'s threads); `CATALOG_PHOTO_INDEX_FILE` when set
 * (empty or `0`: none; a path: that file, which must belong to this catalog alone), else
 * `<dataDir>/photo-index.snapshot` for a catalog in a data directory (SQLite), else none (a
 * PostgreSQL catalog's servers have no directory of the catalog's own).
 */
export function photoIndexFileOf(
  catalog: { dataDir: string | undefined; databaseUrl?: string | undefined; photoIndexSnapshot?: boolean | undefined },
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (catalog.photoIndexSnapshot === false) return undefined;
  const setting = env.CATALOG_PHOTO_INDEX_FILE;
  if (setting !== undefined) return setting === '' || setting === '0' ? undefined : setting;
  return catalog.dataDir !== undefined && catalog.databaseUrl === undefined ? path.join(catalog.dataDir, PHOTO_INDEX_FILE) : undefined;
}

/** The snapshot file of one photo index: reads it at start-up, writes it after a build. */
export class PhotoIndexSnapshots {
  readonly file: string;
  readonly stats: PhotoIndexSnapshotStats = { loads: 0, writes: 0, failedWrites: 0, lastWriteBytes: 0, lastWriteMs: 0, lastProblem: undefined };
  private readonly minReferences: number;
  private readonly minChanges: number;
  /** The write in progress: the index's memory is in it, so the index must not change until it ends. */
  private writing: Promise<void> | undefined;

  constructor(options: PhotoIndexSnapshotOptions) {
    this.file = options.file;
    this.minReferences = options.minReferences ?? 1000;
    this.minChanges = options.minChanges ?? 500;
  }

  /**
   * The index of the snapshot file and the change number it is current to, or undefined when
   * there is no file or it cannot be used here (the reason in `stats.lastProblem`): it is newer
   * than the catalog's change log, of another history (the change it names is not the catalog's
   * change of that number: another catalog, a restored backup), damaged, or `build` refuses it
   * (another format, vocabulary or options: photo-search.ts PhotoReferenceIndex.fromSnapshot).
   * @throws the store's error when the change log cannot be read.
   */
  async load(references: ReferenceFeatureStore, build: (reader: SnapshotReader) => Promise<PhotoReferenceIndex>): Promise<{ index: PhotoReferenceIndex; version: number } | undefined> {
    let opened;
    try {
      opened = openPhotoIndexFile(this.file);
    } catch (error) {
      return this.problem(`${this.file} not read: ${(error as Error).message}`);
    }
    if (!opened) return undefined;
    try {
      const version = opened.header.changeVersion;
      const lastChange = opened.header.lastChange;
      if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) return this.problem(`${this.file}: no change number`);
      const current = await references.changeVersion();
      if (version > current) return this.problem(`${this.file} is at change ${version}, the catalog at ${current}`);
      const change = await lastChangeOf(references, version);
      if (change === undefined || change !== lastChange) return this.problem(`${this.file} is of another history than the catalog's (change ${version})`);
      let index: PhotoReferenceIndex;
      try {
        index = await build(opened.reader);
      } catch (error) {
        // Whatever the file holds, a snapshot that cannot be read is a rebuild, never a failed search.
        return this.problem(`${this.file} not read: ${(error as Error).message}`);
      }
      this.stats.loads++;
      return { index, version };
    } finally {
      opened.close();
    }
  }

  /**
   * Whether `changes` changes on top of the snapshot of an index of `references` images make
   * writing it again worthwhile: at least max(minChanges, 5 % of the references), and at least
   * minReferences references.
   */
  wantsRewrite(changes: number, references: number): boolean {
    return references >= this.minReferences && changes >= Math.max(this.minChanges, 0.05 * references);
  }

  /**
   * The change number and reference count the snapshot file names, without reading its sections;
   * undefined when there is no readable file.
   */
  fileInfo(): { changeVersion: number; references: number } | undefined {
    try {
      const opened = openPhotoIndexFile(this.file);
      if (!opened) return undefined;
      opened.close();
      const { changeVersion, references } = opened.header;
      return typeof changeVersion === 'number' && typeof references === 'number' ? { changeVersion, references } : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Whether a snapshot of about `bytes` bytes can be written now: no write of this process failed,
   * the directory is writable (not a read-only mount) and its file system has room for it with a
   * margin. Checked before building an index only to write it (a catalog's close), so a read-only
   * or full data directory does not make every command build the index for nothing.
   */
  writable(bytes: number): boolean {
    if (this.stats.failedWrites > 0) return false;
    const dir = path.dirname(this.file);
    try {
      fs.accessSync(dir, fs.constants.W_OK);
      const { bavail, bsize } = fs.statfsSync(dir);
      return bavail * bsize > 2 * bytes;
    } catch {
      return false;
    }
  }

  /**
   * Starts writing `index` (current to change `version`) in the background, when it holds at least
   * `minReferences` images, no write is running and none failed; true when started. The index's sections are
   * taken now; the index must not change until {@link idle} resolves (queries may run: their
   * memory is left out of the sections). A failed write is recorded in `stats.lastProblem`, never
   * thrown: a snapshot is a cache.
   */
  save(index: PhotoReferenceIndex, version: number, references: ReferenceFeatureStore): boolean {
    // After a failed write (a full disk, a read-only directory) this process does not try again.
    if (index.size < this.minReferences || this.writing || this.stats.failedWrites > 0) return false;
    const pending = new PendingSnapshot();
    index.writeSnapshot(pending);
    const started = performance.now();
    this.writing = (async () => {
      try {
        await removeAbandonedTemporaries(this.file);
        const lastChange = await lastChangeOf(references, version);
        if (lastChange === undefined) throw new Error(`change ${version} is no longer in the change log`);
        const header = { changeVersion: version, lastChange, references: index.size };
        this.stats.lastWriteBytes = await writePhotoIndexFile(this.file, header, pending);
        this.stats.lastWriteMs = performance.now() - started;
        this.stats.writes++;
      } catch (error) {
        this.stats.failedWrites++;
        this.stats.lastProblem = `${this.file} not written: ${(error as Error).message}`;
      } finally {
        this.writing = undefined;
      }
    })();
    return true;
  }

  /** Resolves once no write is running (at once when none is). */
  async idle(): Promise<void> {
    await this.writing;
  }

  private problem(reason: string): undefined {
    this.stats.lastProblem = reason;
    return undefined;
  }
}

/**
 * The image id of change number `version` of the catalog's feature change log (null for 0: no
 * change yet), or undefined when the log no longer holds it.
 */
async function lastChangeOf(references: ReferenceFeatureStore, version: number): Promise<string | null | undefined> {
  if (version === 0) return null;
  const change = await references.changesSince(version - 1, 1);
  if (!change.complete || change.version !== version) return undefined;
  return change.upserted[0]?.image_id ?? change.removed[0];
}

/**
 * Removes the temporary files of writes whose process is gone (killed mid-write): each is as large
 * as the index. A temporary file is named `<file>.<pid>.<time>.tmp` (photo-index-file.ts).
 */
async function removeAbandonedTemporaries(file: string): Promise<void> {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = name.startsWith(`${base}.`) ? /^\.(\d+)\.\d+\.tmp$/.exec(name.slice(base.length)) : null;
    if (!match || processAlive(Number(match[1]))) continue;
    await fs.promises.rm(path.join(dir, name), { force: true });
  }
}

/** Whether process `pid` runs (on this machine: the data directory is local). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
