/** `catalog maintenance off` (catalogAdmin; decisions §7): while on, every catalog write answers 503. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { printState } from './status.js';

/** Declares the verb on the `maintenance` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('off')
    .description('switch maintenance mode off (catalogAdmin)')
    .action(async (_o: unknown, command: Command) => {
      await invoke(command, (ctx) => run(ctx));
    });
}

/** Switches maintenance mode off and prints the new state. */
export async function run(ctx: CommandContext): Promise<number> {
  const client = await ctx.client();
  return printState(ctx, await client.setMaintenance(false));
}
