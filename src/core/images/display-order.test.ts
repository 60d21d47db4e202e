import { describe, expect, it } from 'vitest';
import { DEFAULT_DISPLAY_ORDER_CONFIG, displayOrder, evenlySpacedIndexes } from './display-order.js';
import type { DisplayImageInput } from './display-order.js';
import { parseImageInfo } from './info-tokens.js';

let clock = 0;
/** An image with parsed info; createdAt increases with each call unless given. */
function img(image_id: string, info: string, extra: { position?: number; createdAt?: number } = {}): DisplayImageInput {
  const parsed = parseImageInfo(info);
  if (!parsed.ok) throw new Error(parsed.messages.join('; '));
  clock += 1000;
  return { image_id, info: parsed.info, createdAt: extra.createdAt ?? clock, ...(extra.position !== undefined ? { position: extra.position } : {}) };
}

const big = { maxDisplayImages: 100 } as const;

describe('displayOrder rules 1-3 (ordered)', () => {
  it('returns nothing for no images', () => {
    expect(displayOrder([])).toEqual({ ordered: [], shown: [] });
  });

  it('excludes images without the display token', () => {
    const images = [img('a', 'searchable'), img('b', 'display'), img('c', 'searchable weight=1'), img('d', 'searchable display')];
    expect(displayOrder(images)).toEqual({ ordered: ['b', 'd'], shown: ['b', 'd'] });
  });

  it('rule 1: positioned images first, by position ascending', () => {
    const images = [img('x', 'display weight=0'), img('p3', 'display', { position: 3 }), img('p1', 'display', { position: 1 }), img('p2', 'display', { position: 2 })];
    expect(displayOrder(images, big).ordered).toEqual(['p1', 'p2', 'p3', 'x']);
  });

  it('rule 2: equal positions alphabetically by image_id (binary order), not by creation', () => {
    const images = [
      img('b', 'display', { position: 2 }),
      img('a', 'display', { position: 2 }),
      img('B', 'display', { position: 2 }),
      img('z', 'display', { position: 1 }),
      img('\u{1F600}', 'display', { position: 2 }),
      img('\uFFFD', 'display', { position: 2 }),
    ];
    // Code-point order: 'B' < 'a' < 'b' < U+FFFD < U+1F600 (UTF-16 order would put the emoji first).
    expect(displayOrder(images, big).ordered).toEqual(['z', 'B', 'a', 'b', '\uFFFD', '\u{1F600}']);
  });

  it('rule 3: priority images by value ascending, then the ones without, in default order', () => {
    const images = [
      img('plain1', 'display'),
      img('w5', 'display weight=5'),
      img('wNeg', 'display weight=-1.5'),
      img('plain2', 'display'),
      img('w2', 'display weight=2'),
      img('w2b', 'display weight=2.0'),
    ];
    expect(displayOrder(images, big).ordered).toEqual(['wNeg', 'w2', 'w2b', 'w5', 'plain1', 'plain2']);
  });

  it('rule 3: weight beats the deprecated position= token in the same info', () => {
    const images = [
      img('a', 'display position=1 weight=10'),
      img('b', 'display weight=5'),
      img('c', 'display position=7'),
      img('d', 'display weight=8 position=100'),
    ];
    // priorities: a=10, b=5, c=7, d=8
    expect(displayOrder(images, big).ordered).toEqual(['b', 'c', 'd', 'a']);
  });

  it('rule 3: the position= token is a priority, not the position field', () => {
    const images = [img('tok', 'display position=1'), img('field', 'display', { position: 9 })];
    expect(displayOrder(images, big).ordered).toEqual(['field', 'tok']);
  });

  it('default ordering: createdAt, then image_id on equal createdAt', () => {
    const images = [img('c', 'display', { createdAt: 5 }), img('b', 'display', { createdAt: 5 }), img('a', 'display', { createdAt: 9 }), img('d', 'display', { createdAt: 1 })];
    expect(displayOrder(images, big).ordered).toEqual(['d', 'b', 'c', 'a']);
  });

  it('descending configuration: higher priority values first', () => {
    const images = [img('w1', 'display weight=1'), img('w3', 'display weight=3'), img('p', 'display'), img('w2', 'display position=2'), img('f', 'display', { position: 4 })];
    expect(displayOrder(images, { ...big, priorityDirection: 'descending' }).ordered).toEqual(['f', 'w3', 'w2', 'w1', 'p']);
  });

  it('does not mutate its input', () => {
    const images = [img('b', 'display', { position: 2 }), img('a', 'display', { position: 1 })];
    const copy = structuredClone(images);
    displayOrder(images);
    expect(images).toEqual(copy);
  });
});

