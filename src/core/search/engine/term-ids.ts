/**
 * A set of index term ids as bytes: the changed-terms log of an engine write, one row
 * per write, which readers decode to evict those terms from their caches. Ascending ids as LEB128
 * varint deltas (the first from 0): a 1,000-part import batch writes ~10,000 terms in ~15 KB.
 */

/** Encodes `ids` (any order, duplicates allowed; non-negative safe integers) as ascending varint deltas. */
export function encodeTermIds(ids: readonly number[]): Uint8Array {
  const sorted = Float64Array.from(ids).sort();
  const out = new Uint8Array(sorted.length * 8);
  let pos = 0;
  let previous = 0;
  for (let i = 0; i < sorted.length; i++) {
    const id = sorted[i] ?? 0;
    if (i > 0 && id === previous) continue;
    let delta = id - previous;
    previous = id;
    while (delta >= 0x80) {
      out[pos++] = (delta % 0x80) | 0x80;
      delta = Math.floor(delta / 0x80);
    }
    out[pos++] = delta;
  }
  return out.slice(0, pos);
}

/** The ids {@link encodeTermIds} wrote, ascending. Throws RangeError on truncated bytes. */
export function decodeTermIds(bytes: Uint8Array): number[] {
  const ids: number[] = [];
  let pos = 0;
  let id = 0;
  while (pos < bytes.length) {
    let delta = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new RangeError('truncated term id list');
      const b = bytes[pos++] ?? 0;
      delta += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
    }
    id += delta;
    ids.push(id);
  }
  return ids;
}
