/**
 * Joins the encoded blocks of one posting list into full blocks, byte to byte (postings.ts
 * encoding): what a store does when it merges a term's posting runs (docs/search.md, "Posting
 * runs"). A posting's mask and frequencies are copied as they are stored and only its doc delta is
 * written again, so a merge allocates the blocks it writes and nothing per posting (no array of
 * decoded postings to encode again).
 */
import { BLOCK_SIZE, VarintReader, writeVarint } from './postings.js';
import { grown } from './typed-arrays.js';

/** One block a {@link BlockJoiner} wrote: `count` postings from `firstDoc` to `lastDoc`, encoded in `data`. */
export interface JoinedBlock {
  firstDoc: number;
  count: number;
  lastDoc: number;
  data: Uint8Array;
}

const countReader = new VarintReader();

/** Postings of an encoded block (its leading count). Throws RangeError on an empty or truncated count. */
export function blockCount(data: Uint8Array): number {
  return countReader.start(data).varint();
}

/**
 * Joins blocks given in list order (each block's postings after the previous block's) into blocks
 * of BLOCK_SIZE postings, the last one partial: `add` each block, then `finish`. Each block written
 * goes to `emit` as soon as it is full. One joiner serves one list at a time and keeps its buffer
 * for the next.
 */
export class BlockJoiner {
  /** Postings of the block being filled, without their count. */
  private body = new Uint8Array(4096);
  private length = 0;
  private count = 0;
  private firstDoc = 0;
  private lastDoc = 0;
  private readonly reader = new VarintReader();

  /**
   * Appends the postings of block `data` (first doc `firstDoc`). Throws RangeError on bytes that
   * are not a block; RangeError too when a posting does not follow the previous one.
   */
  add(data: Uint8Array, firstDoc: number, emit: (block: JoinedBlock) => void): void {
    const reader = this.reader.start(data);
    const count = reader.varint();
    let doc = firstDoc;
    for (let i = 0; i < count; i++) {
      doc += reader.varint();
      const start = reader.position;
      for (let bits = reader.byte(); bits !== 0; bits &= bits - 1) reader.varint();
      if (this.count > 0 && doc <= this.lastDoc) throw new RangeError(`posting of doc ${doc} does not follow doc ${this.lastDoc}`);
      this.append(doc, data, start, reader.position);
      if (this.count === BLOCK_SIZE) this.finish(emit);
    }
  }

  /** Emits the block being filled, if it holds a posting. */
  finish(emit: (block: JoinedBlock) => void): void {
    if (this.count === 0) return;
    const data = new Uint8Array(this.count < 0x80 ? 1 + this.length : 2 + this.length);
    data.set(this.body.subarray(0, this.length), writeVarint(data, 0, this.count));
    const block: JoinedBlock = { firstDoc: this.firstDoc, count: this.count, lastDoc: this.lastDoc, data };
    this.count = 0;
    this.length = 0;
    emit(block);
  }

  /** Writes doc `doc`'s delta, then its mask and frequencies as stored (`source[from, to)`). */
  private append(doc: number, source: Uint8Array, from: number, to: number): void {
    if (this.count === 0) this.firstDoc = doc;
    // ≤ 8 bytes of delta plus the stored bytes.
    const need = this.length + 8 + (to - from);
    if (need > this.body.length) this.body = grown(this.body, Math.max(need, this.body.length * 2));
    this.length = writeVarint(this.body, this.length, this.count === 0 ? 0 : doc - this.lastDoc);
    // A posting's stored bytes are a few: a loop, not a subarray view for each.
    for (let k = from; k < to; k++) this.body[this.length++] = source[k] ?? 0;
    this.lastDoc = doc;
    this.count++;
  }
}
