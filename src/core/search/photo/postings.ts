/**
 * Posting lists of the photo index (photo-index.ts; docs/search.md, "Photo search"): for every
 * reference keypoint of one visual word (or of one cell of a split stop word, split-cells.ts), its
 * image slot, its keypoint number and its full 256-bit descriptor inline, so a scan reads memory in
 * order. Pure code.
 */
import { DESCRIPTOR_WORDS } from './hamming.js';
import { expectSnapshot } from './index-snapshot.js';
import type { PostingHeap } from './posting-heap.js';

/**
 * A growable posting list: `length` used entries of parallel arrays of `capacity` entries, held in
 * a {@link PostingHeap} (the scan kernel reads them there). The byte
 * offsets are the truth; the views are rebuilt from them when the heap grows
 * ({@link rebindPostings}). A list without capacity has empty views outside any heap.
 */
export interface Postings {
  length: number;
  /** Entries the ranges hold. */
  capacity: number;
  /** Byte offsets in the heap of the slot (int32), keypoint (uint16) and descriptor ranges. */
  slotAt: number;
  kpAt: number;
  descAt: number;
  /** Image slot of each posting (a view of the heap). */
  slot: Int32Array;
  /** Keypoint number within its image. */
  kp: Uint16Array;
  /** Descriptors, {@link DESCRIPTOR_WORDS} uint32 a posting. */
  desc: Uint32Array;
}

/** Bytes of one posting: descriptor, slot, keypoint number. */
export const POSTING_BYTES = DESCRIPTOR_WORDS * 4 + 4 + 2;

/** The views of every list without capacity: zero-length, so never written (a list gets views of its own with its first range, {@link place}). */
const NO_SLOTS = new Int32Array(0);
const NO_KEYPOINTS = new Uint16Array(0);
const NO_DESCRIPTORS = new Uint32Array(0);

/** An empty list without capacity. */
export function emptyPostings(): Postings {
  // Shared empty views: an index makes one list a visual word (16,384, twice at a snapshot's
  // restore), and three fresh arrays each were ~60 ms of a restore plus their garbage collection.
  return { length: 0, capacity: 0, slotAt: 0, kpAt: 0, descAt: 0, slot: NO_SLOTS, kp: NO_KEYPOINTS, desc: NO_DESCRIPTORS };
}

/** Points `p` at ranges of `heap` holding `capacity` entries, and makes its views. */
function place(heap: PostingHeap, p: Postings, capacity: number, slotAt: number, kpAt: number, descAt: number): void {
  p.capacity = capacity;
  p.slotAt = slotAt;
  p.kpAt = kpAt;
  p.descAt = descAt;
  rebindPostings(heap, p);
}

/** Rebuilds `p`'s views from its offsets over the heap's current buffer (after a growth). */
export function rebindPostings(heap: PostingHeap, p: Postings): void {
  if (p.capacity === 0) return;
  const buffer = heap.buffer;
  p.slot = new Int32Array(buffer, p.slotAt, p.capacity);
  p.kp = new Uint16Array(buffer, p.kpAt, p.capacity);
  p.desc = new Uint32Array(buffer, p.descAt, p.capacity * DESCRIPTOR_WORDS);
}

/** Entries [from, to) of `p` as a list of their own (views of the same ranges; `p` keeps them too). */
export function subPostings(heap: PostingHeap, p: Postings, from: number, to: number): Postings {
  const sub = emptyPostings();
  sub.length = to - from;
  if (to > from) place(heap, sub, to - from, p.slotAt + from * 4, p.kpAt + from * 2, p.descAt + from * DESCRIPTOR_WORDS * 4);
  return sub;
}

/** An empty list with room for `capacity` postings in `heap`. */
export function postingsWithCapacity(heap: PostingHeap, capacity: number): Postings {
  const p = emptyPostings();
  reservePostings(heap, p, capacity);
  return p;
}

/**
 * Makes room for `need` postings: exactly `need` when the list is empty (a bulk load), else at least
 * ×1.5 of the current length (uploads: amortised growth). The old ranges go back to the heap.
 */
export function reservePostings(heap: PostingHeap, p: Postings, need: number): void {
  if (need <= p.capacity) return;
  const capacity = p.length === 0 ? need : Math.max(need, Math.ceil(p.length * 1.5));
  // Offsets, not views: an allocation may grow the heap (a plain memory then detaches every view).
  const { capacity: oldCapacity, slotAt: oldSlot, kpAt: oldKp, descAt: oldDesc } = p;
  const slotAt = heap.alloc(capacity * 4);
  const kpAt = heap.alloc(capacity * 2);
  const descAt = heap.alloc(capacity * DESCRIPTOR_WORDS * 4);
  if (p.length > 0) {
    const u8 = heap.u8;
    u8.copyWithin(slotAt, oldSlot, oldSlot + p.length * 4);
    u8.copyWithin(kpAt, oldKp, oldKp + p.length * 2);
    u8.copyWithin(descAt, oldDesc, oldDesc + p.length * DESCRIPTOR_WORDS * 4);
  }
  if (oldCapacity > 0) {
    heap.release(oldSlot, oldCapacity * 4);
    heap.release(oldKp, oldCapacity * 2);
    heap.release(oldDesc, oldCapacity * DESCRIPTOR_WORDS * 4);
  }
  place(heap, p, capacity, slotAt, kpAt, descAt);
}

