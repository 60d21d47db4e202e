/**
 * Geometric verification of tentative keypoint matches between a query and one reference image
 * (docs/search.md, "Photo search"): the largest set of matches consistent with one similarity
 * transform (rotation, uniform scale, translation), found by RANSAC with one-match hypotheses (an
 * oriented, scaled keypoint pair fixes a similarity on its own, so every good match proposes the
 * right model and no random sampling is needed), refined by least squares, then grown into an affine and then a
 * projective fit (a homography), each refitted on its own inliers and kept only when it explains
 * more: a phone held at an angle shrinks the far side of a part, which a similarity fits only near
 * the match that proposed it. Pure code.
 */

/**
 * Tentative matches, structure of arrays; index i < n is one match. Query and reference keypoints:
 * position (px), orientation (degrees), patch size (px). `dist` is the descriptor distance (lower is
 * better). `qi` / `ri` are the query / reference keypoint numbers (< 4,096, MAX_KEYPOINTS; for
 * one-to-one counting).
 */
export interface MatchSet {
  n: number;
  qx: Float32Array; qy: Float32Array; qa: Float32Array; qs: Float32Array;
  rx: Float32Array; ry: Float32Array; ra: Float32Array; rs: Float32Array;
  dist: Float32Array;
  qi: Int32Array; ri: Int32Array;
}

/** Allocates a MatchSet with room for `capacity` matches (n = 0). */
export function matchSet(capacity: number): MatchSet {
  const f = (): Float32Array => new Float32Array(capacity);
  return { n: 0, qx: f(), qy: f(), qa: f(), qs: f(), rx: f(), ry: f(), ra: f(), rs: f(), dist: f(), qi: new Int32Array(capacity), ri: new Int32Array(capacity) };
}

/** Options of {@link verify}. */
export interface VerifyOptions {
  /** Largest reprojection error of an inlier, in query pixels. */
  tolerance: number;
  /** Largest orientation disagreement of an inlier with the model, degrees (default 30). */
  angleTolerance?: number;
  /** Largest scale disagreement, as a ratio ≥ 1 (default 2). */
  scaleTolerance?: number;
  /** Hypotheses tried: the matches with the lowest `dist` (default 150). */
  hypotheses?: number;
}

/**
 * Result of {@link verify}: the number of inliers (distinct query AND reference keypoints), the
 * model x' = A·x + t as [a11, a12, a21, a22, tx, ty] mapping reference to query pixels, its scale
 * (√|det A|) and rotation (degrees), and the inlier flags (length n). When a homography explained
 * the most, `homography` holds its perspective row [p1, p2] (1/px): x' = (A·x + t) / (p1·x + p2·y + 1).
 */
export interface Verification {
  inliers: number;
  model: [number, number, number, number, number, number];
  homography?: [number, number];
  scale: number;
  rotation: number;
  inlier: Uint8Array;
}

const DEG = Math.PI / 180;

/** Refit-and-recount rounds of each grown model (affine, then homography). */
const GROW_ROUNDS = 3;

/** Inliers a homography is fitted on at least (8 unknowns; fewer would let chance matches bend it). */
const HOMOGRAPHY_MIN_INLIERS = 10;

/** Signed angle difference a − b wrapped to (−180, 180]. */
function angleDiff(a: number, b: number): number {
  let d = (a - b) % 360;
  if (d > 180) d -= 360;
  if (d <= -180) d += 360;
  return d;
}

/**
 * Stamps of the query / reference keypoints already counted by {@link countInliers} (keypoint
 * numbers are below MAX_KEYPOINTS, 4,096): a slot equal to the current stamp means "seen". Cheaper
 * than two Sets, and this runs hypotheses × matches times per verified image.
 */
const seenQ = new Int32Array(4096);
const seenR = new Int32Array(4096);
let stamp = 0;

/**
 * Marks the inliers of model `m` (reference → query) in `flags`; returns how many distinct query and
 * reference keypoints they use (the smaller of the two counts, so a repeated point counts once).
 * `rotation` / `logScale` gate keypoint orientation and size; pass NaN to skip those gates.
 */
