/**
 * The packed form of a search session's hits, shared by the SQLite and PostgreSQL session stores
 * (docs/search.md, "Sessions"): hits in blocks of {@link BLOCK_SIZE}; a block's card ids as
 * zigzag-delta LEB128 varints (≈1–2 bytes a hit) and, for an image search, its scores as
 * little-endian uint16 (2 bytes a hit, the score times 65,535, rounded).
 */

import { SESSION_SCORE_STEPS, type NewSession, type PackedSessionHits, type RankedSessionHits } from '../core/ports.js';

/** Hits per stored block (2–3 KiB packed: few rows to write, little to decode for a page). */
export const BLOCK_SIZE = 1024;
/** Bytes a session row costs besides its hit blocks (ids, times, b-tree cells), for the size budget. */
export const SESSION_ROW_BYTES = 128;

/** Card ids must be below this (2^51), so every zigzag difference is a safe integer. */
const MAX_CARD_ID = 2 ** 51;

/**
 * Packs card ids (integers in [0, 2^51): SQLite rowids) as LEB128 varints of the zigzag-encoded difference
 * to the previous id (the first to 0). Ranked hits are mostly newest-first runs (docs/search.md,
 * Ranking cost), so most differences fit one or two bytes; any order is exact.
 */
export function packCardIds(ids: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(ids.length * 8 + 8);
  let at = 0;
  let previous = 0;
  for (const id of ids) {
    if (!Number.isSafeInteger(id) || id < 0 || id >= MAX_CARD_ID) throw new RangeError(`card id ${id} is not an integer in [0, 2^51)`);
    const delta = id - previous;
    previous = id;
    let z = delta >= 0 ? delta * 2 : -delta * 2 - 1;
    // Arithmetic while z may exceed 31 bits (ids may exceed 32), then bit operators, several times
    // faster, for what is left: most differences (runs of nearby ids) start there.
    while (z >= 0x80000000) {
      out[at++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    while (z >= 0x80) {
      out[at++] = (z & 0x7f) | 0x80;
      z >>>= 7;
    }
    out[at++] = z;
  }
  // A copy of its own, exactly its size (not a view of the scratch buffer, nor of Node's shared
  // pool): it may be transferred to another thread (PackedSessionHits).
  return Buffer.from(new Uint8Array(out.buffer, out.byteOffset, at).slice().buffer);
}

/** Card ids [from, to) of a block packed by {@link packCardIds}. */
export function unpackCardIds(buf: Uint8Array, from = 0, to = Number.POSITIVE_INFINITY): number[] {
  const out: number[] = [];
  let previous = 0;
  let at = 0;
  for (let i = 0; i < to && at < buf.length; i++) {
    let z = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = buf[at++] ?? 0;
      z += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte & 0x80);
    previous += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    if (i >= from) out.push(previous);
  }
  return out;
}

/**
 * Packs scores in [0, 1] as little-endian uint16 (score × 65,535, rounded; a score outside
 * [0, 1] or NaN is a RangeError: scores are confidences, never raw distances).
 */
export function packScores(scores: readonly number[]): Buffer {
  // Buffer.alloc, never from Node's shared pool: the bytes may be transferred (packCardIds).
  const out = Buffer.alloc(scores.length * 2);
  scores.forEach((score, i) => {
    if (!(score >= 0 && score <= 1)) throw new RangeError(`score ${score} is not in [0, 1]`);
    out.writeUInt16LE(Math.round(score * SESSION_SCORE_STEPS), i * 2);
  });
  return out;
}

/** Scores [from, to) of a block packed by {@link packScores}. */
export function unpackScores(buf: Uint8Array, from = 0, to = Number.POSITIVE_INFINITY): number[] {
  const view = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: number[] = [];
  for (let i = from; i < Math.min(to, view.length / 2); i++) out.push(view.readUInt16LE(i * 2) / SESSION_SCORE_STEPS);
  return out;
}

/** One stored block of a session: its packed card ids and, for an image search, its packed scores. */
export interface PackedBlock {
  cardIds: Buffer;
  scores: Buffer | null;
}

/**
 * Splits a session's hits into packed blocks of {@link BLOCK_SIZE}. Throws a RangeError when
 * `scores` is given with another length than `cardIds`.
 */
export function packHits(hits: RankedSessionHits): PackedBlock[] {
  const { cardIds, scores } = hits;
  if (scores !== undefined && scores.length !== cardIds.length) throw new RangeError(`${scores.length} scores for ${cardIds.length} hits`);
  const blocks: PackedBlock[] = [];
  for (let at = 0; at < cardIds.length; at += BLOCK_SIZE) {
    blocks.push({ cardIds: packCardIds(cardIds.slice(at, at + BLOCK_SIZE)), scores: scores === undefined ? null : packScores(scores.slice(at, at + BLOCK_SIZE)) });
  }
  return blocks;
}

/** A session's hits packed ({@link packHits}) as a {@link PackedSessionHits}, to hand to another thread. */
export function packSessionHits(hits: RankedSessionHits): PackedSessionHits {
  return { blocks: packHits(hits), count: hits.cardIds.length };
}

/** The packed blocks of a new session's hits, packing them unless the ranking thread did. */
export function blocksOf(hits: NewSession['hits']): PackedBlock[] {
  if (!('blocks' in hits)) return packHits(hits);
  // Across threads a Buffer arrives as a plain Uint8Array: the same bytes, viewed as a Buffer again.
  const asBuffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return hits.blocks.map((block) => ({ cardIds: asBuffer(block.cardIds), scores: block.scores === null ? null : asBuffer(block.scores) }));
}

/** How many hits a new session stores. */
export function hitCount(hits: NewSession['hits']): number {
  return 'blocks' in hits ? hits.count : hits.cardIds.length;
}

/** Bytes a block costs against the session budget, besides the store's per-row overhead. */
export function packedBytes(block: { cardIds: Uint8Array; scores: Uint8Array | null }): number {
  return block.cardIds.length + (block.scores?.length ?? 0);
}

/** Which blocks hold hits [skip, skip + limit) (limit ≥ 1): the first and last block numbers. */
export function blockRange(skip: number, limit: number): { first: number; last: number } {
  return { first: Math.floor(skip / BLOCK_SIZE), last: Math.floor((skip + limit - 1) / BLOCK_SIZE) };
}

/**
 * Appends to `out` the hits of stored block `block` (its number in the session) that fall in
 * [skip, skip + limit): card ids, and scores when the block has them.
 */
export function readBlock(out: { cardIds: number[]; scores?: number[] }, block: number, packed: { cardIds: Uint8Array; scores: Uint8Array | null }, skip: number, limit: number): void {
  const start = block * BLOCK_SIZE;
  const from = Math.max(0, skip - start);
  const to = Math.min(BLOCK_SIZE, skip + limit - start);
  out.cardIds.push(...unpackCardIds(packed.cardIds, from, to));
  if (packed.scores !== null) (out.scores ??= []).push(...unpackScores(packed.scores, from, to));
}
