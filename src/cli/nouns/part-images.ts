/**
 * The image-aware verbs of `catalog parts` (design/cli.md): `parts show <id>` and
 * `parts delete --with-images`. Registered by src/cli/nouns/parts.ts with one call.
 */
import type { Command } from 'commander';
import type { Invoke } from '../runner.js';

const commands = () => import('../commands/part-show.js');

/** Adds `show <id>` and the `--with-images` option of `delete` to the `parts` noun. */
export function registerPartImageVerbs(noun: Command, invoke: Invoke): void {
  noun
    .command('show')
    .description('one part as a person reads it: names, attribute values in display order, display images in UI order, relations')
    .argument('<id>', 'part_id')
    .option('--org <organization>', 'show the values this organization sees')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const opts = command.opts<{ org?: string }>();
      await invoke(command, async (ctx) => (await commands()).runPartShow(ctx, id, opts));
    });
  const del = noun.commands.find((c) => c.name() === 'delete');
  if (!del) return;
  del
    .option('--with-images', 'delete the parts\' images first (a part with images cannot be deleted otherwise)')
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      const opts = command.opts<{ withImages?: boolean }>();
      await invoke(command, async (ctx) => (await commands()).runPartDelete(ctx, ids, opts));
    });
}
