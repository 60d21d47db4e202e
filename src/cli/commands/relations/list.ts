/**
 * `catalog relations list`: every relation of the catalog (POST /v1/parts/relations/list), paged
 * and streamed, in (anchor_part_id, related_part_id) order, printed in its import columns
 * (anchor_part_id, related_part_id, type, source) so that what it prints in any format imports
 * again with `relations import` (design/cli.md: every export re-imports). `--fields` may add the
 * read-only `user_id` and `created` (ignored on import).
 */
import type { Command } from 'commander';
import type { RelationRecord } from '../../../api/schemas.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { positiveInt, type Invoke } from '../../runner.js';

/** The import columns of a relation (`relations import`). */
const IMPORT_FIELDS = ['anchor_part_id', 'related_part_id', 'type', 'source'];
const ALL_FIELDS = [...IMPORT_FIELDS, 'user_id', 'created'];

interface ListRelationsFlags {
  limit?: number;
  after?: string;
}

/** Declares the verb on the `relations` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('list')
    .description(
      'every relation of the catalog in its import columns (anchor_part_id, related_part_id, type, source), by anchor then related part, streamed page by page',
    )
    .option('--limit <n>', 'at most this many', positiveInt)
    .option('--after <cursor>', 'start after this cursor (printed with a page)')
    .addHelpText(
      'after',
      `
Examples:
  catalog relations list -o csv > relations.csv
  catalog --data-dir copy relations import relations.csv`,
    )
    .action(async (_opts: unknown, command: Command) => {
      const flags = command.opts<ListRelationsFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** A relation in its import columns (a source is always stored, so every column is present). */
function importColumns(r: RelationRecord): Record<string, string> {
  return { anchor_part_id: r.anchor_part_id, related_part_id: r.related_part_id, type: r.type, source: r.source };
}

/** Prints every relation (or --limit of them), streamed page by page. */
export async function run(ctx: CommandContext, flags: ListRelationsFlags): Promise<number> {
  const [{ emitRecords }, { walkPages }] = await Promise.all([import('../../output/emit.js'), import('../resource-verbs.js')]);
  const client = await ctx.client();
  // Without --fields every format prints the import columns only; --fields may ask for user_id, created.
  const full = ctx.flags.fields !== undefined;
  const records = walkPages<Record<string, unknown>>(async (request) => {
    const page = await client.listRelations(request);
    return { ...page, result: page.result.map((r) => (full ? { ...r } : importColumns(r))) };
  }, { limit: flags.limit, after: flags.after });
  await emitRecords<Record<string, unknown>>(
    ctx,
    { fields: ALL_FIELDS, defaultFields: IMPORT_FIELDS, ...(full ? {} : { toCsvRow: (r) => importColumns(r as unknown as RelationRecord) }) },
    records,
  );
  return EXIT.OK;
}
