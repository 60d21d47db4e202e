/**
 * The photos' SHA-256 from the last `images sync` of a folder (docs/cli.md, "Sync"), keyed by
 * path, size and modification time, so a run over an unchanged folder reads no photo's bytes: it
 * stats each file and hashes only those whose size or time moved. The stored ETag stays the truth:
 * a remembered hash that differs from it is hashed again from the file before anything is sent.
 *
 * Blind spot (documented): a photo rewritten with other bytes of the same size and its old time put
 * back (some copy tools keep times) is taken as unchanged; `--no-sync-state` hashes every photo.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readSyncState, writeSyncState, type SyncStateFile } from './state.js';

/** A photo's remembered hash: [size in bytes, modification time in ms, SHA-256 hex]. */
type Entry = [number, number, string];

/**
 * A file whose time is this close to the moment it was hashed may still be being written within
 * the same time tick (file systems with 1–2 s times): its hash is not remembered.
 */
const RACY_MS = 2000;

/** A photo's content hash and size, and whether the hash came from the last run. */
export interface PhotoHash {
  sha256: string;
  size: number;
  remembered: boolean;
}

/** The hashes of one folder's photos: those of the last run, and those of this run as they come. */
export class PhotoHashes {
  private readonly next = new Map<string, Entry>();

  private constructor(
    private readonly file: SyncStateFile,
    private readonly last: ReadonlyMap<string, Entry>,
  ) {}

  /** The hashes of the last run over the folder (none when `use` is false or there was none). */
  static async load(file: SyncStateFile, use: boolean): Promise<PhotoHashes> {
    const data = use ? await readSyncState<Record<string, Entry>>(file) : undefined;
    return new PhotoHashes(file, new Map(Object.entries(data ?? {})));
  }

  /**
   * The hash of the photo at `path` (`relativePath` in the folder): the last run's when its size
   * and time are unchanged, else read and hashed. Synchronous file calls: one stat per photo on the
   * main thread costs microseconds, where a round trip through the thread pool per call was most of
   * a run over an unchanged folder.
   * @throws the file system's error (ENOENT when the photo went away, EACCES ...).
   */
  hash(relativePath: string, path: string): PhotoHash {
    const { size, mtimeMs } = statSync(path);
    const known = this.last.get(relativePath);
    if (known !== undefined && known[0] === size && known[1] === mtimeMs) {
      this.next.set(relativePath, known);
      return { sha256: known[2], size, remembered: true };
    }
    return { ...this.rehash(relativePath, path), remembered: false };
  }

  /** Reads and hashes the photo whatever the last run saw (the stored ETag disagreed with a remembered hash). */
  rehash(relativePath: string, path: string): { sha256: string; size: number } {
    // The time before the bytes: a write after the stat moves the time past the one remembered.
    const { size, mtimeMs } = statSync(path);
    const bytes = readFileSync(path);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (bytes.length === size && Date.now() - mtimeMs > RACY_MS) this.next.set(relativePath, [size, mtimeMs, sha256]);
    else this.next.delete(relativePath);
    return { sha256, size: bytes.length };
  }

  /** Saves the hashes of this run's photos (those gone from the folder are forgotten); a message when it could not. */
  save(): Promise<string | undefined> {
    return writeSyncState(this.file, Object.fromEntries(this.next));
  }
}
