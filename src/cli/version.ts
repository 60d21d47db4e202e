/**
 * The version `catalog --version` prints and bug reports name. A module of its own, importing
 * nothing, so bin/catalog.js can answer `--version` without loading the CLI (start-up time).
 * A test keeps it equal to package.json's version.
 */
export const VERSION = '0.1.0';
