/** `catalog relations add <anchor> <related> --type <t> [--source <s>]` (spec 4.3). */
import { Option, type Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';
import { RELATION_SOURCE_NAMES, RELATION_TYPE_NAMES } from './vocabulary.js';

interface AddFlags {
  type: string;
  source?: string;
}

/** Declares the verb on the `relations` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('add')
    .description('create or replace the relation of two parts (for substitute: anchor = predecessor)')
    .argument('<anchor>', 'anchor part_id')
    .argument('<related>', 'related part_id')
    // Choices: a misspelt type is a usage error naming the allowed ones before anything is sent.
    .addOption(new Option('--type <type>', 'the relation type').choices(RELATION_TYPE_NAMES).makeOptionMandatory())
    .addOption(new Option('--source <source>', 'who says so (default ingested)').choices(RELATION_SOURCE_NAMES))
    .action(async (anchor: string, related: string, _o: unknown, command: Command) => {
      const flags = command.opts<AddFlags>();
      await invoke(command, (ctx) => run(ctx, anchor, related, flags));
    });
}

/** Writes the relation. */
export async function run(ctx: CommandContext, anchor: string, related: string, flags: AddFlags): Promise<number> {
  const client = await ctx.client();
  const result = await client.createRelations([{ anchor_part_id: anchor, related_part_id: related, type: flags.type, ...(flags.source ? { source: flags.source } : {}) }]);
  if (ctx.format === 'json') ctx.io.stdout.write(`${JSON.stringify(result)}\n`);
  ctx.info(`relation ${flags.type} ${anchor} -> ${related} written`);
  return EXIT.OK;
}
