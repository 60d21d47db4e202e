/** `catalog synonyms delete <id...>`: exit 3 when some ids are rejected. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareDelete, runDelete } from '../resource-verbs.js';

/** Declares the verb on the `synonyms` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareDelete(noun, { noun: 'synonyms', idField: 'synonym_id' }, invoke, run);
}

/** Deletes the synonym sets; exit 3 when some were rejected. */
export async function run(ctx: CommandContext, ids: string[]): Promise<number> {
  const { synonymsResource } = await import('./resource.js');
  return runDelete(ctx, synonymsResource, ids);
}
