/** `catalog parts get <id...>`: exit 6 when any id is unknown. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareGet, runGet } from '../resource-verbs.js';

/** Declares the verb on the `parts` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareGet(noun, { noun: 'parts', idField: 'part_id' }, invoke, run);
}

/** Prints the parts found; exit 6 when any id is unknown (after printing the others). */
export async function run(ctx: CommandContext, ids: string[]): Promise<number> {
  const { partsResource } = await import('./resource.js');
  return runGet(ctx, partsResource, ids);
}