describe('displayOrder rule 4 (shown)', () => {
  it('uses the standard configuration by default (max 5, ascending)', () => {
    expect(DEFAULT_DISPLAY_ORDER_CONFIG).toEqual({ maxDisplayImages: 5, priorityDirection: 'ascending' });
    const images = Array.from({ length: 7 }, (_, i) => img(`i${i}`, 'display'));
    const r = displayOrder(images);
    expect(r.ordered).toHaveLength(7);
    expect(r.shown).toEqual(['i0', 'i1', 'i2', 'i3', 'i4']);
  });

  it('shows everything when at most max', () => {
    const images = [img('a', 'display weight=1'), img('b', 'display', { position: 1 })];
    expect(displayOrder(images, { maxDisplayImages: 2 })).toEqual({ ordered: ['b', 'a'], shown: ['b', 'a'] });
  });

  it('(a) positioned images, lowest positions first, up to the max', () => {
    const images = [
      ...[6, 2, 4, 1, 5, 3, 7].map((p) => img(`p${p}`, 'display', { position: p })),
      img('w', 'display weight=0'),
      img('plain', 'display'),
    ];
    const r = displayOrder(images);
    expect(r.shown).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(r.ordered).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'w', 'plain']);
  });

  it('(a) with equal positions, alphabetical order decides who stays', () => {
    const images = ['e', 'c', 'a', 'd', 'b', 'f'].map((id) => img(id, 'display', { position: 1 }));
    expect(displayOrder(images).shown).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('(b) ascending: higher values are discarded first', () => {
    const images = [9, 1, 8, 2, 7, 3, 6].map((w) => img(`w${w}`, `display weight=${w}`));
    expect(displayOrder(images).shown).toEqual(['w1', 'w2', 'w3', 'w6', 'w7']);
  });

  it('(b) descending: lower values are discarded first', () => {
    const images = [9, 1, 8, 2, 7, 3, 6].map((w) => img(`w${w}`, `display weight=${w}`));
    expect(displayOrder(images, { priorityDirection: 'descending' }).shown).toEqual(['w9', 'w8', 'w7', 'w6', 'w3']);
  });

  it('(b) equal values competing for k slots: k evenly spaced in default order (5 candidates, k = 3 → 0, 2, 4)', () => {
    const images = [
      img('pos1', 'display', { position: 1 }),
      img('low', 'display weight=0'),
      ...['e0', 'e1', 'e2', 'e3', 'e4'].map((id) => img(id, 'display weight=1')),
      img('high', 'display weight=2'),
      img('plain', 'display'),
    ];
    const r = displayOrder(images);
    expect(r.ordered).toEqual(['pos1', 'low', 'e0', 'e1', 'e2', 'e3', 'e4', 'high', 'plain']);
    expect(r.shown).toEqual(['pos1', 'low', 'e0', 'e2', 'e4']);
  });

  it('(b) evenly spaced picks follow default order (createdAt), not image_id', () => {
    const images = [
      img('z', 'display weight=3', { createdAt: 1 }),
      img('y', 'display weight=3', { createdAt: 2 }),
      img('x', 'display weight=3', { createdAt: 3 }),
      img('w', 'display weight=3', { createdAt: 4 }),
    ];
    expect(displayOrder(images, { maxDisplayImages: 2 }).shown).toEqual(['z', 'w']);
    expect(displayOrder(images, { maxDisplayImages: 1 }).shown).toEqual(['z']);
    // n = 4, k = 3 → round(0), round(1.5) = 2, round(3) → z, x, w
    expect(displayOrder(images, { maxDisplayImages: 3 }).shown).toEqual(['z', 'x', 'w']);
  });

  it('(b) deprecated position= tokens compete like weights', () => {
    const images = [img('a', 'display position=3'), img('b', 'display weight=1'), img('c', 'display position=2'), img('d', 'display position=9 weight=0.5')];
    expect(displayOrder(images, { maxDisplayImages: 2 }).shown).toEqual(['d', 'b']);
  });

  it('(c) non-priority images fill what remains, in default order', () => {
    const images = [
      img('n1', 'display'),
      img('p1', 'display', { position: 1 }),
      img('w1', 'display weight=1'),
      img('n2', 'display'),
      img('w2', 'display weight=2'),
      img('n3', 'display'),
      img('n4', 'display'),
    ];
    const r = displayOrder(images);
    expect(r.ordered).toEqual(['p1', 'w1', 'w2', 'n1', 'n2', 'n3', 'n4']);
    expect(r.shown).toEqual(['p1', 'w1', 'w2', 'n1', 'n2']);
  });

  it('mixture of all three groups with a partial equal-weight group and non-display images', () => {
    const images = [
      img('s1', 'searchable'),
      img('pB', 'display', { position: 2 }),
      img('pA', 'display', { position: 2 }),
      img('eq0', 'display weight=4'),
      img('eq1', 'display weight=4'),
      img('eq2', 'display weight=4'),
      img('eq3', 'display weight=4'),
      img('eq4', 'display weight=4'),
      img('best', 'display weight=-1'),
      img('n1', 'display'),
      img('s2', 'searchable weight=-100'),
    ];
    const r = displayOrder(images, { maxDisplayImages: 6 });
    expect(r.ordered).toEqual(['pA', 'pB', 'best', 'eq0', 'eq1', 'eq2', 'eq3', 'eq4', 'n1']);
    // 6 slots: pA, pB, best; 3 left for 5 equal weights → eq0, eq2, eq4; none for n1.
    expect(r.shown).toEqual(['pA', 'pB', 'best', 'eq0', 'eq2', 'eq4']);
  });

  it('shown preserves display order and never exceeds max', () => {
    const images = [
      ...Array.from({ length: 4 }, (_, i) => img(`n${i}`, 'display')),
      ...Array.from({ length: 4 }, (_, i) => img(`w${i}`, `display weight=${i % 2}`)),
      img('p', 'display', { position: 10 }),
    ];
    for (let max = 0; max <= 10; max++) {
      const r = displayOrder(images, { maxDisplayImages: max });
      expect(r.shown).toHaveLength(Math.min(max, 9));
      expect(r.shown).toEqual(r.ordered.filter((id) => r.shown.includes(id)));
    }
  });

  it('max 0 shows nothing', () => {
    expect(displayOrder([img('a', 'display')], { maxDisplayImages: 0 })).toEqual({ ordered: ['a'], shown: [] });
  });

  it('rejects an invalid configuration', () => {
    expect(() => displayOrder([], { maxDisplayImages: -1 })).toThrow(RangeError);
    expect(() => displayOrder([], { maxDisplayImages: 2.5 })).toThrow(RangeError);
    expect(() => displayOrder([], { priorityDirection: 'up' as 'ascending' })).toThrow(RangeError);
  });
});

describe('evenlySpacedIndexes', () => {
  it.each([
    [5, 3, [0, 2, 4]],
    [5, 1, [0]],
    [5, 2, [0, 4]],
    [5, 5, [0, 1, 2, 3, 4]],
    [5, 0, []],
    [4, 3, [0, 2, 3]],
    [10, 4, [0, 3, 6, 9]],
    [7, 4, [0, 2, 4, 6]],
    [3, 9, [0, 1, 2]],
  ] as const)('n=%i k=%i → %j', (n, k, expected) => {
    expect(evenlySpacedIndexes(n, k)).toEqual(expected);
  });

  it('gives k distinct increasing indexes within range for every k <= n', () => {
    for (let n = 1; n <= 40; n++) {
      for (let k = 1; k <= n; k++) {
        const picks = evenlySpacedIndexes(n, k);
        expect(picks).toHaveLength(k);
        expect(picks[0]).toBe(0);
        if (k >= 2) expect(picks[k - 1]).toBe(n - 1);
        for (let i = 1; i < k; i++) expect(picks[i] ?? -1).toBeGreaterThan(picks[i - 1] ?? n);
      }
    }
  });
});
