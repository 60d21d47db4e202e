/**
 * The small-reference look of photo search (docs/search.md "Photo search", decisions/0008): a
 * query photo whose ORB answer has no confident hit is searched again with its AKAZE
 * features in the index of the AKAZE records of the small references (those whose image is at most
 * akaze.ts SMALL_REFERENCE_SIDE px on its long side: 32–70-px icons that a scene shows enlarged
 * 6–15×, where ORB's corners do not repeat). This module holds that search's query options and turns
 * its hits into part hits whose evidence the caller merges with the ORB answer's per part
 * (photo-search.ts `mergeLooks`: the hit with more evidence wins). Pure code.
 *
 * Measured (bench/photo-akaze-index.js `calibrate`, the 40-per-condition sets of
 * bench/photo-queries.js, merged with the product's ORB answers of bench/photo-profile.js only when
 * those have no hit ≥ 0.5; bench/results.md): at 10,000 references (1,945 small) scenes found first
 * 31 → 37 of 40, scenes with camera effects 33 → 38, distractors with a hit ≥ 0.5 3 → 4 of 100
 * (the fourth, a "happy" emoji, matches the catalog's "excited" emoji with 27 AKAZE inliers: a
 * look-alike no inlier count tells apart), the eight other conditions unchanged; at 514 references
 * (85 small) scenes 34 → 37, scenes with camera effects 32 → 35, distractors 3 → 3. No answer the
 * product had first was lost.
 */
import { comparePartHits, inlierShare, logistic, type PhotoPartHit } from './confidence.js';
import type { LocalHit, PhotoQueryOptions } from './photo-index.js';

/**
 * Query options of the AKAZE index search (PhotoIndex.query over the AKAZE vocabulary; measured by
 * bench/photo-akaze-index.js at 10,000 references, 1,945 of them small: 834,835 keypoints, 38 MB).
 * AKAZE's descriptor of an icon enlarged 6–15× in a photo is further from its reference's than
 * ORB's of a well-framed part, so the search casts a wider net than ORB's defaults. At 10,000
 * references, scenes / scenes with camera effects found first with this module's scoring (these
 * options: 37 / 38, distractors 4 for all below):
 * - `multiAssign` 8 words a query descriptor (ORB's options — 2 words, maxDistance 40 — 34 / 35;
 *   2 / 4 words with the rest as here 34 / 36, 36 / 37);
 * - `maxDistance` 80 bits of 256, `maxHalfDistance` 48 (ORB's 40 / 26: 36 / 36; 100 / 60 found as
 *   many as 80 / 48);
 * - `tolerance` 0.015 of the query raster's long side (7.2 px at 480 px: the enlarged icon's
 *   keypoints are blurry; 0.01: 36 / 37; 0.02: 37 / 38 with the distractors' best small parts
 *   nearer the threshold);
 * - `burstKeep` 16 (8: 36 / 37; 24: 36 / 38);
 * - `shortlist` 100 (200 found the same).
 * Search CPU p50 13–15 ms, p99 27–83 ms (shared machine) a scene photo, the query words included.
 */
export const SMALL_LOOK_QUERY_OPTIONS: Readonly<PhotoQueryOptions> = Object.freeze({
  multiAssign: 8,
  maxDistance: 80,
  maxHalfDistance: 48,
  shortlist: 100,
  tolerance: 0.015,
  burstKeep: 16,
});

