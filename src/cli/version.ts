/**
 * The version `catalog --version` prints (src/api/version.ts), in a module of its own so that
 * bin/catalog.js can answer `--version` without loading the CLI (start-up time).
 */
export { CATALOG_VERSION as VERSION } from '../api/version.js';
