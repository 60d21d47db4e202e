/**
 * The photo index's snapshot file (start-up; docs/search.md): the
 * sections of core/search/photo/index-snapshot.ts in one file, so a start-up reads the built index
 * back instead of rebuilding it from every stored record.
 *
 * Layout: the sections one after the other, each at an 8-byte-aligned offset; then the table, UTF-8
 * JSON `{header, sections: [{name, kind, offset, length, crc32}]}`; then a 16-byte trailer: the
 * table's length (uint32 LE), 4 zero bytes, and the magic "CATPHIX1". The table comes last so the
 * sections' checksums are computed while they are written, in one pass.
 *
 * A file is written under a temporary name and renamed into place, so a reader sees a whole file
 * or the previous one; a file cut short (a crash, a full disk) or damaged fails its checksums and
 * is ignored. It is a cache: deleting it costs one slow start-up. Not fsynced for the same reason.
 */
import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { SnapshotError, type SnapshotReader, type SnapshotWriter } from '../../core/search/photo/index-snapshot.js';

/** The file's last 8 bytes. */
const MAGIC = Buffer.from('CATPHIX1', 'latin1');
/** Bytes of the trailer: table length, 4 zero bytes, magic. */
const TRAILER_BYTES = 16;
/** Largest table read (a 50,000-reference index's ids are ~5 MB of JSON): a damaged length cannot make a reader allocate gigabytes. */
const MAX_TABLE_BYTES = 256 * 2 ** 20;
/** Bytes a single read or write call moves (Node's limit is 2 GiB a call); also the checksum's step between awaits. */
const CHUNK = 16 * 2 ** 20;

/** One section in the table. */
interface SectionEntry {
  name: string;
  kind: 'bytes' | 'json';
  offset: number;
  length: number;
  crc32: number;
}

/** A section waiting to be written: its bytes (a view of the index's memory, or encoded JSON). */
interface PendingSection {
  name: string;
  kind: 'bytes' | 'json';
  data: Uint8Array;
}

/**
 * Collects the sections an index writes (synchronously, as views of its memory) for
 * {@link writePhotoIndexFile}.
 */
export class PendingSnapshot implements SnapshotWriter {
  readonly sections: PendingSection[] = [];

