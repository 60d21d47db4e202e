/**
 * Split stop words (docs/search.md): the postings of a word
 * held by too many images to scan whole are split into cells of at most `cellSize` postings of
 * alike descriptors, each with a pivot (the bitwise majority of its postings' descriptors). A query
 * descriptor falling into such a word scans only the cells whose pivots are nearest to it by
 * Hamming distance — a third vocabulary level, built at load for the long words only (the shipped
 * vocabulary is unchanged, so stored features need no backfill). Pure code, deterministic.
 *
 * Cells come from recursive bisection on one bit: a set larger than `cellSize` is split by the bit
 * its (sampled) members are most evenly divided on, until every set fits. On the bench's 1.7 M
 * split postings (10,000 references) this found as many parts as a bisecting 2-majority (k-means
 * for bits) for about half the build (bulk add 1.7–1.9 s CPU against 2.7–3.9 s): the query's
 * nearest pivots, not the cut, decide which cells are read, and a one-bit cut costs one word read
 * a posting a level.
 */
import { copyDescriptor, DESCRIPTOR_WORDS, offerNearest, popcount32 } from './hamming.js';
import { expectSnapshot } from './index-snapshot.js';
import type { PostingHeap } from './posting-heap.js';
import { appendPosting, compactPostings, POSTING_BYTES, postingsWithCapacity, rebindPostings, releasePostings, subPostings, type Postings } from './postings.js';

/**
 * A cell grown past this multiple of the cell size by uploads is bisected again (its pivot no
 * longer stands for its postings, and a probe of it costs more than planned).
 */
const RESPLIT_FACTOR = 2;

/**
 * One split word: its postings in cells, each with a pivot descriptor. Not thread-safe.
 */
export class SplitWord {
  /** Most postings a cell holds after a build (cuts are uneven: 175 on average for 256 on the bench). */
  readonly cellSize: number;
  /** The cells' postings. */
  private cells: Postings[] = [];
  /** Pivot of each cell, {@link DESCRIPTOR_WORDS} uint32 a cell, capacity ≥ cells. */
  private pivots = new Uint32Array(0);
  /** Scratch of {@link nearestCells}: distances of the best cells so far. */
  private static readonly bestD = new Int32Array(64);
  /** Scratch of {@link add}: the nearest cell. */
  private static readonly nearest = new Int32Array(1);

  private constructor(cellSize: number, private readonly heap: PostingHeap) {
    this.cellSize = Math.max(2, Math.floor(cellSize));
  }

  /**
   * Splits the `p.length` postings of `p` (in `heap`) into cells of at most `cellSize` postings.
   * The cells are ranges of `p`'s, whose postings are reordered: `p`'s ranges belong to the split
   * word afterwards.
   */
  static build(heap: PostingHeap, p: Postings, cellSize: number): SplitWord {
    const word = new SplitWord(cellSize, heap);
    word.addCells(p, 0, p.length);
    return word;
  }

  /**
   * A split word as a snapshot held it (photo-index.ts writeSnapshot): its cells (lists of
   * ranges in `heap`, postings.ts restoredPostings) and their pivots ({@link DESCRIPTOR_WORDS} uint32 a
   * cell).
   * @throws SnapshotError when the pivots do not match the cells.
   */
  static restored(heap: PostingHeap, cellSize: number, cells: Postings[], pivots: Uint32Array): SplitWord {
    expectSnapshot(pivots.length === cells.length * DESCRIPTOR_WORDS, `split word: ${cells.length} cells and ${pivots.length / DESCRIPTOR_WORDS} pivots`);
    const word = new SplitWord(cellSize, heap);
    word.cells = cells;
    word.pivots = new Uint32Array(pivots);
    return word;
  }

  /** The cells (read-only use) and the pivots of the cells (exactly one a cell), for a snapshot. */
  snapshotParts(): { cells: readonly Postings[]; pivots: Uint32Array } {
    return { cells: this.cells, pivots: this.pivots.subarray(0, this.cells.length * DESCRIPTOR_WORDS) };
  }

  /** Number of postings over all cells. */
  get length(): number {
    let n = 0;
    for (const c of this.cells) n += c.length;
    return n;
  }

  /** Number of cells. */
  get cellCount(): number {
    return this.cells.length;
  }

  /** The cell number `c` (0 … cellCount − 1). */
  cell(c: number): Postings {
    const cell = this.cells[c];
    if (!cell) throw new RangeError(`SplitWord: no cell ${c}`);
    return cell;
  }

