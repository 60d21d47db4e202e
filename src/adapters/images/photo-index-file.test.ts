/**
 * The photo index's snapshot file (start-up): sections come back byte for byte; a file
 * cut short, damaged in any section or not a snapshot at all is refused with a SnapshotError (the
 * caller rebuilds from the records), never read as an index; a missing file is no snapshot.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SnapshotError } from '../../core/search/photo/index-snapshot.js';
import { openPhotoIndexFile, PendingSnapshot, writePhotoIndexFile } from './photo-index-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'photo-index-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Sections of odd sizes (alignment), one larger than the file's 16-MB chunk (chunked reads, writes and checksums). */
function pendingSnapshot(): { pending: PendingSnapshot; big: Uint8Array; odd: Uint16Array } {
  const pending = new PendingSnapshot();
  const big = new Uint8Array(17 * 2 ** 20 + 3);
  for (let i = 0; i < big.length; i += 4093) big[i] = i % 251;
  const odd = Uint16Array.of(1, 2, 3);
  pending.json('meta', { ids: ['a', 'b'], n: 2 });
  pending.bytes('odd', odd);
  pending.bytes('big', big);
  pending.bytes('empty', new Uint32Array(0));
  return { pending, big, odd };
}

describe('photo index snapshot file', () => {
  it('reads back every section and the header as written, each section 8-byte aligned', async () => {
    const file = join(dir, 'photo-index.snapshot');
    const { pending, big, odd } = pendingSnapshot();
    const size = await writePhotoIndexFile(file, { changeVersion: 7, lastChange: 'img-7' }, pending);
    expect(statSync(file).size).toBe(size);
    // No temporary file left behind.
    expect(readdirSync(dir)).toEqual(['photo-index.snapshot']);
    const opened = openPhotoIndexFile(file);
    if (!opened) throw new Error('no file');
    try {
      expect(opened.header).toEqual({ changeVersion: 7, lastChange: 'img-7' });
      expect(opened.reader.json('meta')).toEqual({ ids: ['a', 'b'], n: 2 });
      const oddBack = opened.reader.bytes('odd');
      expect(new Uint16Array(oddBack.buffer, oddBack.byteOffset, 3)).toEqual(odd);
      const into = new Uint8Array(big.length);
      opened.reader.into('big', into);
      expect(Buffer.from(into).equals(Buffer.from(big))).toBe(true);
      expect(opened.reader.bytes('empty').length).toBe(0);
      expect(() => opened.reader.bytes('meta')).toThrow(SnapshotError);
      expect(() => opened.reader.bytes('absent')).toThrow(/no bytes section absent/);
      expect(() => opened.reader.into('big', new Uint8Array(10))).toThrow(/holds/);
    } finally {
      opened.close();
    }
  });

  it('has no snapshot when the file does not exist', () => {
    expect(openPhotoIndexFile(join(dir, 'none.snapshot'))).toBeUndefined();
  });

  it('refuses a file cut short, a damaged section and a file that is not a snapshot', async () => {
    const file = join(dir, 'photo-index.snapshot');
    await writePhotoIndexFile(file, { changeVersion: 1 }, pendingSnapshot().pending);
    const whole = readFileSync(file);

    // A flipped byte inside the big section: the header opens, the section fails its checksum.
    const damaged = Buffer.from(whole);
    damaged[64 + 5 * 2 ** 20] = (damaged[64 + 5 * 2 ** 20] ?? 0) ^ 0xff;
    writeFileSync(file, damaged);
    const opened = openPhotoIndexFile(file);
    expect(opened).toBeDefined();
    expect(opened?.reader.json('meta')).toEqual({ ids: ['a', 'b'], n: 2 });
    expect(() => opened?.reader.into('big', new Uint8Array(17 * 2 ** 20 + 3))).toThrow(/damaged \(checksum\)/);
    opened?.close();

    // Cut short (a crash or a full disk while writing, had it not been renamed last): no trailer.
    writeFileSync(file, whole);
    truncateSync(file, whole.length - 100);
    expect(() => openPhotoIndexFile(file)).toThrow(SnapshotError);

    writeFileSync(file, 'not a snapshot at all, but long enough to have a trailer');
    expect(() => openPhotoIndexFile(file)).toThrow(/not a photo index snapshot/);
  });

  it('leaves the previous file in place when a write fails, and removes its temporary file', async () => {
    const file = join(dir, 'photo-index.snapshot');
    await writePhotoIndexFile(file, { changeVersion: 1 }, pendingSnapshot().pending);
    const before = readFileSync(file);
    const failing = new PendingSnapshot();
    failing.bytes('a', new Uint8Array(8));
    // The second section fails as it is written (as a full disk would).
    (failing.sections as unknown[]).push({
      name: 'b',
      kind: 'bytes',
      get data(): Uint8Array {
        throw new Error('ENOSPC: no space left on device');
      },
    });
    await expect(writePhotoIndexFile(file, { changeVersion: 2 }, failing)).rejects.toThrow(/ENOSPC/);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['photo-index.snapshot']);
  });
});
