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

/**
 * Gives every empty list of `lists` with a non-zero `capacities[i]` room for exactly that many
 * postings, as views of three shared arrays (an arena) instead of three arrays a list (issue 14,
 * seventh round: a 10,000-reference start-up allocated ~49,000 mid-sized buffers, and V8's
 * accounting of that external memory spent most of the load's garbage collection). A list that
 * later needs more room gets arrays of its own ({@link reservePostings}); its range of the arena
 * stays allocated until every view of the arena is gone. Lists that are not empty are left alone.
 */
export function reserveInArena(lists: readonly Postings[], capacities: Int32Array): void {
  let total = 0;
  lists.forEach((p, i) => {
    if (p.length === 0) total += capacities[i] ?? 0;
  });
  if (total === 0) return;
  const slot = new Int32Array(total);
  const kp = new Uint16Array(total);
  const desc = new Uint32Array(total * DESCRIPTOR_WORDS);
  let at = 0;
  lists.forEach((p, i) => {
    const n = capacities[i] ?? 0;
    if (p.length !== 0 || n === 0) return;
    p.slot = slot.subarray(at, at + n);
    p.kp = kp.subarray(at, at + n);
    p.desc = desc.subarray(at * DESCRIPTOR_WORDS, (at + n) * DESCRIPTOR_WORDS);
    at += n;
  });
}

/**
 * Bytes held by the arrays behind `lists`, each underlying buffer counted once and whole (lists
 * that are views of an arena, {@link reserveInArena}, or cells that are views of one gather).
 */
export function buffersBytes(lists: Iterable<Postings>, seen: Set<ArrayBufferLike> = new Set()): number {
  let bytes = 0;
  for (const p of lists) {
    for (const a of [p.slot, p.kp, p.desc]) {
      if (a.byteLength === 0 || seen.has(a.buffer)) continue;
      seen.add(a.buffer);
      bytes += a.buffer.byteLength;
    }
  }
  return bytes;
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
