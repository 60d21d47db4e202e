import { describe, expect, it } from 'vitest';
import { TAIL_MAX_TERM_ID, TailIndex } from './engine-tails.js';

describe('TailIndex (engine writer cache)', () => {
  it('keeps where each term list ends, across growth; forgets one term or all; ignores ids past the bound', () => {
    const tails = new TailIndex();
    expect(tails.count(5)).toBe(0);
    tails.set(5, { firstDoc: 100, count: 3, lastDoc: 2 ** 32 - 2 });
    tails.set(70_000, { firstDoc: 7, count: 128, lastDoc: 9 });
    expect([tails.count(5), tails.firstDoc(5), tails.lastDoc(5)]).toEqual([3, 100, 2 ** 32 - 2]);
    expect([tails.count(70_000), tails.firstDoc(70_000), tails.lastDoc(70_000)]).toEqual([128, 7, 9]);
    tails.set(5, undefined);
    expect(tails.count(5)).toBe(0);
    tails.set(TAIL_MAX_TERM_ID, { firstDoc: 1, count: 1, lastDoc: 1 });
    expect(tails.count(TAIL_MAX_TERM_ID)).toBe(0);
    tails.clear();
    expect(tails.count(70_000)).toBe(0);
    tails.set(6, { firstDoc: 1, count: 2, lastDoc: 3 });
    expect(tails.count(6)).toBe(2);
  });
});
