import { describe, expect, it } from 'vitest';
import { filterValueMatches, foldFilterValue } from './text.js';

describe('filterValueMatches', () => {
  it('passes an equal value or its first whole words, nothing else', () => {
    const f = (stored: string, accepted: string) => filterValueMatches(foldFilterValue(stored), foldFilterValue(accepted));
    expect(f('Intel Corporation', 'intel corporation')).toBe(true);
    expect(f('Intel Corporation', 'Intel')).toBe(true);
    expect(f('Intel Corporation', 'Intel Corp')).toBe(false);
    expect(f('Intel Corporation', 'Corporation')).toBe(false);
    expect(f('Intel-Corp GmbH', 'intel')).toBe(true);
    expect(f('Intel', 'intel ')).toBe(false);
    expect(f('Intelligent', 'intel')).toBe(false);
    expect(f('Crème brûlée', 'CRÈME')).toBe(true);
    expect(f('x', '')).toBe(false);
  });
});
