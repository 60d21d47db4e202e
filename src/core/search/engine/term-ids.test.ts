import { describe, expect, it } from 'vitest';
import { decodeTermIds, encodeTermIds } from './term-ids.js';

describe('term id lists', () => {
  it('round-trips any set of ids, ascending and without duplicates', () => {
    const ids = [5, 1, 300, 1, 2 ** 40, 127, 128, 0, 16_384];
    expect(decodeTermIds(encodeTermIds(ids))).toEqual([0, 1, 5, 127, 128, 300, 16_384, 2 ** 40]);
    expect(decodeTermIds(encodeTermIds([]))).toEqual([]);
  });

  it('takes about 1.5 bytes a term for the dense ids of an import batch', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => 1_000 + i * 3);
    expect(encodeTermIds(ids).length).toBeLessThan(10_100);
  });

  it('refuses a truncated list', () => {
    expect(() => decodeTermIds(new Uint8Array([0x81]))).toThrow(RangeError);
  });
});
