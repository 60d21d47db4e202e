/**
 * The catalog's version: served by GET /1/catalog/info, printed by `catalog --version` and named in
 * bug reports. A module importing nothing, so the CLI's `--version` fast path stays cheap; a test
 * keeps it equal to package.json's version.
 */
export const CATALOG_VERSION = '0.1.0';
