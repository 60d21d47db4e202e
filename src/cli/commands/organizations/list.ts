/** `catalog organizations list [--limit n] [--after id]` (POST /1/catalog/organizations/list). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareList, runList, type ListFlags } from '../resource-verbs.js';

/** Declares the verb on the `organizations` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareList(noun, { noun: 'organizations', idField: 'org_id' }, invoke, run);
}

/** Prints every organization (or --limit of them) in org_id order, streamed page by page. */
export async function run(ctx: CommandContext, flags: ListFlags): Promise<number> {
  const { organizationsResource } = await import('./resource.js');
  return runList(ctx, organizationsResource, flags);
}
