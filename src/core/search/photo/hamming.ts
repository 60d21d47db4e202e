/**
 * Hamming distances between 256-bit binary descriptors (ORB), stored as 8 little-endian uint32
 * words. Pure code, no allocation: these run millions of times per query.
 */

/** 32-bit words of one 256-bit descriptor. */
export const DESCRIPTOR_WORDS = 8;

/** Bits of one descriptor. */
export const DESCRIPTOR_BITS = DESCRIPTOR_WORDS * 32;

/**
 * Copies the descriptor at word offset `from` of `src` to word offset `to` of `dst` (words past
 * `src`'s end as 0). Unrolled: index builds copy millions, and a subarray + set cost more.
 */
export function copyDescriptor(dst: Uint32Array, to: number, src: Uint32Array, from: number): void {
  dst[to] = src[from] ?? 0;
  dst[to + 1] = src[from + 1] ?? 0;
  dst[to + 2] = src[from + 2] ?? 0;
  dst[to + 3] = src[from + 3] ?? 0;
  dst[to + 4] = src[from + 4] ?? 0;
  dst[to + 5] = src[from + 5] ?? 0;
  dst[to + 6] = src[from + 6] ?? 0;
  dst[to + 7] = src[from + 7] ?? 0;
}

/** Number of set bits of a 32-bit word (SWAR popcount). */
export function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/**
 * Hamming distance (0–256) between descriptor `ia` of `a` and descriptor `ib` of `b`; `ia` and `ib`
 * are offsets in words (descriptor index × {@link DESCRIPTOR_WORDS}).
 */
export function hamming256(a: Uint32Array, ia: number, b: Uint32Array, ib: number): number {
  return (
    popcount32(((a[ia] ?? 0) ^ (b[ib] ?? 0)) >>> 0) +
    popcount32(((a[ia + 1] ?? 0) ^ (b[ib + 1] ?? 0)) >>> 0) +
    popcount32(((a[ia + 2] ?? 0) ^ (b[ib + 2] ?? 0)) >>> 0) +
    popcount32(((a[ia + 3] ?? 0) ^ (b[ib + 3] ?? 0)) >>> 0) +
    popcount32(((a[ia + 4] ?? 0) ^ (b[ib + 4] ?? 0)) >>> 0) +
    popcount32(((a[ia + 5] ?? 0) ^ (b[ib + 5] ?? 0)) >>> 0) +
    popcount32(((a[ia + 6] ?? 0) ^ (b[ib + 6] ?? 0)) >>> 0) +
    popcount32(((a[ia + 7] ?? 0) ^ (b[ib + 7] ?? 0)) >>> 0)
  );
}

/**
 * Offers candidate `id` at distance `d` to the `keep` nearest kept so far: `dist` and `ids` hold
 * them ascending by distance in their first `filled` entries (a candidate no nearer than the
 * farthest of a full list is refused; equal distances keep the earlier one first). Returns the new
 * count. No allocation: it runs for every query descriptor.
 */
export function offerNearest(dist: Int32Array, ids: Int32Array | Uint16Array, filled: number, keep: number, d: number, id: number): number {
  if (filled === keep && d >= (dist[keep - 1] ?? 0)) return filled;
  const count = filled < keep ? filled + 1 : keep;
  let at = count - 1;
  while (at > 0 && (dist[at - 1] ?? 0) > d) {
    dist[at] = dist[at - 1] ?? 0;
    ids[at] = ids[at - 1] ?? 0;
    at--;
  }
  dist[at] = d;
  ids[at] = id;
  return count;
}
