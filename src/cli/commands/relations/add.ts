/** `catalog relations add <anchor> <related> --type <t> [--source <s>]` (spec 4.3). */
import { Option, type Command } from 'commander';
import { CatalogError } from '../../../api/errors.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../output/usage-error.js';
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

/** The command line's names for the fields of the one item `add` sends. */
const ARGUMENT_NAMES: Readonly<Record<string, string>> = { anchor_part_id: '<anchor>', related_part_id: '<related>', type: '--type', source: '--source' };

/**
 * The service's refusal of the one relation, in the command line's words: `<anchor>`, `<related>`,
 * `--type` instead of `items[0].anchor_part_id` and the like; exit 6 when every problem is a part
 * that does not exist, else 2.
 */
function explainRefusal(error: CatalogError, anchor: string, related: string): CatalogError | UsageError {
  const problems = error.errors ?? [];
  if (error.code !== 'bad_request' || problems.length === 0) return error;
  const words = (text: string): string => text.replace(/\b(anchor_part_id|related_part_id)\b/g, (name) => ARGUMENT_NAMES[name] ?? name);
  const messages = [...new Set(problems.map((p) => {
    const field = /^items\[0\]\.(\w+)$/.exec(p.path)?.[1];
    const message = words(p.message);
    return field !== undefined && ARGUMENT_NAMES[field] !== undefined && !/^part '/.test(message) ? `${ARGUMENT_NAMES[field]}: ${message}` : message;
  }))];
  const text = `the relation ${anchor} -> ${related} was not written: ${messages.join('; ')}`;
  return problems.every((p) => /does not exist/.test(p.message)) ? new CatalogError('not_found', text) : new UsageError(text);
}

/** Writes the relation. @throws UsageError (or a not_found CatalogError) naming the arguments at fault. */
export async function run(ctx: CommandContext, anchor: string, related: string, flags: AddFlags): Promise<number> {
  const client = await ctx.client();
  const result = await client
    .createRelations([{ anchor_part_id: anchor, related_part_id: related, type: flags.type, ...(flags.source ? { source: flags.source } : {}) }])
    .catch((error: unknown) => {
      throw error instanceof CatalogError ? explainRefusal(error, anchor, related) : error;
    });
  if (ctx.format === 'json') ctx.io.stdout.write(`${JSON.stringify(result)}\n`);
  ctx.info(`relation ${flags.type} ${anchor} -> ${related} written`);
  return EXIT.OK;
}
