import { describe, expect, it } from 'vitest';
import { rng } from '../../../../test/helpers/random.js';
import { DESCRIPTOR_WORDS, hamming256, popcount32 } from './hamming.js';
import { HeapVocabulary } from './heap-vocabulary.js';
import { PostingHeap } from './posting-heap.js';
import { appendPosting, postingsWithCapacity, rebindPostings, type Postings } from './postings.js';
import { TentativeMatches } from './tentative-matches.js';
import { trainVocabulary, Vocabulary } from './vocabulary.js';

/** A random descriptor as 8 uint32 words. */
function randomDescriptor(r: () => number): Uint32Array {
  return Uint32Array.from({ length: DESCRIPTOR_WORDS }, () => Math.floor(r() * 2 ** 32) >>> 0);
}

/** `q` with `first` bits flipped in its first 128 bits and `second` in the other 128 (distinct bits). */
function flipped(q: Uint32Array, first: number, second: number, r: () => number): Uint32Array {
  const out = q.slice();
  const flip = (from: number, count: number): void => {
    const bits = Array.from({ length: 128 }, (_, i) => from + i);
    for (let k = 0; k < count; k++) {
      const at = k + Math.floor(r() * (bits.length - k));
      const bit = bits[at] ?? 0;
      bits[at] = bits[k] ?? 0;
      out[bit >>> 5] = ((out[bit >>> 5] ?? 0) ^ (1 << (bit & 31))) >>> 0;
    }
  };
  flip(0, first);
  flip(128, second);
  return out;
}

/**
 * The scan as a plain JavaScript loop computes it: per posting the
 * distance of the first 128 bits, skipped above `maxHalf`, the whole distance, skipped above
 * `maxD`, dead slots skipped, one match per slot (the nearest; on equal distances the first).
 */
function referenceScan(q: Uint32Array, postings: { slot: number; kp: number; desc: Uint32Array }[], alive: boolean[], maxHalf: number, maxD: number): [number, number, number][] {
  const matches: [number, number, number][] = [];
  const bySlot = new Map<number, number>();
  for (const p of postings) {
    let d = 0;
    for (let w = 0; w < 4; w++) d += popcount32(((q[w] ?? 0) ^ (p.desc[w] ?? 0)) >>> 0);
    if (d > maxHalf) continue;
    for (let w = 4; w < 8; w++) d += popcount32(((q[w] ?? 0) ^ (p.desc[w] ?? 0)) >>> 0);
    if (d > maxD || !alive[p.slot]) continue;
    const at = bySlot.get(p.slot);
    if (at === undefined) {
      bySlot.set(p.slot, matches.length);
      matches.push([p.slot, p.kp, d]);
    } else if (d < (matches[at]?.[2] ?? 0)) {
      matches[at] = [p.slot, p.kp, d];
    }
  }
  return matches;
}