function countInliers(
  s: MatchSet, m: readonly number[], tol2: number, rotation: number, logScale: number, angleTol: number, logScaleTol: number,
  flags: Uint8Array,
): number {
  const [a11 = 0, a12 = 0, a21 = 0, a22 = 0, tx = 0, ty = 0, p1 = 0, p2 = 0] = m;
  const projective = p1 !== 0 || p2 !== 0;
  if (++stamp > 0x7ffffff0) {
    stamp = 1;
    seenQ.fill(0);
    seenR.fill(0);
  }
  const gateAngle = !Number.isNaN(rotation);
  const gateScale = !Number.isNaN(logScale);
  let nq = 0;
  let nr = 0;
  for (let j = 0; j < s.n; j++) {
    flags[j] = 0;
    const rx = s.rx[j] ?? 0;
    const ry = s.ry[j] ?? 0;
    const w = projective ? p1 * rx + p2 * ry + 1 : 1;
    if (w <= 0) continue;
    const dx = (a11 * rx + a12 * ry + tx) / w - (s.qx[j] ?? 0);
    const dy = (a21 * rx + a22 * ry + ty) / w - (s.qy[j] ?? 0);
    if (dx * dx + dy * dy > tol2) continue;
    if (gateAngle && Math.abs(angleDiff((s.qa[j] ?? 0) - (s.ra[j] ?? 0), rotation)) > angleTol) continue;
    if (gateScale && Math.abs(Math.log((s.qs[j] ?? 1) / (s.rs[j] ?? 1)) - logScale) > logScaleTol) continue;
    flags[j] = 1;
    const q = (s.qi[j] ?? 0) & 4095;
    const r = (s.ri[j] ?? 0) & 4095;
    if (seenQ[q] !== stamp) {
      seenQ[q] = stamp;
      nq++;
    }
    if (seenR[r] !== stamp) {
      seenR[r] = stamp;
      nr++;
    }
  }
  return Math.min(nq, nr);
}

/** Least-squares similarity (Umeyama in 2-D) from the flagged matches; undefined when < 2. */
function fitSimilarity(s: MatchSet, flags: Uint8Array): number[] | undefined {
  let n = 0;
  let mrx = 0, mry = 0, mqx = 0, mqy = 0;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    n++;
    mrx += s.rx[j] ?? 0;
    mry += s.ry[j] ?? 0;
    mqx += s.qx[j] ?? 0;
    mqy += s.qy[j] ?? 0;
  }
  if (n < 2) return undefined;
  mrx /= n; mry /= n; mqx /= n; mqy /= n;
  let sxx = 0, sxy = 0, var_ = 0;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    const rx = (s.rx[j] ?? 0) - mrx;
    const ry = (s.ry[j] ?? 0) - mry;
    const qx = (s.qx[j] ?? 0) - mqx;
    const qy = (s.qy[j] ?? 0) - mqy;
    sxx += rx * qx + ry * qy; // Σ r·q
    sxy += rx * qy - ry * qx; // Σ r×q
    var_ += rx * rx + ry * ry;
  }
  if (var_ < 1e-9) return undefined;
  const a = sxx / var_;
  const b = sxy / var_;
  return [a, -b, b, a, mqx - (a * mrx - b * mry), mqy - (b * mrx + a * mry)];
}

/** Least-squares affine fit from the flagged matches; undefined when < 3 or degenerate. */
function fitAffine(s: MatchSet, flags: Uint8Array): number[] | undefined {
  // Normal equations of [x y 1] · [a11 a12 tx]ᵀ = qx (and the same for qy), 3 × 3.
  let sxx = 0, sxy = 0, syy = 0, sx = 0, sy = 0, n = 0;
  let bx0 = 0, bx1 = 0, bx2 = 0, by0 = 0, by1 = 0, by2 = 0;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    const x = s.rx[j] ?? 0;
    const y = s.ry[j] ?? 0;
    const qx = s.qx[j] ?? 0;
    const qy = s.qy[j] ?? 0;
    sxx += x * x; sxy += x * y; syy += y * y; sx += x; sy += y; n++;
    bx0 += x * qx; bx1 += y * qx; bx2 += qx;
    by0 += x * qy; by1 += y * qy; by2 += qy;
  }
  if (n < 3) return undefined;
  const det = sxx * (syy * n - sy * sy) - sxy * (sxy * n - sy * sx) + sx * (sxy * sy - syy * sx);
  if (Math.abs(det) < 1e-6) return undefined;
  const solve = (b0: number, b1: number, b2: number): [number, number, number] => {
    const d0 = b0 * (syy * n - sy * sy) - sxy * (b1 * n - sy * b2) + sx * (b1 * sy - syy * b2);
    const d1 = sxx * (b1 * n - sy * b2) - b0 * (sxy * n - sy * sx) + sx * (sxy * b2 - b1 * sx);
    const d2 = sxx * (syy * b2 - b1 * sy) - sxy * (sxy * b2 - b1 * sx) + b0 * (sxy * sy - syy * sx);
    return [d0 / det, d1 / det, d2 / det];
  };
  const [a11, a12, tx] = solve(bx0, bx1, bx2);
  const [a21, a22, ty] = solve(by0, by1, by2);
  return [a11, a12, a21, a22, tx, ty];
}

