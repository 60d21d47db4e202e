/**
 * Where a worker thread's script is (`catalog serve`'s pools, the photo-feature and session-writer
 * threads, the import reader): beside the module that starts it, in dist/ (and in the CLI bundle,
 * where every chunk shares one directory); from the TypeScript sources (tests), the built one in
 * dist/.
 */
import { existsSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built script `url` names (`new URL('./x-worker.js', import.meta.url)` of the caller), or the
 * same path under dist/ when the caller runs from src/; undefined when neither exists (sources
 * before `npm run build`).
 */
export function builtWorkerFile(url: URL): string | undefined {
  const path = fileURLToPath(url);
  if (existsSync(path)) return path;
  const built = path.replace(`${sep}src${sep}`, `${sep}dist${sep}`);
  return built !== path && existsSync(built) ? built : undefined;
}
