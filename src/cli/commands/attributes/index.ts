/** `catalog attributes ...` (design/cli.md; spec 2.1, 4.1): the noun and its verbs. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as del from './delete.js';
import * as get from './get.js';
import * as importVerb from './import.js';
import * as list from './list.js';

/** Adds the `attributes` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('attributes').description('attribute definitions of the catalog ontology');
  for (const verb of [importVerb, list, get, del]) verb.declare(noun, invoke);
  return noun;
}
