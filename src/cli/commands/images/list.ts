/** `catalog images list [--part <id>...] [--limit n] [--after id]`. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { collect, positiveInt, type Invoke } from '../../runner.js';
import { walkPages } from '../resource-verbs.js';

interface ListImagesFlags {
  part?: string[];
  limit?: number;
  after?: string;
}

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('list')
    .description('list image descriptions in image_id order (all, or only of some parts)')
    .option('--part <part_id>', 'only images of this part (repeatable)', collect)
    .option('--limit <n>', 'at most this many', positiveInt)
    .option('--after <id>', 'start after this image_id')
    .action(async (_opts: unknown, command: Command) => {
      const flags = command.opts<ListImagesFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** Prints every image (or of these parts), streamed page by page. */
export async function run(ctx: CommandContext, flags: ListImagesFlags): Promise<number> {
  const [{ emitRecords }, { imagesResource }] = await Promise.all([import('../../output/emit.js'), import('./resource.js')]);
  const client = await ctx.client();
  const query = flags.part !== undefined ? { query: { part_ids: flags.part } } : {};
  await emitRecords(ctx, imagesResource, walkPages((request) => client.listImages({ ...request, ...query }), flags));
  return EXIT.OK;
}
