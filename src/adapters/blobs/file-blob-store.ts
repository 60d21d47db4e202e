/**
 * File-system implementation of the {@link BlobStore} port (api-decisions.md §4): image originals
 * stored by SHA-256 under a root directory.
 *
 * Layout: `<root>/blobs/ab/cd/<sha256>` (two fan-out levels from the first four hex digits) and
 * `<root>/tmp/<random>.tmp` for uploads in progress. A put writes the temp file, fsyncs it, renames
 * it into place and fsyncs the directory, so after a crash a blob is either complete or absent;
 * leftovers in `tmp/` are removed by {@link FileBlobStore.sweep}. Fan-out directories are never
 * removed (at most 65,536 + 256 of them), so a put never races a directory removal.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { BLOB_HEAD_BYTES, BlobTooLargeError, isSha256Hex } from '../../core/images/blobs.js';
import type { BlobPutResult, BlobStore, BlobSweepResult } from '../../core/ports.js';
import { asStorageError } from '../storage-full.js';

function isErrno(error: unknown, ...codes: string[]): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string'
    && codes.includes((error as NodeJS.ErrnoException).code as string);
}

/** fsync a directory so a rename/create inside it is durable. Best effort where directories cannot be opened (Windows). */
async function fsyncDir(dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(dir, 'r');
  } catch (error) {
    if (isErrno(error, 'EISDIR', 'EPERM', 'EACCES')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!isErrno(error, 'EINVAL', 'EPERM', 'EBADF')) throw error;
  } finally {
    await handle.close();
  }
}

