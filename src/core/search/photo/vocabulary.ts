/**
 * Visual vocabulary for binary descriptors: a two-level tree of 256-bit centres (k-majority
 * clustering, the binary analogue of k-means, as in DBoW2). A descriptor's word is the leaf reached
 * by descending to the nearest centre at each level. The photo index keeps one posting list per
 * word, so a query only compares descriptors that fall in the same few words.
 *
 * Pure code; the trained centres ship as binary assets (src/adapters/images/local-features/assets/,
 * made by scripts/make-vocabularies.js; read by shipped-vocabulary.ts there).
 */
import { DESCRIPTOR_WORDS, hamming256, offerNearest, popcount32 } from './hamming.js';

/**
 * A trained vocabulary: `k1` top-level centres, each with `k2` children; word = i1 · k2 + i2.
 * `id` identifies the training (stored with each image's words: a different id means the words
 * must be recomputed).
 */
export class Vocabulary {
  readonly id: number;
  readonly k1: number;
  readonly k2: number;
  /** k1 × DESCRIPTOR_WORDS words. */
  private readonly top: Uint32Array;
  /** k1 × k2 × DESCRIPTOR_WORDS words. */
  private readonly leaves: Uint32Array;
  /** Scratch lists of {@link words} (at most 8 words per descriptor). */
  private readonly scratchW = new Int32Array(8);
  private readonly scratchD = new Int32Array(8);
  /** Scratch distances of {@link words}: to the top-level centres, to one parent's leaves. */
  private readonly scratchTop: Int32Array;
  private readonly scratchLeaves: Int32Array;

  /**
   * @throws RangeError when the arrays do not hold k1 and k1 × k2 descriptors, or k1 · k2 > 65,536.
   */
  constructor(id: number, k1: number, k2: number, top: Uint32Array, leaves: Uint32Array) {
    if (k1 < 1 || k2 < 1 || k1 * k2 > 65536) throw new RangeError(`vocabulary: invalid shape ${k1}×${k2}`);
    if (top.length !== k1 * DESCRIPTOR_WORDS || leaves.length !== k1 * k2 * DESCRIPTOR_WORDS) {
      throw new RangeError('vocabulary: centre arrays do not match the shape');
    }
    this.id = id;
    this.k1 = k1;
    this.k2 = k2;
    this.top = top;
    this.leaves = leaves;
    this.scratchTop = new Int32Array(k1);
    this.scratchLeaves = new Int32Array(k2);
  }

  /** Number of words (leaves). */
  get size(): number {
    return this.k1 * this.k2;
  }

  /** The word of descriptor `index` of `descriptors` (nearest centre at each level). */
  word(descriptors: Uint32Array, index: number): number {
    const o = index * DESCRIPTOR_WORDS;
    const best = nearest(descriptors, o, this.top, 0, this.k1);
    return best * this.k2 + nearest(descriptors, o, this.leaves, best * this.k2, this.k2);
  }

  /**
   * Up to `m` (≤ 8) words for a query descriptor (soft assignment, which recovers matches that fell
   * just across a cell border): the nearest leaves under the nearest top-level centre, and under the
   * second nearest when it is within 16 bits of the first; best first.
   * Writes them into `out` (length ≥ m) and returns how many were written.
   */
  words(descriptors: Uint32Array, index: number, m: number, out: Uint16Array | Int32Array): number {
    const o = index * DESCRIPTOR_WORDS;
    const top = this.scratchTop;
    for (let c = 0; c < this.k1; c++) top[c] = distance(descriptors, o, this.top, c * DESCRIPTOR_WORDS);
    const leaves = this.scratchLeaves;
    return this.wordsFromDistances(top, (parent) => {
      const base = parent * this.k2;
      for (let c = 0; c < this.k2; c++) leaves[c] = distance(descriptors, o, this.leaves, (base + c) * DESCRIPTOR_WORDS);
      return leaves;
    }, m, out);
  }

  /**
   * {@link words} from the descriptor's distances: `top[c]` to top-level centre c, and
   * `leavesOf(parent)[c]` to leaf c of a parent (called for at most two parents, the array read
   * before the next call). The photo index computes them in WebAssembly.
   */
  wordsFromDistances(top: ArrayLike<number>, leavesOf: (parent: number) => ArrayLike<number>, m: number, out: Uint16Array | Int32Array): number {
    let b1 = 0;
    let d1 = 1e9;
    let b2 = -1;
    let d2 = 1e9;
    for (let c = 0; c < this.k1; c++) {
      const d = top[c] ?? 0;
      if (d < d1) {
        b2 = b1;
        d2 = d1;
        b1 = c;
        d1 = d;
      } else if (d < d2) {
        b2 = c;
        d2 = d;
      }
    }
    // The m nearest leaves under the two best parents, by insertion into a small sorted list
    // (no allocation: this runs for every query descriptor).
    const bestW = this.scratchW;
    const bestD = this.scratchD;
    const keep = Math.min(m, bestW.length);
    let filled = 0;
    const parents = m > 1 && b2 >= 0 && d2 - d1 <= 16 ? 2 : 1;
    for (let pi = 0; pi < parents; pi++) {
      const parent = pi === 0 ? b1 : b2;
      const base = parent * this.k2;
      const leaves = leavesOf(parent);
      for (let c = 0; c < this.k2; c++) filled = offerNearest(bestD, bestW, filled, keep, leaves[c] ?? 0, base + c);
    }
    for (let i = 0; i < filled; i++) out[i] = bestW[i] ?? 0;
    return filled;
  }

