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
import { CONFIDENT_IMAGE_SCORE } from '../../../api/schemas.js';
import type { ImageHit } from '../image-similarity.js';
import type { LocalHit } from './photo-index.js';

/** Score at or above which a hit is "confident": the documented threshold (docs/search.md, docs/api.md). */
export const CONFIDENT_SCORE = CONFIDENT_IMAGE_SCORE;

/**
 * Local evidence (log-odds) = (inliers − LOCAL_MIDPOINT) / 1.5 + LOCAL_RATIO_WEIGHT · inliers /
 * (tentative matches + LOCAL_RATIO_PRIOR): the inlier count, plus the share of the image's tentative
 * matches that the geometry explains (a chance hit collects many tentative matches of which a few
 * line up; a true hit's matches mostly agree). The prior of 10 matches keeps a hit with a handful of
 * matches from a high share (at least 5 inliers are needed to reach 0.5). Fitted on 514 references
 * (bench/photo-profile.js, docs/search.md): with inliers alone (midpoint 12)
 * 75 % of true hits of turned / zoomed / scene photos reached 0.5 (zoom 61 %), with the share 82 %
 * (zoom 82 %), distractors' hits above 0.5 unchanged (3 of 774).
 */
export const LOCAL_MIDPOINT = 13;
const LOCAL_WIDTH = 1.5;
/** Weight of the inlier share in the local log-odds. */
export const LOCAL_RATIO_WEIGHT = 20;
/** Tentative matches added to the share's denominator (a prior: few matches say little). */
export const LOCAL_RATIO_PRIOR = 10;

/**
 * Local log-odds past which more inliers no longer rank a part higher (logistic(15) rounds to 1 in
 * every score shown). Two parts whose pictures share most of a drawing (headphones and the headset
 * that adds a microphone, a document icon and its template) both explain a copy of either beyond
 * doubt, and the one whose picture holds more keypoints collects more inliers; the global
 * descriptor tells which picture it is. So above this the global corroboration decides, and the
 * inliers only break ties. Not lower: a turned copy's cosine is below an upright look-alike's, so
 * a lower cap hands turned copies to look-alikes (decisions/0064).
 */
export const LOCAL_CERTAINTY = 15;

/** Cosine at which the global confidence is 0.5, and the logistic width. */
export const GLOBAL_MIDPOINT = 0.93;
const GLOBAL_WIDTH = 0.012;

/** The logistic function: log-odds → a probability in (0, 1). */
export const logistic = (x: number): number => 1 / (1 + Math.exp(-x));

/**
 * The share of a hit's tentative matches that its geometry explains, inliers / (matches +
 * {@link LOCAL_RATIO_PRIOR}) (0 when `matches` is not finite: no share term): the term of the local
 * log-odds ({@link LOCAL_RATIO_WEIGHT}) and of the small look's (small-look.ts).
 */
export function inlierShare(inliers: number, matches: number): number {
  return Number.isFinite(matches) ? inliers / (Math.max(matches, inliers) + LOCAL_RATIO_PRIOR) : 0;
}

/**
 * Confidence of a local hit with `inliers` geometrically verified matches out of `matches` tentative
 * ones (see {@link LOCAL_MIDPOINT}); `matches` defaults to a share of zero (the count alone).
 */
export function localConfidence(inliers: number, matches = Infinity): number {
  return inliers <= 0 ? 0 : logistic(localLogOdds(inliers, matches));
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
  /**
   * The log-odds behind `score` (score = logistic(evidence)): what ranks hits whose scores both
   * round to 1 in a double ({@link comparePartHits}).
   */
  evidence: number;
}

/**
 * The order of photo-search hits, best first: more evidence (a higher score), then more inliers, a
 * higher cosine, then the part id. Used by {@link fuse} and by the merge of a second look
 * (photo-search.ts `mergeLooks`).
 */
export function comparePartHits(a: PhotoPartHit, b: PhotoPartHit): number {
  return b.evidence - a.evidence || b.inliers - a.inliers || b.cosine - a.cosine || (a.part_id < b.part_id ? -1 : a.part_id > b.part_id ? 1 : 0);
}

/** Log-odds of the local evidence (−∞ without inliers); see {@link LOCAL_MIDPOINT}. */
function localLogOdds(inliers: number, matches: number): number {
  if (inliers <= 0) return -Infinity;
  return (inliers - LOCAL_MIDPOINT) / LOCAL_WIDTH + LOCAL_RATIO_WEIGHT * inlierShare(inliers, matches);
}
/** Log-odds of the global evidence. */
const globalLogOdds = (cosine: number): number => (cosine - GLOBAL_MIDPOINT) / GLOBAL_WIDTH;
/** Largest bonus, in log-odds, that agreeing evidence of the other search adds. */
const CORROBORATION_CAP = 10;

/**
 * Fuses local and global hits into parts ranked by confidence. A part's evidence is the best of
 * its images' local log-odds and global log-odds, plus, when the other search also clears its own
 * threshold for that part, that one's log-odds (capped at 10): a near-exact copy that both searches
 * recognise then outranks a look-alike that only shares keypoints. score = logistic(evidence), so
 * it equals the single-search confidence when only one search vouches for the part. The local
 * log-odds count up to {@link LOCAL_CERTAINTY}. Ties: more inliers, higher cosine, then part id.
 */
export function fuse(local: readonly LocalHit[], global: readonly ImageHit[]): PhotoPartHit[] {
  type Evidence = Omit<PhotoPartHit, 'evidence'> & { lo: number; go: number; bestLocal: string; bestGlobal: string };
  const parts = new Map<string, Evidence>();
  const entry = (part_id: string, image_id: string): Evidence => {
    let cur = parts.get(part_id);
    if (!cur) {
      cur = { part_id, image_id, score: 0, inliers: 0, cosine: -1, lo: -Infinity, go: -Infinity, bestLocal: image_id, bestGlobal: image_id };
      parts.set(part_id, cur);
    }
    return cur;
  };
  for (const h of local) {
    const cur = entry(h.part_id, h.image_id);
    const lo = localLogOdds(h.inliers, h.matches);
    if (lo > cur.lo) {
      cur.inliers = h.inliers;
      cur.lo = lo;
      cur.bestLocal = h.image_id;
    }
  }
  for (const h of global) {
    const cur = entry(h.part_id, h.image_id);
    if (h.score > cur.cosine) {
      cur.cosine = h.score;
      cur.go = globalLogOdds(h.score);
      cur.bestGlobal = h.image_id;
    }
  }
  const ranked = [...parts.values()].map((p) => {
    const local = Math.min(p.lo, LOCAL_CERTAINTY);
    const hi = Math.max(local, p.go);
    const lo = Math.min(local, p.go);
    const evidence = hi + (lo > 0 ? Math.min(lo, CORROBORATION_CAP) : 0);
    const hit: PhotoPartHit = { part_id: p.part_id, image_id: local >= p.go ? p.bestLocal : p.bestGlobal, score: logistic(evidence), inliers: p.inliers, cosine: p.cosine, evidence };
    return hit;
  });
  return ranked.sort(comparePartHits);
}
