/** `catalog parts ...` (design/cli.md; decisions §5). */
import type { Command } from 'commander';
import type { Invoke } from '../runner.js';
import { addImportVerb, addReadDeleteVerbs } from './resource-verbs.js';
import { registerPartImageVerbs } from './part-images.js';

export function registerParts(program: Command, invoke: Invoke): void {
  const noun = program.command('parts').description('part types with names and attribute values');
  const names = { noun: 'parts', idField: 'part_id' };
  const load = async () => (await import('../resources/parts.js')).partsResource;
  addImportVerb(noun, names, load, invoke, 'create or update parts from CSV (columns part_id, name.<lang>, attr:<attribute_id>.<lang>, attr:<attribute_id>@<org>.<lang>), JSON or NDJSON');
  addReadDeleteVerbs(noun, names, load, invoke);
  registerPartImageVerbs(noun, invoke);
}
