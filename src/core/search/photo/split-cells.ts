/**
 * Split stop words (issue 14, fifth round; docs/search.md, "Fifth round"): the postings of a word
 * held by too many images to scan whole are split into cells of about `cellSize` postings of
 * alike descriptors, each with a pivot (the bitwise majority of its postings' descriptors). A query
 * descriptor falling into such a word scans only the cells whose pivots are nearest to it — a third
 * vocabulary level, built at load for the long words only (the shipped vocabulary is unchanged, so
 * stored features need no backfill). Pure code, deterministic (no random seeding).
 *
 * Cells come from bisecting k-majority: a set larger than `cellSize` is split in two around two
 * far-apart members refined by a few rounds of 2-majority, recursively. Cost ≈ 2 · (rounds + 2)
 * Hamming distances a posting a level, log2(length / cellSize) levels (≈ 0.3 s CPU for the 1.3 M
 * split postings of 10,000 bench references), against length² / cellSize for a flat k-majority.
 */
import { DESCRIPTOR_WORDS, popcount32 } from './hamming.js';
import { appendPosting, compactPostings, postingsBytes, postingsWithCapacity, type Postings } from './postings.js';

/** Rounds of 2-majority refinement in a bisection (2 split as well as 4 on the bench sets). */
const BISECT_ROUNDS = 2;

/**
 * A cell grown past this multiple of the cell size by uploads is bisected again (its pivot no
 * longer stands for its postings, and a probe of it costs more than planned).
 */
const RESPLIT_FACTOR = 2;

/**
 * One split word: its postings in cells, each with a pivot descriptor. Not thread-safe.
 */
export class SplitWord {
  /** Target postings a cell (a cell holds between about half and all of it after a build). */
  readonly cellSize: number;
  /** The cells' postings. */
  private cells: Postings[] = [];
  /** Pivot of each cell, {@link DESCRIPTOR_WORDS} uint32 a cell, capacity ≥ cells. */
  private pivots = new Uint32Array(0);
  /** Scratch of {@link nearestCells}: distances of the best cells so far. */
  private static readonly bestD = new Int32Array(64);
  /** Scratch of {@link add}: the nearest cell. */
  private static readonly nearest = new Int32Array(1);

  private constructor(cellSize: number) {
    this.cellSize = Math.max(2, Math.floor(cellSize));
  }

  /**
   * Splits the `p.length` postings of `p` into cells of at most `cellSize` postings (copied; `p` is
   * not changed).
   */
  static build(p: Postings, cellSize: number): SplitWord {
    const word = new SplitWord(cellSize);
    word.addCells(p, 0, p.length);
    return word;
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

  /** Bytes held by the cells' arrays and the pivots. */
  get memoryBytes(): number {
    let bytes = this.pivots.byteLength;
    for (const c of this.cells) bytes += postingsBytes(c);
    return bytes;
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
      if (filled === keep && d >= (bestD[keep - 1] ?? 0)) continue;
      let at = filled < keep ? filled++ : keep - 1;
      while (at > 0 && (bestD[at - 1] ?? 0) > d) {
        bestD[at] = bestD[at - 1] ?? 0;
        out[at] = out[at - 1] ?? 0;
        at--;
      }
      bestD[at] = d;
      out[at] = c;
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
      const cell = postingsWithCapacity(1);
      appendPosting(cell, slot, kp, descriptors, offset);
      this.addCells(cell, 0, 1);
      return;
    }
    const c = one[0] ?? 0;
    const cell = this.cell(c);
    appendPosting(cell, slot, kp, descriptors, offset);
    if (cell.length > RESPLIT_FACTOR * this.cellSize) this.resplit(c);
  }