  /** Top-level centres as stored (k1 × DESCRIPTOR_WORDS words; not to be modified). */
  get topCentres(): Uint32Array {
    return this.top;
  }

  /** Leaf centres as stored (k1 × k2 × DESCRIPTOR_WORDS words, parent by parent; not to be modified). */
  get leafCentres(): Uint32Array {
    return this.leaves;
  }

  /** Words of every descriptor of a record, as a new Uint16Array. */
  assign(descriptors: Uint32Array): Uint16Array {
    const n = descriptors.length / DESCRIPTOR_WORDS;
    const out = new Uint16Array(n);
    for (let i = 0; i < n; i++) out[i] = this.word(descriptors, i);
    return out;
  }

  /** Serialises to one Uint32Array: [id, k1, k2, top…, leaves…]. */
  serialize(): Uint32Array {
    const out = new Uint32Array(3 + this.top.length + this.leaves.length);
    out[0] = this.id;
    out[1] = this.k1;
    out[2] = this.k2;
    out.set(this.top, 3);
    out.set(this.leaves, 3 + this.top.length);
    return out;
  }

  /** Inverse of {@link serialize}. @throws RangeError on a malformed array. */
  static deserialize(data: Uint32Array): Vocabulary {
    const id = data[0] ?? 0;
    const k1 = data[1] ?? 0;
    const k2 = data[2] ?? 0;
    const topLen = k1 * DESCRIPTOR_WORDS;
    const top = data.slice(3, 3 + topLen);
    const leaves = data.slice(3 + topLen);
    return new Vocabulary(id, k1, k2, top, leaves);
  }
}

/** Hamming distance of two descriptors (hamming256 without the per-word conversions, for the hot loops here). */
function distance(a: Uint32Array, ia: number, b: Uint32Array, ib: number): number {
  return (
    popcount32((a[ia] ?? 0) ^ (b[ib] ?? 0)) + popcount32((a[ia + 1] ?? 0) ^ (b[ib + 1] ?? 0)) +
    popcount32((a[ia + 2] ?? 0) ^ (b[ib + 2] ?? 0)) + popcount32((a[ia + 3] ?? 0) ^ (b[ib + 3] ?? 0)) +
    popcount32((a[ia + 4] ?? 0) ^ (b[ib + 4] ?? 0)) + popcount32((a[ia + 5] ?? 0) ^ (b[ib + 5] ?? 0)) +
    popcount32((a[ia + 6] ?? 0) ^ (b[ib + 6] ?? 0)) + popcount32((a[ia + 7] ?? 0) ^ (b[ib + 7] ?? 0))
  );
}

/**
 * Index (0 … count − 1) of the centre of `centres` nearest to descriptor word offset `o` of
 * `descriptors`, among centres first … first + count − 1 (the first of equals). The descriptor is
 * held in locals: this is the word-assignment hot loop (256 comparisons a descriptor).
 */
