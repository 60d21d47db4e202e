/**
 * Per-doc data of the search engine as stored (docs/search.md, "Index"), and a term's postings as
 * one visibility tier sees them: helpers every block store uses (adapters/sqlite and
 * adapters/postgres search/engine-store.ts and the PostgreSQL engine-reader.ts), and
 * {@link DocColumns}, the per-doc arrays a reader searches with.
 *
 * A chunk holds CHUNK consecutive doc ids (doc id = the store's integer part key): card id f64,
 * order key f64 (ascending key = ascending part id, so ties by part id need no join), token counts
 * u16 × 5 (bm25.ts: [id + names, values tier 0..3]) and flags u8 (DOC_EXISTS, DOC_HOLDER), each
 * little-endian, array by array.
 */
import { ID_WEIGHT, NAME_WEIGHT, TIERS } from './bm25.js';
import { ATTR_MARK, FILTER_MARK, HOLDER_TERM, isIdTerm, NAMES_BONUS_MARK, tierLength } from './document.js';
import { GROUPS } from './postings.js';
import { kthLargest } from './top-select.js';
import { grown } from './typed-arrays.js';
import type { TierView } from './searcher.js';

/** Docs per chunk. */
export const CHUNK = 256;
const CARD_OFF = 0;
const KEY_OFF = CHUNK * 8;
const LEN_OFF = CHUNK * 16;
const FLAG_OFF = LEN_OFF + CHUNK * GROUPS * 2;
/** Bytes of a chunk. */
export const CHUNK_BYTES = FLAG_OFF + CHUNK;
/** Flags of a doc. */
export const DOC_EXISTS = 1;
export const DOC_HOLDER = 2;

/** One doc's stored data. */
export interface StoredDoc {
  card: number;
  key: number;
  lengths: readonly number[];
  flags: number;
}

/** Reads doc `doc` (any doc id; its place in the chunk is doc % CHUNK) from a chunk's bytes. */
export function readDoc(chunk: Uint8Array, doc: number): StoredDoc {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const at = doc % CHUNK;
  const lengths: number[] = [];
  for (let g = 0; g < GROUPS; g++) lengths.push(view.getUint16(LEN_OFF + (at * GROUPS + g) * 2, true));
  return { card: view.getFloat64(CARD_OFF + at * 8, true), key: view.getFloat64(KEY_OFF + at * 8, true), lengths, flags: chunk[FLAG_OFF + at] ?? 0 };
}

/** Writes doc `doc` into a chunk's bytes (token counts capped at 65,535). */
export function writeDoc(chunk: Uint8Array, doc: number, value: StoredDoc): void {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const at = doc % CHUNK;
  view.setFloat64(CARD_OFF + at * 8, value.card, true);
  view.setFloat64(KEY_OFF + at * 8, value.key, true);
  for (let g = 0; g < GROUPS; g++) view.setUint16(LEN_OFF + (at * GROUPS + g) * 2, Math.min(0xffff, value.lengths[g] ?? 0), true);
  chunk[FLAG_OFF + at] = value.flags;
}

/** Chunks are stored little-endian; typed views read them directly on little-endian hosts. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The per-doc arrays a reader searches with (EngineReader `key`, `dl`, `docCapacity`, and each doc's
 * card and flags), indexed by doc id, filled chunk by chunk from stored chunks. The arrays are
 * replaced when they grow, so hold the object, not an array.
 */
export class DocColumns {
  /** Highest doc id + 1 the arrays can hold. */
  capacity = 0;
  card = new Float64Array(0);
  key = new Float64Array(0);
  flags = new Uint8Array(0);
  /** Length per visibility tier (bm25.ts), by doc. */
  dl: Float64Array[] = [];

  /** Grows the arrays (doubling, at least 1,024) to hold doc ids below `docs`. */
  ensure(docs: number): void {
    if (docs <= this.capacity) return;
    let capacity = Math.max(1024, this.capacity);
    while (capacity < docs) capacity *= 2;
    this.card = grown(this.card, capacity);
    this.key = grown(this.key, capacity);
    this.flags = grown(this.flags, capacity);
    const dl: Float64Array[] = [];
    for (let t = 0; t < TIERS; t++) dl.push(grown(this.dl[t] ?? new Float64Array(0), capacity));
    this.dl = dl;
    this.capacity = capacity;
  }