describe('WebAssembly posting scan', () => {
  it('finds exactly the matches and distances of the JavaScript scan, thresholds met exactly and all bits set included', () => {
    const r = rng(14);
    const heap = new PostingHeap();
    const slots = 40;
    const alive = Array.from({ length: slots }, (_, s) => s !== 7);
    for (let round = 0; round < 20; round++) {
      const q = round === 0 ? new Uint32Array(DESCRIPTOR_WORDS) : round === 1 ? new Uint32Array(DESCRIPTOR_WORDS).fill(0xffffffff) : randomDescriptor(r);
      const maxHalf = round === 0 ? 128 : 26;
      const maxD = round === 0 ? 256 : 40;
      const postings: { slot: number; kp: number; desc: Uint32Array }[] = [];
      // Slots 28–39 for one edge case each (no nearer posting of the same slot hides it), 0–27
      // (slot 7 removed) for random postings, several a slot.
      let edgeSlot = 28;
      const add = (desc: Uint32Array, slot = edgeSlot++): void => {
        postings.push({ slot, kp: Math.floor(r() * 65536), desc });
      };
      // At and around both thresholds: (first half, second half) bit differences.
      for (const [a, b] of [[26, 14], [26, 15], [27, 0], [25, 15], [25, 16], [0, 40], [0, 41], [0, 0], [13, 13], [26, 0]] as const) add(flipped(q, a, b, r));
      add(new Uint32Array(DESCRIPTOR_WORDS).fill(0xffffffff));
      add(new Uint32Array(DESCRIPTOR_WORDS));
      for (let k = 0; k < 200; k++) add(k % 3 === 0 ? randomDescriptor(r) : flipped(q, Math.floor(r() * 30), Math.floor(r() * 30), r), Math.floor(r() * 28));
      const list = postingsWithCapacity(heap, 1);
      for (const p of postings) appendPosting(heap, list, p.slot, p.kp, p.desc, 0);
      const matches = new TentativeMatches(heap);
      matches.reset(slots, alive);
      matches.setQuery(q, 0);
      matches.scan(list, 3, 1.25, maxHalf, maxD);
      matches.refresh();
      const got = Array.from({ length: matches.count }, (_, i) => [matches.slot[i], matches.kp[i], matches.dist[i]]);
      const expected = referenceScan(q, postings, alive, maxHalf, maxD);
      expect(got).toEqual(expected);
      expect(matches.compared).toBe(postings.length);
      expect([...matches.q.subarray(0, matches.count)].every((v) => v === 3)).toBe(true);
      expect([...matches.idf.subarray(0, matches.count)].every((v) => v === Math.fround(1.25))).toBe(true);
      // The exact thresholds are in: the all-zero query matches the all-set descriptor at 256 bits.
      if (round === 0) expect(got.some((m) => m[2] === 256)).toBe(true);
      if (round > 1) expect(got.some((m) => m[2] === 40)).toBe(true);
    }
  });

  it('computes the distances of the JavaScript Hamming distance, and so the vocabulary words', () => {
    const r = rng(15);
    const heap = new PostingHeap();
    const centres = new Uint32Array(64 * DESCRIPTOR_WORDS);
    for (let i = 0; i < centres.length; i++) centres[i] = Math.floor(r() * 2 ** 32) >>> 0;
    centres.fill(0xffffffff, 0, DESCRIPTOR_WORDS);
    const at = heap.alloc(centres.byteLength);
    const qAt = heap.alloc(32);
    const out = heap.alloc(64 * 4);
    heap.u32.set(centres, at >> 2);
    for (const q of [new Uint32Array(DESCRIPTOR_WORDS), randomDescriptor(r), new Uint32Array(DESCRIPTOR_WORDS).fill(0xffffffff)]) {
      heap.u32.set(q, qAt >> 2);
      heap.distances(qAt, at, 64, out);
      const expected = Array.from({ length: 64 }, (_, c) => hamming256(q, 0, centres, c * DESCRIPTOR_WORDS));
      expect([...heap.i32.subarray(out >> 2, (out >> 2) + 64)]).toEqual(expected);
    }
    // Word assignment through the heap: the vocabulary's own words.
    const training = new Uint32Array(4000 * DESCRIPTOR_WORDS);
    for (let i = 0; i < training.length; i++) training[i] = Math.floor(r() * 2 ** 32) >>> 0;
    const vocabulary: Vocabulary = trainVocabulary(training, 8, 8, 2, 5, 3);
    const inHeap = new HeapVocabulary(heap, vocabulary);
    const want = new Int32Array(8);
    const got = new Int32Array(8);
    for (let i = 0; i < 500; i++) {
      heap.u32.set(training.subarray(i * DESCRIPTOR_WORDS, (i + 1) * DESCRIPTOR_WORDS), qAt >> 2);
      for (const m of [1, 2, 4]) {
        const n = vocabulary.words(training, i, m, want);
        expect(inHeap.words(qAt, m, got)).toBe(n);
        expect([...got.subarray(0, n)]).toEqual([...want.subarray(0, n)]);
      }
    }
  });

  it.each([true, false])('keeps every list readable when the heap grows (views rebuilt from offsets; shared memory %s)', (shared) => {
    const r = rng(16);
    const heap = new PostingHeap(undefined, shared);
    expect(heap.shared).toBe(shared);
    const lists: Postings[] = [];
    const written: Uint32Array[][] = [];
    heap.onGrow(() => {
      for (const p of lists) rebindPostings(heap, p);
    });
    const bufferBefore = heap.buffer;
    for (let l = 0; l < 30; l++) {
      const p = postingsWithCapacity(heap, 4);
      lists.push(p);
      written.push([]);
      for (let k = 0; k < 50; k++) {
        const d = randomDescriptor(r);
        appendPosting(heap, p, l, k, d, 0);
        written[l]?.push(d);
      }
    }
    // A large allocation grows the memory: a new buffer (a plain memory's old one is detached).
    const lengthBefore = bufferBefore.byteLength;
    heap.alloc(8 * 65536);
    expect(heap.buffer).not.toBe(bufferBefore);
    expect(heap.byteLength).toBeGreaterThan(lengthBefore + 8 * 65536);
    expect(bufferBefore.byteLength).toBe(shared ? lengthBefore : 0);
    // Written after the growth through the lists' views: in the memory the kernel reads.
    lists.forEach((p, l) => {
      const d = randomDescriptor(r);
      appendPosting(heap, p, l, 50, d, 0);
      written[l]?.push(d);
    });
    lists.forEach((p, l) => {
      expect(p.length).toBe(51);
      expect(p.slot.buffer).toBe(heap.buffer);
      for (let k = 0; k < 51; k++) {
        expect(p.slot[k]).toBe(l);
        expect(p.kp[k]).toBe(k);
        expect([...p.desc.subarray(k * DESCRIPTOR_WORDS, (k + 1) * DESCRIPTOR_WORDS)]).toEqual([...(written[l]?.[k] ?? [])]);
      }
    });
    // And the kernel reads them where they are.
    const matches = new TentativeMatches(heap);
    matches.reset(30, Array.from({ length: 30 }, () => true));
    const q = written[12]?.[33] ?? new Uint32Array(DESCRIPTOR_WORDS);
    matches.setQuery(q, 0);
    for (const p of lists) matches.scan(p, 0, 1, 26, 40);
    matches.refresh();
    expect([matches.count, matches.slot[0], matches.kp[0], matches.dist[0]]).toEqual([1, 12, 33, 0]);
    // Freed ranges are reused before the top grows.
    const free = heap.freeBytes;
    expect(free).toBeGreaterThan(0);
    const before = heap.allocatedBytes;
    heap.alloc(64);
    expect(heap.freeBytes).toBeLessThan(free);
    // A remainder under 64 bytes is not kept for reuse.
    expect(heap.allocatedBytes - before).toBeGreaterThanOrEqual(64);
    expect(heap.allocatedBytes - before).toBeLessThan(128);
  });
});
