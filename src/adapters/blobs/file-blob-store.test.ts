import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobTooLargeError } from '../../core/images/blobs.js';
import { detectImageType } from '../../core/images/file-type.js';
import { FileBlobStore } from './file-blob-store.js';
import { SHARED_IMAGES } from '../../../test/helpers/data.js';

const IMAGE = join(SHARED_IMAGES, 'photo_grass.jpg');
const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

let root: string;
let store: FileBlobStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'blob-store-test-'));
  store = new FileBlobStore(root);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
      .sort();
  } catch {
    return [];
  }
}

async function* chunked(data: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts);
}

describe('FileBlobStore', () => {
  it('round-trips the exact bytes of a real image, at its content address', async () => {
    const original = readFileSync(IMAGE);
    const put = await store.put(chunked(original, 4096));
    expect(put.sha256).toBe(sha256(original));
    expect(put.size).toBe(original.length);
    expect(Buffer.from(put.head)).toEqual(original.subarray(0, 64));
    expect(detectImageType(put.head)).toEqual({ mime: 'image/jpeg', ext: 'jpg' });

    expect(filesUnder(root)).toEqual([join('blobs', put.sha256.slice(0, 2), put.sha256.slice(2, 4), put.sha256)]);
    expect(store.pathOf(put.sha256)).toBe(join(root, 'blobs', put.sha256.slice(0, 2), put.sha256.slice(2, 4), put.sha256));
    expect(await store.has(put.sha256)).toBe(true);
    expect((await store.read(put.sha256))?.equals(original)).toBe(true);

    const opened = await store.open(put.sha256);
    expect(opened?.size).toBe(original.length);
    if (opened === undefined) throw new Error('not opened');
    expect((await collect(opened.stream)).equals(original)).toBe(true);
  });

  it('accepts a plain Uint8Array and tiny chunks; head spans chunks and is a copy', async () => {
    const data = Uint8Array.from({ length: 100 }, (_, i) => i);
    const a = await store.put(data);
    expect(a).toEqual({ sha256: sha256(data), size: 100, head: data.slice(0, 64) });
    const b = await store.put(chunked(data, 3));
    expect(b.sha256).toBe(a.sha256);
    expect(b.head).toEqual(data.slice(0, 64));
    const small = await store.put(Uint8Array.of(1, 2, 3));
    expect(small.head).toEqual(Uint8Array.of(1, 2, 3));
  });

  it('stores empty content', async () => {
    const put = await store.put(new Uint8Array(0));
    expect(put).toEqual({ sha256: sha256(''), size: 0, head: new Uint8Array(0) });
    expect((await store.read(put.sha256))?.length).toBe(0);
  });

  it('stores identical content once', async () => {
    const original = readFileSync(IMAGE);
    const first = await store.put(original);
    const second = await store.put(chunked(original, 1000));
    expect(second).toEqual(first);
    expect(filesUnder(join(root, 'blobs'))).toHaveLength(1);
    expect(filesUnder(join(root, 'tmp'))).toEqual([]);
    // Concurrent puts of the same content also end as one file.
    await Promise.all([store.put(Buffer.from('same')), store.put(Buffer.from('same')), store.put(Buffer.from('same'))]);
    expect(filesUnder(join(root, 'blobs'))).toHaveLength(2);
    expect(filesUnder(join(root, 'tmp'))).toEqual([]);
  });

  it('rejects content over maxBytes with BlobTooLargeError and leaves no temp file', async () => {
    const data = new Uint8Array(10_000).fill(7);
    let pulled = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 10; i++) {
        pulled++;
        yield data.subarray(i * 1000, (i + 1) * 1000);
      }
    }
    const error = await store.put(source(), { maxBytes: 4_500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlobTooLargeError);
    expect((error as BlobTooLargeError).maxBytes).toBe(4_500);
    expect(pulled).toBe(5); // stopped reading at the chunk that crossed the limit
    expect(filesUnder(root)).toEqual([]);

    // Exactly maxBytes is fine.
    await expect(store.put(data, { maxBytes: 10_000 })).resolves.toMatchObject({ size: 10_000 });
    await expect(store.put(data, { maxBytes: 9_999 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(filesUnder(join(root, 'tmp'))).toEqual([]);
    await expect(store.put(data, { maxBytes: -1 })).rejects.toBeInstanceOf(RangeError);
  });

  it('removes the temp file when the source fails, and rethrows', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(1000);
      throw new Error('client went away');
    }
    await expect(store.put(failing())).rejects.toThrow('client went away');
    async function* notBytes(): AsyncGenerator<Uint8Array> {
      yield 'text' as unknown as Uint8Array;
    }
    await expect(store.put(notBytes())).rejects.toBeInstanceOf(TypeError);
    expect(filesUnder(root)).toEqual([]);
  });

  it('answers absent blobs with undefined / false, and rejects malformed keys', async () => {
    const absent = sha256('never stored');
    expect(await store.open(absent)).toBeUndefined();
    expect(await store.read(absent)).toBeUndefined();
    expect(await store.has(absent)).toBe(false);
    for (const bad of ['', '../../etc/passwd', absent.toUpperCase(), absent.slice(1), `${absent}0`]) {
      await expect(store.has(bad)).rejects.toBeInstanceOf(TypeError);
      await expect(store.read(bad)).rejects.toBeInstanceOf(TypeError);
      await expect(store.open(bad)).rejects.toBeInstanceOf(TypeError);
      await expect(store.delete(bad)).rejects.toBeInstanceOf(TypeError);
    }
  });

  it('delete is idempotent', async () => {
    const { sha256: key } = await store.put(Buffer.from('to delete'));
    await store.delete(key);
    expect(await store.has(key)).toBe(false);
    await expect(store.delete(key)).resolves.toBeUndefined();
    await expect(store.delete(sha256('never stored'))).resolves.toBeUndefined();
  });

  it('an opened stream survives a delete', async () => {
    const { sha256: key } = await store.put(Buffer.from('still readable'));
    const opened = await store.open(key);
    await store.delete(key);
    if (opened === undefined) throw new Error('not opened');
    expect((await collect(opened.stream)).toString()).toBe('still readable');
  });

  it('sweep removes temp leftovers and unreferenced blobs, keeps referenced ones', async () => {
    const keep = await store.put(Buffer.from('keep me'));
    const drop1 = await store.put(Buffer.from('orphan 1'));
    const drop2 = await store.put(Buffer.from('orphan 2'));
    writeFileSync(join(root, 'tmp', 'crashed-upload.tmp'), 'partial');
    writeFileSync(join(root, 'tmp', 'another.tmp'), 'partial');
    writeFileSync(join(root, 'blobs', 'README'), 'not a blob');

    const result = await store.sweep((key) => key === keep.sha256);
    expect(result).toEqual({ tempFilesRemoved: 2, orphansRemoved: 2 });
    expect(await store.has(keep.sha256)).toBe(true);
    expect(await store.has(drop1.sha256)).toBe(false);
    expect(await store.has(drop2.sha256)).toBe(false);
    expect(filesUnder(join(root, 'tmp'))).toEqual([]);
    expect(filesUnder(join(root, 'blobs'))).toEqual(['README', join(keep.sha256.slice(0, 2), keep.sha256.slice(2, 4), keep.sha256)].sort());

    // Nothing left to do; a fresh store on a missing root is fine too.
    expect(await store.sweep(() => true)).toEqual({ tempFilesRemoved: 0, orphansRemoved: 0 });
    expect(await new FileBlobStore(join(root, 'missing')).sweep(() => false)).toEqual({ tempFilesRemoved: 0, orphansRemoved: 0 });
  });

  it('sweep with minAgeMs keeps recent files and blobs re-put since', async () => {
    const old = await store.put(Buffer.from('old orphan'));
    const recent = await store.put(Buffer.from('recent orphan'));
    const reput = await store.put(Buffer.from('re-put'));
    writeFileSync(join(root, 'tmp', 'old.tmp'), 'x');
    writeFileSync(join(root, 'tmp', 'recent.tmp'), 'x');
    const past = new Date(Date.now() - 3_600_000);
    for (const path of [store.pathOf(old.sha256), store.pathOf(reput.sha256), join(root, 'tmp', 'old.tmp')]) utimesSync(path, past, past);
    await store.put(Buffer.from('re-put')); // dedupe hit refreshes the mtime
    expect(statSync(store.pathOf(reput.sha256)).mtimeMs).toBeGreaterThan(past.getTime() + 1000);

    expect(await store.sweep(() => false, { minAgeMs: 60_000 })).toEqual({ tempFilesRemoved: 1, orphansRemoved: 1 });
    expect(await store.has(old.sha256)).toBe(false);
    expect(await store.has(recent.sha256)).toBe(true);
    expect(await store.has(reput.sha256)).toBe(true);
    expect(filesUnder(join(root, 'tmp'))).toEqual(['recent.tmp']);
  });

  it('sweep never removes the temp file of a put in progress', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => undefined;
    const isStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    async function* slow(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('first half ');
      started();
      await gate;
      yield Buffer.from('second half');
    }
    const pending = store.put(slow());
    await isStarted;
    expect(filesUnder(join(root, 'tmp'))).toHaveLength(1);
    expect(await store.sweep(() => false)).toEqual({ tempFilesRemoved: 0, orphansRemoved: 0 });
    release();
    const put = await pending;
    expect((await store.read(put.sha256))?.toString()).toBe('first half second half');
  });

  it('streams 30 MB from an async generator to disk without buffering it whole', async () => {
    const CHUNK = 256 * 1024;
    const CHUNKS = 120; // 30 MiB
    const expected = createHash('sha256');
    const buffer = Buffer.alloc(CHUNK); // reused for every chunk: must be written before the next is produced
    let sizeOnDiskMidway = -1;
    async function* generate(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < CHUNKS; i++) {
        buffer.fill(i & 0xff);
        buffer.writeUInt32BE(i, 0);
        expected.update(buffer);
        if (i === CHUNKS / 2) {
          const temps = readdirSync(join(root, 'tmp'));
          sizeOnDiskMidway = temps.length === 1 && temps[0] !== undefined ? statSync(join(root, 'tmp', temps[0])).size : -2;
        }
        yield buffer;
      }
    }
    const put = await store.put(generate(), { maxBytes: 64 * 1024 * 1024 });
    expect(put.size).toBe(CHUNK * CHUNKS);
    expect(put.sha256).toBe(expected.digest('hex'));
    expect(sizeOnDiskMidway).toBe((CHUNK * CHUNKS) / 2); // everything produced so far is already on disk

    const opened = await store.open(put.sha256);
    if (opened === undefined) throw new Error('not opened');
    expect(opened.size).toBe(CHUNK * CHUNKS);
    const check = createHash('sha256');
    for await (const chunk of opened.stream) check.update(chunk as Uint8Array);
    expect(check.digest('hex')).toBe(put.sha256);
  });
});
