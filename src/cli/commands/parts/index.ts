/** `catalog parts ...` (design/cli.md; decisions §5): the noun and its verbs. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as del from './delete.js';
import * as get from './get.js';
import * as importVerb from './import.js';
import * as list from './list.js';
import * as show from './show.js';

/** Adds the `parts` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('parts').description('part types with names and attribute values');
  for (const verb of [importVerb, list, get, del, show]) verb.declare(noun, invoke);
  return noun;
}
