/**
 * The port for storing image originals by content (api-decisions.md §4). The file-system adapter is
 * `src/adapters/blobs/file-blob-store.ts`; the core depends on this interface only.
 */

/** How many leading bytes {@link BlobStore.put} hands back as `head` (enough for `detectImageType`). */
export const BLOB_HEAD_BYTES = 64;

/** A blob key: 64 lowercase hex digits (SHA-256 of the content). */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** True if `key` is a well-formed blob key (64 lowercase hex digits). */
export function isSha256Hex(key: string): boolean {
  return SHA256_HEX.test(key);
}

/**
 * Thrown by {@link BlobStore.put} when the content is longer than `maxBytes`. Nothing is stored
 * (the temporary file is removed) and the source is no longer read. Map it to an item error or a
 * 413 (decisions §4, §9: one image file at most 20 MiB by default).
 */
export class BlobTooLargeError extends Error {
  /** The limit that was exceeded, in bytes. */
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`file is larger than ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
    this.maxBytes = maxBytes;
  }
}

/**
 * Result of {@link BlobStore.put}.
 * - `sha256`: the content address (64 lowercase hex digits), also usable as an ETag.
 * - `size`: content length in bytes.
 * - `head`: a copy of the first min(size, {@link BLOB_HEAD_BYTES}) bytes, for type detection.
 */
export interface BlobPutResult {
  sha256: string;
  size: number;
  head: Uint8Array;
}

/** Counts returned by {@link BlobStore.sweep}. */
export interface BlobSweepResult {
  tempFilesRemoved: number;
  orphansRemoved: number;
}

/**
 * Content-addressed storage of image originals (decisions §4). Keys are lowercase hex SHA-256.
 * Methods given a malformed key (see {@link isSha256Hex}) throw a TypeError.
 */
export interface BlobStore {
  /**
   * A local file path holding the blob's bytes, for adapters that read files themselves (image
   * decoding reads only what it needs); undefined when the store has no local files.
   */
  localPath?(sha256: string): string | undefined;
  /**
   * Streams `source` to a temp file while hashing, enforcing maxBytes (throws BlobTooLargeError,
   * removing the temp file), fsyncs the file, renames it to its content address (fsyncing the
   * directory), returns {sha256, size, head}. Identical content is stored once (if the target
   * exists, the temp file is discarded and the existing blob's mtime refreshed). `maxBytes`
   * (integer >= 0) defaults to no limit. Any error from the source or the disk removes the temp
   * file and is rethrown. Chunks must be Uint8Array (a Node Readable without encoding qualifies);
   * each chunk is written before the next is requested, so the producer may reuse its buffer.
   */
  put(source: AsyncIterable<Uint8Array> | Uint8Array, options?: { maxBytes?: number }): Promise<BlobPutResult>;
  /**
   * Opens a stored blob for streaming; undefined if absent. `size` in bytes, of the opened file
   * (a later delete does not affect an opened stream). The caller must consume or destroy the
   * stream (it holds a file descriptor until then).
   */
  open(sha256: string): Promise<{ size: number; stream: NodeJS.ReadableStream } | undefined>;
  /** Reads a stored blob whole; undefined if absent. */
  read(sha256: string): Promise<Buffer | undefined>;
  /** True if the blob is stored. */
  has(sha256: string): Promise<boolean>;
  /** Removes a blob (idempotent). The caller decides when (last image referencing it gone). */
  delete(sha256: string): Promise<void>;
  /**
   * Removes temp files left by a crash and every blob whose hash is not in `referenced`; returns
   * counts. Temp files of puts still running in this process are never removed. Files modified less
   * than `minAgeMs` (default 0) ago are kept: pass a grace period when sweeping while uploads may be
   * in flight (a blob is put BEFORE the metadata referencing it commits); with the default, sweep
   * only when no upload is in progress (e.g. at startup).
   */
  sweep(referenced: (sha256: string) => boolean, options?: { minAgeMs?: number }): Promise<BlobSweepResult>;
}
