import { describe, expect, it } from 'vitest';
import { rng } from '../../../../test/helpers/random.js';
import { countInEvery, intersect, membership, unionOf } from './doc-sets.js';

/** An ascending set of distinct doc ids below `max`, each present with probability `p`. */
function randomSet(rnd: () => number, max: number, p: number): Int32Array {
  const out: number[] = [];
  for (let d = 0; d < max; d++) if (rnd() < p) out.push(d);
  return Int32Array.from(out);
}

describe('doc sets', () => {
  it('countInEvery counts the docs in every group (a group: the union of its lists) as a plain set computation does, and leaves the marks zeroed', () => {
    const rnd = rng(5);
    const mark = new Uint8Array(600);
    for (const groupCount of [1, 2, 3, 8, 9, 12]) {
      for (let round = 0; round < 10; round++) {
        const groups = Array.from({ length: groupCount }, () => Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => randomSet(rnd, 600, 0.3 + rnd() * 0.6)));
        const unions = groups.map((lists) => new Set(lists.flatMap((l) => [...l])));
        const want = [...(unions[0] ?? [])].filter((d) => unions.every((u) => u.has(d))).length;
        expect(countInEvery(groups, mark), `${groupCount} groups`).toBe(want);
        expect(mark.every((m) => m === 0)).toBe(true);
        expect(intersect(groups.map(unionOf))).toHaveLength(want);
      }
    }
  });

  it('membership flags the docs a set holds, whether the set is walked or searched', () => {
    const rnd = rng(7);
    for (const [pDocs, pSet] of [[0.5, 0.5], [0.01, 0.9], [0.9, 0.01], [0.3, 0]]) {
      const docs = randomSet(rnd, 2000, pDocs as number);
      const set = randomSet(rnd, 2000, pSet as number);
      const held = new Set(set);
      expect(Array.from(membership(docs, set)), `${pDocs} / ${pSet}`).toEqual(Array.from(docs, (d) => (held.has(d) ? 1 : 0)));
    }
  });

  it('unionOf keeps each doc once, ascending', () => {
    expect(Array.from(unionOf([Int32Array.from([1, 4, 9]), Int32Array.from([4, 5]), Int32Array.from([0, 9, 12])]))).toEqual([0, 1, 4, 5, 9, 12]);
    expect(Array.from(unionOf([]))).toEqual([]);
  });
});
