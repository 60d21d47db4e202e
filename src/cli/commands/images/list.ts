/** `catalog images list [--part <id>...] [--limit n] [--after id]`. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { collect, positiveInt, type Invoke } from '../../runner.js';

interface ListImagesFlags {
  part?: string[];
  limit?: number;
  after?: string;
  all?: boolean;
  command?: Command;
}

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('list')
    .description('list image descriptions in image_id order (all, or only of some parts): on a terminal one page of 30 and the command for the next; in a pipe all of them, streamed')
    .option('--part <part_id>', 'only images of this part (repeatable)', collect)
    .option('--limit <n>', 'at most this many', positiveInt)
    .option('--after <id>', 'start after this image_id')
    .option('--all', 'every one, also on a terminal')
    .action(async (_opts: unknown, command: Command) => {
      const flags = { ...command.opts<ListImagesFlags>(), command };
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** Prints every image (or of these parts), streamed page by page. */
export async function run(ctx: CommandContext, flags: ListImagesFlags): Promise<number> {
  const [{ emitList }, { imagesResource }, { commandLine }] = await Promise.all([import('../../output/emit.js'), import('./resource.js'), import('../../command-line.js')]);
  const client = await ctx.client();
  const query = flags.part !== undefined ? { query: { part_ids: flags.part } } : {};
  const { command } = flags;
  await emitList(ctx, imagesResource, (request) => client.listImages({ ...request, ...query }), { ...flags, ...(command ? { commandLine: (set) => commandLine(command, ctx, { set }) } : {}) });
  return EXIT.OK;
}
