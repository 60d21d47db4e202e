// The core may not use the file system; this test only reads fixture images to feed the pure function.
// eslint-disable-next-line no-restricted-imports
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectImageType } from './file-type.js';
import { SHARED_IMAGES } from '../../../test/helpers/data.js';

const IMAGES_DIR = SHARED_IMAGES;

const bytes = (...parts: (number[] | string | Uint8Array)[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? Array.from(p, (c) => c.charCodeAt(0)) : Array.from(p))));

/** An ftyp box: size (big-endian), 'ftyp', major brand, minor version 0, compatible brands. */
function ftyp(major: string, compatible: string[], sizeOverride?: number): Uint8Array {
  const size = sizeOverride ?? 16 + 4 * compatible.length;
  return bytes([(size >>> 24) & 0xff, (size >>> 16) & 0xff, (size >>> 8) & 0xff, size & 0xff], 'ftyp', major, [0, 0, 0, 0], compatible.join(''));
}

describe('detectImageType on real JPEG files', () => {
  const files = readdirSync(IMAGES_DIR).filter((f) => f.endsWith('.jpg')).sort().slice(0, 25);

  it('finds fixture files', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s', (file) => {
    const head = readFileSync(join(IMAGES_DIR, file)).subarray(0, 64);
    expect(detectImageType(head)).toEqual({ mime: 'image/jpeg', ext: 'jpg' });
  });

  it('a whole file works as well as its head', () => {
    const first = files[0];
    if (first === undefined) throw new Error('no fixtures');
    expect(detectImageType(readFileSync(join(IMAGES_DIR, first)))).toEqual({ mime: 'image/jpeg', ext: 'jpg' });
  });

  it('the CSV next to the images is not an image', () => {
    const csv = readdirSync(IMAGES_DIR).find((f) => f.endsWith('.csv'));
    if (csv !== undefined) expect(detectImageType(readFileSync(join(IMAGES_DIR, csv)).subarray(0, 64))).toBeUndefined();
  });
});

describe('detectImageType on hand-made headers', () => {
  const cases: { name: string; head: Uint8Array; expected: { mime: string; ext: string } | undefined }[] = [
    { name: 'JPEG (JFIF)', head: bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF'), expected: { mime: 'image/jpeg', ext: 'jpg' } },
    { name: 'JPEG (Exif)', head: bytes([0xff, 0xd8, 0xff, 0xe1]), expected: { mime: 'image/jpeg', ext: 'jpg' } },
    { name: 'PNG', head: bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR'), expected: { mime: 'image/png', ext: 'png' } },
    { name: 'WebP (VP8)', head: bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '), expected: { mime: 'image/webp', ext: 'webp' } },
    { name: 'WebP (exactly 12 bytes)', head: bytes('RIFF', [0, 0, 0, 0], 'WEBP'), expected: { mime: 'image/webp', ext: 'webp' } },
    { name: 'GIF87a', head: bytes('GIF87a', [1, 0, 1, 0]), expected: { mime: 'image/gif', ext: 'gif' } },
    { name: 'GIF89a', head: bytes('GIF89a', [1, 0, 1, 0]), expected: { mime: 'image/gif', ext: 'gif' } },
    { name: 'TIFF little-endian', head: bytes('II', [0x2a, 0x00, 8, 0, 0, 0]), expected: { mime: 'image/tiff', ext: 'tiff' } },
    { name: 'TIFF big-endian', head: bytes('MM', [0x00, 0x2a, 0, 0, 0, 8]), expected: { mime: 'image/tiff', ext: 'tiff' } },
    { name: 'AVIF major brand avif', head: ftyp('avif', ['mif1', 'miaf']), expected: { mime: 'image/avif', ext: 'avif' } },
    { name: 'AVIF major brand avis', head: ftyp('avis', ['msf1']), expected: { mime: 'image/avif', ext: 'avif' } },
    { name: 'AVIF compatible brand', head: ftyp('mif1', ['mif1', 'miaf', 'avif', 'MA1B']), expected: { mime: 'image/avif', ext: 'avif' } },
    { name: 'AVIF box size 0 (to end)', head: ftyp('mif1', ['avif'], 0), expected: { mime: 'image/avif', ext: 'avif' } },
    // A real AVIF head as written by libavif/sharp, followed by the meta box.
    { name: 'AVIF followed by other boxes', head: bytes(ftyp('avif', ['avif', 'mif1', 'miaf', 'MA1B']), [0, 0, 0, 0x21], 'meta'), expected: { mime: 'image/avif', ext: 'avif' } },
    // Not images / not our types.
    { name: 'empty', head: new Uint8Array(0), expected: undefined },
    { name: 'text', head: bytes('hello, world: this is not an image at all'), expected: undefined },
    { name: 'JSON', head: bytes('{"image_id":"a"}'), expected: undefined },
    { name: 'PDF', head: bytes('%PDF-1.7\n'), expected: undefined },
    { name: 'BMP', head: bytes('BM', [0x36, 0, 0, 0, 0, 0, 0, 0]), expected: undefined },
    { name: 'HEIC (ftyp heic, no avif brand)', head: ftyp('heic', ['mif1', 'heic']), expected: undefined },
    { name: 'MP4 (ftyp isom)', head: ftyp('isom', ['isom', 'iso2', 'mp41']), expected: undefined },
    { name: 'avif brand beyond the ftyp box', head: bytes(ftyp('mif1', ['mif1']), 'avif'), expected: undefined },
    { name: 'ftyp box size too small', head: ftyp('avif', [], 8), expected: undefined },
    { name: 'RIFF but WAVE', head: bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt '), expected: undefined },
    { name: 'GIF88a', head: bytes('GIF88a'), expected: undefined },
    { name: 'II without 42', head: bytes('II', [0x2b, 0x00]), expected: undefined },
    // Truncated signatures.
    { name: 'truncated JPEG', head: bytes([0xff, 0xd8]), expected: undefined },
    { name: 'truncated PNG', head: bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a]), expected: undefined },
    { name: 'truncated WebP', head: bytes('RIFF', [0, 0, 0, 0], 'WEB'), expected: undefined },
    { name: 'truncated GIF', head: bytes('GIF89'), expected: undefined },
    { name: 'truncated TIFF', head: bytes('MM', [0x00]), expected: undefined },
    { name: 'truncated AVIF', head: bytes([0, 0, 0, 0x1c], 'ftypav'), expected: undefined },
    { name: 'single byte', head: bytes([0xff]), expected: undefined },
  ];
  it.each(cases)('$name', ({ head, expected }) => {
    expect(detectImageType(head)).toEqual(expected);
  });

  it('accepts a subarray view with a non-zero byte offset', () => {
    const buffer = bytes('xxxx', 'GIF89a', [1, 0]);
    expect(detectImageType(buffer.subarray(4))).toEqual({ mime: 'image/gif', ext: 'gif' });
  });
});
