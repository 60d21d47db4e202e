/** `catalog relations ...` (design/cli.md; spec 2.3, 4.3): the noun and its verbs. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as add from './add.js';
import * as get from './get.js';
import * as importVerb from './import.js';
import * as list from './list.js';

/** Adds the `relations` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('relations').description('relations between parts: duplicate, substitute, equivalent, not_related');
  for (const verb of [importVerb, list, add, get]) verb.declare(noun, invoke);
  return noun;
}
