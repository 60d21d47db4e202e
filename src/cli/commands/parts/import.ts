/** `catalog parts import <file|->` (decisions §5; design/cli.md "Bulk import"), and `--sync` (docs/cli.md, "Sync"). */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../output/usage-error.js';
import { EXAMPLES } from '../../help-examples.js';
import type { Invoke } from '../../runner.js';
import type { PartsSyncFlags } from '../../sync/parts-sync.js';
import { declareImport, type ImportFlags } from '../resource-verbs.js';

/** Declares the verb on the `parts` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareImport(noun, { noun: 'parts', idField: 'part_id' }, invoke, 'create or update parts from CSV (columns part_id, name.<lang>, attr:<attribute_id>.<lang>, attr:<attribute_id>@<org>.<lang>), JSON or NDJSON', run)
    .option('--sync', 'the sheet is the whole truth: rows equal to the stored part are not sent (counted as unchanged)')
    .option('--prune', 'with --sync: delete the stored parts in scope that the sheet does not hold (list them first with --dry-run)')
    .option('--scope <scope>', 'with --sync: the parts the sheet covers, part_id=<prefix>* or <attribute_id>=<value> (default: every part)')
    .option('--max-delete <n|p%>', 'with --prune: refuse to delete more than n parts or p % of those in scope (default 10%)')
    .option('--no-sync-state', 'with --sync: compare every row with the stored part, ignoring what the last run saw the catalog hold')
    .addHelpText('after', `
A part_id is 1 to 256 characters, any but '/' and control characters (it is a URL path segment:
GET /1/catalog/parts/<part_id>); a row breaking that is rejected. Ids from elsewhere that hold '/'
(npm/react, a file path) can be mapped as they are read: --id-replace '/=:' (relations import takes
it too, for the part ids its rows name; use the same mapping there).

Examples:
${(EXAMPLES['parts import'] ?? []).map((e) => `  ${e}`).join('\n')}`);
}

/** Imports the file through the bulk loop; exit 0, 3 (rows rejected), 1 (prune refused) or 130 (interrupted). */
export async function run(ctx: CommandContext, file: string, flags: ImportFlags & PartsSyncFlags, resumeCommand: string): Promise<number> {
  if (flags.sync !== true) {
    const stray = flags.prune ? '--prune' : flags.scope !== undefined ? '--scope' : flags.maxDelete !== undefined ? '--max-delete' : flags.syncState === false ? '--no-sync-state' : undefined;
    if (stray !== undefined) throw new UsageError(`${stray} applies to a sync: add --sync (the sheet is then the whole truth for the parts in scope)`);
  } else if (flags.maxDelete !== undefined && flags.prune !== true) throw new UsageError('--max-delete applies to --prune');
  const [{ runImport }, { partsResource }] = await Promise.all([import('../resource-verbs.js'), import('./resource.js')]);
  if (flags.sync !== true) return runImport(ctx, partsResource, file, flags, resumeCommand);
  const [{ PartsSync }, { syncStateFile }] = await Promise.all([import('../../sync/parts-sync.js'), import('../../sync/state.js')]);
  const state = syncStateFile(ctx.io.env, ctx.config, ctx.io.cwd, 'parts', file === '-' ? '-' : resolve(ctx.io.cwd, file));
  return runImport(ctx, partsResource, file, flags, resumeCommand, new PartsSync(ctx, flags, () => ctx.client(), state));
}
