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

/** Most postings per stored block (the unit of rewriting and of block-max bounds). */
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

function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** Encodes postings[from, to) as one block whose first doc is `docs[from]`. */
export function encodeBlock(p: Postings, from: number, to: number): Uint8Array {
  const out: number[] = [];
  writeVarint(out, to - from);
  let prev = p.docs[from] ?? 0;
  for (let i = from; i < to; i++) {
    const doc = p.docs[i] ?? 0;
    writeVarint(out, doc - prev);
    prev = doc;
    let mask = 0;
    for (let g = 0; g < GROUPS; g++) if ((p.tf[i * GROUPS + g] ?? 0) > 0) mask |= 1 << g;
    out.push(mask);
    for (let g = 0; g < GROUPS; g++) {
      const tf = p.tf[i * GROUPS + g] ?? 0;
      if (tf > 0) writeVarint(out, tf);
    }
  }
  return Uint8Array.from(out);
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

/** Weighted frequency of posting `i` for visibility tier `tier` (bm25.ts wtf); `idTerm`: group 0 is the id. */
export function weightedTf(tf: ArrayLike<number>, i: number, tier: number, groupZeroWeight: number): number {
  let w = (tf[i * GROUPS] ?? 0) * groupZeroWeight;
  for (let k = 0; k <= tier; k++) w += tf[i * GROUPS + 1 + k] ?? 0;
  return w;
}
