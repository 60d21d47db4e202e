/** `catalog attributes ...` (design/cli.md; spec 2.1, 4.1). */
import type { Command } from 'commander';
import type { Invoke } from '../runner.js';
import { addImportVerb, addReadDeleteVerbs } from './resource-verbs.js';

export function registerAttributes(program: Command, invoke: Invoke): void {
  const noun = program.command('attributes').description('attribute definitions of the catalog ontology');
  const names = { noun: 'attributes', idField: 'attribute_id' };
  const load = async () => (await import('../resources/attributes.js')).attributesResource;
  addImportVerb(noun, names, load, invoke, 'create or update attributes from CSV, JSON or NDJSON (see fixtures/attributes.csv)');
  addReadDeleteVerbs(noun, names, load, invoke);
}
