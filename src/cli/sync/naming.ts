/**
 * How `images sync` binds a photo to a part and names its image (docs/cli.md, "Sync"): the naming
 * convention, the user's own `--part-from` pattern, and the image_id derived from the photo's path.
 */
import { UsageError } from '../output/usage-error.js';

/**
 * The default naming convention: the file name is `<part_id>.<ext>` or `<part_id>_<n>.<ext>`
 * (n: digits, for several photos of one part), e.g. `AB-123.jpg`, `AB-123_2.jpg`.
 */
export const DEFAULT_PART_FROM = '^(?<part_id>.+?)(?:_(?<n>\\d+))?\\.[^.]+$';

/** Extensions of the image files a sync looks at (others are ignored); the bytes decide the type. */
export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(['.jpg', '.jpeg', '.png', '.webp', '.gif', '.tif', '.tiff', '.avif']);

/** A compiled naming rule: the part_id a photo's path names, or undefined when it names none. */
export interface PartNaming {
  /** The pattern as given (for messages and the summary). */
  readonly source: string;
  /** The part_id of the photo at `relativePath` (with `/` separators), or undefined. */
  partOf(relativePath: string): string | undefined;
}

/**
 * Compiles `--part-from` (default {@link DEFAULT_PART_FROM}): a JavaScript regular expression with
 * a named group `part_id`, matched against the file name, or against the path relative to the
 * folder (with `/`) when the pattern contains a `/`.
 * @throws UsageError (exit 2) naming the flag when the pattern does not compile or has no
 *   `(?<part_id>...)` group.
 */
export function compilePartFrom(pattern: string | undefined): PartNaming {
  const source = pattern ?? DEFAULT_PART_FROM;
  let regex: RegExp;
  try {
    regex = new RegExp(source, 'u');
  } catch (error) {
    throw new UsageError(`--part-from '${source}' is not a valid regular expression: ${(error as Error).message}`);
  }
  if (!source.includes('(?<part_id>')) throw new UsageError(`--part-from '${source}' needs a named group part_id, e.g. '^(?<part_id>[^_]+)_(?<n>\\d+)\\.jpg$'`);
  const wholePath = source.includes('/');
  return {
    source,
    partOf(relativePath) {
      const subject = wholePath ? relativePath : relativePath.slice(relativePath.lastIndexOf('/') + 1);
      const partId = regex.exec(subject)?.groups?.part_id;
      return partId !== undefined && partId.length > 0 ? partId : undefined;
    },
  };
}

/**
 * The image_id of the photo at `relativePath` (with `/` separators): the path itself with each `/`
 * written as `~` (image ids never contain `/`, decisions §1), e.g. `2024/AB-123_2.jpg` →
 * `2024~AB-123_2.jpg`. The same path always gives the same id, so a re-run updates the image it
 * stored before instead of adding one; a renamed or moved photo is a new image (and the old one
 * goes with `--prune`).
 */
export function imageIdFor(relativePath: string): string {
  return relativePath.replaceAll('/', '~');
}
