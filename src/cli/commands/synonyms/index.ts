/** `catalog synonyms ...` (docs/search.md "Synonyms"): the noun and its verbs. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as del from './delete.js';
import * as importVerb from './import.js';
import * as list from './list.js';

/** Adds the `synonyms` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('synonyms').description('synonym sets that searches use at query time (bolt, screw; hex → hexagon)');
  for (const verb of [importVerb, list, del]) verb.declare(noun, invoke);
  return noun;
}
