#!/usr/bin/env node
// Thin shim: all logic lives in the built CLI (src/cli/main.ts, bundled by scripts/bundle-cli.js).
// No V8 flags here: any flag at launch costs every command ~20 ms of start-up (Node's code cache of
// its own modules no longer matches); bulk jobs tune the heap when they start
// (src/cli/bulk/streaming-heap.ts).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered without loading the CLI: `catalog --version` is what scripts call to probe for it.
  const { VERSION } = await import('../dist/cli/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  // The bundle is CommonJS so that V8 can reuse the code it compiled on an earlier run
  // (src/cli/compile-cache.ts, issue 12: ~30 ms of a local search's start-up).
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  require('../dist/bundle/compile-cache.cjs').installCompileCache(new URL('../dist/bundle/', import.meta.url).pathname);
  const { main } = require('../dist/bundle/main.cjs');
  await main(process.argv);
}
