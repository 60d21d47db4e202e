/**
 * Rules of blob keys shared by the core and every BlobStore adapter (api-decisions.md §4); the
 * BlobStore port itself is in core/ports.ts.
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

