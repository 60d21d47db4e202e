/**
 * Image type detection from magic bytes (api-decisions.md §4: the type comes from the file's
 * bytes, never from a header or file name). Pure; no I/O.
 */

/** A detected image type: the MIME type served as Content-Type and a conventional file extension (no dot). */
export interface DetectedImageType {
  mime: string;
  ext: string;
}

/** How many leading bytes {@link detectImageType} may look at; passing more is harmless. */
export const IMAGE_TYPE_HEAD_BYTES = 64;

function startsWith(head: Uint8Array, bytes: readonly number[], offset = 0): boolean {
  if (head.length < offset + bytes.length) return false;
  return bytes.every((b, i) => head[offset + i] === b);
}

function ascii(text: string): number[] {
  return Array.from(text, (c) => c.charCodeAt(0));
}

const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');
const GIF87A = ascii('GIF87a');
const GIF89A = ascii('GIF89a');
const FTYP = ascii('ftyp');
const AVIF_BRANDS = new Set(['avif', 'avis']);

/** True if `head` starts with an ISO-BMFF `ftyp` box whose major or a compatible brand is avif/avis. */
function isAvif(head: Uint8Array): boolean {
  if (!startsWith(head, FTYP, 4) || head.length < 12) return false;
  const boxSize = (((head[0] ?? 0) << 24) >>> 0) + ((head[1] ?? 0) << 16) + ((head[2] ?? 0) << 8) + (head[3] ?? 0);
  // size 0 = box extends to end of file; size 1 (64-bit size) never occurs for ftyp in practice.
  if (boxSize !== 0 && boxSize < 16) return false;
  const end = boxSize === 0 ? head.length : Math.min(boxSize, head.length);
  const brandAt = (offset: number): string => String.fromCharCode(...head.subarray(offset, offset + 4));
  if (AVIF_BRANDS.has(brandAt(8))) return true;
  // bytes 12..16: minor version; then compatible brands, 4 bytes each.
  for (let offset = 16; offset + 4 <= end; offset += 4) {
    if (AVIF_BRANDS.has(brandAt(offset))) return true;
  }
  return false;
}

/**
 * Detects the image type of a file from its first bytes (decisions §4). Recognized:
 * JPEG (`FF D8 FF`) → image/jpeg, jpg; PNG (8-byte signature) → image/png, png;
 * WebP (`RIFF` size `WEBP`) → image/webp, webp; GIF (`GIF87a`/`GIF89a`) → image/gif, gif;
 * TIFF (`II*\0` little-endian, `MM\0*` big-endian) → image/tiff, tiff;
 * AVIF (`ftyp` box with brand `avif` or `avis` as major or compatible brand, within `head`) → image/avif, avif.
 * Returns `undefined` for anything else, including empty or truncated input. The first
 * {@link IMAGE_TYPE_HEAD_BYTES} bytes are enough; AVIF compatible brands are read up to the end of
 * the ftyp box or of `head`, whichever comes first. Never throws.
 */
export function detectImageType(head: Uint8Array): DetectedImageType | undefined {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { mime: 'image/jpeg', ext: 'jpg' };
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mime: 'image/png', ext: 'png' };
  if (startsWith(head, RIFF) && startsWith(head, WEBP, 8)) return { mime: 'image/webp', ext: 'webp' };
  if (startsWith(head, GIF87A) || startsWith(head, GIF89A)) return { mime: 'image/gif', ext: 'gif' };
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { mime: 'image/tiff', ext: 'tiff' };
  }
  if (isAvif(head)) return { mime: 'image/avif', ext: 'avif' };
  return undefined;
}
