/**
 * The plain background of a picture: what a catalog photo shows around its part (white, mostly).
 * Pure code with no image library, so that modules loading sharp only on first use (the image
 * audit's photos) can use it too. Used by the reference's backdrop variant (extract.ts) and the
 * audit's photo of the part on a bench (photo-conditions.ts).
 */

/**
 * The plain background of a raster (1 = background, one byte a pixel), or undefined when it has
 * none: a border that is not plain (less than `plainBorder` of it within `tolerance` of its
 * median), a "background" of less than 5 % of the raster (nothing to replace) or a "part" of less
 * than 2 % (a blank picture). The background is what a 4-connected flood fill from the border
 * reaches through pixels within `tolerance` of the border's median grey level.
 */
export function plainBackground(raster: { data: Uint8Array; width: number; height: number }, settings: { tolerance: number; plainBorder: number }): Uint8Array | undefined {
  const { data, width: w, height: h } = raster;
  if (w < 3 || h < 3) return undefined;
  const border: number[] = [];
  for (let x = 0; x < w; x++) border.push(x, (h - 1) * w + x);
  for (let y = 1; y < h - 1; y++) border.push(y * w, y * w + w - 1);
  const levels = border.map((p) => data[p] ?? 0).sort((a, b) => a - b);
  const median = levels[levels.length >> 1] ?? 0;
  const near = (p: number): boolean => Math.abs((data[p] ?? 0) - median) <= settings.tolerance;
  const plain = border.filter(near);
  if (plain.length < settings.plainBorder * border.length) return undefined;
  const background = new Uint8Array(w * h);
  const stack = new Int32Array(w * h);
  let top = 0;
  for (const p of plain) {
    if (background[p]) continue;
    background[p] = 1;
    stack[top++] = p;
  }
  let count = top;
  while (top > 0) {
    const p = stack[--top] ?? 0;
    const x = p % w;
    // Left, right, up, down neighbours still unvisited and near the border's level.
    if (x > 0 && !background[p - 1] && near(p - 1)) { background[p - 1] = 1; stack[top++] = p - 1; count++; }
    if (x < w - 1 && !background[p + 1] && near(p + 1)) { background[p + 1] = 1; stack[top++] = p + 1; count++; }
    if (p >= w && !background[p - w] && near(p - w)) { background[p - w] = 1; stack[top++] = p - w; count++; }
    if (p < w * (h - 1) && !background[p + w] && near(p + w)) { background[p + w] = 1; stack[top++] = p + w; count++; }
  }
  if (count < 0.05 * w * h || count > 0.98 * w * h) return undefined;
  return background;
}
