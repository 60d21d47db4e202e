#!/usr/bin/env node
// Thin shim: all logic lives in the built CLI (src/cli/main.ts, bundled by scripts/bundle-cli.js).
// CommonJS (bin/package.json), as the bundle is: an ES module entry starts Node's ESM loader, a few
// milliseconds of every command's start-up.
'use strict';
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered without loading the CLI: `catalog --version` is what scripts call to probe for it.
  process.stdout.write(`${require('../dist/bundle/version.cjs').VERSION}\n`);
} else {
  // Node (22.1 and later) reuses the code it compiled for the bundle on an earlier run.
  require('node:module').enableCompileCache?.();
  // A rejection here is a bug main() did not catch: Node prints it and exits 1.
  void require('../dist/bundle/main.cjs').main(process.argv);
}
