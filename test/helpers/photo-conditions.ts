/**
 * Field conditions of a query photo for tests (the bench's versions are bench/photo-field.js): the
 * photo seen at an angle (a homography), and part of it covered by a hand. Deterministic.
 */
import sharp from 'sharp';

/** Solves for the homography taking the points `from[i]` to `to[i]` (4 pairs); h11…h32, h33 = 1. */
function homography(from: readonly (readonly [number, number])[], to: readonly (readonly [number, number])[]): number[] {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i] ?? [0, 0];
    const [u, v] = to[i] ?? [0, 0];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u], [0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r]?.[c] ?? 0) > Math.abs(a[p]?.[c] ?? 0)) p = r;
    [a[c], a[p]] = [a[p] ?? [], a[c] ?? []];
    const rc = a[c] ?? [];
    for (let r = 0; r < 8; r++) {
      const rr = a[r] ?? [];
      if (r === c) continue;
      const f = (rr[c] ?? 0) / (rc[c] ?? 1);
      for (let k = c; k < 9; k++) rr[k] = (rr[k] ?? 0) - f * (rc[k] ?? 0);
    }
  }
  return a.map((row, i) => (row[8] ?? 0) / (row[i] ?? 1));
}

/**
 * The photo seen at an angle: its top side pulled in by `pull` of the width (0.3: the phone tilted
 * ~45°) and shifted sideways by `shear` of it; outside, a dark edge. Bilinear; JPEG q85.
 */
export async function atAngle(photo: Buffer, pull = 0.3, shear = 0.08): Promise<Buffer> {
  const { data, info } = await sharp(photo).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const W = info.width, H = info.height;
  const dx = (pull / 2) * W;
  const sx = shear * W;
  const quad = [[dx + sx, 0], [W - dx + sx, 0], [W, H], [0, H]] as const;
  const h = homography(quad, [[0, 0], [W, 0], [W, H], [0, H]]);
  const out = Buffer.alloc(W * H * 3, 40);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const w = (h[6] ?? 0) * x + (h[7] ?? 0) * y + 1;
      const u = ((h[0] ?? 0) * x + (h[1] ?? 0) * y + (h[2] ?? 0)) / w;
      const v = ((h[3] ?? 0) * x + (h[4] ?? 0) * y + (h[5] ?? 0)) / w;
      if (u < 0 || v < 0 || u > W - 1 || v > H - 1) continue;
      const x0 = Math.floor(u), y0 = Math.floor(v), x1 = Math.min(W - 1, x0 + 1), y1 = Math.min(H - 1, y0 + 1);
      const fx = u - x0, fy = v - y0;
      for (let c = 0; c < 3; c++) {
        const at = (xx: number, yy: number): number => data[(yy * W + xx) * 3 + c] ?? 0;
        out[(y * W + x) * 3 + c] = Math.round((at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy);
      }
    }
  }
  return sharp(out, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

/**
 * The photo with the box `{ left, top, width, height }` covered by a hand from its right side: a
 * skin-toned palm with four fingertips reaching `share` of the box's width into it, and on to the
 * photo's edge. JPEG q85.
 */
export async function coveredByHand(photo: Buffer, box: { left: number; top: number; width: number; height: number }, share = 0.3): Promise<Buffer> {
  const meta = await sharp(photo).metadata();
  const W = meta.width ?? 0;
  const left = Math.round(box.left + box.width * (1 - share));
  const w = W - left;
  const hh = box.height;
  const tip = hh / 8;
  const tips = [0, 1, 2, 3].map((k) => `<ellipse cx="${tip}" cy="${(hh * (k + 0.5)) / 4}" rx="${tip * (1.6 + (k % 2) * 0.4)}" ry="${tip * 0.95}"/>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${hh}"><g fill="rgb(224,172,135)"><rect x="${tip}" y="0" width="${w - tip}" height="${hh}"/>${tips.join('')}</g></svg>`;
  return sharp(photo).composite([{ input: Buffer.from(svg), left, top: box.top }]).jpeg({ quality: 85 }).toBuffer();
}
