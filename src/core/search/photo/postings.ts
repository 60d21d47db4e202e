/**
 * Posting lists of the photo index (photo-index.ts; docs/search.md, "Photo search"): for every
 * reference keypoint of one visual word (or of one cell of a split stop word, split-cells.ts), its
 * image slot, its keypoint number and its full 256-bit descriptor inline, so a scan reads memory in
 * order. Pure code.
 */
import { DESCRIPTOR_WORDS } from './hamming.js';

/** A growable posting list: `length` used entries of parallel arrays (capacity = `slot.length`). */
export interface Postings {
  length: number;
  /** Image slot of each posting. */
  slot: Int32Array;
  /** Keypoint number within its image. */
  kp: Uint16Array;
  /** Descriptors, {@link DESCRIPTOR_WORDS} uint32 a posting. */
  desc: Uint32Array;
}

/** An empty list without capacity. */
export function emptyPostings(): Postings {
  return { length: 0, slot: new Int32Array(0), kp: new Uint16Array(0), desc: new Uint32Array(0) };
}

/** An empty list with room for `capacity` postings. */
export function postingsWithCapacity(capacity: number): Postings {
  return { length: 0, slot: new Int32Array(capacity), kp: new Uint16Array(capacity), desc: new Uint32Array(capacity * DESCRIPTOR_WORDS) };
}

/**
 * Makes room for `need` postings: exactly `need` when the list is empty (a bulk load), else at least
 * ×1.5 of the current length (uploads: amortised growth).
 */
export function reservePostings(p: Postings, need: number): void {
  if (need <= p.slot.length) return;
  const capacity = p.length === 0 ? need : Math.max(need, Math.ceil(p.length * 1.5));
  p.slot = grow(p.slot, capacity);
  p.kp = grow(p.kp, capacity);
  p.desc = grow(p.desc, capacity * DESCRIPTOR_WORDS);
}

/**
 * Appends one posting (growing the list when full): image `slot`, keypoint `kp`, and the descriptor
 * at word offset `offset` of `descriptors`.
 */
export function appendPosting(p: Postings, slot: number, kp: number, descriptors: Uint32Array, offset: number): void {
  if (p.length === p.slot.length) reservePostings(p, p.length + 1);
  const at = p.length++;
  p.slot[at] = slot;
  p.kp[at] = kp;
  const o = at * DESCRIPTOR_WORDS;
  const d = p.desc;
  for (let j = 0; j < DESCRIPTOR_WORDS; j++) d[o + j] = descriptors[offset + j] ?? 0;
}

/** Bytes held by the list's arrays at their allocated capacity. */
export function postingsBytes(p: Postings): number {
  return p.slot.byteLength + p.kp.byteLength + p.desc.byteLength;
}

/** Drops the postings of dead slots (`alive[slot]` false) in place, keeping the order of the others. */
export function compactPostings(p: Postings, alive: readonly boolean[]): void {
  let o = 0;
  for (let j = 0; j < p.length; j++) {
    const slot = p.slot[j] ?? 0;
    if (!alive[slot]) continue;
    if (o !== j) {
      p.slot[o] = slot;
      p.kp[o] = p.kp[j] ?? 0;
      p.desc.copyWithin(o * DESCRIPTOR_WORDS, j * DESCRIPTOR_WORDS, (j + 1) * DESCRIPTOR_WORDS);
    }
    o++;
  }
  p.length = o;
}

/** A copy of `a` with room for `capacity` elements. */
export function grow<T extends Int32Array | Uint16Array | Uint32Array | Float32Array>(a: T, capacity: number): T {
  const out = new (a.constructor as new (n: number) => T)(capacity);
  out.set(a.subarray(0, Math.min(a.length, capacity)) as unknown as ArrayLike<number>);
  return out;
}