  /** Bytes of the cells' postings at their capacity and of the pivots. */
  get memoryBytes(): number {
    let bytes = this.pivots.byteLength;
    for (const c of this.cells) bytes += c.capacity * POSTING_BYTES;
    return bytes;
  }

  /** Bytes of the pivots (the cells' postings are in the heap). */
  get pivotBytes(): number {
    return this.pivots.byteLength;
  }

  /** Rebuilds the cells' views after a growth of the heap (posting-heap.ts). */
  rebind(): void {
    for (const c of this.cells) rebindPostings(this.heap, c);
  }

  /**
   * Writes the numbers of the `probes` (≤ 64) cells whose pivots are nearest to descriptor word
   * offset `qo` of `q` into `out`, nearest first (ties: the lower number); returns how many.
   */
  nearestCells(q: Uint32Array, qo: number, probes: number, out: Int32Array): number {
    const keep = Math.min(probes, this.cells.length, SplitWord.bestD.length, out.length);
    if (keep <= 0) return 0;
    const bestD = SplitWord.bestD;
    const q0 = q[qo] ?? 0, q1 = q[qo + 1] ?? 0, q2 = q[qo + 2] ?? 0, q3 = q[qo + 3] ?? 0;
    const q4 = q[qo + 4] ?? 0, q5 = q[qo + 5] ?? 0, q6 = q[qo + 6] ?? 0, q7 = q[qo + 7] ?? 0;
    const pv = this.pivots;
    let filled = 0;
    for (let c = 0; c < this.cells.length; c++) {
      const o = c * DESCRIPTOR_WORDS;
      const d =
        popcount32(q0 ^ (pv[o] ?? 0)) + popcount32(q1 ^ (pv[o + 1] ?? 0)) + popcount32(q2 ^ (pv[o + 2] ?? 0)) + popcount32(q3 ^ (pv[o + 3] ?? 0)) +
        popcount32(q4 ^ (pv[o + 4] ?? 0)) + popcount32(q5 ^ (pv[o + 5] ?? 0)) + popcount32(q6 ^ (pv[o + 6] ?? 0)) + popcount32(q7 ^ (pv[o + 7] ?? 0));
      filled = offerNearest(bestD, out, filled, keep, d, c);
    }
    return filled;
  }

  /**
   * Adds one posting (an upload) to the cell whose pivot is nearest to its descriptor (at word
   * offset `offset` of `descriptors`); a cell grown past twice the cell size is bisected again.
   */
  add(slot: number, kp: number, descriptors: Uint32Array, offset: number): void {
    const one = SplitWord.nearest;
    if (this.nearestCells(descriptors, offset, 1, one) === 0) {
      const cell = postingsWithCapacity(this.heap, 1);
      appendPosting(this.heap, cell, slot, kp, descriptors, offset);
      this.addCells(cell, 0, 1);
      return;
    }
    const c = one[0] ?? 0;
    const cell = this.cell(c);
    appendPosting(this.heap, cell, slot, kp, descriptors, offset);
    if (cell.length > RESPLIT_FACTOR * this.cellSize) this.resplit(c);
  }

  /** Drops the postings of dead slots; cells left empty are removed. */
  compact(alive: readonly boolean[]): void {
    const keptCells: Postings[] = [];
    const pivots = new Uint32Array(this.pivots.length);
    this.cells.forEach((cell, c) => {
      compactPostings(cell, alive);
      if (cell.length === 0) {
        releasePostings(this.heap, cell);
        return;
      }
      pivots.set(this.pivots.subarray(c * DESCRIPTOR_WORDS, (c + 1) * DESCRIPTOR_WORDS), keptCells.length * DESCRIPTOR_WORDS);
      keptCells.push(cell);
    });
    this.cells = keptCells;
    this.pivots = pivots.slice(0, keptCells.length * DESCRIPTOR_WORDS);
  }

  /** Replaces cell `c` by the cells of its bisection. */
  private resplit(c: number): void {
    const cell = this.cell(c);
    const last = this.cells.pop() as Postings;
    const lastPivot = this.pivots.slice((this.cells.length) * DESCRIPTOR_WORDS, (this.cells.length + 1) * DESCRIPTOR_WORDS);
    if (c < this.cells.length) {
      // Move the last cell into c's place (cell order carries no meaning).
      this.cells[c] = last;
      this.pivots.set(lastPivot, c * DESCRIPTOR_WORDS);
    }
    this.addCells(cell, 0, cell.length);
  }

