import { describe, expect, it } from 'vitest';
import { rng } from '../../../../test/helpers/random.js';
import { DESCRIPTOR_WORDS } from './hamming.js';
import { bisectAll, majority } from './split-cells.js';

/** `n` random descriptors whose bits are set with probabilities that differ from bit to bit. */
function descriptors(n: number, seed: number): Uint32Array {
  const r = rng(seed);
  const p = Array.from({ length: 256 }, () => r());
  const out = new Uint32Array(n * DESCRIPTOR_WORDS);
  for (let i = 0; i < n; i++) {
    for (let bit = 0; bit < 256; bit++) {
      if (r() < (p[bit] ?? 0)) out[i * DESCRIPTOR_WORDS + (bit >>> 5)] = ((out[i * DESCRIPTOR_WORDS + (bit >>> 5)] ?? 0) | (1 << (bit & 31))) >>> 0;
    }
  }
  return out;
}

/** The majority over every k-th member (at most 64), bit by bit: what majority() must compute. */
function naiveMajority(desc: Uint32Array, order: Int32Array, from: number, to: number): Uint32Array {
  const stride = Math.max(1, Math.floor((to - from) / 64));
  const counts = new Int32Array(256);
  let n = 0;
  for (let i = from; i < to && n < 64; i += stride, n++) {
    const o = (order[i] ?? 0) * DESCRIPTOR_WORDS;
    for (let bit = 0; bit < 256; bit++) if ((((desc[o + (bit >>> 5)] ?? 0) >>> (bit & 31)) & 1) === 1) counts[bit] = (counts[bit] ?? 0) + 1;
  }
  const out = new Uint32Array(DESCRIPTOR_WORDS);
  for (let bit = 0; bit < 256; bit++) if ((counts[bit] ?? 0) * 2 > n) out[bit >>> 5] = ((out[bit >>> 5] ?? 0) | (1 << (bit & 31))) >>> 0;
  return out;
}

describe('split cells', () => {
  it('majority is the bitwise majority of the sampled members, for sets smaller and larger than the sample', () => {
    const desc = descriptors(1000, 5);
    const order = Int32Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
    for (const [from, to] of [[0, 1], [0, 3], [10, 74], [0, 1000], [123, 777]] as const) {
      const out = new Uint32Array(DESCRIPTOR_WORDS * 2);
      majority(desc, order, from, to, out, DESCRIPTOR_WORDS);
      expect([...out.subarray(DESCRIPTOR_WORDS)]).toEqual([...naiveMajority(desc, order, from, to)]);
    }
  });

  it('bisects into contiguous ranges of at most the cell size that cover every member once', () => {
    const desc = descriptors(3000, 6);
    const order = Int32Array.from({ length: 3000 }, (_, i) => i);
    const ranges = bisectAll(desc, order, 100);
    let covered = 0;
    for (let r = 0; r < ranges.length; r += 2) {
      const size = (ranges[r + 1] ?? 0) - (ranges[r] ?? 0);
      expect(size).toBeLessThanOrEqual(100);
      covered += size;
    }
    expect(covered).toBe(3000);
    expect(new Set(order).size).toBe(3000);
  });
});
