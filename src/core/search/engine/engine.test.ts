import { describe, expect, it } from 'vitest';
import { idf } from './bm25.js';
import { decodeBlock, emptyPostings, encodeBlock, GROUPS, mergeSorted, GatheredPostings, type Postings } from './postings.js';
import { exhaustiveTopK, materializeWord, topK, type DocData, type TermList } from './topk.js';

/**
 * The reference model of a merge, which GatheredPostings with mergeSorted must agree with: `changes`
 * maps doc -> GROUPS frequencies (all zero or null removes the doc). Returns the merged postings and, for document-frequency bookkeeping, the
 * postings removed or replaced (`before`) and the ones added or replacing (`after`).
 */
function mergePostings(base: Postings, changes: ReadonlyMap<number, readonly number[] | null>): { merged: Postings; before: Postings; after: Postings } {
  const changed = [...changes.keys()].sort((a, b) => a - b);
  const merged = emptyPostings();
  const before = emptyPostings();
  const after = emptyPostings();
  const push = (target: Postings, doc: number, tf: readonly number[], offset = 0) => {
    target.docs.push(doc);
    for (let g = 0; g < GROUPS; g++) target.tf.push(tf[offset + g] ?? 0);
  };
  let i = 0;
  let j = 0;
  while (i < base.docs.length || j < changed.length) {
    const b = i < base.docs.length ? (base.docs[i] ?? 0) : Infinity;
    const c = j < changed.length ? (changed[j] ?? 0) : Infinity;
    if (b < c) {
      push(merged, b, base.tf, i * GROUPS);
      i++;
      continue;
    }
    const tf = changes.get(c);
    if (b === c) {
      push(before, b, base.tf, i * GROUPS);
      i++;
    }
    if (tf && tf.some((x) => x > 0)) {
      push(merged, c, tf);
      push(after, c, tf);
    }
    j++;
  }
  return { merged, before, after };
}

