/**
 * `catalog maintenance on|off` (catalogAdmin; decisions §7): while on, every catalog write answers
 * 503. The two verbs differ only in the state they set.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { declareSimpleVerb, type Invoke } from '../../runner.js';
import { printState } from './status.js';

/** Declares `on` (enabled) or `off` on the `maintenance` noun. */
export function declareSwitch(noun: Command, invoke: Invoke, enabled: boolean): Command {
  const state = enabled ? 'on' : 'off';
  return declareSimpleVerb(noun, invoke, state, `switch maintenance mode ${state} (catalogAdmin)`, (ctx) => run(ctx, enabled));
}

/** Sets maintenance mode and prints the new state. */
export async function run(ctx: CommandContext, enabled: boolean): Promise<number> {
  const client = await ctx.client();
  return printState(ctx, await client.setMaintenance(enabled));
}
