/** `catalog parts import <file|->` (decisions §5; design/cli.md "Bulk import"). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXAMPLES } from '../../help-examples.js';
import type { Invoke } from '../../runner.js';
import { declareImport, type ImportFlags } from '../resource-verbs.js';

/** Declares the verb on the `parts` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareImport(noun, { noun: 'parts', idField: 'part_id' }, invoke, 'create or update parts from CSV (columns part_id, name.<lang>, attr:<attribute_id>.<lang>, attr:<attribute_id>@<org>.<lang>), JSON or NDJSON', run)
    .addHelpText('after', `
A part_id is 1 to 256 characters, any but '/' and control characters (it is a URL path segment:
GET /1/catalog/parts/<part_id>); a row breaking that is rejected. Ids from elsewhere that hold '/'
(npm/react, a file path) can be mapped as they are read: --id-replace '/=:' (relations import takes
it too, for the part ids its rows name; use the same mapping there).

Examples:
${(EXAMPLES['parts import'] ?? []).map((e) => `  ${e}`).join('\n')}`);
}

/** Imports the file through the bulk loop; exit 0, 3 (rows rejected) or 130 (interrupted). */
export async function run(ctx: CommandContext, file: string, flags: ImportFlags, resumeCommand: string): Promise<number> {
  const [{ runImport }, { partsResource }] = await Promise.all([import('../resource-verbs.js'), import('./resource.js')]);
  return runImport(ctx, partsResource, file, flags, resumeCommand);
}
