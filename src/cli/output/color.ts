/**
 * Whether to colour output (cli.md, Output). Kept apart from progress.ts so that deciding it does
 * not load ora at start-up.
 */

/**
 * Whether to colour output written to `stream`. Off when `flags.color === false` (commander's
 * `--no-color`), when `NO_COLOR` is set to a non-empty value (no-color.org), when `TERM=dumb`, or when
 * the stream is not a TTY.
 *
 * @param stream the stream the coloured text goes to (stdout for tables, stderr for messages).
 * @param flags the parsed global options; only `color` is read.
 * @param env default process.env.
 */
export function colorEnabled(
  stream: { isTTY?: boolean },
  flags: { color?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (flags.color === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}