function nearest(descriptors: Uint32Array, o: number, centres: Uint32Array, first: number, count: number): number {
  const q0 = descriptors[o] ?? 0, q1 = descriptors[o + 1] ?? 0, q2 = descriptors[o + 2] ?? 0, q3 = descriptors[o + 3] ?? 0;
  const q4 = descriptors[o + 4] ?? 0, q5 = descriptors[o + 5] ?? 0, q6 = descriptors[o + 6] ?? 0, q7 = descriptors[o + 7] ?? 0;
  let best = 0;
  let bestD = 1e9;
  for (let c = 0; c < count; c++) {
    const b = (first + c) * DESCRIPTOR_WORDS;
    const d =
      popcount32(q0 ^ (centres[b] ?? 0)) + popcount32(q1 ^ (centres[b + 1] ?? 0)) + popcount32(q2 ^ (centres[b + 2] ?? 0)) +
      popcount32(q3 ^ (centres[b + 3] ?? 0)) + popcount32(q4 ^ (centres[b + 4] ?? 0)) + popcount32(q5 ^ (centres[b + 5] ?? 0)) +
      popcount32(q6 ^ (centres[b + 6] ?? 0)) + popcount32(q7 ^ (centres[b + 7] ?? 0));
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

/** Deterministic xorshift32 generator in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/**
 * k-majority clustering of `n` descriptors (indices `members` into `descriptors`) into `k` centres:
 * k-means++-style seeding by distance, then `iterations` rounds of assignment and bitwise majority.
 * Returns k × DESCRIPTOR_WORDS centre words and the cluster of each member. Deterministic for a seed.
 */
export function kMajority(
  descriptors: Uint32Array, members: Int32Array, k: number, iterations: number, seed: number,
): { centres: Uint32Array; assignment: Int32Array } {
  const random = rng(seed);
  const n = members.length;
  const centres = new Uint32Array(k * DESCRIPTOR_WORDS);
  const assignment = new Int32Array(n);
  if (n === 0) return { centres, assignment };
  // Seeding: first centre at random, then each next one drawn with probability ∝ distance² to the nearest.
  const nearest = new Float64Array(n).fill(1e9);
  let pick = Math.floor(random() * n);
  for (let c = 0; c < k; c++) {
    centres.set(descriptors.subarray((members[pick] ?? 0) * DESCRIPTOR_WORDS, ((members[pick] ?? 0) + 1) * DESCRIPTOR_WORDS), c * DESCRIPTOR_WORDS);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const d = hamming256(descriptors, (members[i] ?? 0) * DESCRIPTOR_WORDS, centres, c * DESCRIPTOR_WORDS);
      if (d < (nearest[i] ?? 0)) nearest[i] = d;
      total += (nearest[i] ?? 0) ** 2;
    }
    let r = random() * total;
    pick = n - 1;
    for (let i = 0; i < n; i++) {
      r -= (nearest[i] ?? 0) ** 2;
      if (r <= 0) {
        pick = i;
        break;
      }
    }
  }
  const counts = new Int32Array(k * 256);
  const sizes = new Int32Array(k);
  for (let it = 0; it <= iterations; it++) {
    for (let i = 0; i < n; i++) {
      const o = (members[i] ?? 0) * DESCRIPTOR_WORDS;
      let best = 0;
      let bestD = 1e9;
      for (let c = 0; c < k; c++) {
        const d = hamming256(descriptors, o, centres, c * DESCRIPTOR_WORDS);
        if (d < bestD) {
          bestD = d;
          best = c;
        }
      }
      assignment[i] = best;
    }
    if (it === iterations) break;
    counts.fill(0);
    sizes.fill(0);
    for (let i = 0; i < n; i++) {
      const c = assignment[i] ?? 0;
      sizes[c] = (sizes[c] ?? 0) + 1;
      const o = (members[i] ?? 0) * DESCRIPTOR_WORDS;
      for (let w = 0; w < DESCRIPTOR_WORDS; w++) {
        const word = descriptors[o + w] ?? 0;
        for (let b = 0; b < 32; b++) if ((word >>> b) & 1) counts[c * 256 + w * 32 + b] = (counts[c * 256 + w * 32 + b] ?? 0) + 1;
      }
    }
    for (let c = 0; c < k; c++) {
      const size = sizes[c] ?? 0;
      if (size === 0) continue; // keep the old centre
      for (let w = 0; w < DESCRIPTOR_WORDS; w++) {
        let word = 0;
        for (let b = 0; b < 32; b++) if ((counts[c * 256 + w * 32 + b] ?? 0) * 2 > size) word |= 1 << b;
        centres[c * DESCRIPTOR_WORDS + w] = word >>> 0;
      }
    }
  }
  return { centres, assignment };
}

/**
 * Trains a two-level vocabulary (k1 × k2 words) on `descriptors` (count × 8 words).
 * Cost ≈ count · (k1 + k2) · (iterations + 1) Hamming distances.
 */
export function trainVocabulary(descriptors: Uint32Array, k1: number, k2: number, iterations: number, seed: number, id: number): Vocabulary {
  const n = descriptors.length / DESCRIPTOR_WORDS;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const { centres: top, assignment } = kMajority(descriptors, all, k1, iterations, seed);
  const leaves = new Uint32Array(k1 * k2 * DESCRIPTOR_WORDS);
  for (let c = 0; c < k1; c++) {
    const members = Int32Array.from(all.filter((i) => assignment[i] === c));
    const { centres } = members.length > 0
      ? kMajority(descriptors, members, Math.min(k2, members.length), iterations, seed + c + 1)
      : { centres: new Uint32Array(0) };
    leaves.set(centres, c * k2 * DESCRIPTOR_WORDS);
    // A cluster with fewer members than k2 leaves the remaining leaves as copies of its parent.
    for (let j = centres.length / DESCRIPTOR_WORDS; j < k2; j++) {
      leaves.set(top.subarray(c * DESCRIPTOR_WORDS, (c + 1) * DESCRIPTOR_WORDS), (c * k2 + j) * DESCRIPTOR_WORDS);
    }
  }
  return new Vocabulary(id, k1, k2, top, leaves);
}