/** Deterministic pseudo-random numbers. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('posting blocks', () => {
  it('round-trip docs and per-group frequencies, and merge changes', () => {
    const p = emptyPostings();
    for (const [doc, tf] of [[3, [1, 0, 0, 0, 0]], [200, [0, 2, 0, 0, 1]], [70_000, [5, 0, 0, 300, 0]]] as const) {
      p.docs.push(doc);
      p.tf.push(...tf);
    }
    const out = emptyPostings();
    decodeBlock(encodeBlock(p, 0, 3), 3, out);
    expect(out).toEqual(p);
    const { merged, before, after } = mergePostings(p, new Map([[200, null], [100, [1, 0, 0, 0, 0]], [3, [2, 0, 0, 0, 0]]]));
    expect(merged.docs).toEqual([3, 100, 70_000]);
    expect(merged.tf.slice(0, GROUPS)).toEqual([2, 0, 0, 0, 0]);
    expect(before.docs).toEqual([3, 200]);
    expect(after.docs).toEqual([3, 100]);
    expect(() => decodeBlock(new Uint8Array([2, 0]), 0, emptyPostings())).toThrow(RangeError);
  });
  it('gathered changes (GatheredPostings, mergeSorted) merge as the map of last changes does (mergePostings), in any order, terms interleaved', () => {
    const rnd = random(11);
    // One instance for every round, as a store's writer keeps it across transactions.
    const gathered = new GatheredPostings();
    const terms = ['b', 'a', 'c\u0000x', 'ab'];
    for (let round = 0; round < 300; round++) {
      const bases = new Map<string, { docs: number[]; tf: number[] }>();
      const last = new Map<string, Map<number, number[] | null>>();
      for (const term of terms) {
        const base = emptyPostings();
        for (let doc = 0; doc < 60; doc++) {
          if (rnd() < 0.4) {
            base.docs.push(doc);
            base.tf.push(1 + Math.floor(rnd() * 3), 0, Math.floor(rnd() * 2), 0, 0);
          }
        }
        bases.set(term, base);
        last.set(term, new Map());
      }
      // Appends in order (an import) in some rounds; updates, repeats and removals in any order in others.
      const ordered = round % 3 === 0;
      const next = new Map(terms.map((t) => [t, 60]));
      const changed = new Set<string>();
      for (let k = 0; k < 1 + Math.floor(rnd() * 120); k++) {
        const term = terms[Math.floor(rnd() * terms.length)] ?? 'a';
        const doc = ordered ? next.get(term)! : Math.floor(rnd() * 80);
        if (ordered) next.set(term, doc + 1 + Math.floor(rnd() * 3));
        const tf = !ordered && rnd() < 0.3 ? (rnd() < 0.5 ? null : [0, 0, 0, 0, 0]) : [Math.floor(rnd() * 3), 1 + Math.floor(rnd() * 2), 0, 0, Math.floor(rnd() * 2)];
        gathered.set(term, doc, tf);
        last.get(term)!.set(doc, tf);
        changed.add(term);
      }
      gathered.prepare();
      expect(gathered.sortedTerms()).toEqual([...changed].sort());
      const plain = ({ docs, tf }: { docs: number[]; tf: number[] }) => ({ docs, tf });
      for (const term of changed) {
        expect(plain(mergeSorted(bases.get(term)!, gathered.changes(term)))).toEqual(mergePostings(bases.get(term)!, last.get(term)!).merged);
        expect(plain(mergeSorted(emptyPostings(), gathered.changes(term)))).toEqual(mergePostings(emptyPostings(), last.get(term)!).merged);
      }
      gathered.clear();
      expect(gathered.size).toBe(0);
      expect(gathered.termCount).toBe(0);
    }
  });
});

describe('GatheredPostings growth', () => {
  it('keeps every change when its arrays grow past their first size (6,000 changes of 300 terms), and again after clear()', () => {
    const gathered = new GatheredPostings();
    for (let pass = 0; pass < 2; pass++) {
      for (let doc = 0; doc < 20; doc++) for (let t = 0; t < 300; t++) gathered.set(`t${t}`, doc * 7 + pass, [t % 5, 1, 0, 0, doc]);
      gathered.prepare();
      expect(gathered.size).toBe(6000);
      for (const t of [0, 150, 299]) {
        const changes = gathered.changes(`t${t}`);
        expect(changes.docs).toEqual(Array.from({ length: 20 }, (_, doc) => doc * 7 + pass));
        expect(changes.tf.slice(-5)).toEqual([t % 5, 1, 0, 0, 19]);
        expect(changes.removes).toBe(false);
      }
      gathered.clear();
    }
  });
});

describe('topK', () => {
  const n = 5000;
  const rnd = random(7);
  const data: DocData = { dl: Array.from({ length: n }, () => 1 + Math.floor(rnd() * 30)), key: Array.from({ length: n }, () => Math.floor(rnd() * 1e6)), avgdl: 15, n };
  const list = (density: number, seed: number): TermList => {
    const r = random(seed);
    const docs: number[] = [];
    const wtf: number[] = [];
    const names: number[] = [];
    for (let d = 0; d < n; d++) {
      if (r() >= density) continue;
      docs.push(d);
      const inName = r() < 0.5;
      wtf.push((inName ? 10 : 0) + (r() < 0.3 ? 1 + Math.floor(r() * 2) : inName ? 0 : 1));
      names.push(inName ? 1 : 0);
    }
    return { docs: Int32Array.from(docs), wtf: Float64Array.from(wtf), names: Uint8Array.from(names), idf: idf(n, docs.length) };
  };

  it('equals an exhaustive scoring for one word, two words, alternatives and filters, at every k', () => {
    const frequent = list(0.4, 1);
    const medium = list(0.05, 2);
    const alt1 = list(0.02, 3);
    const alt2 = list(0.1, 4);
    const filter = list(0.5, 5).docs;
    for (const k of [1, 25, 300, 5000]) {
      expect(topK({ words: [frequent], filters: [] }, data, k)).toEqual(exhaustiveTopK([[frequent]], [], data, k));
      expect(topK({ words: [frequent, medium], filters: [] }, data, k)).toEqual(exhaustiveTopK([[frequent], [medium]], [], data, k));
      const word = materializeWord([alt1, alt2], data);
      expect(topK({ words: [frequent, word], filters: [filter] }, data, k)).toEqual(exhaustiveTopK([[frequent], [alt1, alt2]], [filter], data, k));
    }
  });

  it('a short prefix of thousands of completions, each a few postings, ranks as the exhaustive scoring', () => {
    // A completion per part, as names ending in a part number are, beside the word itself.
    const completions = Array.from({ length: 3000 }, (_, i) => {
      const docs = Int32Array.from([i, i + 1000].filter((d) => d < n));
      return { docs, wtf: Float64Array.from(docs, () => 10), names: Uint8Array.from(docs, () => 1), idf: idf(n, docs.length) };
    });
    const alternatives = [list(0.2, 91), ...completions];
    const word = materializeWord(alternatives, data);
    for (const k of [25, 5000]) expect(topK({ words: [word], filters: [] }, data, k)).toEqual(exhaustiveTopK([alternatives], [], data, k));
  });

  it('a word of 1 to 8 alternatives (two merged at once, more merged pairwise) ranks as the exhaustive scoring, typo flags included', () => {
    for (let lists = 1; lists <= 8; lists++) {
      const alternatives = Array.from({ length: lists }, (_, i) => {
        const l = list(i === 0 ? 0.3 : 0.03, 20 + lists * 10 + i);
        // Every other alternative a typo neighbour (TYPO = 2): exact matches must rank above.
        return i % 2 === 1 ? { ...l, names: l.names.map((f) => f | 2) } : l;
      });
      const word = materializeWord(alternatives, data);
      for (const k of [1, 25, 5000]) expect(topK({ words: [word], filters: [] }, data, k), `${lists} alternatives, k ${k}`).toEqual(exhaustiveTopK([alternatives], [], data, k));
    }
  });

  it('ranks names above values, then score, then key; counts exactly with an exclusion', () => {
    const word: TermList = { docs: Int32Array.from([1, 2, 3, 4]), wtf: Float64Array.from([1, 10, 10, 50]), names: Uint8Array.from([0, 1, 1, 0]), idf: 1 };
    const flat: DocData = { dl: [5, 5, 5, 5, 5], key: [0, 0, 9, 3, 0], avgdl: 5, n: 5 };
    expect(topK({ words: [word], filters: [] }, flat, 10).hits.map((h) => h.doc)).toEqual([3, 2, 4, 1]);
    const found = topK({ words: [word], filters: [Int32Array.from([1, 2, 3, 4])], exclude: Int32Array.from([3]) }, flat, 1);
    expect(found.total).toBe(3);
    expect(found.hits.map((h) => h.doc)).toEqual([2]);
  });
});
