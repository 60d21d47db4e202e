/** `catalog synonyms list [--limit n] [--after id]`. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareList, runList, type ListFlags } from '../resource-verbs.js';

/** Declares the verb on the `synonyms` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareList(noun, { noun: 'synonyms', idField: 'synonym_id', changeType: 'synonym' }, invoke, run);
}

/** Prints every synonym set (or --limit of them) in synonym_id order, streamed page by page. */
export async function run(ctx: CommandContext, flags: ListFlags): Promise<number> {
  const { synonymsResource } = await import('./resource.js');
  return runList(ctx, synonymsResource, flags);
}
