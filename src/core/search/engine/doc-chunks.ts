/**
 * Per-doc data of the search engine as stored (docs/search.md, "Index"), and a term's postings as
 * one visibility tier sees them: pure helpers any block store uses (the PostgreSQL store; the SQLite
 * store has the same layout in adapters/sqlite/search/engine-store.ts).
 *
 * A chunk holds CHUNK consecutive doc ids (doc id = the store's integer part key): card id f64,
 * order key f64 (ascending key = ascending part id, so ties by part id need no join), token counts
 * u16 × 5 (bm25.ts: [id + names, values tier 0..3]) and flags u8 (DOC_EXISTS, DOC_HOLDER), each
 * little-endian, array by array.
 */
import { ID_WEIGHT, NAME_WEIGHT } from './bm25.js';
import { FILTER_MARK, HOLDER_TERM, ID_MARK } from './document.js';
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
  let count = 0;
  const wtfAll = new Float64Array(docs.length);
  for (let i = 0; i < docs.length; i++) {
    let w = (tf[i * GROUPS] ?? 0) * weight;
    for (let k = 0; k <= tier; k++) w += tf[i * GROUPS + 1 + k] ?? 0;
    wtfAll[i] = w;
    if (w > 0) count++;
  }
  const view: TierView = { docs: new Int32Array(count), wtf: new Float64Array(count), names: new Uint8Array(count) };
  let j = 0;
  for (let i = 0; i < docs.length; i++) {
    const w = wtfAll[i] ?? 0;
    if (w <= 0) continue;
    view.docs[j] = docs[i] ?? 0;
    view.wtf[j] = w;
    view.names[j] = (tf[i * GROUPS] ?? 0) > 0 ? 1 : 0;
    j++;
  }
  return view;
}
