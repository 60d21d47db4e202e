import { describe, expect, it } from 'vitest';
import { BlobTooLargeError } from './blobs.js';
import { imageIntake, NotAnImageError, type IntakeResult } from './intake.js';

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const out: Uint8Array[] = [];
  for await (const chunk of source) out.push(chunk);
  return Buffer.concat(out);
}

async function* chunked(data: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 1)]);

describe('imageIntake', () => {
  it('passes the bytes through unchanged and reports the type, whatever the chunking', async () => {
    for (const size of [1, 7, 64, 1000]) {
      const result: IntakeResult = { type: undefined };
      expect((await collect(imageIntake(chunked(png, size), 1000, result))).equals(png)).toBe(true);
      expect(result.type).toEqual({ mime: 'image/png', ext: 'png' });
    }
  });

  it('refuses non-images before yielding anything, tiny and empty files included', async () => {
    for (const data of [Buffer.from('plain text that is long enough to fill the whole head of the file, surely'), Buffer.from('hi'), Buffer.alloc(0)]) {
      const yielded: Uint8Array[] = [];
      await expect((async () => {
        for await (const chunk of imageIntake(chunked(data, 8), 1000, { type: undefined })) yielded.push(chunk);
      })()).rejects.toBeInstanceOf(NotAnImageError);
      expect(yielded).toEqual([]);
    }
  });

  it('fails a file the transport truncated', async () => {
    await expect(collect(imageIntake(chunked(png, 50), 208, { type: undefined }, () => true))).rejects.toBeInstanceOf(BlobTooLargeError);
  });
});
