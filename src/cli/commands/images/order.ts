/**
 * `catalog images order <part_id>`: every display image in display order (spec 2.2 rules 1-3) with
 * a marker on the ones the UI shows (rule 4). json prints the API's object.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('order')
    .description("the display order of a part's images and which ones the UI shows (spec 2.2 rules 1-4)")
    .argument('<part_id>')
    .action(async (partId: string, _opts: unknown, command: Command) => {
      await invoke(command, (ctx) => run(ctx, partId));
    });
}

/** Prints the display order of the part's images. */
export async function run(ctx: CommandContext, partId: string): Promise<number> {
  const { emitJson, emitRecords } = await import('../../output/emit.js');
  const client = await ctx.client();
  const order = await client.displayImages(partId);
  if (ctx.format === 'json') {
    emitJson(ctx, order);
    return EXIT.OK;
  }
  const shown = new Set(order.shown);
  const rows = order.ordered.map((id, i) => ({ rank: i + 1, image_id: id, shown: shown.has(id) ? '*' : '' }));
  const fields = ['rank', 'image_id', 'shown'];
  await emitRecords(ctx, { fields, defaultFields: fields }, rows);
  ctx.info(`${order.shown.length} of ${order.ordered.length} display images shown in the UI (at most ${order.max_display_images}); * = shown`);
  return EXIT.OK;
}
