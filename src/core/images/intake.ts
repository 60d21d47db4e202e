/**
 * The bytes of one uploaded file on their way into the BlobStore (api-decisions.md §4): the type is
 * detected from the first bytes BEFORE anything is written, and a file the transport cut off at the
 * size limit fails instead of being stored truncated. Pure over async iterables: no I/O here.
 */
import { BlobTooLargeError } from './blobs.js';
import { detectImageType, IMAGE_TYPE_HEAD_BYTES, type DetectedImageType } from './file-type.js';

/** The file's bytes are not one of the accepted image types. */
export class NotAnImageError extends Error {
  constructor() {
    super('not a supported image: its bytes are not JPEG, PNG, WebP, GIF, TIFF or AVIF');
    this.name = 'NotAnImageError';
  }
}

/** What {@link imageIntake} found out about the stream, filled in as it is read. */
export interface IntakeResult {
  type: DetectedImageType | undefined;
}

/**
 * Passes `source` through, unchanged, to the BlobStore. Holds back the first chunks until
 * {@link IMAGE_TYPE_HEAD_BYTES} bytes (or the end) are seen and throws {@link NotAnImageError}
 * before yielding anything when they are not an image. After the last chunk, throws
 * {@link BlobTooLargeError} when `truncated()` says the transport cut the file at `maxBytes`
 * (multipart `limits.fileSize`). Sets `result.type` once detected.
 */
export async function* imageIntake(
  source: AsyncIterable<Uint8Array> | Uint8Array,
  maxBytes: number,
  result: IntakeResult,
  truncated?: () => boolean,
): AsyncGenerator<Uint8Array, void, undefined> {
  const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = source instanceof Uint8Array ? [source] : source;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  const detect = (): Uint8Array[] => {
    const head = held.length === 1 ? held[0] ?? new Uint8Array() : Buffer.concat(held);
    result.type = detectImageType(head.subarray(0, IMAGE_TYPE_HEAD_BYTES));
    if (result.type === undefined) throw new NotAnImageError();
    const out = held;
    held = [];
    return out;
  };
  for await (const chunk of chunks) {
    if (result.type !== undefined) {
      yield chunk;
      continue;
    }
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes >= IMAGE_TYPE_HEAD_BYTES) yield* detect();
  }
  if (result.type === undefined) yield* detect();
  if (truncated?.()) throw new BlobTooLargeError(maxBytes);
}
