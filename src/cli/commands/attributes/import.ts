/** `catalog attributes import <file|->` (spec 2.1, 4.1; design/cli.md "Bulk import"). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareImport, type ImportFlags } from '../resource-verbs.js';

/** Declares the verb on the `attributes` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareImport(noun, { noun: 'attributes', idField: 'attribute_id' }, invoke, 'create or update attributes from CSV (columns attribute_id, type, name.<lang>, searchable, filterable, visibility, org_visibility, labels, per_org_values, default_value.<lang>, display_order), JSON or NDJSON', run);
}

/** Imports the file through the bulk loop; exit 0, 3 (rows rejected) or 130 (interrupted). */
export async function run(ctx: CommandContext, file: string, flags: ImportFlags, resumeCommand: string): Promise<number> {
  const [{ runImport }, { attributesResource }] = await Promise.all([import('../resource-verbs.js'), import('./resource.js')]);
  return runImport(ctx, attributesResource, file, flags, resumeCommand);
}
