/**
 * Posting lists of the search engine (docs/search.md, "Index"): for one index term, the parts (doc
 * ids: the store's integer row ids, ascending) that contain it and how often, per field group.
 * Storage-neutral and pure: a store keeps the encoded blocks as opaque bytes (SQLite: a BLOB per
 * block of at most BLOCK_SIZE postings, keyed by (term, first doc id)).
 *
 * Field groups of a posting (bit i of `mask` set when tf of group i > 0):
 * - 0: names, or for an id term (ID_MARK) the part id's tokens; for filter and marker terms: present
 * - 1..4: values of searchable attributes by visibility tier 0..3 (factoryWorker .. superAdmin)
 *
 * Encoding of a block: varint count, then per posting: varint (doc − previous doc; the first
 * relative to the block's first doc, so 0), a mask byte, one varint tf per set bit, ascending bits.
 */
import { grown } from './typed-arrays.js';

/** Most postings per stored block (the unit of rewriting). */
export const BLOCK_SIZE = 128;
/** Field groups per posting. */
export const GROUPS = 5;

/** Decoded postings, ascending by doc; `tf` holds GROUPS frequencies per posting. */
export interface Postings {
  docs: number[];
  tf: number[];
}

/** An empty, growable postings buffer. */
export function emptyPostings(): Postings {
  return { docs: [], tf: [] };
}

/** Scratch space of encodeBlock (grown on demand; a block is copied out of it). */
let scratch = new Uint8Array(4096);

function ensureScratch(need: number): void {
  if (need <= scratch.length) return;
  let size = scratch.length;
  while (size < need) size *= 2;
  const next = new Uint8Array(size);
  next.set(scratch);
  scratch = next;
}

/** Writes `value` (a non-negative integer) as a varint into `target` at `pos` (room ensured by the caller); returns the next position. */
export function writeVarint(target: Uint8Array, pos: number, value: number): number {
  let v = value;
  let at = pos;
  while (v >= 0x80) {
    target[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  target[at++] = v;
  return at;
}

/** Encodes postings[from, to) as one block whose first doc is `docs[from]`. */
export function encodeBlock(p: Postings, from: number, to: number): Uint8Array {
  // At most: count, then per posting a doc delta, a mask and GROUPS frequencies, each ≤ 8 varint bytes.
  ensureScratch(8 + (to - from) * (2 + GROUPS) * 8);
  return scratch.slice(0, writePostings(writeVarint(scratch, 0, to - from), p, p.docs[from] ?? 0, from, to));
}

/**
 * Writes postings[from, to) into the scratch buffer at `pos` (room already ensured): per posting
 * the doc delta from the previous one (the first from `prev`), the mask of its non-zero groups and
 * those frequencies, as varints. Returns the position after them.
 */
function writePostings(pos: number, p: Postings, prev: number, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const doc = p.docs[i] ?? 0;
    pos = writeVarint(scratch, pos, doc - prev);
    prev = doc;
    let mask = 0;
    for (let g = 0; g < GROUPS; g++) if ((p.tf[i * GROUPS + g] ?? 0) > 0) mask |= 1 << g;
    scratch[pos++] = mask;
    for (let g = 0; g < GROUPS; g++) {
      const tf = p.tf[i * GROUPS + g] ?? 0;
      if (tf > 0) pos = writeVarint(scratch, pos, tf);
    }
  }
  return pos;
}

/**
 * Appends the postings of a block (first doc `firstDoc`) to `into`. Throws RangeError on bytes that
 * are not a block (truncated or corrupt).
 */
export function decodeBlock(bytes: Uint8Array, firstDoc: number, into: Postings): void {
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new RangeError('truncated posting block');
      const b = bytes[pos++] ?? 0;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
  };
  const count = varint();
  let doc = firstDoc;
  for (let i = 0; i < count; i++) {
    doc += varint();
    into.docs.push(doc);
    if (pos >= bytes.length) throw new RangeError('truncated posting block');
    const mask = bytes[pos++] ?? 0;
    for (let g = 0; g < GROUPS; g++) into.tf.push((mask & (1 << g)) !== 0 ? varint() : 0);
  }
}

/** A term's whole posting list decoded for reading: doc ids ascending, GROUPS frequencies per posting (capped at 65,535). */
export interface DecodedTerm {
  docs: Int32Array;
  tf: Uint16Array;
}

/**
 * Decodes a term's blocks, in ascending first-doc order, straight into typed arrays: the read
 * path of every store. Sized exactly from the blocks' counts first, so a 100,000-posting list
 * costs two allocations instead of growing JavaScript arrays by 600,000 pushes (measured: ~8×
 * faster cold decode at 1,000,000 parts, bench/results.md). Throws RangeError on bytes
 * that are not a block.
 */
