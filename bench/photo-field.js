// Field conditions of the photo query sets (bench/photo-queries.js): what a phone photo of a part on
// a workbench has beyond a clean scene — an angle, a hand in the way, a shaky hand, a lamp's
// reflection, a dim corner. Each takes a scene ({ png, box, W, H } of photo-queries.js
// sceneWithBox) and a seeded `rnd`, and returns encoded query bytes. sharp does the decoding,
// encoding, compositing and convolution; the perspective warp and the sensor noise are per-pixel
// loops here because sharp has neither.
import sharp from 'sharp';

/** Solves the 8 × 8 system of a homography taking the points `from[i]` to `to[i]` (4 pairs of [x, y]); returns h11…h32 (h33 = 1). */
function homography(from, to) {
  const a = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i];
    const [u, v] = to[i];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
    [a[c], a[p]] = [a[p], a[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r][c] / a[c][c];
      for (let k = c; k < 9; k++) a[r][k] -= f * a[c][k];
    }
  }
  return a.map((row, i) => row[8] / row[i]);
}

/**
 * The scene seen at an angle: the frame's corners go to a quadrilateral whose far side (one of the
 * four, at random) is 20–35 % shorter and shifted sideways by up to ±10 % (shear); pixels outside
 * it are the dark edge of the bench. Bilinear sampling. JPEG q85.
 */
