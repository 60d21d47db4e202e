import { describe, expect, it } from 'vitest';
import { exhaustiveTopK, materializeWord, NAMES, postingTier, topK, TYPO, type DocData, type TermList } from './topk.js';

describe('exact above typo', () => {
  const data: DocData = { dl: [5, 5, 5, 5, 50], key: [0, 1, 2, 3, 4], avgdl: 10 };
  const scratch = { score: new Float64Array(8), mark: new Uint8Array(8) };
  // Doc 4 (a long part) matches exactly in a value; docs 1 and 2 match a typo neighbour in their names, far more often.
  const exact: TermList = { docs: Int32Array.from([4]), wtf: Float64Array.from([1]), names: Uint8Array.from([0]), idf: 1 };
  const typo: TermList = { docs: Int32Array.from([1, 2, 4]), wtf: Float64Array.from([30, 20, 30]), names: Uint8Array.from([NAMES | TYPO, NAMES | TYPO, NAMES | TYPO]), idf: 3 };

  it('orders tiers: exact in names, exact elsewhere, typo in names, typo elsewhere', () => {
    expect([NAMES, 0, NAMES | TYPO, TYPO].map(postingTier)).toEqual([0, 1, 4, 5]);
  });

  it('a part matched exactly ranks above parts matched only by a typo neighbour, whatever the scores; the reference agrees', () => {
    const word = materializeWord([exact, typo], data, scratch);
    expect(Array.from(word.names)).toEqual([NAMES | TYPO, NAMES | TYPO, NAMES]);
    const found = topK({ words: [word], filters: [] }, data, 3);
    expect(found.hits.map((h) => [h.doc, h.tier])).toEqual([[4, 0], [1, 4], [2, 4]]);
    expect(exhaustiveTopK([[exact, typo]], [], data, 3).hits.map((h) => [h.doc, h.tier])).toEqual([[4, 0], [1, 4], [2, 4]]);
    // With k = 1 the threshold must not refuse the exact part.
    expect(topK({ words: [word], filters: [] }, data, 1).hits.map((h) => h.doc)).toEqual([4]);
  });
});