export function decodeTermBlocks(blocks: readonly { data: Uint8Array; firstDoc: number }[]): DecodedTerm {
  const reader = new VarintReader();
  let total = 0;
  for (const b of blocks) total += reader.start(b.data).varint();
  const docs = new Int32Array(total);
  const tf = new Uint16Array(total * GROUPS);
  let at = 0;
  for (const { data, firstDoc } of blocks) {
    // The count, then per posting: doc delta, mask, one tf per set bit (all varints but the mask).
    const count = reader.start(data).varint();
    let doc = firstDoc;
    for (let i = 0; i < count; i++) {
      doc += reader.varint();
      docs[at] = doc;
      const mask = reader.byte();
      for (let g = 0; g < GROUPS; g++) if ((mask & (1 << g)) !== 0) tf[at * GROUPS + g] = Math.min(reader.varint(), 0xffff);
      at++;
    }
  }
  return { docs, tf };
}

/** Reads a block's bytes front to back (a class, not a closure per block: V8 inlines its methods in the decode loop). */
export class VarintReader {
  private bytes: Uint8Array = new Uint8Array(0);
  private pos = 0;

  /** Where the next read starts (bytes read so far). */
  get position(): number {
    return this.pos;
  }

  start(bytes: Uint8Array): this {
    this.bytes = bytes;
    this.pos = 0;
    return this;
  }

  /** The next byte. Throws RangeError past the end. */
  byte(): number {
    if (this.pos >= this.bytes.length) throw new RangeError('truncated posting block');
    return this.bytes[this.pos++] ?? 0;
  }

  /** The next varint (a non-negative integer). Throws RangeError past the end. */
  varint(): number {
    let value = 0;
    for (let scale = 1; ; scale *= 0x80) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
    }
  }
}

/**
 * The changes a write transaction gathers for every term (a store's writer: docs/search.md, "Bulk
 * writes"): per change a term, a doc id and GROUPS frequencies, all zero when the doc is removed.
 * Kept in flat typed arrays that grow by doubling and are reused by the next transaction, so
 * gathering allocates nothing per posting or per term beyond a Map entry: per-term
 * objects with two growable arrays would live for the whole transaction, so every young-generation
 * collection during an import would copy them (the writer's time would go to scavenges).
 * At the flush, `prepare()` groups the changes by term (a counting sort, arrival order
 * kept) and `changes(term)` gives one term's changes sorted by doc, the last change of a doc
 * winning.
 */
export class GatheredPostings {
  private readonly slots = new Map<string, number>();
  private readonly terms: string[] = [];
  /** Per term slot: set when its docs did not arrive ascending, or when a change removes. */
  private unsorted = new Uint8Array(256);
  private removes = new Uint8Array(256);
  private lastDoc = new Int32Array(256);
  /** Per change: its term slot, doc and GROUPS frequencies. */
  private slotOf = new Int32Array(4096);
  private docOf = new Int32Array(4096);
  private tfOf = new Int32Array(4096 * GROUPS);
  private count = 0;
  /** After prepare(): changes of slot s are order[starts[s] .. starts[s + 1]). */
  private starts = new Int32Array(257);
  private order = new Int32Array(4096);

  /** Number of changes gathered (a doc changed twice counts twice). */
  get size(): number {
    return this.count;
  }

  /** Number of distinct terms changed. */
  get termCount(): number {
    return this.terms.length;
  }

  /** Records doc `doc` of `term` with GROUPS frequencies `tf`; null (or all zero) removes the doc. */
  set(term: string, doc: number, tf: readonly number[] | null): void {
    const i = this.add(term, doc);
    let any = false;
    for (let g = 0; g < GROUPS; g++) {
      const v = tf ? (tf[g] ?? 0) : 0;
      if (v > 0) any = true;
      this.tfOf[i * GROUPS + g] = v;
    }
    if (!any) this.removes[this.slotOf[i] ?? 0] = 1;
  }

  /** {@link set} with frequencies that are `count` in group `group` and 0 in the others (no array). */
  setOne(term: string, doc: number, group: number, count: number): void {
    const i = this.add(term, doc);
    this.tfOf.fill(0, i * GROUPS, (i + 1) * GROUPS);
    this.tfOf[i * GROUPS + group] = count;
    if (count <= 0) this.removes[this.slotOf[i] ?? 0] = 1;
  }

  /** Appends a change of `doc` to `term` (its frequencies left to the caller); returns its index. */
  private add(term: string, doc: number): number {
    let slot = this.slots.get(term);
    if (slot === undefined) {
      slot = this.terms.length;
      this.terms.push(term);
      this.slots.set(term, slot);
      if (slot >= this.lastDoc.length) {
        const size = this.lastDoc.length * 2;
        this.unsorted = grown(this.unsorted, size);
        this.removes = grown(this.removes, size);
        this.lastDoc = grown(this.lastDoc, size);
      }
      this.unsorted[slot] = 0;
      this.removes[slot] = 0;
      this.lastDoc[slot] = -1;
    } else if (doc <= (this.lastDoc[slot] ?? 0)) this.unsorted[slot] = 1;
    this.lastDoc[slot] = doc;
    const i = this.count++;
    if (i >= this.slotOf.length) {
      const size = this.slotOf.length * 2;
      this.slotOf = grown(this.slotOf, size);
      this.docOf = grown(this.docOf, size);
      this.tfOf = grown(this.tfOf, size * GROUPS);
    }
    this.slotOf[i] = slot;
    this.docOf[i] = doc;
    return i;
  }

