import { describe, expect, it } from 'vitest';
import { tfPart } from './bm25.js';
import { attributeCost, attributeMarks, BEGINS_FIELD, COMPLETION, customPostingTier, EXACT_FIELD, exhaustiveTopK, finishTier, materializeWord, NAMES, NEAR_FIELD, postingTier, SYNONYM, topK, TYPO, wordRank, type DocData, type TermList } from './topk.js';

describe('exact above typo', () => {
  const data: DocData = { dl: [5, 5, 5, 5, 50], key: [0, 1, 2, 3, 4], avgdl: 10, n: 5 };
  // Doc 4 (a long part) matches exactly in a value; docs 1 and 2 match a typo neighbour in their names, far more often.
  const exact: TermList = { docs: Int32Array.from([4]), wtf: Float64Array.from([1]), names: Uint8Array.from([0]), idf: 1 };
  const typo: TermList = { docs: Int32Array.from([1, 2, 4]), wtf: Float64Array.from([30, 20, 30]), names: Uint8Array.from([NAMES | TYPO, NAMES | TYPO, NAMES | TYPO]), idf: 3 };

  it('orders tiers by the ranking rules: exact field, typos, synonyms, proximity, attribute, exactness', () => {
    // The name rule first: equal, then begins (the word itself before a completion), then a typo neighbour's name.
    const order = [NAMES | EXACT_FIELD, NAMES | BEGINS_FIELD, NAMES | BEGINS_FIELD | COMPLETION, NAMES | NEAR_FIELD, NAMES | NEAR_FIELD | TYPO, NAMES, NAMES | COMPLETION, 0, COMPLETION, NAMES | SYNONYM, SYNONYM, NAMES | TYPO, TYPO, TYPO | COMPLETION];
    const tiers = order.map((flags) => postingTier(flags));
    for (let i = 1; i < tiers.length; i++) expect(tiers[i], `flags ${order[i]}`).toBeGreaterThan(tiers[i - 1] ?? 0);
    // With a custom ranking attribute, a name that begins with the query ties whether it holds the word or completes it (the custom ranking decides); elsewhere the same order.
    expect(customPostingTier(NAMES | BEGINS_FIELD | COMPLETION)).toBe(customPostingTier(NAMES | BEGINS_FIELD));
    expect(customPostingTier(NAMES | COMPLETION)).toBeGreaterThan(customPostingTier(NAMES));
    expect(customPostingTier(NAMES | EXACT_FIELD)).toBeLessThan(customPostingTier(NAMES | BEGINS_FIELD));
    // Counted per word: one typo among two words ranks above two typos, whatever the attributes.
    expect(finishTier(wordRank(TYPO) + wordRank(0))).toBeLessThan(finishTier(wordRank(NAMES | TYPO) + wordRank(NAMES | TYPO)));
    // The exact rule comes first: even a typo word beside it ranks above a part without it.
    expect(finishTier(wordRank(EXACT_FIELD | TYPO))).toBeLessThan(finishTier(wordRank(NAMES)));
    // 32 words of a part named by the query: the counts carry into no other rule.
    const named = Array.from({ length: 32 }, () => wordRank(NAMES | BEGINS_FIELD | TYPO | SYNONYM | COMPLETION)).reduce((a, b) => a + b, 0);
    // Level begins (1), typos and synonyms capped at 3, a completion.
    expect(finishTier(named)).toBe((((1 << 4) | (3 << 2) | 3) << 6) | 1);
    expect(finishTier(Array.from({ length: 32 }, () => wordRank(NAMES | EXACT_FIELD)).reduce((a, b) => a + b, 0))).toBe(0);
  });

  it('orders by the attribute order within the attribute rule: an earlier attribute first, unlisted last, names before all, exactness after', () => {
    const listed = 3;
    const tier = (flags: number, marks: number) => finishTier(wordRank(flags), false, (flags & NAMES) !== 0 ? 0 : attributeCost(marks, listed));
    expect(tier(NAMES, 0)).toBeLessThan(tier(0, attributeMarks(0)));
    expect(tier(0, attributeMarks(0))).toBeLessThan(tier(0, attributeMarks(1)));
    expect(tier(0, attributeMarks(1) | attributeMarks(2))).toBe(tier(0, attributeMarks(1)));
    expect(tier(0, attributeMarks(2))).toBeLessThan(tier(0, 0));
    // Exactness decides after it: a completion in the first attribute before the word itself in the second.
    expect(tier(COMPLETION, attributeMarks(0))).toBeLessThan(tier(0, attributeMarks(1)));
    // The rules before it still decide first: a typo in the first attribute after the word itself unlisted.
    expect(tier(TYPO, attributeMarks(0))).toBeGreaterThan(tier(0, 0));
    // Without an order, the tiers of today (the sum is 0).
    expect(finishTier(wordRank(0))).toBe(postingTier(0));
  });

  it('orders by proximity after typos and synonyms, before the attribute rule; the name levels ignore it; topK and the reference agree', () => {
    const two = (flags: number) => wordRank(flags) + wordRank(flags);
    // Fewer pairs apart first, capped at 3.
    expect(finishTier(two(0), false, 0, 0)).toBeLessThan(finishTier(two(0), false, 0, 1));
    expect(finishTier(two(0), false, 0, 3)).toBe(finishTier(two(0), false, 0, 5));
    // Before the attribute rule: words apart in a name after words together in a value.
    expect(finishTier(two(0), false, 0, 0)).toBeLessThan(finishTier(two(NAMES), false, 0, 1));
    // After typos and synonyms: a typo together after the words as typed apart.
    expect(finishTier(two(NAMES), false, 0, 3)).toBeLessThan(finishTier(wordRank(NAMES) + wordRank(NAMES | TYPO), false, 0, 0));
    expect(finishTier(two(NAMES), false, 0, 3)).toBeLessThan(finishTier(wordRank(NAMES) + wordRank(NAMES | SYNONYM), false, 0, 0));
    // A part the name rule names holds the words in order: the level alone decides.
    expect(finishTier(two(NAMES | BEGINS_FIELD), false, 0, 2)).toBe(finishTier(two(NAMES | BEGINS_FIELD)));
    // Docs 0..2 hold both words in a name; only doc 2 holds them next to each other, and scores least.
    const pairData: DocData = { dl: [2, 2, 9], key: [0, 1, 2], avgdl: 4, n: 3 };
    const list = (): TermList => ({ docs: Int32Array.from([0, 1, 2]), wtf: Float64Array.from([10, 10, 10]), names: Uint8Array.from([NAMES, NAMES, NAMES]), idf: 1 });
    const pairs = [Int32Array.from([2])];
    expect(topK({ words: [list(), list()], filters: [], pairs }, pairData, 3).hits.map((h) => h.doc)).toEqual([2, 0, 1]);
    expect(topK({ words: [list(), list()], filters: [] }, pairData, 3).hits.map((h) => h.doc)).toEqual([0, 1, 2]);
    expect(exhaustiveTopK([[list()], [list()]], [], pairData, 3, undefined, pairs).hits.map((h) => h.doc)).toEqual([2, 0, 1]);
  });

  it('a part matched exactly ranks above parts matched only by a typo neighbour, whatever the scores; the reference agrees', () => {
    const word = materializeWord([exact, typo], data);
    // Doc 4 holds the word as typed (in a value): its neighbour in the name neither scores nor counts as a name match.
    expect(Array.from(word.names)).toEqual([NAMES | TYPO, NAMES | TYPO, 0]);
    expect(word.score[2]).toBeCloseTo(exact.idf * tfPart(1, 50, 10), 12);
    const found = topK({ words: [word], filters: [] }, data, 3);
    expect(found.hits.map((h) => [h.doc, h.tier])).toEqual([[4, postingTier(0)], [1, postingTier(NAMES | TYPO)], [2, postingTier(NAMES | TYPO)]]);
    expect(exhaustiveTopK([[exact, typo]], [], data, 3).hits.map((h) => [h.doc, h.tier])).toEqual(found.hits.map((h) => [h.doc, h.tier]));
    // With k = 1 the threshold must not refuse the exact part.
    expect(topK({ words: [word], filters: [] }, data, 1).hits.map((h) => h.doc)).toEqual([4]);
  });
});
