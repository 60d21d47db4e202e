/** `catalog parts list [--limit n] [--after id]`. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareList, runList, type ListFlags } from '../resource-verbs.js';

/** Declares the verb on the `parts` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareList(noun, { noun: 'parts', idField: 'part_id', changeType: 'part' }, invoke, run);
}

/** Prints every part (or --limit of them) in part_id order, streamed page by page. */
export async function run(ctx: CommandContext, flags: ListFlags): Promise<number> {
  const { partsResource } = await import('./resource.js');
  return runList(ctx, partsResource, flags);
}