/**
 * Least-squares homography from the flagged matches, as [a11, a12, a21, a22, tx, ty, p1, p2]:
 * x' = (a11·x + a12·y + tx) / (p1·x + p2·y + 1), likewise y'. Both point sets are first moved to
 * their centroid and scaled to a mean distance of √2 (Hartley's normalisation), which keeps the
 * 8 × 8 normal equations well conditioned. Undefined when < 5 matches or degenerate.
 */
function fitHomography(s: MatchSet, flags: Uint8Array): number[] | undefined {
  let n = 0, mrx = 0, mry = 0, mqx = 0, mqy = 0;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    n++;
    mrx += s.rx[j] ?? 0; mry += s.ry[j] ?? 0; mqx += s.qx[j] ?? 0; mqy += s.qy[j] ?? 0;
  }
  if (n < 5) return undefined;
  mrx /= n; mry /= n; mqx /= n; mqy /= n;
  let dr = 0, dq = 0;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    dr += Math.hypot((s.rx[j] ?? 0) - mrx, (s.ry[j] ?? 0) - mry);
    dq += Math.hypot((s.qx[j] ?? 0) - mqx, (s.qy[j] ?? 0) - mqy);
  }
  if (dr < 1e-6 || dq < 1e-6) return undefined;
  const kr = (Math.SQRT2 * n) / dr;
  const kq = (Math.SQRT2 * n) / dq;
  // Normal equations AᵀA·h = Aᵀb, two rows per match.
  const ata = new Float64Array(64);
  const atb = new Float64Array(8);
  const row = new Float64Array(8);
  const add = (b: number): void => {
    for (let r = 0; r < 8; r++) {
      const v = row[r] ?? 0;
      if (v === 0) continue;
      for (let c = 0; c < 8; c++) ata[r * 8 + c] = (ata[r * 8 + c] ?? 0) + v * (row[c] ?? 0);
      atb[r] = (atb[r] ?? 0) + v * b;
    }
  };
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    const x = ((s.rx[j] ?? 0) - mrx) * kr;
    const y = ((s.ry[j] ?? 0) - mry) * kr;
    const u = ((s.qx[j] ?? 0) - mqx) * kq;
    const v = ((s.qy[j] ?? 0) - mqy) * kq;
    row.set([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    add(u);
    row.set([0, 0, 0, x, y, 1, -v * x, -v * y]);
    add(v);
  }
  const h = solve8(ata, atb);
  if (!h) return undefined;
  // Back to pixels: H = Tq⁻¹ · Hn · Tr, with Tr = [kr 0 −kr·mrx; 0 kr −kr·mry; 0 0 1] and Tq alike.
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = h;
  // Hn · Tr
  const b = [
    h0 * kr, h1 * kr, h2 - h0 * kr * mrx - h1 * kr * mry,
    h3 * kr, h4 * kr, h5 - h3 * kr * mrx - h4 * kr * mry,
    h6 * kr, h7 * kr, 1 - h6 * kr * mrx - h7 * kr * mry,
  ];
  // Tq⁻¹ = [1/kq 0 mqx; 0 1/kq mqy; 0 0 1]
  const g = (r: number, c: number): number => b[r * 3 + c] ?? 0;
  const m = [0, 1, 2].map((c) => g(0, c) / kq + mqx * g(2, c));
  const m2 = [0, 1, 2].map((c) => g(1, c) / kq + mqy * g(2, c));
  const w = g(2, 2);
  if (Math.abs(w) < 1e-12) return undefined;
  return [(m[0] ?? 0) / w, (m[1] ?? 0) / w, (m2[0] ?? 0) / w, (m2[1] ?? 0) / w, (m[2] ?? 0) / w, (m2[2] ?? 0) / w, g(2, 0) / w, g(2, 1) / w];
}