  /** Zeroes every doc (a rebuilt index: nothing loaded holds). */
  clear(): void {
    this.card.fill(0);
    this.key.fill(0);
    this.flags.fill(0);
    for (const d of this.dl) d.fill(0);
  }

  /** Loads stored chunk number `chunk` (its bytes as written by {@link writeDoc}). */
  loadChunk(chunk: number, data: Uint8Array): void {
    const base = chunk * CHUNK;
    this.ensure(base + CHUNK);
    if (LITTLE_ENDIAN && data.length >= CHUNK_BYTES) {
      // Typed views over an aligned copy: a cold reader loads every chunk (about 4,000 at 1M parts),
      // and per-field reads took ~0.1 ms a chunk before the JIT warmed up.
      const bytes = new Uint8Array(CHUNK_BYTES);
      bytes.set(data.subarray(0, CHUNK_BYTES));
      this.card.set(new Float64Array(bytes.buffer, CARD_OFF, CHUNK), base);
      this.key.set(new Float64Array(bytes.buffer, KEY_OFF, CHUNK), base);
      this.flags.set(bytes.subarray(FLAG_OFF, FLAG_OFF + CHUNK), base);
      const len = new Uint16Array(bytes.buffer, LEN_OFF, CHUNK * GROUPS);
      for (let t = 0; t < TIERS; t++) {
        const dl = this.dl[t] as Float64Array;
        for (let at = 0; at < CHUNK; at++) {
          const o = at * GROUPS;
          let n = len[o] ?? 0;
          for (let k = 0; k <= t; k++) n += len[o + 1 + k] ?? 0;
          dl[base + at] = n;
        }
      }
      return;
    }
    for (let at = 0; at < CHUNK; at++) {
      const doc = base + at;
      const d = readDoc(data, doc);
      this.card[doc] = d.card;
      this.key[doc] = d.key;
      this.flags[doc] = d.flags;
      for (let t = 0; t < TIERS; t++) (this.dl[t] as Float64Array)[doc] = tierLength(d.lengths, t);
    }
  }

  /**
   * Every existing doc (without the holders of per-organization values when `nonHoldersOnly`),
   * ascending order key (= ascending part id), the first `limit` of them, and how many there are:
   * from these arrays alone, on both stores: read through SQL (`parts` joined with
   * `search_current` in part id order), every facet-values request without words reads the whole
   * catalog. Fewer than all are chosen by a selection of the `limit`-th key before any sort, since
   * a search keeps only its first `limit` and sorting every doc of a large catalog costs more than
   * the rest of such a search.
   */
  allDocs(nonHoldersOnly: boolean, limit: number): { total: number; docs: number[] } {
    const { key } = this;
    const found = this.everyDoc(nonHoldersOnly);
    const total = found.length;
    const docs = Array.from(limit < total ? firstByKey(found.subarray(0, total), key, Math.max(0, limit)) : found.subarray(0, total));
    docs.sort((a, b) => (key[a] ?? 0) - (key[b] ?? 0) || a - b);
    return { total, docs };
  }

  /**
   * Every existing doc (without the holders of per-organization values when `nonHoldersOnly`) in
   * doc id order, as typed integers: for a caller that only counts them (facets). Making a JS
   * array of every doc of 120,000 parts cost ~20 ms on a loaded machine, sorting it ~10 ms more:
   * on PostgreSQL that ran on the event loop every round trip of a write waits for.
   */
  everyDoc(nonHoldersOnly: boolean): Int32Array {
    const { flags, capacity } = this;
    const excluded = DOC_EXISTS | (nonHoldersOnly ? DOC_HOLDER : 0);
    const found = new Int32Array(capacity);
    let total = 0;
    for (let doc = 0; doc < capacity; doc++) if (((flags[doc] as number) & excluded) === DOC_EXISTS) found[total++] = doc;
    return found.subarray(0, total);
  }
}

/** Sets only the order key of doc `doc` in a chunk. */
export function writeKey(chunk: Uint8Array, doc: number, key: number): void {
  new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength).setFloat64(KEY_OFF + (doc % CHUNK) * 8, key, true);
}

