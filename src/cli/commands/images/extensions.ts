/** File names for downloaded originals: the extension of a detected image type (the inverse of core/images/file-type.ts). */

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
  'image/avif': 'avif',
};

/** The extension (no dot) for a Content-Type such as `image/jpeg; charset=…`; undefined for a type that is not an image we store. */
export function extensionFor(contentType: string): string | undefined {
  return EXTENSIONS[contentType.split(';')[0]?.trim().toLowerCase() ?? ''];
}