/**
 * Inliers at which a part with {@link SMALL_LOOK_LEAD} of lead over the runner-up and no share term
 * scores 0.5. The evidence is (inliers − MIDPOINT) / 1.5 + SHARE_WEIGHT · inliers / (matches + 10)
 * − LEAD_PENALTY · max(0, LEAD − lead): the probe's rule (≥ 8–10 inliers and a lead of 2 parts'
 * inliers) as a confidence, plus ORB's share of the tentative matches that the geometry explains
 * (confidence.ts LOCAL_RATIO_WEIGHT; a chance hit in a small index collects many tentative matches
 * of which a few line up). Fitted on two index sizes at once (bench/photo-akaze-index.js
 * `calibrate`; bench/results.md), because the index's inliers depend on its size: at 514
 * references (85 small) the distractors' best small part had up to 13 inliers (of 367 tentative
 * matches, a lead of 2), at 10,000 (1,945 small) up to 7 but for two emoji look-alikes of the
 * catalog's "excited" emoji (27–32 inliers). The first form, (inliers − 9) / 1.5 with a lead of 2,
 * made 8 distractors of 100 confident at 514 references (the product alone: 3). Taken: midpoint
 * 12, share weight 10, lead 3 with a penalty of 2 per missing inlier; the next best distractor
 * (neither emoji) then stays at evidence −0.9 / −1.0 (score 0.28) at both sizes. At least 7
 * inliers are needed to reach 0.5.
 */
export const SMALL_LOOK_MIDPOINT = 12;
/** Inliers per unit of log-odds (ORB's local width, confidence.ts). */
const SMALL_LOOK_WIDTH = 1.5;
/** Weight of the share of tentative matches the geometry explains (confidence.ts `inlierShare`, ORB's prior) in the log-odds. */
export const SMALL_LOOK_SHARE_WEIGHT = 10;
/**
 * Inliers a part must lead the runner-up part by before a penalty (on the bench leads of 0–4 moved
 * at most one answer; two parts tied at many inliers are no answer).
 */
export const SMALL_LOOK_LEAD = 3;
/** Log-odds taken off per inlier of lead missing below {@link SMALL_LOOK_LEAD}. */
const SMALL_LOOK_LEAD_PENALTY = 2;

/**
 * Log-odds that a part with `inliers` AKAZE inliers out of `matches` tentative matches (default:
 * no share term), leading the best other part by `lead` inliers (negative when another part has
 * more), is the photo's part (see {@link SMALL_LOOK_MIDPOINT}). −∞ without inliers.
 */
export function smallLookEvidence(inliers: number, lead: number, matches = Infinity): number {
  if (inliers <= 0) return -Infinity;
  return (inliers - SMALL_LOOK_MIDPOINT) / SMALL_LOOK_WIDTH + SMALL_LOOK_SHARE_WEIGHT * inlierShare(inliers, matches) - SMALL_LOOK_LEAD_PENALTY * Math.max(0, SMALL_LOOK_LEAD - lead);
}

/**
 * Part hits of the small-reference look: each part once, with its best image (most inliers; the
 * first of `local` on a tie, PhotoIndex.query's order), `score` = logistic(evidence) in [0, 1]
 * ({@link smallLookEvidence} of its inliers, tentative matches and lead over the best other part),
 * `inliers`, `cosine` −1 (no global search in this look). Ranked as every photo hit
 * (confidence.ts `comparePartHits`: evidence, then inliers, then part id), at most `limit`.
 */
export function smallLookHits(local: readonly LocalHit[], limit: number): PhotoPartHit[] {
  const best = new Map<string, LocalHit>();
  for (const h of local) {
    const cur = best.get(h.part_id);
    if (!cur || h.inliers > cur.inliers) best.set(h.part_id, h);
  }
  const parts = [...best.values()].sort((a, b) => b.inliers - a.inliers || (a.part_id < b.part_id ? -1 : a.part_id > b.part_id ? 1 : 0));
  const first = parts[0]?.inliers ?? 0;
  const second = parts[1]?.inliers ?? 0;
  const hits = parts.map((h, i): PhotoPartHit => {
    const lead = h.inliers - (i === 0 ? second : first);
    const evidence = smallLookEvidence(h.inliers, lead, h.matches);
    return { part_id: h.part_id, image_id: h.image_id, score: logistic(evidence), inliers: h.inliers, cosine: -1, evidence };
  });
  return hits.sort(comparePartHits).slice(0, Math.max(0, limit));
}
