/** `catalog organizations import <file|->` (POST /1/catalog/organizations; design/cli.md "Bulk import"). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareImport, type ImportFlags } from '../resource-verbs.js';

/** Declares the verb on the `organizations` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareImport(noun, { noun: 'organizations', idField: 'org_id' }, invoke, 'create organizations or move them in the tree from CSV (columns org_id, parent_id: empty for a root), JSON or NDJSON', run);
}

/** Imports the file through the bulk loop; exit 0, 3 (rows rejected) or 130 (interrupted). */
export async function run(ctx: CommandContext, file: string, flags: ImportFlags, resumeCommand: string): Promise<number> {
  const [{ runImport }, { organizationsResource }] = await Promise.all([import('../resource-verbs.js'), import('./resource.js')]);
  return runImport(ctx, organizationsResource, file, flags, resumeCommand);
}
