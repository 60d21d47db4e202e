/** `catalog attributes list [--limit n] [--after id]`. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareList, runList, type ListFlags } from '../resource-verbs.js';

/** Declares the verb on the `attributes` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareList(noun, { noun: 'attributes', idField: 'attribute_id', changeType: 'attribute' }, invoke, run);
}

/** Prints every attribute (or --limit of them) in attribute_id order, streamed page by page. */
export async function run(ctx: CommandContext, flags: ListFlags): Promise<number> {
  const { attributesResource } = await import('./resource.js');
  return runList(ctx, attributesResource, flags);
}
