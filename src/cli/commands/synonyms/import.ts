/** `catalog synonyms import <file|->` (design/cli.md "Bulk import"). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareImport, type ImportFlags } from '../resource-verbs.js';

/** Declares the verb on the `synonyms` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareImport(noun, { noun: 'synonyms', idField: 'synonym_id' }, invoke, 'create or replace synonym sets from CSV (columns synonym_id, input (one-way sets only), synonyms separated by |), JSON or NDJSON', run);
}

/** Imports the file through the bulk loop; exit 0, 3 (rows rejected) or 130 (interrupted). */
export async function run(ctx: CommandContext, file: string, flags: ImportFlags, resumeCommand: string): Promise<number> {
  const [{ runImport }, { synonymsResource }] = await Promise.all([import('../resource-verbs.js'), import('./resource.js')]);
  return runImport(ctx, synonymsResource, file, flags, resumeCommand);
}
