/**
 * Geometric verification of tentative keypoint matches between a query and one reference image
 * (docs/search.md, "Photo search"): the largest set of matches consistent with one similarity
 * transform (rotation, uniform scale, translation), found by RANSAC with one-match hypotheses (an
 * oriented, scaled keypoint pair fixes a similarity on its own, so every good match proposes the
 * right model and no random sampling is needed), refined by least squares, then grown into an
 * affine and a homography fit (local optimisation: fit on the inliers, re-count, keep while the
 * count grows), so that a part seen at an angle (a phone held at 45°: one side a third shorter, a
 * similarity explaining only a strip of it) still counts all its matches. Pure code.
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
 * model x' = A·x + t as [a11, a12, a21, a22, tx, ty] mapping reference to query pixels (of a
 * homography, its first two rows: exact where its last row's term is small), its scale
 * (√|det A|) and rotation (degrees), and the inlier flags (length n).
 */
export interface Verification {
  inliers: number;
  model: [number, number, number, number, number, number];
  scale: number;
  rotation: number;
  inlier: Uint8Array;
}

const DEG = Math.PI / 180;

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
  const [a11 = 0, a12 = 0, a21 = 0, a22 = 0, tx = 0, ty = 0] = m;
  // A homography's last row (h31, h32; h33 = 1); 0, 0 for an affine or similarity model.
  const h31 = m[6] ?? 0;
  const h32 = m[7] ?? 0;
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
    const w = h31 * rx + h32 * ry + 1;
    if (w <= 1e-6) continue;
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

/** Solves the n × n system `a` · x = `b` in place (partial pivoting); undefined when singular. */
function solveLinear(a: Float64Array[], b: Float64Array): Float64Array | undefined {
  const n = b.length;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]?.[c] ?? 0) > Math.abs(a[p]?.[c] ?? 0)) p = r;
    const pivot = a[p]?.[c] ?? 0;
    if (Math.abs(pivot) < 1e-12) return undefined;
    [a[c], a[p]] = [a[p] as Float64Array, a[c] as Float64Array];
    [b[c], b[p]] = [b[p] ?? 0, b[c] ?? 0];
    const rc = a[c] as Float64Array;
    for (let r = c + 1; r < n; r++) {
      const rr = a[r] as Float64Array;
      const f = (rr[c] ?? 0) / pivot;
      if (f === 0) continue;
      for (let k = c; k < n; k++) rr[k] = (rr[k] ?? 0) - f * (rc[k] ?? 0);
      b[r] = (b[r] ?? 0) - f * (b[c] ?? 0);
    }
  }
  const x = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    const rr = a[r] as Float64Array;
    let v = b[r] ?? 0;
    for (let k = r + 1; k < n; k++) v -= (rr[k] ?? 0) * (x[k] ?? 0);
    x[r] = v / (rr[r] ?? 1);
  }
  return x;
}

/** Fewest inliers a homography is fitted on: 4 fix it exactly, so a few more keep noise from bending it. */
const HOMOGRAPHY_MIN_INLIERS = 10;

/**
 * Least-squares homography (h33 = 1, the algebraic error of the direct linear transform) from the
 * flagged matches, on coordinates centred and scaled to unit mean distance (so the 8 × 8 normal
 * equations stay well conditioned); returned as [h11, h12, h21, h22, h13, h23, h31, h32] in pixels
 * (the layout of an affine model plus the last row). Undefined when too few or degenerate.
 */
