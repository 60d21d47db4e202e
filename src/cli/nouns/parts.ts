/** `catalog parts ...` (design/cli.md; decisions §5). */
import type { Command } from 'commander';
import { partsResource } from '../resources/parts.js';
import type { Invoke } from '../runner.js';
import { addImportVerb, addReadDeleteVerbs } from './resource-verbs.js';
import { registerPartImageVerbs } from './part-images.js';

export function registerParts(program: Command, invoke: Invoke): void {
  const noun = program.command('parts').description('part types with names and attribute values');
  addImportVerb(noun, partsResource, invoke, 'create or update parts from CSV (columns part_id, name.<lang>, attr:<attribute_id>.<lang>, attr:<attribute_id>@<org>.<lang>), JSON or NDJSON');
  addReadDeleteVerbs(noun, partsResource, invoke);
  registerPartImageVerbs(noun, invoke);
}