  /** Drops the postings of dead slots; cells left empty are removed. */
  compact(alive: readonly boolean[]): void {
    const keptCells: Postings[] = [];
    const pivots = new Uint32Array(this.pivots.length);
    this.cells.forEach((cell, c) => {
      compactPostings(cell, alive);
      if (cell.length === 0) return;
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
    for (let r = 0; r < ranges.length; r += 2) {
      const a = ranges[r] ?? 0;
      const b = ranges[r + 1] ?? 0;
      const cell = postingsWithCapacity(b - a);
      for (let i = a; i < b; i++) {
        const j = order[i] ?? 0;
        appendPosting(cell, p.slot[j] ?? 0, p.kp[j] ?? 0, p.desc, j * DESCRIPTOR_WORDS);
      }
      majority(p.desc, order, a, b, undefined, 0, this.pivots, this.cells.length * DESCRIPTOR_WORDS);
      this.cells.push(cell);
    }
  }
}

/**
 * Bisects the descriptors `order[…]` (posting numbers into `desc`) until every range holds at most
 * `cellSize`; reorders `order` so each range is contiguous and returns the ranges as [from, to)
 * pairs.
 */
export function bisectAll(desc: Uint32Array, order: Int32Array, cellSize: number): number[] {
  const ranges: number[] = [];
  const stack: number[] = [0, order.length];
  const side = new Uint8Array(order.length);
  while (stack.length > 0) {
    const to = stack.pop() ?? 0;
    const from = stack.pop() ?? 0;
    if (to - from <= cellSize) {
      ranges.push(from, to);
      continue;
    }
    let mid = bisect(desc, order, from, to, side);
    // All alike (e.g. one descriptor repeated): halves, so the recursion ends.
    if (mid <= from || mid >= to) mid = (from + to) >>> 1;
    stack.push(mid, to, from, mid);
  }
  return ranges;
}

/** Scratch of {@link bisect}: the two centres. */
const centres = new Uint32Array(2 * DESCRIPTOR_WORDS);

/** Scratch of {@link bisect}'s partition. */
let partitionScratch = new Int32Array(1024);

/** Members searched for a far-apart seed of a bisection (every k-th of a larger range). */
const SEED_SAMPLE = 256;

/**
 * Splits `order[from, to)` in two by 2-majority: seeds are the member farthest from the range's
 * majority and the member farthest from that one (searched among a sample of
 * {@link SEED_SAMPLE}); then {@link BISECT_ROUNDS} rounds of majority and assignment. Reorders the
 * range (side 0 first) and returns the first index of side 1.
 */
function bisect(desc: Uint32Array, order: Int32Array, from: number, to: number, side: Uint8Array): number {
  majority(desc, order, from, to, undefined, 0, centres, 0);
  const a = farthest(desc, order, from, to, centres, 0);
  centres.set(desc.subarray(a * DESCRIPTOR_WORDS, (a + 1) * DESCRIPTOR_WORDS), 0);
  const b = farthest(desc, order, from, to, centres, 0);
  centres.set(desc.subarray(b * DESCRIPTOR_WORDS, (b + 1) * DESCRIPTOR_WORDS), DESCRIPTOR_WORDS);
  for (let round = 0; ; round++) {
    assignSides(desc, order, from, to, side);
    if (round === BISECT_ROUNDS) break;
    majority(desc, order, from, to, side, 0, centres, 0);
    majority(desc, order, from, to, side, 1, centres, DESCRIPTOR_WORDS);
  }
  // Stable partition of the range by side (side 1 through a scratch copy).
  if (partitionScratch.length < to - from) partitionScratch = new Int32Array(to - from);
  const ones = partitionScratch;
  let o = from;
  let k = 0;
  for (let i = from; i < to; i++) {
    const m = order[i] ?? 0;
    if (side[i] === 0) order[o++] = m;
    else ones[k++] = m;
  }
  const mid = o;
  order.set(ones.subarray(0, k), mid);
  return mid;
}

/**
 * `side[i]` = 0 when member i of `order[from, to)` is nearer to the first centre of `centres`, 1
 * when nearer to the second; ties alternate, so a set of equal descriptors still splits. The
 * centres are held in locals and each member's words read once (the build's hot loop).
 */
function assignSides(desc: Uint32Array, order: Int32Array, from: number, to: number, side: Uint8Array): void {
  // Only the bits where the centres differ decide: with m = a ^ b, d(x, a) − d(x, b) =
  // 2 · popcount(m & (x ^ a)) − popcount(m), so one popcount a word instead of two.
  const c = centres;
  const a0 = c[0] ?? 0, a1 = c[1] ?? 0, a2 = c[2] ?? 0, a3 = c[3] ?? 0, a4 = c[4] ?? 0, a5 = c[5] ?? 0, a6 = c[6] ?? 0, a7 = c[7] ?? 0;
  const m0 = a0 ^ (c[8] ?? 0), m1 = a1 ^ (c[9] ?? 0), m2 = a2 ^ (c[10] ?? 0), m3 = a3 ^ (c[11] ?? 0);
  const m4 = a4 ^ (c[12] ?? 0), m5 = a5 ^ (c[13] ?? 0), m6 = a6 ^ (c[14] ?? 0), m7 = a7 ^ (c[15] ?? 0);
  const differ =
    popcount32(m0) + popcount32(m1) + popcount32(m2) + popcount32(m3) + popcount32(m4) + popcount32(m5) + popcount32(m6) + popcount32(m7);
  let ties = 0;
  for (let i = from; i < to; i++) {
    const o = (order[i] ?? 0) * DESCRIPTOR_WORDS;
    const nearerB =
      2 *
      (popcount32(m0 & ((desc[o] ?? 0) ^ a0)) + popcount32(m1 & ((desc[o + 1] ?? 0) ^ a1)) +
        popcount32(m2 & ((desc[o + 2] ?? 0) ^ a2)) + popcount32(m3 & ((desc[o + 3] ?? 0) ^ a3)) +
        popcount32(m4 & ((desc[o + 4] ?? 0) ^ a4)) + popcount32(m5 & ((desc[o + 5] ?? 0) ^ a5)) +
        popcount32(m6 & ((desc[o + 6] ?? 0) ^ a6)) + popcount32(m7 & ((desc[o + 7] ?? 0) ^ a7))) -
      differ;
    side[i] = nearerB < 0 ? 0 : nearerB > 0 ? 1 : ties++ & 1;
  }
}

/**
 * Index into `desc` (in descriptors) of the member of `order[from, to)` farthest from the centre
 * at `co` of `c`, among every k-th member ({@link SEED_SAMPLE} at most).
 */
function farthest(desc: Uint32Array, order: Int32Array, from: number, to: number, c: Uint32Array, co: number): number {
  const stride = Math.max(1, Math.floor((to - from) / SEED_SAMPLE));
  let best = order[from] ?? 0;
  let bestD = -1;
  for (let i = from; i < to; i += stride) {
    const m = order[i] ?? 0;
    const d = distance(desc, m * DESCRIPTOR_WORDS, c, co);
    if (d > bestD) {
      bestD = d;
      best = m;
    }
  }
  return best;
}

/** Members of a set that its majority is computed from (a strided sample beyond it): bounds a bisection's cost. */
const MAJORITY_SAMPLE = 64;

/** Per bit of a descriptor, how many sampled members have it: scratch of {@link majority}. */
const bitCounts = new Int32Array(256);

/**
 * Writes the bitwise majority of the descriptors `order[from, to)` (only those with
 * `side[i] === which` when `side` is given) to `out` at word offset `outOffset`: a bit is set when
 * more than half the members have it, counted over at most {@link MAJORITY_SAMPLE} members (every
 * k-th of a larger set: a pivot is an approximate centre anyway). An empty set leaves `out` unchanged.
 */
export function majority(desc: Uint32Array, order: Int32Array, from: number, to: number, side: Uint8Array | undefined, which: number, out: Uint32Array, outOffset: number): void {
  // Every k-th position of the range; with sides, about half of them are this side's.
  const stride = Math.max(1, Math.floor((to - from) / (side ? 2 * MAJORITY_SAMPLE : MAJORITY_SAMPLE)));
  const counts = bitCounts;
  counts.fill(0);
  let n = 0;
  for (let i = from; i < to && n < MAJORITY_SAMPLE; i += stride) {
    if (side && side[i] !== which) continue;
    n++;
    const o = (order[i] ?? 0) * DESCRIPTOR_WORDS;
    for (let w = 0; w < DESCRIPTOR_WORDS; w++) {
      let x = desc[o + w] ?? 0;
      const base = w * 32;
      while (x !== 0) {
        const low = x & -x;
        const bit = base + 31 - Math.clz32(low);
        counts[bit] = (counts[bit] ?? 0) + 1;
        x ^= low;
      }
    }
  }
  if (n === 0) return;
  for (let w = 0; w < DESCRIPTOR_WORDS; w++) {
    let word = 0;
    for (let b = 0; b < 32; b++) if ((counts[w * 32 + b] ?? 0) * 2 > n) word |= 1 << b;
    out[outOffset + w] = word >>> 0;
  }
}

/** Hamming distance of two descriptors at word offsets `ia` of `a` and `ib` of `b`. */
function distance(a: Uint32Array, ia: number, b: Uint32Array, ib: number): number {
  return (
    popcount32((a[ia] ?? 0) ^ (b[ib] ?? 0)) + popcount32((a[ia + 1] ?? 0) ^ (b[ib + 1] ?? 0)) +
    popcount32((a[ia + 2] ?? 0) ^ (b[ib + 2] ?? 0)) + popcount32((a[ia + 3] ?? 0) ^ (b[ib + 3] ?? 0)) +
    popcount32((a[ia + 4] ?? 0) ^ (b[ib + 4] ?? 0)) + popcount32((a[ia + 5] ?? 0) ^ (b[ib + 5] ?? 0)) +
    popcount32((a[ia + 6] ?? 0) ^ (b[ib + 6] ?? 0)) + popcount32((a[ia + 7] ?? 0) ^ (b[ib + 7] ?? 0))
  );
}
