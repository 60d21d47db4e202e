/**
 * One JSON document on stdout (cli.md: `-o json` is ONE document). Apart from emit.ts so that
 * commands printing only summaries do not load the table writer.
 */
import type { CommandContext } from '../context.js';

/** Prints `value` as indented JSON on stdout. */
export function emitJson(ctx: CommandContext, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
