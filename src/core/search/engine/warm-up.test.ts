import { describe, expect, it } from 'vitest';
import { WARM_UP_ROUNDS, warmUpQueries, warmUpRuns } from './warm-up.js';

describe('warmUpQueries', () => {
  it('uses the two largest plain words (alone, as a prefix, together, a short prefix) and the largest words of one and two typos, parsed as search text is', () => {
    const queries = warmUpQueries(['\uE001pci', '\uE002vendor\u0000intel', 'inc', 'intel', 'corporation', 'device', 'controller']);
    const shapes = queries.map((q) => q.words.map((w) => `${w.tokens.join(' ')}${w.prefix ? '*' : ''}${w.typo ? `~${w.maxTypos ?? 1}` : ''}`).join(' '));
    expect(shapes).toEqual(['inc', 'intel~1', 'inc*', 'inc intel~1', 'intel~1 inc*', 'intel~1 inc', 'corporation~2', 'corporation~2 inc']);
    for (const q of queries) {
      expect(q.filters).toEqual([]);
      expect(q.visibleValues).toEqual(['factoryWorker', 'admin', 'superAdmin', 'csa']);
      expect(q.ctx.organization).toBeUndefined();
    }
  });

  it('asks nothing of a catalog with fewer than two plain words', () => {
    expect(warmUpQueries([])).toEqual([]);
    expect(warmUpQueries(['intel', '\uE001pci'])).toEqual([]);
  });

  it("runs each query at a page's size and at the session's, several times over", () => {
    const runs = warmUpRuns(['inc', 'ltd'], 10_000);
    expect(runs).toHaveLength(5 * 2 * WARM_UP_ROUNDS);
    expect(WARM_UP_ROUNDS).toBeGreaterThan(1);
    expect(runs.slice(0, 2).map((r) => r.maxHits)).toEqual([25, 10_000]);
    expect(runs[0]?.query).toBe(runs[10]?.query);
  });
});
