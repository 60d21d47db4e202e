/**
 * A skipped suite's banner on stderr: a line of `!` above and below, each line prefixed `!! `, so
 * a skip that a newcomer's `npm test` makes (no PostgreSQL, no Chromium, a slow check left to CI)
 * cannot pass unseen.
 */
export function loud(lines: readonly string[]): void {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!! ${l}`).join('\n')}\n${bar}\n\n`);
}
