import { describe, expect, it } from 'vitest';
import { rng } from '../../../../test/helpers/random.js';
import { TopCollector } from './top-collector.js';
import { kthLargest, selectTopScored } from './top-select.js';
import { compareRanked, exhaustiveTopK, materializeWord, NAMES, topK, TYPO, type DocData, type TermList } from './topk.js';

/** n hits with heavy ties in tier and score (as a frequent word's are): distinct docs, shuffled distinct keys. */
function scored(seed: number, n: number, distinctScores: number) {
  const rnd = rng(seed);
  const docs = Int32Array.from({ length: n }, (_, i) => i * 2 + 1);
  const keyOf = new Float64Array(2 * n + 2);
  const keys = Array.from({ length: n }, (_, i) => i * 3).sort(() => rnd() - 0.5);
  docs.forEach((doc, i) => (keyOf[doc] = keys[i] ?? 0));
  const tiers = Uint16Array.from({ length: n }, () => (rnd() < 0.7 ? 0 : rnd() < 0.5 ? 1 : 5));
  const scores = Float64Array.from({ length: n }, () => Math.floor(rnd() * distinctScores) / 7);
  return { docs, keyOf, tiers, scores };
}

describe('selectTopScored: the best k of scored hits', () => {
  it('equals the collector (and a full sort) for every k, across ties in tier and score', () => {
    for (const [seed, n, distinct] of [[1, 1, 1], [2, 40, 3], [3, 3000, 5], [4, 3000, 2000], [5, 20_000, 40]] as const) {
      const { docs, keyOf, tiers, scores } = scored(seed, n, distinct);
      const all = Array.from(docs, (doc, i) => ({ doc, tier: tiers[i] ?? 0, score: scores[i] ?? 0, key: keyOf[doc] ?? 0 })).sort(compareRanked);
      for (const k of [1, 2, 17, 1024, 2099, 2100, 2101, n - 1, n, n + 5]) {
        if (k < 1) continue;
        const got = selectTopScored(n, docs, tiers, scores, keyOf, k);
        const collector = new TopCollector(k);
        docs.forEach((doc, i) => collector.offer(doc, tiers[i] ?? 0, scores[i] ?? 0, keyOf[doc] ?? 0));
        expect(got, `seed ${seed}, n ${n}, k ${k}`).toEqual(all.slice(0, Math.min(k, n)));
        expect(got).toEqual(collector.result());
      }
    }
  });

  it('kthLargest finds the r-th largest with duplicates, for every r', () => {
    const rnd = rng(7);
    for (let round = 0; round < 100; round++) {
      const m = 1 + Math.floor(rnd() * 200);
      const values = Float64Array.from({ length: m }, () => Math.floor(rnd() * 9));
      const sorted = [...values].sort((a, b) => b - a);
      for (const r of [1, Math.ceil(m / 2), m]) expect(kthLargest(Float64Array.from(values), m, r)).toBe(sorted[r - 1]);
    }
  });
});

describe('topK of one word with a session-sized k takes the selection path and stays exact', () => {
  const rnd = rng(11);
  const n = 6000;
  const dl = Float64Array.from({ length: 2 * n }, () => 3 + Math.floor(rnd() * 6));
  const key = Float64Array.from({ length: 2 * n }, (_, i) => (i * 7919) % (2 * n));
  const data: DocData = { dl, key, avgdl: 6, n: 2 * n };
  const list = (every: number, offset: number, flags: number): TermList => {
    const docs = Int32Array.from({ length: Math.floor((2 * n - offset) / every) }, (_, i) => offset + i * every);
    return { docs, wtf: Float64Array.from(docs, () => 1 + Math.floor(rnd() * 3) * 10), names: Uint8Array.from(docs, () => (rnd() < 0.5 ? flags | NAMES : flags)), idf: 1.7 };
  };

  it('a term list of 6,000 postings: the same hits as the exhaustive reference at k 1,024 and 4,000', () => {
    const word = list(2, 0, 0);
    for (const k of [1024, 4000]) {
      const got = topK({ words: [word], filters: [] }, data, k);
      const want = exhaustiveTopK([[word]], [], data, k);
      expect(got.total).toBe(word.docs.length);
      expect(got.hits.map((h) => h.doc)).toEqual(want.hits.map((h) => h.doc));
    }
  });

  it('a materialized word (with typo neighbours): the same hits as the reference', () => {
    const alternatives = [list(2, 0, 0), list(3, 1, TYPO), list(5, 2, TYPO)];
    const word = materializeWord(alternatives, data);
    const got = topK({ words: [word], filters: [] }, data, 2000);
    const want = exhaustiveTopK([alternatives], [], data, 2000);
    expect(got.total).toBe(want.total);
    expect(got.hits).toEqual(want.hits.map((h) => ({ ...h })));
  });
});
