/** `catalog relations get <part_id> [--type <t>]`: the part's relations (404 -> exit 6). */
import { Option, type Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';
import { RELATION_TYPE_NAMES } from './vocabulary.js';

const RELATION_FIELDS = ['part_id', 'part_role', 'type', 'source', 'user_id', 'created'];

/** Declares the verb on the `relations` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('get')
    .description("a part's relations (all types, or --type)")
    .argument('<part_id>')
    .addOption(new Option('--type <type>', 'only relations of this type').choices(RELATION_TYPE_NAMES))
    .action(async (partId: string, _o: unknown, command: Command) => {
      const flags = command.opts<{ type?: string }>();
      await invoke(command, (ctx) => run(ctx, partId, flags));
    });
}

/** Prints the part's relations. */
export async function run(ctx: CommandContext, partId: string, flags: { type?: string }): Promise<number> {
  const { emitRecords } = await import('../../output/emit.js');
  const client = await ctx.client();
  const relations = await client.getRelations(partId, flags.type);
  await emitRecords(ctx, { fields: RELATION_FIELDS, defaultFields: RELATION_FIELDS }, relations.map((r) => ({ ...r })));
  return EXIT.OK;
}
