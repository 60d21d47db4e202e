/** `catalog settings get|set` (docs/cli.md): the catalog's ranking settings (docs/api.md "Ranking settings"). */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as get from './get.js';
import * as set from './set.js';

/** Adds the `settings` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('settings').description('the catalog\'s search settings: the custom ranking attribute that breaks ties');
  for (const verb of [get, set]) verb.declare(noun, invoke);
  return noun;
}
