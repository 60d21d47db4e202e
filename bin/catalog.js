#!/usr/bin/env node
// Thin shim: all logic lives in the built CLI (src/cli/main.ts, bundled by scripts/bundle-cli.js).
// CommonJS (bin/package.json), as the bundle is: an ES module entry starts Node's ESM loader, ~4 ms
// of every command's start-up (issue 12).
// No V8 flags here: any flag at launch costs every command ~20 ms of start-up (Node's code cache of
// its own modules no longer matches), and it would void the CLI's code cache too; bulk jobs tune
// the heap when they start (src/cli/bulk/streaming-heap.ts).
'use strict';
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered without loading the CLI: `catalog --version` is what scripts call to probe for it.
  process.stdout.write(`${require('../dist/bundle/version.cjs').VERSION}\n`);
} else {
  // V8 reuses the code it compiled for the bundle on an earlier run (src/cli/compile-cache.ts,
  // issue 12: ~30 ms of a local search's start-up).
  require('../dist/bundle/compile-cache.cjs').installCompileCache(require('node:path').join(__dirname, '..', 'dist', 'bundle'));
  // A rejection here is a bug main() did not catch: Node prints it and exits 1.
  void require('../dist/bundle/main.cjs').main(process.argv);
}