/** The weight that makes {@link tierView} read a term's frequencies as attribute marks (document.ts ATTR_MARK). */
export const ATTRIBUTE_MARKS = -1;

/** Weight of field group 0 of a term: names, the id, or 1 for filter, name-bonus and marker terms (which carry no score: a name-bonus term's frequency is read as it is); ATTRIBUTE_MARKS for attribute-order terms. */
export function groupZeroWeight(term: string): number {
  if (isIdTerm(term)) return ID_WEIGHT;
  if (term.startsWith(ATTR_MARK)) return ATTRIBUTE_MARKS;
  if (term.startsWith(FILTER_MARK) || term.startsWith(NAMES_BONUS_MARK) || term === HOLDER_TERM) return 1;
  return NAME_WEIGHT;
}

/**
 * A term's decoded postings (`tf`: GROUPS per posting) as tier `tier` sees them: postings with a
 * weighted frequency (bm25.ts wtf) of 0 for that tier left out; names bit 1 when group 0 > 0.
 * An attribute-order term (`weight` ATTRIBUTE_MARKS): `names` holds the marks of the value groups
 * the tier sees, OR-ed (the best listed attribute it may read), wtf 1; postings without any left out.
 */
export function tierView(docs: Int32Array, tf: ArrayLike<number>, weight: number, tier: number): TierView {
  if (weight === ATTRIBUTE_MARKS) return marksView(docs, tf, tier);
  const n = docs.length;
  const wtf = new Float64Array(n);
  const names = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const at = i * GROUPS;
    const inNames = tf[at] ?? 0;
    let w = inNames * weight;
    for (let k = 0; k <= tier; k++) w += tf[at + 1 + k] ?? 0;
    wtf[i] = w;
    names[i] = inNames > 0 ? 1 : 0;
    if (w > 0) count++;
  }
  // Usually every posting is visible to the tier: the decoded doc ids are shared, nothing is copied.
  if (count === n) return { docs, wtf, names };
  const view: TierView = { docs: new Int32Array(count), wtf: new Float64Array(count), names: new Uint8Array(count) };
  let j = 0;
  for (let i = 0; i < n; i++) {
    const w = wtf[i] ?? 0;
    if (w <= 0) continue;
    view.docs[j] = docs[i] ?? 0;
    view.wtf[j] = w;
    view.names[j] = names[i] ?? 0;
    j++;
  }
  return view;
}

/** tierView of an attribute-order term. */
function marksView(docs: Int32Array, tf: ArrayLike<number>, tier: number): TierView {
  const out: number[] = [];
  const marks: number[] = [];
  for (let i = 0; i < docs.length; i++) {
    let m = 0;
    for (let k = 0; k <= tier; k++) m |= tf[i * GROUPS + 1 + k] ?? 0;
    if (m === 0) continue;
    out.push(docs[i] ?? 0);
    marks.push(m & 0xff);
  }
  return { docs: Int32Array.from(out), wtf: new Float64Array(out.length).fill(1), names: Uint8Array.from(marks) };
}

/**
 * The `limit` docs of `docs` (ascending doc ids) that come first by (key, doc), in no particular
 * order: the `limit`-th smallest key found by selection (top-select.ts kthLargest, on the keys
 * negated), then the docs below it and, in doc order, as many at it as fit.
 */
function firstByKey(docs: Int32Array, key: Float64Array, limit: number): Int32Array {
  if (limit === 0) return new Int32Array(0);
  const negated = new Float64Array(docs.length);
  for (let i = 0; i < docs.length; i++) negated[i] = -(key[docs[i] as number] as number);
  const cut = -kthLargest(negated, negated.length, limit);
  const chosen = new Int32Array(limit);
  let n = 0;
  for (let i = 0; i < docs.length; i++) if ((key[docs[i] as number] as number) < cut) chosen[n++] = docs[i] as number;
  for (let i = 0; i < docs.length && n < limit; i++) if ((key[docs[i] as number] as number) === cut) chosen[n++] = docs[i] as number;
  return chosen.subarray(0, n);
}