function fitHomography(s: MatchSet, flags: Uint8Array): number[] | undefined {
  let n = 0, mrx = 0, mry = 0, mqx = 0, mqy = 0;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    n++;
    mrx += s.rx[j] ?? 0; mry += s.ry[j] ?? 0; mqx += s.qx[j] ?? 0; mqy += s.qy[j] ?? 0;
  }
  if (n < HOMOGRAPHY_MIN_INLIERS) return undefined;
  mrx /= n; mry /= n; mqx /= n; mqy /= n;
  let dr = 0, dq = 0;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    dr += Math.hypot((s.rx[j] ?? 0) - mrx, (s.ry[j] ?? 0) - mry);
    dq += Math.hypot((s.qx[j] ?? 0) - mqx, (s.qy[j] ?? 0) - mqy);
  }
  if (dr < 1e-9 || dq < 1e-9) return undefined;
  const kr = n / dr;
  const kq = n / dq;
  const ata = Array.from({ length: 8 }, () => new Float64Array(8));
  const atb = new Float64Array(8);
  const row = new Float64Array(8);
  const add = (target: number): void => {
    for (let i = 0; i < 8; i++) {
      const ri = row[i] ?? 0;
      if (ri === 0) continue;
      const ai = ata[i] as Float64Array;
      for (let k = 0; k < 8; k++) ai[k] = (ai[k] ?? 0) + ri * (row[k] ?? 0);
      atb[i] = (atb[i] ?? 0) + ri * target;
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
  const h = solveLinear(ata, atb);
  if (!h) return undefined;
  // H = Tq⁻¹ · Hn · Tr, with Tr: r ↦ (r − mr)·kr and Tq: q ↦ (q − mq)·kq; then scaled so h33 = 1.
  const [n11 = 0, n12 = 0, n13 = 0, n21 = 0, n22 = 0, n23 = 0, n31 = 0, n32 = 0] = h;
  // Hn · Tr: columns x, y scaled by kr, translation column absorbs −mr·kr.
  const c = (a: number, b: number, t: number): [number, number, number] => [a * kr, b * kr, t - (a * mrx + b * mry) * kr];
  const [p11, p12, p13] = c(n11, n12, n13);
  const [p21, p22, p23] = c(n21, n22, n23);
  const [p31, p32, p33] = c(n31, n32, 1);
  // Tq⁻¹ · (…): q = u / kq + mq, so row1' = row1 / kq + mqx · row3, row2' = row2 / kq + mqy · row3.
  const h11 = p11 / kq + mqx * p31, h12 = p12 / kq + mqx * p32, h13 = p13 / kq + mqx * p33;
  const h21 = p21 / kq + mqy * p31, h22 = p22 / kq + mqy * p32, h23 = p23 / kq + mqy * p33;
  if (Math.abs(p33) < 1e-12) return undefined;
  const model = [h11 / p33, h12 / p33, h21 / p33, h22 / p33, h13 / p33, h23 / p33, p31 / p33, p32 / p33];
  return model.every(Number.isFinite) ? model : undefined;
}

/**
 * Whether a fitted affine or homography model is a plausible view of a flat part: orientation kept
 * (no mirror), the 2 × 2 part's aspect change at most {@link MAX_ASPECT} at the reference's inlier
 * centroid, and the perspective row mild enough that no inlier lies near the horizon.
 */
function plausibleModel(s: MatchSet, flags: Uint8Array, m: readonly number[]): boolean {
  const a = m[0] ?? 0, b = m[1] ?? 0, c = m[2] ?? 0, d = m[3] ?? 0;
  const h31 = m[6] ?? 0, h32 = m[7] ?? 0;
  let n = 0, mx = 0, my = 0, minW = Infinity;
  for (let j = 0; j < s.n; j++) {
    if (!flags[j]) continue;
    const x = s.rx[j] ?? 0, y = s.ry[j] ?? 0;
    n++; mx += x; my += y;
    minW = Math.min(minW, h31 * x + h32 * y + 1);
  }
  if (n === 0 || minW < 0.3) return false;
  mx /= n; my /= n;
  // The Jacobian of the map at the centroid: (A − q·[h31 h32]) / w.
  const w = h31 * mx + h32 * my + 1;
  const qx = (a * mx + b * my + (m[4] ?? 0)) / w;
  const qy = (c * mx + d * my + (m[5] ?? 0)) / w;
  const j = [(a - qx * h31) / w, (b - qx * h32) / w, (c - qy * h31) / w, (d - qy * h32) / w];
  const det = (j[0] ?? 0) * (j[3] ?? 0) - (j[1] ?? 0) * (j[2] ?? 0);
  return det > 0 && singularRatio(j) <= MAX_ASPECT;
}

/** Largest ratio of a model's singular values (aspect change) accepted: a part seen at up to ~60°. */
const MAX_ASPECT = 2.5;

/**
 * Local optimisation of a found model: fit an affine (≥ 6 inliers) and then a homography (≥
 * {@link HOMOGRAPHY_MIN_INLIERS}) on the current inliers, count the matches the fit explains
 * (no orientation or size gate: under perspective they change across the part) first at twice the
 * tolerance (to reach along a foreshortened side), refit, then at the tolerance; each step kept
 * only when the count at the tolerance grows.
 */
function growModel(
  s: MatchSet, model: number[], count: number, flags: Uint8Array, tol2: number, angleTol: number, logScaleTol: number,
): { model: number[]; count: number } {
  let bestModel = model;
  let best = count;
  const trial = new Uint8Array(s.n);
  const wide = new Uint8Array(s.n);
  for (let iter = 0; iter < 4; iter++) {
    const fit = best >= HOMOGRAPHY_MIN_INLIERS && iter > 0 ? fitHomography(s, flags) : fitAffine(s, flags);
    if (!fit || !plausibleModel(s, flags, fit)) break;
    // Reach: the matches within twice the tolerance, refitted, then judged at the tolerance.
    countInliers(s, fit, tol2 * 4, NaN, NaN, angleTol, logScaleTol, wide);
    const refit = (best >= HOMOGRAPHY_MIN_INLIERS ? fitHomography(s, wide) : undefined) ?? fit;
    let improved = false;
    for (const candidate of refit === fit ? [fit] : [refit, fit]) {
      if (!plausibleModel(s, wide, candidate)) continue;
      const c = countInliers(s, candidate, tol2, NaN, NaN, angleTol, logScaleTol, trial);
      if (c > best) {
        best = c;
        bestModel = candidate;
        flags.set(trial);
        improved = true;
        break;
      }
    }
    if (!improved && iter > 0) break;
  }
  return { model: bestModel, count: best };
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
  if (count >= 6) ({ model, count } = growModel(s, model, count, flags, tol2, angleTol, logScaleTol));
  const scale = Math.sqrt(Math.abs((model[0] ?? 0) * (model[3] ?? 0) - (model[1] ?? 0) * (model[2] ?? 0)));
  return {
    inliers: count,
    model: [model[0] ?? 1, model[1] ?? 0, model[2] ?? 0, model[3] ?? 1, model[4] ?? 0, model[5] ?? 0],
    scale,
    rotation: bestRot,
    inlier: flags,
  };
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
