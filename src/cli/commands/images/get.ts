/** `catalog images get <id...>`: exit 6 when any id is unknown. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareGet, runGet } from '../resource-verbs.js';

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareGet(noun, { noun: 'image descriptions', idField: 'image_id' }, invoke, run);
}

/** Prints the image descriptions found; exit 6 when any id is unknown (after printing the others). */
export async function run(ctx: CommandContext, ids: string[]): Promise<number> {
  const { imagesResource } = await import('./resource.js');
  return runGet(ctx, imagesResource, ids);
}
