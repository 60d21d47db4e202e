/**
 * Where the shared real data lives: `../shared/data` beside the repository (read its README).
 * Resolved from this file, so it holds in any checkout, CI's fresh clone included.
 */
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
export const SHARED_DATA = join(REPO_ROOT, '..', 'shared', 'data');
/** 655 real JPEG photos and drawings (../shared/data/images). */
export const SHARED_IMAGES = join(SHARED_DATA, 'images');
