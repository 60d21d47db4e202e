/** `catalog maintenance on|off|status` (decisions §7): the noun and its verbs. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as off from './off.js';
import * as on from './on.js';
import * as status from './status.js';

/** Adds the `maintenance` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('maintenance').description('maintenance mode: while on, every catalog write answers 503');
  for (const verb of [on, off, status]) verb.declare(noun, invoke);
  return noun;
}
