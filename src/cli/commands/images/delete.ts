/** `catalog images delete <id...>`: exit 3 when some ids are rejected. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareDelete, runDelete } from '../resource-verbs.js';

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareDelete(noun, { noun: 'images', idField: 'image_id' }, invoke, run, 'delete images by id; a stored file goes with its last image (exit 3 if some are rejected)');
}

/** Deletes the images; exit 3 when some were rejected. */
export async function run(ctx: CommandContext, ids: string[]): Promise<number> {
  const { imagesResource } = await import('./resource.js');
  return runDelete(ctx, imagesResource, ids);
}