  /** Bisects postings [from, to) of `p` into cells appended to this word, with their pivots. */
  private addCells(p: Postings, from: number, to: number): void {
    const count = to - from;
    if (count <= 0) return;
    const order = new Int32Array(count);
    for (let i = 0; i < count; i++) order[i] = from + i;
    const ranges = bisectAll(p.desc, order, this.cellSize);
    const first = this.cells.length;
    const needed = (first + ranges.length / 2) * DESCRIPTOR_WORDS;
    if (this.pivots.length < needed) {
      const pivots = new Uint32Array(needed);
      pivots.set(this.pivots.subarray(0, first * DESCRIPTOR_WORDS));
      this.pivots = pivots;
    }
    // The postings are put into cell order in place (through a scratch copy) and each cell is a
    // view of its range: no allocation a cell, nor a second copy of a split word
    // (start-up cost). An upload that fills a cell moves that cell into arrays of its own
    // (postings.ts reservePostings).
    const scratch = scratchOf(count);
    scratch.slot.set(p.slot.subarray(from, to));
    scratch.kp.set(p.kp.subarray(from, to));
    scratch.desc.set(p.desc.subarray(from * DESCRIPTOR_WORDS, to * DESCRIPTOR_WORDS));
    const src = scratch.desc;
    const dst = p.desc;
    for (let i = 0; i < count; i++) {
      const j = (order[i] ?? 0) - from;
      const at = from + i;
      p.slot[at] = scratch.slot[j] ?? 0;
      p.kp[at] = scratch.kp[j] ?? 0;
      copyDescriptor(dst, at * DESCRIPTOR_WORDS, src, j * DESCRIPTOR_WORDS);
    }
    const identity = new Int32Array(count);
    for (let i = 0; i < count; i++) identity[i] = from + i;
    for (let r = 0; r < ranges.length; r += 2) {
      const a = ranges[r] ?? 0;
      const b = ranges[r + 1] ?? 0;
      majority(dst, identity, a, b, this.pivots, this.cells.length * DESCRIPTOR_WORDS);
      this.cells.push(subPostings(this.heap, p, from + a, from + b));
    }
  }
}

/** Scratch copy of the postings being put into cell order ({@link SplitWord}'s addCells); not in a heap. */
interface Scratch {
  slot: Int32Array;
  kp: Uint16Array;
  desc: Uint32Array;
}
let scratch: Scratch = scratchWithCapacity(1024);

/** Scratch arrays for `n` postings. */
function scratchWithCapacity(n: number): Scratch {
  return { slot: new Int32Array(n), kp: new Uint16Array(n), desc: new Uint32Array(n * DESCRIPTOR_WORDS) };
}

/** {@link scratch} with room for `n` postings. */
function scratchOf(n: number): Scratch {
  if (scratch.slot.length < n) scratch = scratchWithCapacity(Math.max(n, scratch.slot.length * 2));
  return scratch;
}

/**
 * Bisects the descriptors `order[…]` (posting numbers into `desc`) until every range holds at most
 * `cellSize`; reorders `order` so each range is contiguous and returns the ranges as [from, to)
 * pairs.
 */
export function bisectAll(desc: Uint32Array, order: Int32Array, cellSize: number): number[] {
  const ranges: number[] = [];
  const stack: number[] = [0, order.length];
  while (stack.length > 0) {
    const to = stack.pop() ?? 0;
    const from = stack.pop() ?? 0;
    if (to - from <= cellSize) {
      ranges.push(from, to);
      continue;
    }
    let mid = bisect(desc, order, from, to);
    // No bit divides the sample (e.g. one descriptor repeated): halves, so the recursion ends.
    if (mid <= from || mid >= to) mid = (from + to) >>> 1;
    stack.push(mid, to, from, mid);
  }
  return ranges;
}

/** Scratch of {@link bisect}'s partition. */
let partitionScratch = new Int32Array(1024);

/**
 * Splits `order[from, to)` in two on the bit that divides a sample of its members most evenly
 * (sampled as {@link majority} samples). Reorders the range (members without the bit first, in
 * their order) and returns the first index of those with it.
 */
