/**
 * The photos of a folder for `images sync`: every image file under it (recursively), by relative
 * path, in a stable order; hidden files and folders (`.name`) are skipped.
 */
import { opendir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { IMAGE_EXTENSIONS } from './naming.js';

/** Suffix of a photo's side-car file holding its info tokens (`AB-123_2.jpg.info`). */
export const SIDE_CAR_SUFFIX = '.info';

/** A photo found in the folder. */
export interface FolderPhoto {
  /** Path relative to the folder, with `/` separators. */
  relativePath: string;
  /** Absolute path. */
  path: string;
  /** Whether the folder holds its side-car `<photo>.info` (known from the listing, so no photo is opened to find out). */
  sideCar: boolean;
}

/**
 * Lists the image files under `folder`, sorted by relative path (code-unit order), so runs over
 * the same folder send the same batches. Files of other extensions (side-cars included) are left out.
 * @throws the file system's error (ENOENT, ENOTDIR, EACCES) for the folder or a sub-folder.
 */
export async function listPhotos(folder: string): Promise<FolderPhoto[]> {
  const out: FolderPhoto[] = [];
  const visit = async (dir: string, prefix: string): Promise<void> => {
    const entries = [];
    for await (const entry of await opendir(dir)) if (!entry.name.startsWith('.')) entries.push(entry);
    const names = new Set(entries.map((e) => e.name));
    for (const entry of entries) {
      const relativePath = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await visit(path, relativePath);
      else if (entry.isFile() && IMAGE_EXTENSIONS.has(extname(entry.name).toLowerCase())) out.push({ relativePath, path, sideCar: names.has(`${entry.name}${SIDE_CAR_SUFFIX}`) });
    }
  };
  await visit(folder, '');
  return out.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
}
