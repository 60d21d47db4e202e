#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=100
// Thin shim: all logic lives in the built CLI (src/cli/main.ts, bundled by scripts/bundle-cli.js). The V8 flags keep a streaming
// import's peak RSS flat and low: a small young generation, and an old generation collected once it
// has doubled rather than at V8's larger default growth (measured on 100k CSV rows: ~165 MB ->
// ~120 MB peak RSS, at about the same CPU time).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered without loading the CLI: `catalog --version` is what scripts call to probe for it.
  const { VERSION } = await import('../dist/cli/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { main } = await import('../dist/bundle/main.js');
  await main(process.argv);
}