/** Solves the 8 × 8 system a·x = b (row-major) by Gaussian elimination with partial pivoting; undefined when singular. */
function solve8(a: Float64Array, b: Float64Array): number[] | undefined {
  const m = Array.from({ length: 8 }, (_, r) => [...a.subarray(r * 8, r * 8 + 8), b[r] ?? 0]);
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(m[r]?.[c] ?? 0) > Math.abs(m[p]?.[c] ?? 0)) p = r;
    const pivotRow = m[p] ?? [];
    if (Math.abs(pivotRow[c] ?? 0) < 1e-10) return undefined;
    m[p] = m[c] ?? [];
    m[c] = pivotRow;
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const rowR = m[r] ?? [];
      const f = (rowR[c] ?? 0) / (pivotRow[c] ?? 1);
      if (f === 0) continue;
      for (let k = c; k < 9; k++) rowR[k] = (rowR[k] ?? 0) - f * (pivotRow[k] ?? 0);
    }
  }
  return m.map((r, i) => (r[8] ?? 0) / (r[i] ?? 1));
}

/**
 * Whether a homography is a plausible view of a flat part: orientation-preserving, no side of a
 * `size`-px square around the inliers' centre shrinking or growing by more than `limit`× against
 * the others (a phone at up to ~60° from the part's normal), so that a few chance matches cannot
 * bend it into any shape.
 */
function plausibleHomography(m: readonly number[], cx: number, cy: number, size: number, limit: number): boolean {
  const [a11 = 0, a12 = 0, a21 = 0, a22 = 0, tx = 0, ty = 0, p1 = 0, p2 = 0] = m;
  const d = size / 2;
  const corners = [[cx - d, cy - d], [cx + d, cy - d], [cx + d, cy + d], [cx - d, cy + d]].map(([x = 0, y = 0]) => {
    const w = p1 * x + p2 * y + 1;
    return w > 0 ? [(a11 * x + a12 * y + tx) / w, (a21 * x + a22 * y + ty) / w] : undefined;
  });
  if (corners.some((c) => c === undefined)) return false;
  const pts = corners as number[][];
  const sides: number[] = [];
  for (let i = 0; i < 4; i++) {
    const a = pts[i] ?? [0, 0];
    const b = pts[(i + 1) % 4] ?? [0, 0];
    const c = pts[(i + 2) % 4] ?? [0, 0];
    // Convex and not mirrored: every turn has the sign of the reference square's (positive in image coordinates).
    const cross = ((b[0] ?? 0) - (a[0] ?? 0)) * ((c[1] ?? 0) - (b[1] ?? 0)) - ((b[1] ?? 0) - (a[1] ?? 0)) * ((c[0] ?? 0) - (b[0] ?? 0));
    if (cross <= 0) return false;
    sides.push(Math.hypot((b[0] ?? 0) - (a[0] ?? 0), (b[1] ?? 0) - (a[1] ?? 0)));
  }
  return Math.max(...sides) <= limit * Math.min(...sides);
}

/**
 * Finds the largest consistent subset of `s` (see the module comment). Cost O(hypotheses · n).
 * Returns 0 inliers and the identity model when `s` has fewer than 2 matches.
 */
