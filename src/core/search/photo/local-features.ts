/**
 * Local features of one image for photo search (docs/search.md, "Photo search"): oriented keypoints
 * with 256-bit binary descriptors (ORB, computed by an adapter) and the visual word of each
 * descriptor. Pure code: the type, its validation and its versioned binary format.
 */
import { DESCRIPTOR_WORDS } from './hamming.js';

/** Version of the binary format written by {@link encodeLocalFeatures}. */
export const LOCAL_FEATURE_VERSION = 1;

/** Most keypoints one record may hold (indices are stored as uint16 elsewhere). */
export const MAX_KEYPOINTS = 4096;

/**
 * Keypoints of one image, in the pixel coordinates of the raster they were detected on.
 * - `width`, `height`: that raster's size in pixels.
 * - `xs`, `ys`: keypoint centres (pixels); `angles`: orientation in degrees [0, 360);
 *   `sizes`: diameter of the described patch in pixels (grows with the pyramid level).
 * - `descriptors`: count × {@link DESCRIPTOR_WORDS} uint32 words (256-bit descriptors).
 * - `words`: the visual word of each descriptor (see vocabulary.ts), or empty when not assigned.
 * - `vocabulary`: the id of the vocabulary the words come from (0 when none).
 */
export interface LocalFeatures {
  width: number;
  height: number;
  count: number;
  xs: Float32Array;
  ys: Float32Array;
  angles: Float32Array;
  sizes: Float32Array;
  descriptors: Uint32Array;
  words: Uint16Array;
  vocabulary: number;
}

/** An empty record for a raster of the given size (an image without keypoints). */
export function emptyLocalFeatures(width: number, height: number): LocalFeatures {
  return {
    width, height, count: 0, xs: new Float32Array(0), ys: new Float32Array(0), angles: new Float32Array(0),
    sizes: new Float32Array(0), descriptors: new Uint32Array(0), words: new Uint16Array(0), vocabulary: 0,
  };
}

/**
 * Checks the array lengths of a record.
 * @throws RangeError when they disagree with `count`, or `count` exceeds {@link MAX_KEYPOINTS}.
 */
export function checkLocalFeatures(f: LocalFeatures): void {
  const n = f.count;
  if (!Number.isInteger(n) || n < 0 || n > MAX_KEYPOINTS) throw new RangeError(`local features: invalid keypoint count ${n}`);
  if (
    f.xs.length !== n || f.ys.length !== n || f.angles.length !== n || f.sizes.length !== n ||
    f.descriptors.length !== n * DESCRIPTOR_WORDS || (f.words.length !== n && f.words.length !== 0)
  ) {
    throw new RangeError('local features: array lengths do not match the keypoint count');
  }
}

/** True on little-endian hosts (typed arrays then read the little-endian format directly). */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Header bytes of the binary format. */
const HEADER = 16;
/** Bytes per keypoint: x, y (uint16, 1/8 px), angle (uint16, 360/65536°), size (uint16, 1/16 px), word (uint16), descriptor (32). */
const PER_KEYPOINT = 10 + DESCRIPTOR_WORDS * 4;

/**
 * Encodes a record: bytes 0–1 "LF", byte 2 version, byte 3 flags (bit 0: words present), uint16
 * count, uint16 width, uint16 height, uint16 vocabulary id, 4 reserved bytes; then per keypoint
 * x·8, y·8, angle·65536/360, size·16, word as uint16, then the descriptors (little-endian).
 * Coordinates must be below 8,192 px (rasters are a few hundred pixels).
 * @throws RangeError on inconsistent arrays or a raster larger than 8,191 px.
 */
export function encodeLocalFeatures(f: LocalFeatures): Uint8Array {
  checkLocalFeatures(f);
  if (f.width > 8191 || f.height > 8191) throw new RangeError('local features: raster larger than 8191 px');
  const n = f.count;
  const out = new Uint8Array(HEADER + n * PER_KEYPOINT);
  const dv = new DataView(out.buffer);
  out[0] = 0x4c; // 'L'
  out[1] = 0x46; // 'F'
  out[2] = LOCAL_FEATURE_VERSION;
  out[3] = f.words.length === n && n > 0 ? 1 : 0;
  dv.setUint16(4, n, true);
  dv.setUint16(6, f.width, true);
  dv.setUint16(8, f.height, true);
  dv.setUint16(10, f.vocabulary, true);
  let o = HEADER;
  const clamp16 = (v: number): number => Math.max(0, Math.min(65535, Math.round(v)));
  for (let i = 0; i < n; i++, o += 10) {
    dv.setUint16(o, clamp16((f.xs[i] ?? 0) * 8), true);
    dv.setUint16(o + 2, clamp16((f.ys[i] ?? 0) * 8), true);
    const a = (((f.angles[i] ?? 0) % 360) + 360) % 360;
    dv.setUint16(o + 4, Math.round((a * 65536) / 360) & 0xffff, true);
    dv.setUint16(o + 6, clamp16((f.sizes[i] ?? 0) * 16), true);
    dv.setUint16(o + 8, f.words[i] ?? 0, true);
  }
  for (let i = 0; i < f.descriptors.length; i++, o += 4) dv.setUint32(o, f.descriptors[i] ?? 0, true);
  return out;
}

