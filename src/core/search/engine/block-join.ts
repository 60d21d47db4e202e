/**
 * Joins the encoded blocks of one posting list into full blocks, byte to byte (postings.ts
 * encoding): what a store does when it merges a term's posting runs (docs/search.md, "Posting
 * runs"). A posting's mask and frequencies are copied as they are stored and only its doc delta is
 * written again, so a merge allocates the blocks it writes and nothing per posting: decoding a
 * run's postings into arrays and encoding them again was about half of what an import allocated.
 */
import { BLOCK_SIZE } from './postings.js';

/** One block a {@link BlockJoiner} wrote: `count` postings from `firstDoc` to `lastDoc`, encoded in `data`. */
export interface JoinedBlock {
  firstDoc: number;
  count: number;
  lastDoc: number;
  data: Uint8Array;
}

/** Postings of an encoded block (its leading count). Throws RangeError on an empty or truncated count. */
export function blockCount(data: Uint8Array): number {
  const reader = new VarintCursor();
  reader.bytes = data;
  return reader.varint();
}

/** Reads varints from `bytes` at `pos`, which it moves past each (no object per value). */
class VarintCursor {
  bytes: Uint8Array = new Uint8Array(0);
  pos = 0;

  /** The varint at `pos`. Throws RangeError when the bytes end inside it. */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.bytes.length) throw new RangeError('truncated posting block');
      const b = this.bytes[this.pos++] ?? 0;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
  }
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
  private readonly cursor = new VarintCursor();

  /**
   * Appends the postings of block `data` (first doc `firstDoc`). Throws RangeError on bytes that
   * are not a block; RangeError too when a posting does not follow the previous one.
   */
  add(data: Uint8Array, firstDoc: number, emit: (block: JoinedBlock) => void): void {
    const cursor = this.cursor;
    cursor.bytes = data;
    cursor.pos = 0;
    const count = cursor.varint();
    let doc = firstDoc;
    for (let i = 0; i < count; i++) {
      doc += cursor.varint();
      const start = cursor.pos;
      if (start >= data.length) throw new RangeError('truncated posting block');
      const mask = data[start] ?? 0;
      cursor.pos = start + 1;
      for (let bits = mask; bits !== 0; bits &= bits - 1) cursor.varint();
      if (this.count > 0 && doc <= this.lastDoc) throw new RangeError(`posting of doc ${doc} does not follow doc ${this.lastDoc}`);
      this.append(doc, data, start, cursor.pos);
      if (this.count === BLOCK_SIZE) this.finish(emit);
    }
  }

  /** Emits the block being filled, if it holds a posting. */
  finish(emit: (block: JoinedBlock) => void): void {
    if (this.count === 0) return;
    const countBytes = this.count < 0x80 ? 1 : 2;
    const data = new Uint8Array(countBytes + this.length);
    if (countBytes === 1) data[0] = this.count;
    else {
      data[0] = (this.count & 0x7f) | 0x80;
      data[1] = this.count >>> 7;
    }
    data.set(this.body.subarray(0, this.length), countBytes);
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
    if (need > this.body.length) {
      const body = new Uint8Array(Math.max(need, this.body.length * 2));
      body.set(this.body.subarray(0, this.length));
      this.body = body;
    }
    let v = this.count === 0 ? 0 : doc - this.lastDoc;
    while (v >= 0x80) {
      this.body[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.body[this.length++] = v;
    // A posting's stored bytes are a few: a loop, not a subarray view for each.
    for (let k = from; k < to; k++) this.body[this.length++] = source[k] ?? 0;
    this.lastDoc = doc;
    this.count++;
  }
}
