/**
 * Confidence of a photo-search hit and the fusion of the two searches (docs/search.md, "Photo
 * search"): the local-feature search (photo-index.ts: inliers of a geometric verification) and the
 * global descriptor (image-similarity.ts: cosine of thumbnails, best on near-exact copies). Pure code.
 *
 * Meaning of the score: an estimate, in [0, 1], that the hit shows the same part as the query. The
 * constants below were fitted on bench/photo-search.js (true hits of photo-like queries against the
 * best hit of distractor photos showing parts that are not in the catalog); at
 * {@link CONFIDENT_SCORE} the measured false-hit rate on distractors is ≤ 5 % (see docs/search.md for
 * the current figures).
 */
import type { ImageHit } from '../image-similarity.js';
import type { LocalHit } from './photo-index.js';

/** Score at or above which a hit is "confident": the documented threshold (docs/search.md, docs/api.md). */
export const CONFIDENT_SCORE = 0.5;

/** Inliers at which the local confidence is 0.5 (the threshold), and the logistic width. */
export const LOCAL_MIDPOINT = 12;
const LOCAL_WIDTH = 1.5;

/** Cosine at which the global confidence is 0.5, and the logistic width. */
export const GLOBAL_MIDPOINT = 0.93;
const GLOBAL_WIDTH = 0.012;

const logistic = (x: number): number => 1 / (1 + Math.exp(-x));

/** Confidence of a local hit with `inliers` geometrically verified matches: logistic in the count. */
export function localConfidence(inliers: number): number {
  return inliers <= 0 ? 0 : logistic((inliers - LOCAL_MIDPOINT) / LOCAL_WIDTH);
}

/** Confidence of a global-descriptor hit with cosine `cosine` (image-similarity.ts `similarity`). */
export function globalConfidence(cosine: number): number {
  return logistic((cosine - GLOBAL_MIDPOINT) / GLOBAL_WIDTH);
}

/** One part found by {@link fuse}: its best image and the evidence behind the score. */
export interface PhotoPartHit {
  part_id: string;
  image_id: string;
  /** Confidence in [0, 1] (module comment). */
  score: number;
  /** Inliers of the best local hit of this part (0 when none). */
  inliers: number;
  /** Best global cosine of this part's images among the global hits (−1 when none). */
  cosine: number;
}

/**
 * Fuses local and global hits into parts ranked by confidence: each image scores the larger of its
 * local and global confidences; a part scores its best image. Ties: more inliers, higher cosine,
 * then part id. Parts with score 0 and no evidence are left out.
 */
export function fuse(local: readonly LocalHit[], global: readonly ImageHit[]): PhotoPartHit[] {
  const parts = new Map<string, PhotoPartHit>();
  const offer = (part_id: string, image_id: string, score: number, inliers: number, cosine: number): void => {
    const cur = parts.get(part_id);
    if (!cur) {
      parts.set(part_id, { part_id, image_id, score, inliers, cosine });
      return;
    }
    if (score > cur.score || (score === cur.score && image_id < cur.image_id && inliers >= cur.inliers)) {
      cur.score = score;
      cur.image_id = image_id;
    }
    cur.inliers = Math.max(cur.inliers, inliers);
    cur.cosine = Math.max(cur.cosine, cosine);
  };
  for (const h of local) offer(h.part_id, h.image_id, localConfidence(h.inliers), h.inliers, -1);
  for (const h of global) offer(h.part_id, h.image_id, globalConfidence(h.score), 0, h.score);
  return [...parts.values()].sort(
    (a, b) => b.score - a.score || b.inliers - a.inliers || b.cosine - a.cosine || (a.part_id < b.part_id ? -1 : a.part_id > b.part_id ? 1 : 0),
  );
}
