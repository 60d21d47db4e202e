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

/** Writes `value` (a non-negative integer) as a varint at `pos`; returns the next position. */
function writeVarint(pos: number, value: number): number {
  let v = value;
  let at = pos;
  while (v >= 0x80) {
    scratch[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  scratch[at++] = v;
  return at;
}

/** Encodes postings[from, to) as one block whose first doc is `docs[from]`. */
export function encodeBlock(p: Postings, from: number, to: number): Uint8Array {
  // At most: count, then per posting a doc delta, a mask and GROUPS frequencies, each ≤ 8 varint bytes.
  ensureScratch(8 + (to - from) * (2 + GROUPS) * 8);
  let pos = writeVarint(0, to - from);
  let prev = p.docs[from] ?? 0;
  for (let i = from; i < to; i++) {
    const doc = p.docs[i] ?? 0;
    pos = writeVarint(pos, doc - prev);
    prev = doc;
    let mask = 0;
    for (let g = 0; g < GROUPS; g++) if ((p.tf[i * GROUPS + g] ?? 0) > 0) mask |= 1 << g;
    scratch[pos++] = mask;
    for (let g = 0; g < GROUPS; g++) {
      const tf = p.tf[i * GROUPS + g] ?? 0;
      if (tf > 0) pos = writeVarint(pos, tf);
    }
  }
  return scratch.slice(0, pos);
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
 * faster cold decode at 1,000,000 parts, bench/results.md, issue 12). Throws RangeError on bytes
 * that are not a block.
 */
export function decodeTermBlocks(blocks: readonly { data: Uint8Array; firstDoc: number }[]): DecodedTerm {
  let total = 0;
  for (const b of blocks) total += blockCount(b.data);
  const docs = new Int32Array(total);
  const tf = new Uint16Array(total * GROUPS);
  let at = 0;
  for (const { data: bytes, firstDoc } of blocks) {
    let pos = 0;
    const n = bytes.length;
    // The count, then per posting: doc delta, mask, one tf per set bit (all varints but the mask).
    let count = 0;
    for (let scale = 1; ; scale *= 0x80) {
      if (pos >= n) throw new RangeError('truncated posting block');
      const b = bytes[pos++] ?? 0;
      count += (b & 0x7f) * scale;
      if (b < 0x80) break;
    }
    let doc = firstDoc;
    for (let i = 0; i < count; i++) {
      for (let scale = 1; ; scale *= 0x80) {
        if (pos >= n) throw new RangeError('truncated posting block');
        const b = bytes[pos++] ?? 0;
        doc += (b & 0x7f) * scale;
        if (b < 0x80) break;
      }
      docs[at] = doc;
      if (pos >= n) throw new RangeError('truncated posting block');
      const mask = bytes[pos++] ?? 0;
      for (let g = 0; g < GROUPS; g++) {
        if ((mask & (1 << g)) === 0) continue;
        let v = 0;
        for (let scale = 1; ; scale *= 0x80) {
          if (pos >= n) throw new RangeError('truncated posting block');
          const b = bytes[pos++] ?? 0;
          v += (b & 0x7f) * scale;
          if (b < 0x80) break;
        }
        tf[at * GROUPS + g] = Math.min(v, 0xffff);
      }
      at++;
    }
  }
  return { docs, tf };
}

/** The number of postings a block holds (its leading varint). Throws RangeError when truncated. */
function blockCount(bytes: Uint8Array): number {
  let count = 0;
  let pos = 0;
  for (let scale = 1; ; scale *= 0x80) {
    if (pos >= bytes.length) throw new RangeError('truncated posting block');
    const b = bytes[pos++] ?? 0;
    count += (b & 0x7f) * scale;
    if (b < 0x80) return count;
  }
}

/**
 * Merges changes into sorted postings: `changes` maps doc -> GROUPS frequencies (all zero or null
 * removes the doc). Returns the merged postings and, for document-frequency bookkeeping, the
 * postings removed or replaced (`before`) and the ones added or replacing (`after`).
 */
export function mergePostings(base: Postings, changes: ReadonlyMap<number, readonly number[] | null>): { merged: Postings; before: Postings; after: Postings } {
  const changed = [...changes.keys()].sort((a, b) => a - b);
  const merged = emptyPostings();
  const before = emptyPostings();
  const after = emptyPostings();
  const push = (target: Postings, doc: number, tf: readonly number[], offset = 0) => {
    target.docs.push(doc);
    for (let g = 0; g < GROUPS; g++) target.tf.push(tf[offset + g] ?? 0);
  };
  let i = 0;
  let j = 0;
  while (i < base.docs.length || j < changed.length) {
    const b = i < base.docs.length ? (base.docs[i] ?? 0) : Infinity;
    const c = j < changed.length ? (changed[j] ?? 0) : Infinity;
    if (b < c) {
      push(merged, b, base.tf, i * GROUPS);
      i++;
      continue;
    }
    const tf = changes.get(c);
    if (b === c) {
      push(before, b, base.tf, i * GROUPS);
      i++;
    }
    if (tf && tf.some((x) => x > 0)) {
      push(merged, c, tf);
      push(after, c, tf);
    }
    j++;
  }
  return { merged, before, after };
}

/**
 * One term's changes gathered by a write transaction (a store's writer: docs/search.md, "Bulk
 * writes"), in arrival order: per change a doc id and GROUPS frequencies, all zero when the doc is
 * removed. Two growable number arrays and no object per posting: an import batch gathers tens of
 * thousands of postings, and a Map of arrays per term cost ~20 % of the import in allocation and
 * garbage collection. A later change of a doc replaces an earlier one (`sorted()`).
 */
export class PendingPostings {
  private readonly docs: number[] = [];
  private readonly tf: number[] = [];
  /** Every doc greater than the one before (new parts appended: the common case); then no sort is needed. */
  private ascending = true;
  /** Some change is a removal (all zero). */
  private removes = false;

  /** Number of changes gathered (a doc changed twice counts twice). */
  get size(): number {
    return this.docs.length;
  }

  /** Records doc `doc` with GROUPS frequencies `tf`; null (or all zero) removes the doc. */
  set(doc: number, tf: readonly number[] | null): void {
    const n = this.docs.length;
    if (n > 0 && doc <= (this.docs[n - 1] ?? 0)) this.ascending = false;
    this.docs.push(doc);
    let any = false;
    for (let g = 0; g < GROUPS; g++) {
      const v = tf ? (tf[g] ?? 0) : 0;
      if (v > 0) any = true;
      this.tf.push(v);
    }
    if (!any) this.removes = true;
  }

  /**
   * The changes ascending by doc, one per doc (its last change), removals as all-zero rows; shares
   * the gathered arrays when they are already in order (do not change them afterwards).
   */
  sorted(): Postings & { removes: boolean } {
    if (this.ascending) return { docs: this.docs, tf: this.tf, removes: this.removes };
    const order = this.docs.map((_, i) => i);
    // Stable by arrival: of equal docs the last one wins below.
    order.sort((a, b) => (this.docs[a] ?? 0) - (this.docs[b] ?? 0) || a - b);
    const docs: number[] = [];
    const tf: number[] = [];
    for (let k = 0; k < order.length; k++) {
      const i = order[k] ?? 0;
      const doc = this.docs[i] ?? 0;
      if (k + 1 < order.length && this.docs[order[k + 1] ?? 0] === doc) continue;
      docs.push(doc);
      for (let g = 0; g < GROUPS; g++) tf.push(this.tf[i * GROUPS + g] ?? 0);
    }
    return { docs, tf, removes: this.removes };
  }
}

/**
 * Merges sorted changes into sorted postings: `changes` ascending by doc, one row per doc (e.g.
 * PendingPostings.sorted()), an all-zero row removing its doc. Returns the merged postings (what a
 * writer stores); `changes` itself when `base` is empty and nothing is removed (a new term).
 */
export function mergeSorted(base: Postings, changes: Postings & { removes?: boolean }): Postings {
  if (base.docs.length === 0 && changes.removes === false) return changes;
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