  bytes(name: string, data: ArrayBufferView): void {
    this.add(name, 'bytes', new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }

  json(name: string, value: unknown): void {
    this.add(name, 'json', Buffer.from(JSON.stringify(value), 'utf8'));
  }

  /** Bytes the sections hold. */
  get byteLength(): number {
    return this.sections.reduce((n, s) => n + s.data.byteLength, 0);
  }

  private add(name: string, kind: 'bytes' | 'json', data: Uint8Array): void {
    if (this.sections.some((s) => s.name === name)) throw new Error(`snapshot section ${name} written twice`);
    this.sections.push({ name, kind, data });
  }
}

/**
 * Writes `snapshot`'s sections and `header` (plain JSON: what the reader checks before using the
 * file) to `file`, through a temporary file renamed into place. Asynchronous and in chunks, so a
 * server keeps answering meanwhile; the sections' memory must not change until it resolves.
 * @returns the file's size in bytes.
 * @throws the file system's error (the temporary file is removed; `file` is left as it was).
 */
export async function writePhotoIndexFile(file: string, header: Record<string, unknown>, snapshot: PendingSnapshot): Promise<number> {
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await fs.promises.open(temporary, 'w');
  try {
    let at = 0;
    const entries: SectionEntry[] = [];
    const zeros = new Uint8Array(8);
    for (const section of snapshot.sections) {
      const pad = (8 - (at % 8)) % 8;
      if (pad > 0) await writeAll(handle, zeros.subarray(0, pad), at);
      at += pad;
      let crc = 0;
      for (let o = 0; o < section.data.byteLength; o += CHUNK) {
        const chunk = section.data.subarray(o, Math.min(section.data.byteLength, o + CHUNK));
        crc = crc32(chunk, crc);
        await writeAll(handle, chunk, at + o);
      }
      entries.push({ name: section.name, kind: section.kind, offset: at, length: section.data.byteLength, crc32: crc });
      at += section.data.byteLength;
    }
    const table = Buffer.from(JSON.stringify({ header, sections: entries }), 'utf8');
    const trailer = Buffer.alloc(TRAILER_BYTES);
    trailer.writeUInt32LE(table.byteLength, 0);
    MAGIC.copy(trailer, 8);
    await writeAll(handle, table, at);
    await writeAll(handle, trailer, at + table.byteLength);
    await handle.close();
    await fs.promises.rename(temporary, file);
    return at + table.byteLength + TRAILER_BYTES;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.promises.rm(temporary, { force: true });
    throw error;
  }
}

/** Writes all of `data` at `position`. */
async function writeAll(handle: fs.promises.FileHandle, data: Uint8Array, position: number): Promise<void> {
  for (let o = 0; o < data.byteLength; ) {
    const { bytesWritten } = await handle.write(data, o, data.byteLength - o, position + o);
    o += bytesWritten;
  }
}

/** An open snapshot file: the header its writer gave, and its sections. */
export interface PhotoIndexFile {
  header: Record<string, unknown>;
  reader: SnapshotReader;
  /** Bytes of the file. */
  size: number;
  close(): void;
}

/**
 * Opens a snapshot file written by {@link writePhotoIndexFile}; undefined when there is none.
 * Sections are read on demand, synchronously, and checked against their checksums as they are read.
 * @throws SnapshotError when the file is not a whole snapshot (cut short, damaged, another format);
 * the file system's error when it cannot be read.
 */
export function openPhotoIndexFile(file: string): PhotoIndexFile | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size < TRAILER_BYTES) throw new SnapshotError(`${file}: ${size} bytes is not a snapshot`);
    const trailer = Buffer.alloc(TRAILER_BYTES);
    readAll(fd, trailer, size - TRAILER_BYTES);
    if (!trailer.subarray(8).equals(MAGIC)) throw new SnapshotError(`${file}: not a photo index snapshot (or cut short)`);
    const tableLength = trailer.readUInt32LE(0);
    if (tableLength > MAX_TABLE_BYTES || tableLength > size - TRAILER_BYTES) throw new SnapshotError(`${file}: a table of ${tableLength} bytes`);
    const tableBytes = Buffer.alloc(tableLength);
    readAll(fd, tableBytes, size - TRAILER_BYTES - tableLength);
    const table = parseTable(tableBytes, size - TRAILER_BYTES - tableLength, file);
    const sections = new Map(table.sections.map((s) => [s.name, s]));
    const section = (name: string, kind: 'bytes' | 'json'): SectionEntry => {
      const s = sections.get(name);
      if (!s || s.kind !== kind) throw new SnapshotError(`${file}: no ${kind} section ${name}`);
      return s;
    };
    const readSection = (s: SectionEntry, target: Uint8Array): void => {
      if (target.byteLength !== s.length) throw new SnapshotError(`${file}: section ${s.name} holds ${s.length} bytes, ${target.byteLength} expected`);
      readAll(fd, target, s.offset);
      let crc = 0;
      for (let o = 0; o < target.byteLength; o += CHUNK) crc = crc32(target.subarray(o, Math.min(target.byteLength, o + CHUNK)), crc);
      if (crc !== s.crc32) throw new SnapshotError(`${file}: section ${s.name} is damaged (checksum)`);
    };
    const reader: SnapshotReader = {
      json(name) {
        const s = section(name, 'json');
        const bytes = Buffer.alloc(s.length);
        readSection(s, bytes);
        try {
          return JSON.parse(bytes.toString('utf8')) as unknown;
        } catch {
          throw new SnapshotError(`${file}: section ${name} is not JSON`);
        }
      },
      bytes(name) {
        const s = section(name, 'bytes');
        // A fresh ArrayBuffer: offset 0, so every typed-array view of it is aligned.
        const bytes = new Uint8Array(s.length);
        readSection(s, bytes);
        return bytes;
      },
      into(name, target) {
        readSection(section(name, 'bytes'), target);
      },
    };
    return { header: table.header, reader, size, close: () => fs.closeSync(fd) };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** The table of a file whose sections end at `end`. */
function parseTable(bytes: Buffer, end: number, file: string): { header: Record<string, unknown>; sections: SectionEntry[] } {
  let table: unknown;
  try {
    table = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new SnapshotError(`${file}: a damaged table`);
  }
  const t = table as { header?: unknown; sections?: unknown } | null;
  const header = t?.header;
  const sections = t?.sections;
  if (typeof header !== 'object' || header === null || !Array.isArray(sections)) throw new SnapshotError(`${file}: a damaged table`);
  for (const s of sections as SectionEntry[]) {
    const fits = Number.isSafeInteger(s?.offset) && Number.isSafeInteger(s?.length) && s.offset >= 0 && s.length >= 0 && s.offset + s.length <= end;
    if (typeof s?.name !== 'string' || (s.kind !== 'bytes' && s.kind !== 'json') || !fits || !Number.isInteger(s.crc32)) throw new SnapshotError(`${file}: a damaged table`);
  }
  return { header: header as Record<string, unknown>, sections: sections as SectionEntry[] };
}

/** Reads `target.byteLength` bytes at `position`. @throws SnapshotError when the file ends first. */
function readAll(fd: number, target: Uint8Array, position: number): void {
  for (let o = 0; o < target.byteLength; ) {
    const n = fs.readSync(fd, target, o, Math.min(CHUNK, target.byteLength - o), position + o);
    if (n === 0) throw new SnapshotError('a snapshot file cut short');
    o += n;
  }
}
