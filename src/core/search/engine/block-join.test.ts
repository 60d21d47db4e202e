import { describe, expect, it } from 'vitest';
import { rng } from '../../../../test/helpers/random.js';
import { BlockJoiner, blockCount, type JoinedBlock } from './block-join.js';
import { BLOCK_SIZE, decodeBlock, emptyPostings, encodeBlock, GROUPS, type Postings } from './postings.js';

/** `n` postings from doc `from` on: gaps of 1 to ~100,000 (varints of 1 to 3 bytes), frequencies of 0 to 300 per group, at least one non-zero. */
function list(seed: number, n: number, from: number): Postings {
  const rnd = rng(seed);
  const p = emptyPostings();
  let doc = from;
  for (let i = 0; i < n; i++) {
    doc += 1 + Math.floor(rnd() ** 4 * 100_000);
    p.docs.push(doc);
    const tf: number[] = Array.from({ length: GROUPS }, () => (rnd() < 0.5 ? 0 : Math.floor(rnd() ** 3 * 300)));
    if (!tf.some((v) => v > 0)) tf[Math.floor(rnd() * GROUPS)] = 1;
    p.tf.push(...tf);
  }
  return p;
}

/** The list encoded in blocks of the given sizes (as the runs of successive writes hold it). */
function split(p: Postings, sizes: number[]): { data: Uint8Array; firstDoc: number }[] {
  const blocks = [];
  for (let at = 0, k = 0; at < p.docs.length; k++) {
    const to = Math.min(p.docs.length, at + (sizes[k % sizes.length] ?? 1));
    blocks.push({ data: encodeBlock(p, at, to), firstDoc: p.docs[at] ?? 0 });
    at = to;
  }
  return blocks;
}

function join(blocks: { data: Uint8Array; firstDoc: number }[]): JoinedBlock[] {
  const out: JoinedBlock[] = [];
  const joiner = new BlockJoiner();
  for (const b of blocks) joiner.add(b.data, b.firstDoc, (j) => out.push(j));
  joiner.finish((j) => out.push(j));
  return out;
}

describe('BlockJoiner: a list\'s blocks joined into full blocks without decoding', () => {
  it('writes the bytes encodeBlock writes for the whole list in blocks of BLOCK_SIZE, whatever the blocks it was given', () => {
    for (const [seed, n, sizes] of [
      [1, 1, [1]],
      [2, 127, [1]],
      [3, 128, [5, 17]],
      [4, 129, [128]],
      [5, 1000, [3, 1, 40, 128, 77]],
      [6, 5000, [128, 2]],
    ] as const) {
      const p = list(seed, n, 1000 * seed);
      const joined = join(split(p, [...sizes]));
      const expected = split(p, [BLOCK_SIZE]);
      expect(joined.map((b) => [b.firstDoc, Array.from(b.data)]), `seed ${seed}`).toEqual(expected.map((b) => [b.firstDoc, Array.from(b.data)]));
      for (const [k, b] of joined.entries()) {
        const decoded = emptyPostings();
        decodeBlock(b.data, b.firstDoc, decoded);
        expect(b.count).toBe(decoded.docs.length);
        expect(blockCount(b.data)).toBe(b.count);
        expect(b.lastDoc).toBe(decoded.docs.at(-1));
        expect(b.count).toBe(k + 1 < joined.length ? BLOCK_SIZE : n - k * BLOCK_SIZE);
      }
    }
  });

  it('keeps a joiner\'s state to its own list: a second list after finish starts a block of its own', () => {
    const joiner = new BlockJoiner();
    const out: JoinedBlock[] = [];
    const a = list(7, 10, 0);
    const b = list(8, 3, 0);
    for (const block of split(a, [4])) joiner.add(block.data, block.firstDoc, (j) => out.push(j));
    joiner.finish((j) => out.push(j));
    for (const block of split(b, [2])) joiner.add(block.data, block.firstDoc, (j) => out.push(j));
    joiner.finish((j) => out.push(j));
    expect(out.map((j) => Array.from(j.data))).toEqual([...split(a, [BLOCK_SIZE]), ...split(b, [BLOCK_SIZE])].map((j) => Array.from(j.data)));
  });

  it('refuses bytes that are not a block, and a block whose postings do not follow the previous one', () => {
    const p = list(9, 20, 0);
    const whole = encodeBlock(p, 0, 20);
    expect(() => join([{ data: whole.subarray(0, whole.length - 1), firstDoc: p.docs[0] ?? 0 }])).toThrow(RangeError);
    expect(() => join([{ data: new Uint8Array(0), firstDoc: 0 }])).toThrow(/truncated/);
    const blocks = split(p, [10]);
    expect(() => join([blocks[1]!, blocks[0]!])).toThrow(/does not follow/);
  });
});
