/**
 * Ordering of search hits (decisions §8): hits whose every word is in the id or a name (tier 0)
 * before the others (tier 1); within a tier by relevance (BM25, lower is better), ties by part
 * id in binary (code point) order. Hits that were not scored (beyond the bounded ranking window
 * of a very frequent word) follow their tier's scored hits in the index's static order.
 */

/** One scored hit: a result-card id, its tier, its BM25 score (0 when unscored) and its part id. */
export interface ScoredHit {
  id: number;
  /** 0 every word in the id or a name, 1 not; + 2 when a word matched only through a synonym. */
  tier: number;
  score: number;
  partId: string;
}

/** Maps a UTF-16 code unit so that comparing mapped units compares code points (surrogates sort after U+FFFF). */
function unitKey(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** Compares strings by code point, which is SQLite's BINARY order of their UTF-8 bytes. */
export function compareBinary(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitKey(x) < unitKey(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** Tier, then score, then part id. */
export function compareHits(a: ScoredHit, b: ScoredHit): number {
  return a.tier - b.tier || a.score - b.score || compareBinary(a.partId, b.partId);
}

/**
 * The final order: tier-0 scored hits, tier-0 unscored ids, the other tiers' scored hits (in tier
 * order), tier-1 unscored ids; at most `max` ids. The four inputs must not share ids (the index builds them disjoint).
 */
export function orderHits(scored: readonly ScoredHit[], unscored0: readonly number[], unscored1: readonly number[], max: number): number[] {
  const sorted = [...scored].sort(compareHits);
  const out: number[] = [];
  for (const h of sorted) if (h.tier === 0 && out.length < max) out.push(h.id);
  for (let i = 0; i < unscored0.length && out.length < max; i++) out.push(unscored0[i] ?? 0);
  for (const h of sorted) if (h.tier !== 0 && out.length < max) out.push(h.id);
  for (let i = 0; i < unscored1.length && out.length < max; i++) out.push(unscored1[i] ?? 0);
  return out;
}
