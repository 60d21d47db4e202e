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
import { FILTER_MARK, HOLDER_TERM, ID_MARK, tierLength } from './document.js';
import { GROUPS } from './postings.js';
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
    const grow = <T extends Float64Array | Uint8Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.card = grow(this.card, (n) => new Float64Array(n));
    this.key = grow(this.key, (n) => new Float64Array(n));
    this.flags = grow(this.flags, (n) => new Uint8Array(n));
    const dl: Float64Array[] = [];
    for (let t = 0; t < TIERS; t++) dl.push(grow(this.dl[t] ?? new Float64Array(0), (n) => new Float64Array(n)));
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
}

/** Sets only the order key of doc `doc` in a chunk. */
export function writeKey(chunk: Uint8Array, doc: number, key: number): void {
  new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength).setFloat64(KEY_OFF + (doc % CHUNK) * 8, key, true);
}

/** Weight of field group 0 of a term: names, the id, or 1 for filter and marker terms (which carry no score). */
export function groupZeroWeight(term: string): number {
  if (term.startsWith(ID_MARK)) return ID_WEIGHT;
  if (term.startsWith(FILTER_MARK) || term === HOLDER_TERM) return 1;
  return NAME_WEIGHT;
}

/**
 * A term's decoded postings (`tf`: GROUPS per posting) as tier `tier` sees them: postings with a
 * weighted frequency (bm25.ts wtf) of 0 for that tier left out; names bit 1 when group 0 > 0.
 */
export function tierView(docs: Int32Array, tf: ArrayLike<number>, weight: number, tier: number): TierView {
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