function bisect(desc: Uint32Array, order: Int32Array, from: number, to: number): number {
  const sampled = countBits(desc, order, from, to);
  let best = 0;
  let bestGap = Infinity;
  for (let bit = 0; bit < 256; bit++) {
    const gap = Math.abs(2 * (bitCounts[bit] ?? 0) - sampled);
    if (gap < bestGap) {
      bestGap = gap;
      best = bit;
    }
  }
  const word = best >>> 5;
  const mask = 1 << (best & 31);
  if (partitionScratch.length < to - from) partitionScratch = new Int32Array(to - from);
  const ones = partitionScratch;
  let o = from;
  let k = 0;
  for (let i = from; i < to; i++) {
    const m = order[i] ?? 0;
    if (((desc[m * DESCRIPTOR_WORDS + word] ?? 0) & mask) === 0) order[o++] = m;
    else ones[k++] = m;
  }
  order.set(ones.subarray(0, k), o);
  return o;
}

/** Members of a set that its bit counts are taken from (every k-th of a larger set). */
const BIT_SAMPLE = 64;

/** Per bit of a descriptor, how many sampled members have it: scratch of {@link countBits}. */
const bitCounts = new Int32Array(256);

/**
 * Byte-lane counters of {@link countBits}: for descriptor word w and shift k (0–7), element w·8 + k
 * counts in its byte b how many members have bit w·32 + b·8 + k (at most {@link BIT_SAMPLE} < 256).
 */
const laneCounts = new Int32Array(DESCRIPTOR_WORDS * 8);

/**
 * Counts, per bit, the members of `order[from, to)` that have it into {@link bitCounts}, over at
 * most {@link BIT_SAMPLE} of them (every k-th); returns how many were counted. Eight byte-lane
 * adds a descriptor word instead of one step a set bit (this ran for every
 * cut of every split word at start-up and was a fifth of the bulk load).
 */
function countBits(desc: Uint32Array, order: Int32Array, from: number, to: number): number {
  const stride = Math.max(1, Math.floor((to - from) / BIT_SAMPLE));
  const lanes = laneCounts;
  lanes.fill(0);
  let n = 0;
  for (let i = from; i < to && n < BIT_SAMPLE; i += stride) {
    n++;
    const o = (order[i] ?? 0) * DESCRIPTOR_WORDS;
    for (let w = 0, l = 0; w < DESCRIPTOR_WORDS; w++, l += 8) {
      const x = desc[o + w] ?? 0;
      lanes[l] = (lanes[l] ?? 0) + (x & 0x01010101);
      lanes[l + 1] = (lanes[l + 1] ?? 0) + ((x >>> 1) & 0x01010101);
      lanes[l + 2] = (lanes[l + 2] ?? 0) + ((x >>> 2) & 0x01010101);
      lanes[l + 3] = (lanes[l + 3] ?? 0) + ((x >>> 3) & 0x01010101);
      lanes[l + 4] = (lanes[l + 4] ?? 0) + ((x >>> 4) & 0x01010101);
      lanes[l + 5] = (lanes[l + 5] ?? 0) + ((x >>> 5) & 0x01010101);
      lanes[l + 6] = (lanes[l + 6] ?? 0) + ((x >>> 6) & 0x01010101);
      lanes[l + 7] = (lanes[l + 7] ?? 0) + ((x >>> 7) & 0x01010101);
    }
  }
  const counts = bitCounts;
  for (let w = 0; w < DESCRIPTOR_WORDS; w++) {
    for (let k = 0; k < 8; k++) {
      const lane = lanes[w * 8 + k] ?? 0;
      for (let b = 0; b < 4; b++) counts[w * 32 + b * 8 + k] = (lane >>> (b * 8)) & 0xff;
    }
  }
  return n;
}

/**
 * Writes the bitwise majority of the descriptors `order[from, to)` to `out` at word offset
 * `outOffset`: a bit is set when more than half of the counted members have it ({@link countBits}:
 * a sample of a larger set; a pivot is an approximate centre anyway). An empty set leaves `out`
 * unchanged.
 */
export function majority(desc: Uint32Array, order: Int32Array, from: number, to: number, out: Uint32Array, outOffset: number): void {
  const n = countBits(desc, order, from, to);
  if (n === 0) return;
  for (let w = 0; w < DESCRIPTOR_WORDS; w++) {
    let word = 0;
    for (let b = 0; b < 32; b++) if ((bitCounts[w * 32 + b] ?? 0) * 2 > n) word |= 1 << b;
    out[outOffset + w] = word >>> 0;
  }
}
