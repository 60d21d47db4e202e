/** `catalog relations import <file|->` (spec 2.3, 4.3; design/cli.md "Bulk import"). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareImport, type ImportFlags } from '../resource-verbs.js';

/** Declares the verb on the `relations` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareImport(
    noun,
    { noun: 'relations', idField: 'anchor_part_id' },
    invoke,
    'create relations from CSV (anchor_part_id, related_part_id, type, source), JSON or NDJSON; the latest write for a pair wins',
    run,
  );
}

/** Imports the file through the bulk loop; exit 0, 3 (rows rejected) or 130 (interrupted). */
export async function run(ctx: CommandContext, file: string, flags: ImportFlags, resumeCommand: string): Promise<number> {
  const [{ runImport }, { relationsImport }] = await Promise.all([import('../resource-verbs.js'), import('./resource.js')]);
  return runImport(ctx, relationsImport, file, flags, resumeCommand);
}
