import { describe, expect, it } from 'vitest';
import { logistic } from './confidence.js';
import type { LocalHit } from './photo-index.js';
import { SMALL_LOOK_LEAD, SMALL_LOOK_MIDPOINT, SMALL_LOOK_SHARE_WEIGHT, smallLookEvidence, smallLookHits } from './small-look.js';

const hit = (part: string, image: string, inliers: number, matches = inliers * 2): LocalHit => ({
  image_id: image, part_id: part, inliers, matches, votes: 1, rotation: 0, scale: 1, model: [1, 0, 0, 1, 0, 0],
});


describe('small-reference look scoring', () => {
  it('is monotone in inliers at a fixed lead and in lead at fixed inliers', () => {
    for (const lead of [-3, 0, 1, SMALL_LOOK_LEAD, 10]) {
      for (let n = 1; n < 40; n++) expect(smallLookEvidence(n + 1, lead)).toBeGreaterThan(smallLookEvidence(n, lead));
    }
    for (let lead = -5; lead < 10; lead++) expect(smallLookEvidence(12, lead + 1)).toBeGreaterThanOrEqual(smallLookEvidence(12, lead));
    // At a fixed number of tentative matches, more inliers is more evidence (the share grows too).
    for (let n = 1; n < 60; n++) expect(smallLookEvidence(n + 1, SMALL_LOOK_LEAD, 60)).toBeGreaterThan(smallLookEvidence(n, SMALL_LOOK_LEAD, 60));
    expect(smallLookEvidence(0, 5)).toBe(-Infinity);
  });

  it('counts the share of the tentative matches the geometry explains: many chance matches weigh against a hit', () => {
    expect(SMALL_LOOK_SHARE_WEIGHT).toBeGreaterThan(0);
    // 13 inliers of 367 tentative matches (a distractor's best part at 514 references) against 13 of 25.
    expect(smallLookEvidence(13, SMALL_LOOK_LEAD, 367)).toBeLessThan(smallLookEvidence(13, SMALL_LOOK_LEAD, 25));
    expect(smallLookEvidence(13, SMALL_LOOK_LEAD, 25)).toBeGreaterThan(0);
    // Never more evidence than with every match an inlier; never less than with no share term.
    expect(smallLookEvidence(13, SMALL_LOOK_LEAD, 13)).toBeGreaterThanOrEqual(smallLookEvidence(13, SMALL_LOOK_LEAD, 1));
    expect(smallLookEvidence(13, SMALL_LOOK_LEAD, 500)).toBeGreaterThan(smallLookEvidence(13, SMALL_LOOK_LEAD));
  });

  it('needs at least 7 inliers to reach 0.5, whatever the matches and the lead', () => {
    for (let n = 1; n < 7; n++) for (const m of [n, n + 1, 20, 200]) expect(logistic(smallLookEvidence(n, 100, m))).toBeLessThan(0.5);
    expect(logistic(smallLookEvidence(7, 100, 7))).toBeGreaterThanOrEqual(0.5);
  });

  it('stays below 0.5 under the inlier midpoint or without a lead, and reaches it above both', () => {
    const below = Math.ceil(SMALL_LOOK_MIDPOINT) - 1;
    expect(logistic(smallLookEvidence(below, 50))).toBeLessThan(0.5);
    expect(logistic(smallLookEvidence(SMALL_LOOK_MIDPOINT + 1, SMALL_LOOK_LEAD))).toBeGreaterThan(0.5);
    // A tie between two parts (lead 0) needs more inliers than a clear winner.
    expect(smallLookEvidence(SMALL_LOOK_MIDPOINT + 1, 0)).toBeLessThan(smallLookEvidence(SMALL_LOOK_MIDPOINT + 1, SMALL_LOOK_LEAD));
    if (SMALL_LOOK_LEAD > 0) expect(logistic(smallLookEvidence(Math.ceil(SMALL_LOOK_MIDPOINT), 0))).toBeLessThan(0.5);
  });

  it('gives each part once, with its best image, the lead measured against the best other part', () => {
    const n = Math.ceil(SMALL_LOOK_MIDPOINT) + 6;
    const hits = smallLookHits([hit('part:a', 'a1', n, 60), hit('part:b', 'b1', 5), hit('part:a', 'a2', 7), hit('part:c', 'c1', 4)], 10);
    expect(hits.map((h) => h.part_id)).toEqual(['part:a', 'part:b', 'part:c']);
    expect(hits[0]).toMatchObject({ image_id: 'a1', inliers: n, cosine: -1 });
    expect(hits[0]?.evidence).toBe(smallLookEvidence(n, n - 5, 60));
    expect(hits[1]?.evidence).toBe(smallLookEvidence(5, 5 - n, 10));
    for (const h of hits) expect(h.score).toBeCloseTo(logistic(h.evidence), 12);
    expect(hits[0]?.score).toBeGreaterThan(0.5);
    expect(hits[1]?.score).toBeLessThan(0.5);
    // Sorted best first by evidence.
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.evidence).toBeLessThanOrEqual(hits[i - 1]!.evidence);
  });

  it('does not make a confident answer of two parts with as many inliers', () => {
    const n = Math.ceil(SMALL_LOOK_MIDPOINT) + 1;
    const hits = smallLookHits([hit('part:a', 'a1', n), hit('part:b', 'b1', n)], 10);
    if (SMALL_LOOK_LEAD > 0) for (const h of hits) expect(h.score).toBeLessThan(smallLookHits([hit('part:a', 'a1', n)], 1)[0]!.score);
    expect(new Set(hits.map((h) => h.evidence)).size).toBe(1);
  });

  it('keeps at most `limit` parts and nothing from no hits', () => {
    expect(smallLookHits([], 5)).toEqual([]);
    expect(smallLookHits([hit('part:a', 'a', 9), hit('part:b', 'b', 8), hit('part:c', 'c', 7)], 2).map((h) => h.part_id)).toEqual(['part:a', 'part:b']);
    expect(smallLookHits([hit('part:a', 'a', 9)], 0)).toEqual([]);
  });
});