/**
 * Decodes a record written by {@link encodeLocalFeatures}; the result owns fresh arrays.
 * @throws Error when the magic, the version or the length do not match.
 */
export function decodeLocalFeatures(bytes: Uint8Array): LocalFeatures {
  if (bytes.length < HEADER || bytes[0] !== 0x4c || bytes[1] !== 0x46) throw new Error('decodeLocalFeatures: not a local feature record');
  if (bytes[2] !== LOCAL_FEATURE_VERSION) throw new Error(`decodeLocalFeatures: unsupported version ${String(bytes[2])}`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getUint16(4, true);
  if (bytes.length !== HEADER + n * PER_KEYPOINT) throw new Error(`decodeLocalFeatures: ${bytes.length} bytes for ${n} keypoints`);
  const hasWords = ((bytes[3] ?? 0) & 1) === 1;
  // One buffer for every array of the record: descriptors (in the record's byte order, copied
  // whole), the keypoint fields as stored (read aligned, then left as scratch), then the float
  // arrays and the words. Start-up decodes every stored record (10,000 references: 5.8 M
  // keypoints): one allocation a record instead of eight (V8's
  // accounting of many mid-sized buffers cost garbage collections), and aligned reads instead of
  // a DataView call per field (~5× faster; big-endian hosts keep the DataView path).
  const descBytes = n * DESCRIPTOR_WORDS * 4;
  const buffer = new ArrayBuffer(descBytes + n * 10 + n * 16 + (hasWords ? n * 2 : 0) + 2);
  const floats = descBytes + n * 10 + ((n * 10) % 4 === 0 ? 0 : 2);
  const f: LocalFeatures = {
    width: dv.getUint16(6, true),
    height: dv.getUint16(8, true),
    count: n,
    xs: new Float32Array(buffer, floats, n),
    ys: new Float32Array(buffer, floats + n * 4, n),
    angles: new Float32Array(buffer, floats + n * 8, n),
    sizes: new Float32Array(buffer, floats + n * 12, n),
    descriptors: new Uint32Array(buffer, 0, n * DESCRIPTOR_WORDS),
    words: new Uint16Array(buffer, floats + n * 16, hasWords ? n : 0),
    vocabulary: dv.getUint16(10, true),
  };
  const o = HEADER;
  if (LITTLE_ENDIAN) {
    const raw = new Uint8Array(buffer);
    raw.set(bytes.subarray(o + n * 10, o + n * PER_KEYPOINT), 0);
    raw.set(bytes.subarray(o, o + n * 10), descBytes);
    const kp = new Uint16Array(buffer, descBytes, n * 5);
    for (let i = 0, k = 0; i < n; i++, k += 5) {
      f.xs[i] = (kp[k] ?? 0) / 8;
      f.ys[i] = (kp[k + 1] ?? 0) / 8;
      f.angles[i] = ((kp[k + 2] ?? 0) * 360) / 65536;
      f.sizes[i] = (kp[k + 3] ?? 0) / 16;
      if (hasWords) f.words[i] = kp[k + 4] ?? 0;
    }
    return f;
  }
  let at = o;
  for (let i = 0; i < n; i++, at += 10) {
    f.xs[i] = dv.getUint16(at, true) / 8;
    f.ys[i] = dv.getUint16(at + 2, true) / 8;
    f.angles[i] = (dv.getUint16(at + 4, true) * 360) / 65536;
    f.sizes[i] = dv.getUint16(at + 6, true) / 16;
    if (hasWords) f.words[i] = dv.getUint16(at + 8, true);
  }
  for (let i = 0; i < f.descriptors.length; i++, at += 4) f.descriptors[i] = dv.getUint32(at, true);
  return f;
}