export async function perspective(s, rnd) {
  const { data, info } = await sharp(s.png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: W, height: H } = info;
  const pull = 0.2 + rnd() * 0.15;
  const shear = (rnd() * 2 - 1) * 0.1;
  const side = Math.floor(rnd() * 4);
  // Corners TL, TR, BR, BL; the far side's two corners move toward each other and sideways.
  const dst = [[0, 0], [W, 0], [W, H], [0, H]];
  const far = [[0, 1], [1, 2], [2, 3], [3, 0]][side];
  const horizontal = side % 2 === 0;
  const len = horizontal ? W : H;
  const [i, j] = far;
  const dir = horizontal ? [1, 0] : [0, 1];
  const sign = (k) => (dst[k][0] * dir[0] + dst[k][1] * dir[1] < len / 2 ? 1 : -1);
  for (const k of [i, j]) {
    const inward = (pull / 2) * len * sign(k);
    dst[k] = [dst[k][0] + dir[0] * (inward + shear * len), dst[k][1] + dir[1] * (inward + shear * len)];
  }
  // Inverse map: output pixel → scene pixel.
  const h = homography(dst, [[0, 0], [W, 0], [W, H], [0, H]]);
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const w = h[6] * x + h[7] * y + 1;
      const sx = (h[0] * x + h[1] * y + h[2]) / w;
      const sy = (h[3] * x + h[4] * y + h[5]) / w;
      const o = (y * W + x) * 3;
      if (sx < 0 || sy < 0 || sx > W - 1 || sy > H - 1) {
        out[o] = 40; out[o + 1] = 38; out[o + 2] = 36;
        continue;
      }
      const x0 = Math.floor(sx), y0 = Math.floor(sy);
      const x1 = Math.min(W - 1, x0 + 1), y1 = Math.min(H - 1, y0 + 1);
      const fx = sx - x0, fy = sy - y0;
      for (let c = 0; c < 3; c++) {
        const top = data[(y0 * W + x0) * 3 + c] * (1 - fx) + data[(y0 * W + x1) * 3 + c] * fx;
        const bottom = data[(y1 * W + x0) * 3 + c] * (1 - fx) + data[(y1 * W + x1) * 3 + c] * fx;
        out[o + c] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  }
  return sharp(out, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

const SKIN = [[241, 194, 167], [224, 172, 135], [198, 134, 96], [141, 85, 56], [92, 58, 40]];

/**
 * 25–33 % of the part's box covered from one side: by a hand (a palm with four fingertips, skin
 * tone, shaded) every other time at random, else by a piece of another bench (`otherBench`: PNG
 * bytes of a cluttered surface at least as large as the scene). The cover runs on past the box to
 * the frame's edge, as a hand reaching in does. JPEG q85.
 */
export async function occlusion(s, rnd, otherBench) {
  const { box, W, H } = s;
  const f = 0.25 + rnd() * 0.08;
  const side = Math.floor(rnd() * 4);
  const hand = rnd() < 0.5;
  // The band covering f of the box from `side`, extended to the frame's edge.
  let rect;
  if (side === 0) rect = { left: 0, top: box.top, width: box.left + Math.round(box.width * f), height: box.height };
  else if (side === 1) rect = { left: box.left + Math.round(box.width * (1 - f)), top: box.top, width: W - (box.left + Math.round(box.width * (1 - f))), height: box.height };
  else if (side === 2) rect = { left: box.left, top: 0, width: box.width, height: box.top + Math.round(box.height * f) };
  else rect = { left: box.left, top: box.top + Math.round(box.height * (1 - f)), width: box.width, height: H - (box.top + Math.round(box.height * (1 - f))) };
  rect.width = Math.max(1, Math.min(W - rect.left, rect.width));
  rect.height = Math.max(1, Math.min(H - rect.top, rect.height));
  let cover;
  if (hand) {
    const [r, g, b] = SKIN[Math.floor(rnd() * SKIN.length)];
    const { width: w, height: hh } = rect;
    // Fingertips along the band's inner edge (the one inside the box), as half-discs.
    const vertical = side >= 2;
    const edge = vertical ? w : hh;
    const tip = edge / 8;
    const tips = [];
    for (let k = 0; k < 4; k++) {
      const c = (edge * (k + 0.5 + (rnd() - 0.5) * 0.3)) / 4;
      const reach = tip * (0.6 + rnd() * 0.8);
      if (side === 0) tips.push(`<ellipse cx="${w - tip}" cy="${c}" rx="${tip + reach}" ry="${tip * 0.95}"/>`);
      else if (side === 1) tips.push(`<ellipse cx="${tip}" cy="${c}" rx="${tip + reach}" ry="${tip * 0.95}"/>`);
      else if (side === 2) tips.push(`<ellipse cx="${c}" cy="${hh - tip}" rx="${tip * 0.95}" ry="${tip + reach}"/>`);
      else tips.push(`<ellipse cx="${c}" cy="${tip}" rx="${tip * 0.95}" ry="${tip + reach}"/>`);
    }
    const palm = side === 0 ? `<rect x="0" y="0" width="${Math.max(1, w - tip)}" height="${hh}"/>`
      : side === 1 ? `<rect x="${tip}" y="0" width="${Math.max(1, w - tip)}" height="${hh}"/>`
        : side === 2 ? `<rect x="0" y="0" width="${w}" height="${Math.max(1, hh - tip)}"/>`
          : `<rect x="0" y="${tip}" width="${w}" height="${Math.max(1, hh - tip)}"/>`;
    const [x2, y2] = vertical ? [0, 1] : [1, 0];
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${hh}"><defs><linearGradient id="s" x1="0" y1="0" x2="${x2}" y2="${y2}">`
      + `<stop offset="0" stop-color="rgb(${r * 0.8},${g * 0.8},${b * 0.8})"/><stop offset="0.6" stop-color="rgb(${r},${g},${b})"/>`
      + `<stop offset="1" stop-color="rgb(${Math.min(255, r * 1.08)},${Math.min(255, g * 1.08)},${Math.min(255, b * 1.08)})"/></linearGradient></defs>`
      + `<g fill="url(#s)">${palm}${tips.join('')}</g></svg>`;
    cover = await sharp(Buffer.from(svg)).png().toBuffer();
  } else {
    const m = await sharp(otherBench).metadata();
    const left = Math.floor(rnd() * Math.max(1, m.width - rect.width));
    const top = Math.floor(rnd() * Math.max(1, m.height - rect.height));
    cover = await sharp(otherBench).extract({ left, top, width: Math.min(rect.width, m.width - left), height: Math.min(rect.height, m.height - top) }).png().toBuffer();
  }
  return sharp(s.png).composite([{ input: cover, left: rect.left, top: rect.top }]).jpeg({ quality: 85 }).toBuffer();
}

/** The scene smeared along a line of 9–17 px (odd) at a random angle (a shaky hand); JPEG q80. */
export async function motionBlur(s, rnd) {
  const k = 9 + 2 * Math.floor(rnd() * 5);
  const a = rnd() * Math.PI;
  const kernel = new Array(k * k).fill(0);
  const c = (k - 1) / 2;
  for (let t = -c; t <= c; t += 0.25) {
    const x = Math.round(c + t * Math.cos(a));
    const y = Math.round(c + t * Math.sin(a));
    kernel[y * k + x] = 1;
  }
  const sum = kernel.reduce((x, y) => x + y, 0);
  return sharp(s.png).convolve({ width: k, height: k, kernel: kernel.map((v) => v / sum) }).jpeg({ quality: 80 }).toBuffer();
}

/**
 * A lamp reflected on a glossy part: a soft white ellipse (radial gradient, peak opacity 0.85–1)
 * over 20–40 % of the part's box, centred inside it, and the whole frame's contrast washed out by
 * 10–20 %; JPEG q85.
 */
export async function glare(s, rnd) {
  const { box, W, H } = s;
  const share = 0.2 + rnd() * 0.2;
  const aspect = 0.5 + rnd();
  const area = share * box.width * box.height;
  const rx = Math.sqrt((area * aspect) / Math.PI);
  const ry = area / (Math.PI * rx);
  const cx = box.left + box.width * (0.25 + rnd() * 0.5);
  const cy = box.top + box.height * (0.25 + rnd() * 0.5);
  const peak = 0.85 + rnd() * 0.15;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><defs><radialGradient id="g">`
    + `<stop offset="0" stop-color="#fff" stop-opacity="${peak}"/><stop offset="0.55" stop-color="#fff" stop-opacity="${peak * 0.8}"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>`
    + `<ellipse cx="${cx}" cy="${cy}" rx="${rx * 1.3}" ry="${ry * 1.3}" fill="url(#g)" transform="rotate(${Math.round(rnd() * 180)} ${cx} ${cy})"/></svg>`;
  const wash = 0.8 + rnd() * 0.1;
  const lit = await sharp(s.png).composite([{ input: Buffer.from(svg), left: 0, top: 0 }]).png().toBuffer();
  return sharp(lit).linear(wash, 255 * (1 - wash) * 0.6).jpeg({ quality: 85 }).toBuffer();
}

/** Standard normal deviate (Box–Muller) from `rnd`. */
function gauss(rnd) {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

/**
 * A dim corner of the bench: the light at 25–40 %, sensor noise in the dark (σ 1.5–2.5 grey levels
 * per channel, then amplified), the phone's exposure bringing the mean back to ~70 % (so the noise
 * ends at σ ≈ 4–7), a warm cast; JPEG q75.
 */
export async function lowLight(s, rnd) {
  const { data, info } = await sharp(s.png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const light = 0.25 + rnd() * 0.15;
  const sigma = 1.5 + rnd();
  const gain = 0.7 / light;
  const cast = [1.06, 1, 0.9];
  const out = Buffer.alloc(data.length);
  // Noise from a cheap seeded sequence per pixel (Box–Muller on every pixel is the cost of this condition).
  for (let p = 0; p < data.length; p++) {
    const dark = data[p] * light + sigma * gauss(rnd);
    out[p] = Math.max(0, Math.min(255, Math.round(dark * gain * cast[p % 3])));
  }
  return sharp(out, { raw: { width: info.width, height: info.height, channels: 3 } }).jpeg({ quality: 75 }).toBuffer();
}
