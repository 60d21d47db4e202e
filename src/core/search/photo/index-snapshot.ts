/**
 * Snapshots of the photo index (start-up; docs/search.md): the
 * built index written as named sections, so a later start-up reads its arrays back instead of
 * decoding every stored record and building the postings again (at 10,000 references ~3–4 s of
 * CPU against a few hundred ms). The stored records stay the truth: a snapshot is a cache that
 * names the change number it is current to, and the owner applies the store's later changes
 * (image-search.ts). Pure code: the file format is an adapter's (photo-index-file.ts).
 */

/**
 * Version of what {@link PhotoIndex.writeSnapshot} and its peers write (photo-index.ts,
 * split-cells.ts, posting-heap.ts, image-similarity.ts). Bump it with any change to the layout of
 * those classes' arrays or to what their fields mean: a snapshot of another version is not read.
 */
export const PHOTO_INDEX_SNAPSHOT_FORMAT = 1;

/** Where an index writes its sections. Byte sections are written as they are when the writer is flushed: do not change them meanwhile. */
export interface SnapshotWriter {
  /** A section of bytes (a view of the index's own memory: not copied). */
  bytes(name: string, data: ArrayBufferView): void;
  /** A section holding a JSON value. */
  json(name: string, value: unknown): void;
}

/** Where an index reads its sections back. Every method throws a {@link SnapshotError} on a missing or corrupt section. */
export interface SnapshotReader {
  /** The JSON value of a section. */
  json(name: string): unknown;
  /** A section's bytes, in a fresh buffer of their own (8-byte aligned). */
  bytes(name: string): Uint8Array;
  /** Reads a section's bytes into `target`, whose length must be the section's. */
  into(name: string, target: Uint8Array): void;
}

/** A snapshot that cannot be used (missing, corrupt, of another format or another index): the owner rebuilds from the records. */
export class SnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotError';
  }
}

/** Throws a {@link SnapshotError} with `message` unless `ok`. */
export function expectSnapshot(ok: boolean, message: string): asserts ok {
  if (!ok) throw new SnapshotError(message);
}

type TypedArrayClass<T> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number };

/**
 * Section `name` as a typed array of `type` (a view of a fresh copy), of exactly `length`
 * elements when given.
 * @throws SnapshotError when the section is missing, corrupt or of another length.
 */
export function readArray<T>(reader: SnapshotReader, name: string, type: TypedArrayClass<T>, length?: number): T {
  const bytes = reader.bytes(name);
  expectSnapshot(bytes.byteLength % type.BYTES_PER_ELEMENT === 0, `section ${name}: ${bytes.byteLength} bytes is not a whole number of elements`);
  const n = bytes.byteLength / type.BYTES_PER_ELEMENT;
  expectSnapshot(length === undefined || n === length, `section ${name}: ${n} elements, ${length ?? 0} expected`);
  return new type(bytes.buffer as ArrayBuffer, bytes.byteOffset, n);
}

/** A field of a JSON section that must be a finite number. */
export function numberField(value: unknown, field: string): number {
  const v = (value as Record<string, unknown> | null)?.[field];
  expectSnapshot(typeof v === 'number' && Number.isFinite(v), `snapshot field ${field} is not a number`);
  return v;
}

/** A field of a JSON section that must be an array of strings. */
export function stringsField(value: unknown, field: string): string[] {
  const v = (value as Record<string, unknown> | null)?.[field];
  expectSnapshot(Array.isArray(v) && v.every((s) => typeof s === 'string'), `snapshot field ${field} is not a list of strings`);
  return v as string[];
}
