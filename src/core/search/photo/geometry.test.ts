import { describe, expect, it } from 'vitest';
import { matchSet, verify } from './geometry.js';

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Matches of `n` reference keypoints spread over a 400 × 400 picture seen through the homography
 * `h` (reference → query; h33 = 1), each keypoint's orientation and size carried by the local
 * Jacobian of `h`, plus `noise` random wrong matches.
 */
function matchesThrough(h: readonly number[], n: number, noise: number, seed: number) {
  const r = rng(seed);
  const set = matchSet(n + noise);
  const map = (x: number, y: number): [number, number] => {
    const w = (h[6] ?? 0) * x + (h[7] ?? 0) * y + 1;
    return [((h[0] ?? 0) * x + (h[1] ?? 0) * y + (h[2] ?? 0)) / w, ((h[3] ?? 0) * x + (h[4] ?? 0) * y + (h[5] ?? 0)) / w];
  };
  for (let i = 0; i < n + noise; i++) {
    const x = r() * 400;
    const y = r() * 400;
    const a = r() * 360;
    const s = 8 + r() * 24;
    set.rx[i] = x; set.ry[i] = y; set.ra[i] = a; set.rs[i] = s;
    if (i < n) {
      const [qx, qy] = map(x, y);
      const rad = (a * Math.PI) / 180;
      const [tx, ty] = map(x + Math.cos(rad) * s, y + Math.sin(rad) * s);
      set.qx[i] = qx + (r() - 0.5);
      set.qy[i] = qy + (r() - 0.5);
      set.qa[i] = (Math.atan2(ty - qy, tx - qx) * 180) / Math.PI;
      set.qs[i] = Math.hypot(tx - qx, ty - qy);
      set.dist[i] = 10 + r() * 20;
    } else {
      set.qx[i] = r() * 640; set.qy[i] = r() * 480; set.qa[i] = r() * 360; set.qs[i] = 8 + r() * 24;
      set.dist[i] = 20 + r() * 20;
    }
    set.qi[i] = i;
    set.ri[i] = i;
  }
  set.n = n + noise;
  return set;
}

describe('verify (geometric verification)', () => {
  it('counts the matches of a picture seen at an angle (a homography, not a similarity) as inliers', () => {
    // The picture's far side pulled in by a third and sheared: a phone held at ~45°.
    const h = [1.1, 0.25, 60, 0.05, 0.95, 40, 0.0009, 0.0004];
    const set = matchesThrough(h, 120, 60, 7);
    const v = verify(set, { tolerance: 6.4 });
    expect(v.inliers).toBeGreaterThanOrEqual(108);
    expect(v.inliers).toBeLessThanOrEqual(124);
  });

  it('finds no large consistent set among random matches', () => {
    const set = matchesThrough([1, 0, 0, 0, 1, 0, 0, 0], 0, 200, 11);
    const v = verify(set, { tolerance: 6.4 });
    expect(v.inliers).toBeLessThan(8);
  });
});
