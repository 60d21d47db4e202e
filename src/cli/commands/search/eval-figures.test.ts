import { describe, expect, it } from 'vitest';
import { compareWithBaseline, figuresByGroup, rankOf, savedFigures, worstQueries, type QueryOutcome } from './eval-figures.js';

const outcome = (line: number, group: string, rank: number | null): QueryOutcome => ({ line, group, query: `q${line}`, expected: ['x'], rank, first: [], total: 0 });

describe('search eval figures', () => {
  it('ranks the first expected part among the first 10 hits only', () => {
    expect(rankOf(['a', 'b', 'x', 'y'], ['y', 'x'])).toBe(3);
    expect(rankOf(['a'], ['x'])).toBeNull();
    expect(rankOf([...'abcdefghij', 'x'], ['x'])).toBeNull();
  });

  it('gives success@k and MRR per group in order of appearance, then all; one unnamed group is not repeated', () => {
    const rows = figuresByGroup([outcome(2, 'b', 1), outcome(3, 'a', 4), outcome(4, 'b', null), outcome(5, 'a', 2)]);
    expect(rows).toEqual([
      { group: 'b', queries: 2, 'success@1': 0.5, 'success@3': 0.5, 'success@10': 0.5, mrr: 0.5 },
      { group: 'a', queries: 2, 'success@1': 0, 'success@3': 0.5, 'success@10': 1, mrr: 0.375 },
      { group: 'all', queries: 4, 'success@1': 0.25, 'success@3': 0.5, 'success@10': 0.75, mrr: 0.438 },
    ]);
    expect(figuresByGroup([outcome(2, 'all', 3)]).map((r) => r.group)).toEqual(['all']);
  });

  it('lists the worst queries: not found first, then the lowest reciprocal rank, ties in file order; never a first hit', () => {
    const worst = worstQueries([outcome(2, 'a', 1), outcome(3, 'a', 2), outcome(4, 'a', null), outcome(5, 'a', 5), outcome(6, 'a', null)], 3);
    expect(worst.map((o) => o.line)).toEqual([4, 6, 5]);
  });

  it('calls a figure worse or better only beyond the tolerance, and notes groups it cannot compare', () => {
    const base = figuresByGroup([outcome(2, 'a', 1), outcome(3, 'b', 2)]);
    const now = base.map((f) => (f.group === 'a' ? { ...f, mrr: f.mrr - 0.005 } : f.group === 'all' ? { ...f, mrr: f.mrr - 0.006, 'success@3': f['success@3'] + 0.01 } : f));
    const c = compareWithBaseline(now.filter((f) => f.group !== 'b'), base, 0.005);
    expect(c.worse).toEqual([{ group: 'all', figure: 'mrr', baseline: 0.75, now: 0.744 }]);
    expect(c.better.map((f) => `${f.group} ${f.figure}`)).toEqual(['all success@3']);
    expect(c.missingGroups).toEqual(['b']);
    expect(compareWithBaseline(base, base, 0).worse).toEqual([]);
  });

  it('reads saved figures and says what a file that is not one lacks', () => {
    const saved = { groups: figuresByGroup([outcome(2, 'a', 1)]) };
    expect(savedFigures(JSON.parse(JSON.stringify(saved)))).toEqual(saved.groups);
    expect(() => savedFigures({ results: [] })).toThrow(/no "groups" array/);
    expect(() => savedFigures({ groups: [{ group: 'a', queries: 1, 'success@1': 1 }] })).toThrow(/"a"\) has no number "success@3"/);
  });
});