/** Gives `p`'s ranges back to the heap; `p` is then empty without capacity. */
export function releasePostings(heap: PostingHeap, p: Postings): void {
  if (p.capacity > 0) {
    heap.release(p.slotAt, p.capacity * 4);
    heap.release(p.kpAt, p.capacity * 2);
    heap.release(p.descAt, p.capacity * DESCRIPTOR_WORDS * 4);
  }
  Object.assign(p, emptyPostings());
}

/**
 * Appends one posting (growing the list when full): image `slot`, keypoint `kp`, and the descriptor
 * at word offset `offset` of `descriptors`.
 */
export function appendPosting(heap: PostingHeap, p: Postings, slot: number, kp: number, descriptors: Uint32Array, offset: number): void {
  if (p.length === p.capacity) reservePostings(heap, p, p.length + 1);
  const at = p.length++;
  p.slot[at] = slot;
  p.kp[at] = kp;
  const o = at * DESCRIPTOR_WORDS;
  const d = p.desc;
  for (let j = 0; j < DESCRIPTOR_WORDS; j++) d[o + j] = descriptors[offset + j] ?? 0;
}

/**
 * Gives every empty list of `lists` with a non-zero `capacities[i]` room for exactly that many
 * postings, as consecutive ranges of three large ranges of the heap (an arena:
 * a start-up then allocates three ranges, not ~49,000 lists' worth). A list that later needs
 * more room moves to ranges of its own ({@link reservePostings}) and its arena range is freed.
 * Lists that are not empty are left alone.
 */
export function reserveInArena(heap: PostingHeap, lists: readonly Postings[], capacities: Int32Array): void {
  let total = 0;
  lists.forEach((p, i) => {
    if (p.length === 0) total += capacities[i] ?? 0;
  });
  if (total === 0) return;
  lists.forEach((p, i) => {
    // Empty lists with ranges of their own give them back first.
    if (p.length === 0 && (capacities[i] ?? 0) > 0) releasePostings(heap, p);
  });
  const slotAt = heap.alloc(total * 4);
  const kpAt = heap.alloc(total * 2);
  const descAt = heap.alloc(total * DESCRIPTOR_WORDS * 4);
  let at = 0;
  lists.forEach((p, i) => {
    const n = capacities[i] ?? 0;
    if (p.length !== 0 || n === 0) return;
    place(heap, p, n, slotAt + at * 4, kpAt + at * 2, descAt + at * DESCRIPTOR_WORDS * 4);
    at += n;
  });
}

/** Numbers a snapshot keeps of one list (index-snapshot.ts): length, capacity and the three byte offsets. */
export const POSTINGS_SNAPSHOT_FIELDS = 5;

/** Writes `p`'s {@link POSTINGS_SNAPSHOT_FIELDS} numbers into `out` from element `at`. */
export function writePostingsState(p: Postings, out: Uint32Array, at: number): void {
  out[at] = p.length;
  out[at + 1] = p.capacity;
  out[at + 2] = p.slotAt;
  out[at + 3] = p.kpAt;
  out[at + 4] = p.descAt;
}

/**
 * The list whose numbers {@link writePostingsState} wrote at element `at` of `state`, its ranges in
 * `heap` (whose bytes up to `top` hold them).
 * @throws SnapshotError when the list does not fit below `top` or its length exceeds its capacity.
 */
export function restoredPostings(heap: PostingHeap, state: Uint32Array, at: number, top: number): Postings {
  const p = emptyPostings();
  const length = state[at] ?? 0;
  const capacity = state[at + 1] ?? 0;
  if (capacity === 0) {
    expectSnapshot(length === 0, 'a posting list with postings and no capacity');
    return p;
  }
  const slotAt = state[at + 2] ?? 0;
  const kpAt = state[at + 3] ?? 0;
  const descAt = state[at + 4] ?? 0;
  const fits = slotAt % 4 === 0 && slotAt + capacity * 4 <= top && kpAt % 2 === 0 && kpAt + capacity * 2 <= top && descAt % 8 === 0 && descAt + capacity * DESCRIPTOR_WORDS * 4 <= top;
  expectSnapshot(length <= capacity && fits, `a posting list (${length} of ${capacity} at ${slotAt}, ${kpAt}, ${descAt}) outside the heap's ${top} bytes`);
  p.length = length;
  place(heap, p, capacity, slotAt, kpAt, descAt);
  return p;
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