  /** The changed terms in binary (code unit) order, the order a flush writes them in. */
  sortedTerms(): string[] {
    return [...this.terms].sort();
  }

  /** Groups the changes by term (call once after the last `set`, before `changes`). */
  prepare(): void {
    const terms = this.terms.length;
    if (this.starts.length < terms + 1) this.starts = new Int32Array(Math.max(terms + 1, this.starts.length * 2));
    if (this.order.length < this.count) this.order = new Int32Array(this.slotOf.length);
    const starts = this.starts;
    starts.fill(0, 0, terms + 1);
    for (let i = 0; i < this.count; i++) starts[(this.slotOf[i] ?? 0) + 1]!++;
    for (let s = 0; s < terms; s++) starts[s + 1]! += starts[s] ?? 0;
    // Place each change after the earlier ones of its term: arrival order within a term is kept.
    const next = starts.slice(0, terms);
    for (let i = 0; i < this.count; i++) this.order[next[this.slotOf[i] ?? 0]!++] = i;
  }

  /**
   * `term`'s changes ascending by doc, one row per doc (its last change), removals as all-zero
   * rows, in arrays of their own (after `prepare()`; empty for a term not changed).
   */
  changes(term: string): Postings & { removes: boolean } {
    const slot = this.slots.get(term);
    if (slot === undefined) return { docs: [], tf: [], removes: false };
    const from = this.starts[slot] ?? 0;
    const to = this.starts[slot + 1] ?? 0;
    // Docs that arrived ascending (an import's) are read in place: no array of picks.
    let picks: ArrayLike<number> = this.order.subarray(from, to);
    if (this.unsorted[slot] === 1) {
      picks = Array.from(picks);
      // Stable by arrival: of equal docs the last one wins below.
      const sorted = (picks as number[]).sort((a, b) => (this.docOf[a] ?? 0) - (this.docOf[b] ?? 0) || a - b);
      picks = sorted.filter((i, k) => k + 1 === sorted.length || this.docOf[sorted[k + 1] ?? 0] !== this.docOf[i]);
    }
    const docs = new Array<number>(picks.length);
    const tf = new Array<number>(picks.length * GROUPS);
    for (let k = 0; k < picks.length; k++) {
      const i = picks[k] ?? 0;
      docs[k] = this.docOf[i] ?? 0;
      for (let g = 0; g < GROUPS; g++) tf[k * GROUPS + g] = this.tfOf[i * GROUPS + g] ?? 0;
    }
    return { docs, tf, removes: this.removes[slot] === 1 };
  }

  /** Forgets every change (the arrays are kept for the next transaction). */
  clear(): void {
    this.slots.clear();
    this.terms.length = 0;
    this.count = 0;
  }
}

/**
 * Merges sorted changes into sorted postings: `changes` ascending by doc, one row per doc (e.g.
 * GatheredPostings.changes()), an all-zero row removing its doc. Returns the merged postings (what a
 * writer stores); `changes` itself when `base` is empty and nothing is removed (a new term).
 */
export function mergeSorted(base: Postings, changes: Postings & { removes?: boolean }): Postings {
  if (base.docs.length === 0 && changes.removes === false) return changes;
  // Appends (an import's new parts, after every stored one): one exact-size copy, no growth by
  // push, whose discarded arrays were 17 % of an import's allocations.
  const lastBase = base.docs[base.docs.length - 1] ?? 0;
  if (changes.removes === false && changes.docs.length > 0 && lastBase < (changes.docs[0] ?? 0)) {
    return { docs: base.docs.concat(changes.docs), tf: base.tf.concat(changes.tf) };
  }
  const merged = emptyPostings();
  const docs = merged.docs;
  const out = merged.tf;
  const bd = base.docs;
  const cd = changes.docs;
  let i = 0;
  let j = 0;
  while (i < bd.length || j < cd.length) {
    const b = i < bd.length ? (bd[i] ?? 0) : Infinity;
    const c = j < cd.length ? (cd[j] ?? 0) : Infinity;
    if (b < c) {
      docs.push(b);
      for (let g = 0; g < GROUPS; g++) out.push(base.tf[i * GROUPS + g] ?? 0);
      i++;
      continue;
    }
    if (b === c) i++;
    let any = false;
    for (let g = 0; g < GROUPS; g++) if ((changes.tf[j * GROUPS + g] ?? 0) > 0) any = true;
    if (any) {
      docs.push(c);
      for (let g = 0; g < GROUPS; g++) out.push(changes.tf[j * GROUPS + g] ?? 0);
    }
    j++;
  }
  return merged;
}

/** Weighted frequency of posting `i` for visibility tier `tier` (bm25.ts wtf); `idTerm`: group 0 is the id. */
export function weightedTf(tf: ArrayLike<number>, i: number, tier: number, groupZeroWeight: number): number {
  let w = (tf[i * GROUPS] ?? 0) * groupZeroWeight;
  for (let k = 0; k <= tier; k++) w += tf[i * GROUPS + 1 + k] ?? 0;
  return w;
}
