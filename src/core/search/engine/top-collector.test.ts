import { describe, expect, it } from 'vitest';
import { rng } from '../../../../test/helpers/random.js';
import { decodeBlock, decodeTermBlocks, emptyPostings, encodeBlock, GROUPS } from './postings.js';
import { selectBest, TopCollector } from './top-collector.js';
import { compareRanked, type RankedDoc } from './topk.js';

/** Hits with many ties in tier and score (as a frequent word's are), distinct docs and keys. */
function hits(seed: number, n: number): RankedDoc[] {
  const rnd = rng(seed);
  const keys = Array.from({ length: n }, (_, i) => i * 3).sort(() => rnd() - 0.5);
  return Array.from({ length: n }, (_, doc) => ({ doc, tier: Math.floor(rnd() * 3), score: Math.floor(rnd() * 6) / 2, key: keys[doc] ?? 0 }));
}

describe('TopCollector: the best k of a stream by (tier, score desc, key)', () => {
  it('equals sorting every hit and taking k, for every k and offer order', () => {
    for (const [seed, n] of [[1, 0], [2, 1], [3, 17], [4, 500], [5, 5000]] as const) {
      const all = hits(seed, n);
      const sorted = [...all].sort(compareRanked);
      for (const k of [0, 1, 2, 7, 25, 100, 1000, 4999, 5000, 6000, Number.MAX_SAFE_INTEGER]) {
        const top = new TopCollector(k);
        for (const h of all) top.offer(h.doc, h.tier, h.score, h.key);
        expect(top.result(), `seed ${seed}, n ${n}, k ${k}`).toEqual(sorted.slice(0, Math.min(k, n)));
      }
    }
  });

  it('orders a session-sized stream exactly: continuous and negative scores, scores a few ulps apart, ties broken by key', () => {
    const rnd = rng(12);
    const n = 40_000;
    const keys = Array.from({ length: n }, (_, i) => i).sort(() => rnd() - 0.5);
    const all: RankedDoc[] = Array.from({ length: n }, (_, doc) => {
      const kind = doc % 4;
      // A quarter of the scores a few ulps apart and a quarter equal: the order falls to the smallest differences and to the key.
      const score = kind === 0 ? rnd() * 40 : kind === 1 ? -rnd() * 3 : kind === 2 ? 7 + (doc % 13) * Number.EPSILON * 8 : 7;
      return { doc, tier: Math.floor(rnd() * 5) * 1000 + (doc % 2), score, key: keys[doc] ?? 0 };
    });
    const sorted = [...all].sort(compareRanked);
    for (const k of [300, 10_000, Number.MAX_SAFE_INTEGER]) {
      const top = new TopCollector(k);
      for (const h of all) top.offer(h.doc, h.tier, h.score, h.key);
      expect(top.result(), `k ${k}`).toEqual(sorted.slice(0, Math.min(k, n)));
    }
  });

  it('refuses, once k better hits are known, a tier or a bound that cannot enter', () => {
    const top = new TopCollector(2);
    expect(top.admits(5, 0)).toBe(true);
    for (let doc = 0; doc < 20; doc++) top.offer(doc, 1, 10, doc);
    // Twenty offered with k = 2: past its buffer (2k, at least 16) the collector has selected the best two (tier 1, score 10).
    expect(top.admits(2, 100)).toBe(false);
    expect(top.admits(1, 9.5)).toBe(false);
    expect(top.admits(1, 10)).toBe(true); // a tie may still win on its key
    expect(top.admits(0, 0)).toBe(true);
    expect(top.result().map((h) => h.doc)).toEqual([0, 1]);
  });

  it('selectBest puts the k smallest first and the k-th at k − 1', () => {
    const rnd = rng(9);
    for (let round = 0; round < 200; round++) {
      const values = Array.from({ length: 1 + Math.floor(rnd() * 300) }, () => Math.floor(rnd() * 50) * 1000 + round);
      const items = Int32Array.from(values.keys());
      const k = 1 + Math.floor(rnd() * values.length);
      // Distinct values (ties broken by index), as the collector's keys are.
      const cmp = (a: number, b: number) => (values[a] ?? 0) - (values[b] ?? 0) || a - b;
      selectBest(items, k, cmp);
      const want = [...values.keys()].sort(cmp);
      expect([...items.subarray(0, k)].sort(cmp)).toEqual(want.slice(0, k));
      expect(items[k - 1]).toBe(want[k - 1]);
    }
  });
});

describe('decodeTermBlocks: a whole list into typed arrays', () => {
  it('decodes as block-by-block decoding does, frequencies capped at 65,535', () => {
    const rnd = rng(4);
    const p = emptyPostings();
    let doc = 0;
    for (let i = 0; i < 1000; i++) {
      doc += 1 + Math.floor(rnd() * 500);
      p.docs.push(doc);
      for (let g = 0; g < GROUPS; g++) p.tf.push(rnd() < 0.5 ? 0 : rnd() < 0.01 ? 70_000 : 1 + Math.floor(rnd() * 300));
    }
    const blocks = [];
    for (let from = 0; from < 1000; from += 128) blocks.push({ data: encodeBlock(p, from, Math.min(1000, from + 128)), firstDoc: p.docs[from] ?? 0 });
    const reference = emptyPostings();
    for (const b of blocks) decodeBlock(b.data, b.firstDoc, reference);
    const got = decodeTermBlocks(blocks);
    expect([...got.docs]).toEqual(reference.docs);
    expect([...got.tf]).toEqual(reference.tf.map((v) => Math.min(v, 0xffff)));
    expect(decodeTermBlocks([])).toEqual({ docs: new Int32Array(0), tf: new Uint16Array(0) });
    expect(() => decodeTermBlocks([{ data: new Uint8Array([2, 0]), firstDoc: 0 }])).toThrow(RangeError);
  });
});
