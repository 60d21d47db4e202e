/** `catalog maintenance status`: whether maintenance mode is on (decisions §7). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { declareSimpleVerb, type Invoke } from '../../runner.js';

/** Prints the maintenance state: `{"enabled": ...}` for json/ndjson, a sentence otherwise. */
export function printState(ctx: CommandContext, state: { enabled: boolean }): number {
  if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(state)}\n`);
  else ctx.io.stdout.write(`maintenance mode is ${state.enabled ? 'on' : 'off'}\n`);
  return EXIT.OK;
}

/** Declares `status` on its parent command. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareSimpleVerb(noun, invoke, 'status', 'show whether maintenance mode is on (exit 5 while it is, so a pipeline can gate on it)', run);
}

/** Prints whether maintenance mode is on; exit 5 (unavailable) while it is, 0 when off. */
export async function run(ctx: CommandContext): Promise<number> {
  const client = await ctx.client();
  const state = await client.getMaintenance();
  printState(ctx, state);
  return state.enabled ? EXIT.UNAVAILABLE : EXIT.OK;
}
