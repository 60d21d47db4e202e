/**
 * The small-reference look of photo search (issue 14, fourteenth round; docs/search.md "Fourteenth
 * round"): a query photo whose ORB answer has no confident hit is searched again with its AKAZE
 * features in the index of the AKAZE records of the small references (those whose image is at most
 * akaze.ts SMALL_REFERENCE_SIDE px on its long side: 32–70-px icons that a scene shows enlarged
 * 6–15×, where ORB's corners do not repeat). This module holds that search's query options and turns
 * its hits into part hits whose evidence the caller merges with the ORB answer's per part
 * (photo-search.ts `mergeLooks`: the hit with more evidence wins). Pure code.
 *
 * Measured (bench/photo-akaze-index.js, 10,000 references of which 1,945 are small, the 40-per-
 * condition sets of bench/photo-queries.js, merged with the product's ORB answers of
 * bench/photo-profile.js only when those have no hit ≥ 0.5): scenes found first 31 → 36 of 40,
 * scenes with camera effects 33 → 38, no answer the product found first lost; distractors with a
 * hit ≥ 0.5 3 → 4 of 100 (the fourth, a "happy" emoji, matches the catalog's "excited" emoji with 27
 * AKAZE inliers: a look-alike no inlier count tells apart; the next distractor has 7).
 */
import type { PhotoPartHit } from './confidence.js';
import type { LocalHit, PhotoQueryOptions } from './photo-index.js';

/**
 * Query options of the AKAZE index search (PhotoIndex.query over the AKAZE vocabulary; measured by
 * bench/photo-akaze-index.js at 10,000 references, 1,945 of them small: 834,835 keypoints, 38 MB).
 * AKAZE's descriptor of an icon enlarged 6–15× in a photo is further from its reference's than
 * ORB's of a well-framed part, so the search casts a wider net than ORB's defaults:
 * - `multiAssign` 8 words a query descriptor (1 / 2 / 4: scenes of small parts found first among
 *   them 7 / 9 / 12 of 13; the probe's brute force needs no words);
 * - `maxDistance` 80 bits of 256, `maxHalfDistance` 48 (ORB's 40 / 26 kept the true part's matches
 *   away: 100 / 60 and 120 / 70 found as many);
 * - `tolerance` 0.015 of the query raster's long side (7.2 px at 480 px: the enlarged icon's
 *   keypoints are blurry; 0.01 found 2 scenes with camera effects fewer, 0.02 more distractors
 *   with ≥ 6 inliers);
 * - `burstKeep` 16 (8: 1 scene and 2 with effects fewer with ≥ 8 inliers; 24 or 256-match bursts:
 *   distractors' best inliers up, 2–4 more over a threshold of 8);
 * - `shortlist` 100 (200 found the same).
 * Search CPU p50 15 ms, p99 25–80 ms (shared machine) a query, the query words included.
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
 * Inliers at which a part with {@link SMALL_LOOK_LEAD} of lead over the runner-up scores 0.5: the
 * probe's rule (≥ 8–10 inliers, a lead of 2) as a confidence. With the options above, of the 20
 * scene photos whose ORB answer had no hit ≥ 0.5, 14 had their (small) part among the AKAZE hits,
 * with 4–25 inliers (9 of them ≥ 8) and a lead of 0–21; the distractors' best part had 0 (p50), 6
 * (p95), then 7, 27 and 28 (two emoji look-alikes of a catalog emoji). Midpoints 8–11 all found
 * 36 / 38 scenes first with 4 distractors ≥ 0.5 (a part below 0.5 still goes first when its
 * evidence beats the unconfident ORB answer's); 7 lost an answer ORB had right (a wrong small part
 * then outranked an unconfident right one) and took a fifth distractor. 9 keeps a margin of 2
 * inliers over the next distractor; scene photos whose first hit is right and ≥ 0.5: 60 → 67 of 80.
 */
export const SMALL_LOOK_MIDPOINT = 9;
/** Inliers per unit of log-odds (ORB's local width, confidence.ts). */
const SMALL_LOOK_WIDTH = 1.5;
/**
 * Inliers a part must lead the runner-up part by before a penalty (the probe's rule's lead; on the
 * bench a lead of 0–3 changed no answer: the true parts led by ≥ 5, but two parts tied at 10
 * inliers are no answer).
 */
export const SMALL_LOOK_LEAD = 2;
/** Log-odds taken off per inlier of lead missing below {@link SMALL_LOOK_LEAD}. */
const SMALL_LOOK_LEAD_PENALTY = 1;

const logistic = (x: number): number => 1 / (1 + Math.exp(-x));

/**
 * Log-odds that a part with `inliers` AKAZE inliers, leading the best other part by `lead`
 * inliers (negative when another part has more), is the photo's part: (inliers − MIDPOINT) / WIDTH,
 * less LEAD_PENALTY for every inlier of lead missing below LEAD. −∞ without inliers.
 */
export function smallLookEvidence(inliers: number, lead: number): number {
  if (inliers <= 0) return -Infinity;
  return (inliers - SMALL_LOOK_MIDPOINT) / SMALL_LOOK_WIDTH - SMALL_LOOK_LEAD_PENALTY * Math.max(0, SMALL_LOOK_LEAD - lead);
}

/**
 * Part hits of the small-reference look: each part once, with its best image (most inliers; the
 * first of `local` on a tie, PhotoIndex.query's order), `score` = logistic(evidence) in [0, 1]
 * ({@link smallLookEvidence}, the lead measured against the best other part), `inliers`, `cosine`
 * −1 (no global search in this look). Best first, at most `limit`.
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
  return parts.slice(0, Math.max(0, limit)).map((h, i) => {
    const lead = h.inliers - (i === 0 ? second : first);
    const evidence = smallLookEvidence(h.inliers, lead);
    return { part_id: h.part_id, image_id: h.image_id, score: logistic(evidence), inliers: h.inliers, cosine: -1, evidence };
  });
}
