/** `catalog organizations ...` (decisions §5): the noun and its verbs, one per organizations endpoint. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as importVerb from './import.js';
import * as list from './list.js';

/** Adds the `organizations` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('organizations').description('the organization tree that per-organization values and tokens name');
  for (const verb of [importVerb, list]) verb.declare(noun, invoke);
  return noun;
}