export function verify(s: MatchSet, options: VerifyOptions): Verification {
  const tol2 = options.tolerance * options.tolerance;
  const angleTol = options.angleTolerance ?? 30;
  const logScaleTol = Math.log(options.scaleTolerance ?? 2);
  const none: Verification = { inliers: 0, model: [1, 0, 0, 1, 0, 0], scale: 1, rotation: 0, inlier: new Uint8Array(s.n) };
  if (s.n < 2) return none;
  const order = Int32Array.from({ length: s.n }, (_, i) => i).sort((x, y) => (s.dist[x] ?? 0) - (s.dist[y] ?? 0));
  const h = Math.min(s.n, options.hypotheses ?? 150);
  const flags = new Uint8Array(s.n);
  let best = 0;
  let bestModel: number[] = [1, 0, 0, 1, 0, 0];
  let bestRot = 0;
  let bestLogScale = 0;
  // A match that is already an inlier of the best model proposes (nearly) that model again: skip it.
  const bestFlags = new Uint8Array(s.n);
  for (let k = 0; k < h; k++) {
    const i = order[k] ?? 0;
    if (bestFlags[i]) continue;
    const scale = (s.qs[i] ?? 1) / (s.rs[i] ?? 1);
    const rot = angleDiff(s.qa[i] ?? 0, s.ra[i] ?? 0);
    const c = scale * Math.cos(rot * DEG);
    const sn = scale * Math.sin(rot * DEG);
    const rx = s.rx[i] ?? 0;
    const ry = s.ry[i] ?? 0;
    const model = [c, -sn, sn, c, (s.qx[i] ?? 0) - (c * rx - sn * ry), (s.qy[i] ?? 0) - (sn * rx + c * ry)];
    const count = countInliers(s, model, tol2, rot, Math.log(scale), angleTol, logScaleTol, flags);
    if (count > best) {
      best = count;
      bestFlags.set(flags);
      bestModel = model;
      bestRot = rot;
      bestLogScale = Math.log(scale);
    }
  }
  if (best < 2) return none;
  // Refine: least-squares similarity on the inliers, re-count (orientation gate kept), twice; then an
  // affine fit, kept only when it explains more matches.
  let model = bestModel;
  let count = countInliers(s, model, tol2, bestRot, bestLogScale, angleTol, logScaleTol, flags);
  for (let iter = 0; iter < 2; iter++) {
    const fit = fitSimilarity(s, flags);
    if (!fit) break;
    const rot = Math.atan2(fit[2] ?? 0, fit[0] ?? 1) / DEG;
    const logScale = Math.log(Math.hypot(fit[0] ?? 0, fit[2] ?? 0));
    const trial = new Uint8Array(s.n);
    const c = countInliers(s, fit, tol2, rot, logScale, angleTol, logScaleTol, trial);
    if (c < count) break;
    model = fit;
    count = c;
    flags.set(trial);
    bestRot = rot;
    bestLogScale = logScale;
  }
  // Grow: an affine fit on the inliers, re-counted, a few times (each round reaches matches further
  // from the proposing one); then a homography the same way. A fit is kept only when it explains
  // more; the orientation gate stays at the similarity's rotation with twice the tolerance (shear
  // and perspective turn keypoints a little), the size gate goes.
  const trial = new Uint8Array(s.n);
  let homography: number[] | undefined;
  const wideAngle = Math.min(180, 2 * angleTol);
  for (let round = 0; round < GROW_ROUNDS && count >= 6; round++) {
    const affine = fitAffine(s, flags);
    if (!affine) break;
    const det = (affine[0] ?? 0) * (affine[3] ?? 0) - (affine[1] ?? 0) * (affine[2] ?? 0);
    // Only mild, orientation-preserving deformations (no mirror, aspect change ≤ 2×).
    if (det <= 0 || singularRatio(affine) > 2) break;
    const c = countInliers(s, affine, tol2, bestRot, NaN, wideAngle, logScaleTol, trial);
    if (c <= count) break;
    model = affine;
    count = c;
    flags.set(trial);
  }
  for (let round = 0; round < GROW_ROUNDS && count >= HOMOGRAPHY_MIN_INLIERS; round++) {
    const fit = fitHomography(s, flags);
    if (!fit) break;
    const [cx, cy, size] = spread(s, flags);
    if (!plausibleHomography(fit, cx, cy, size, 2)) break;
    const c = countInliers(s, fit, tol2, bestRot, NaN, wideAngle, logScaleTol, trial);
    if (c <= count) break;
    model = fit;
    homography = fit;
    count = c;
    flags.set(trial);
  }
  const scale = Math.sqrt(Math.abs((model[0] ?? 0) * (model[3] ?? 0) - (model[1] ?? 0) * (model[2] ?? 0)));
  return {
    inliers: count,
    model: [model[0] ?? 1, model[1] ?? 0, model[2] ?? 0, model[3] ?? 1, model[4] ?? 0, model[5] ?? 0],
    ...(homography ? { homography: [homography[6] ?? 0, homography[7] ?? 0] as [number, number] } : {}),
    scale,
    rotation: bestRot,
    inlier: flags,
  };
}

/** Centre (x, y) and extent (the larger side of the bounding box, ≥ 1) of the flagged reference points. */
function spread(s: MatchSet, flags: Uint8Array): [number, number, number] {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    const x = s.rx[j] ?? 0;
    const y = s.ry[j] ?? 0;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return [(x0 + x1) / 2, (y0 + y1) / 2, Math.max(1, x1 - x0, y1 - y0)];
}

/** Ratio of the singular values (largest / smallest) of the 2 × 2 part of an affine model. */
function singularRatio(m: readonly number[]): number {
  const a = m[0] ?? 0, b = m[1] ?? 0, c = m[2] ?? 0, d = m[3] ?? 0;
  const s1 = a * a + b * b + c * c + d * d;
  const det = a * d - b * c;
  const disc = Math.sqrt(Math.max(0, s1 * s1 - 4 * det * det));
  const big = Math.sqrt((s1 + disc) / 2);
  const small = Math.sqrt(Math.max(1e-12, (s1 - disc) / 2));
  return big / small;
}