async function removeQuietly(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

/**
 * {@link BlobStore} on the local file system. `new FileBlobStore(rootDir)`; directories are created
 * on first use. Safe for concurrent use within one process (and across processes sharing the root,
 * except that `sweep` only protects the temp files of its own process's puts).
 */
export class FileBlobStore implements BlobStore {
  readonly rootDir: string;
  private readonly blobsDir: string;
  private readonly tmpDir: string;
  private readonly inFlight = new Set<string>();
  private ready: Promise<void> | undefined;

  /** @param rootDir directory holding `blobs/` and `tmp/` (created if missing). */
  constructor(rootDir: string) {
    this.rootDir = rootDir;
    this.blobsDir = join(rootDir, 'blobs');
    this.tmpDir = join(rootDir, 'tmp');
  }

  /** Absolute path of the blob with key `sha256` (whether or not it exists). @throws TypeError on a malformed key. */
  localPath(sha256: string): string {
    return this.pathOf(sha256);
  }

  pathOf(sha256: string): string {
    if (!isSha256Hex(sha256)) throw new TypeError(`invalid blob key '${sha256}': expected 64 lowercase hex digits`);
    return join(this.blobsDir, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  private ensureDirs(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.blobsDir, { recursive: true });
      await mkdir(this.tmpDir, { recursive: true });
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** See {@link BlobStore.put}. @throws BlobTooLargeError, RangeError (bad maxBytes), TypeError (non-Uint8Array chunk), I/O errors. */
  async put(source: AsyncIterable<Uint8Array> | Uint8Array, options: { maxBytes?: number } = {}): Promise<BlobPutResult> {
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    if (!(maxBytes === Number.POSITIVE_INFINITY || (Number.isSafeInteger(maxBytes) && maxBytes >= 0))) {
      throw new RangeError(`maxBytes must be an integer >= 0, got ${String(maxBytes)}`);
    }
    await this.ensureDirs();
    const tmpPath = join(this.tmpDir, `${randomBytes(16).toString('hex')}.tmp`);
    this.inFlight.add(tmpPath);
    let handle: FileHandle | undefined;
    try {
      handle = await open(tmpPath, 'wx');
      const hash = createHash('sha256');
      const head = new Uint8Array(BLOB_HEAD_BYTES);
      let size = 0;
      const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = source instanceof Uint8Array ? [source] : source;
      for await (const chunk of chunks) {
        if (!(chunk instanceof Uint8Array)) throw new TypeError('blob source chunks must be Uint8Array');
        if (size + chunk.length > maxBytes) throw new BlobTooLargeError(maxBytes);
        if (size < BLOB_HEAD_BYTES) head.set(chunk.subarray(0, BLOB_HEAD_BYTES - size), size);
        size += chunk.length;
        hash.update(chunk);
        await writeAll(handle, chunk);
      }
      await handle.sync();
      await handle.close();
      handle = undefined;

      const sha256 = hash.digest('hex');
      const target = this.pathOf(sha256);
      const headCopy = head.slice(0, Math.min(size, BLOB_HEAD_BYTES));
      if (await this.touchIfExists(target)) {
        await removeQuietly(tmpPath);
        return { sha256, size, head: headCopy };
      }
      const level1 = join(this.blobsDir, sha256.slice(0, 2));
      const level2 = join(level1, sha256.slice(2, 4));
      const created = await mkdir(level2, { recursive: true });
      await rename(tmpPath, target);
      await fsyncDir(level2);
      if (created !== undefined) {
        // New fan-out directories: make their entries durable too.
        await fsyncDir(level1);
        await fsyncDir(this.blobsDir);
      }
      return { sha256, size, head: headCopy };
    } catch (error) {
      if (handle !== undefined) await handle.close().catch(() => undefined);
      await removeQuietly(tmpPath).catch(() => undefined);
      // A full disk is the catalog's storage_full error (507, exit 5).
      throw asStorageError(error, 'an image file');
    } finally {
      this.inFlight.delete(tmpPath);
    }
  }

  /** True if `path` exists; refreshes its mtime so a grace-period sweep does not remove a blob just re-put. */
  private async touchIfExists(path: string): Promise<boolean> {
    try {
      const now = new Date();
      await utimes(path, now, now);
      return true;
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return false;
      // Read-only file system or foreign owner: existence is what matters.
      if (isErrno(error, 'EPERM', 'EACCES', 'EROFS')) return true;
      throw error;
    }
  }

  /** See {@link BlobStore.open}. The size is that of the opened file. @throws TypeError on a malformed key. */
  async open(sha256: string): Promise<{ size: number; stream: NodeJS.ReadableStream } | undefined> {
    const path = this.pathOf(sha256);
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      // The stream owns the handle from here and closes it on end, error or destroy.
      return { size, stream: handle.createReadStream({ autoClose: true }) };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /** See {@link BlobStore.read}. @throws TypeError on a malformed key. */
  async read(sha256: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(sha256));
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw error;
    }
  }

  /** See {@link BlobStore.has}. @throws TypeError on a malformed key. */
  async has(sha256: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(sha256))).isFile();
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return false;
      throw error;
    }
  }

  /** See {@link BlobStore.delete}. @throws TypeError on a malformed key. */
  async delete(sha256: string): Promise<void> {
    await removeQuietly(this.pathOf(sha256));
  }

  /**
   * See {@link BlobStore.sweep}. Only files named by a well-formed key in the matching fan-out
   * directory count as blobs; anything else under `blobs/` is left alone.
   */
  async sweep(referenced: (sha256: string) => boolean, options: { minAgeMs?: number } = {}): Promise<BlobSweepResult> {
    const minAgeMs = options.minAgeMs ?? 0;
    await this.ensureDirs();
    const cutoff = Date.now() - minAgeMs;
    const oldEnough = async (path: string): Promise<boolean | undefined> => {
      if (minAgeMs <= 0) return true;
      try {
        return (await stat(path)).mtimeMs <= cutoff;
      } catch (error) {
        if (isErrno(error, 'ENOENT')) return undefined;
        throw error;
      }
    };
    const list = async (dir: string): Promise<string[]> => {
      try {
        return await readdir(dir);
      } catch (error) {
        if (isErrno(error, 'ENOENT', 'ENOTDIR')) return [];
        throw error;
      }
    };

    let tempFilesRemoved = 0;
    for (const name of await list(this.tmpDir)) {
      const path = join(this.tmpDir, name);
      if (this.inFlight.has(path) || (await oldEnough(path)) !== true) continue;
      try {
        await unlink(path);
        tempFilesRemoved++;
      } catch (error) {
        if (!isErrno(error, 'ENOENT', 'EISDIR', 'EPERM')) throw error;
      }
    }

    let orphansRemoved = 0;
    for (const a of await list(this.blobsDir)) {
      if (!/^[0-9a-f]{2}$/.test(a)) continue;
      for (const b of await list(join(this.blobsDir, a))) {
        if (!/^[0-9a-f]{2}$/.test(b)) continue;
        const dir = join(this.blobsDir, a, b);
        for (const name of await list(dir)) {
          if (!isSha256Hex(name) || name.slice(0, 4) !== a + b || referenced(name)) continue;
          const path = join(dir, name);
          if ((await oldEnough(path)) !== true) continue;
          try {
            await unlink(path);
            orphansRemoved++;
          } catch (error) {
            if (!isErrno(error, 'ENOENT')) throw error;
          }
        }
      }
    }
    return { tempFilesRemoved, orphansRemoved };
  }
}
