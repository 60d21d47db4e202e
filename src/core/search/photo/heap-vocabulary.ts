/**
 * Word assignment of query descriptors in WebAssembly (docs/search.md): a photo query takes each descriptor's 2 nearest words (PHOTO_LOCAL_DEFAULTS),
 * ~380 distances to the vocabulary's centres a descriptor, ~0.8 M a query — about a third of the
 * local search once the posting scan ran in WebAssembly. The centres are copied into the index's
 * posting heap once (0.5 MB); the kernel's `distances` computes the distances, and the choice of
 * words is the vocabulary's own ({@link Vocabulary.wordsFromDistances}): the same words as
 * {@link Vocabulary.words}. Pure code.
 */
import { DESCRIPTOR_WORDS } from './hamming.js';
import { align8, type PostingHeap } from './posting-heap.js';
import type { Vocabulary } from './vocabulary.js';

/** A vocabulary's centres in a posting heap, with scratch for one descriptor's distances. */
export class HeapVocabulary {
  private readonly heap: PostingHeap;
  private readonly vocabulary: Vocabulary;
  private readonly topAt: number;
  private readonly leavesAt: number;
  /** Distances: k1 int32 to the top centres, then k2 int32 to one parent's leaves. */
  private readonly outAt: number;
  private readonly leafOutAt: number;
  private topView: Int32Array = new Int32Array(0);
  private leafView: Int32Array = new Int32Array(0);
  private viewBuffer: ArrayBufferLike | undefined;
  /** The descriptor being assigned (byte offset in the heap). */
  private queryAt = 0;
  private readonly leavesOf: (parent: number) => Int32Array;

  /** Copies `vocabulary`'s centres into `heap`. */
  constructor(heap: PostingHeap, vocabulary: Vocabulary) {
    this.heap = heap;
    this.vocabulary = vocabulary;
    const top = vocabulary.topCentres;
    const leaves = vocabulary.leafCentres;
    this.topAt = heap.alloc(top.byteLength);
    this.leavesAt = heap.alloc(leaves.byteLength);
    this.outAt = heap.alloc(vocabulary.k1 * 4);
    this.leafOutAt = heap.alloc(vocabulary.k2 * 4);
    // After the allocations: they may have grown the heap.
    heap.u32.set(top, this.topAt >> 2);
    heap.u32.set(leaves, this.leavesAt >> 2);
    const leafBytes = vocabulary.k2 * DESCRIPTOR_WORDS * 4;
    this.leavesOf = (parent) => {
      this.heap.distances(this.queryAt, this.leavesAt + parent * leafBytes, this.vocabulary.k2, this.leafOutAt);
      return this.leafView;
    };
  }

  /** The heap ranges this copy holds, as [offset, bytes asked for] (a snapshot of the index marks them free). */
  heapRanges(): [number, number][] {
    const v = this.vocabulary;
    return [[this.topAt, v.topCentres.byteLength], [this.leavesAt, v.leafCentres.byteLength], [this.outAt, v.k1 * 4], [this.leafOutAt, v.k2 * 4]];
  }

  /** Bytes of the heap this copy holds. */
  get bytes(): number {
    const v = this.vocabulary;
    return align8(v.topCentres.byteLength) + align8(v.leafCentres.byteLength) + align8(v.k1 * 4) + align8(v.k2 * 4);
  }

  /**
   * Up to `m` words of the descriptor at byte offset `queryAt` of the heap, best first, into `out`
   * (as {@link Vocabulary.words}); returns how many.
   */
  words(queryAt: number, m: number, out: Uint16Array | Int32Array): number {
    const buffer = this.heap.buffer;
    if (this.viewBuffer !== buffer) {
      this.topView = new Int32Array(buffer, this.outAt, this.vocabulary.k1);
      this.leafView = new Int32Array(buffer, this.leafOutAt, this.vocabulary.k2);
      this.viewBuffer = buffer;
    }
    this.queryAt = queryAt;
    this.heap.distances(queryAt, this.topAt, this.vocabulary.k1, this.outAt);
    return this.vocabulary.wordsFromDistances(this.topView, this.leavesOf, m, out);
  }
}
