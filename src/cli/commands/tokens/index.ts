/** `catalog tokens ...` (design/cli.md; decisions §2): the noun and its verbs. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as create from './create.js';
import * as list from './list.js';
import * as revoke from './revoke.js';
import * as rotate from './rotate.js';
import * as whoami from './whoami.js';

/** Adds the `tokens` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('tokens').description('access tokens: create, list, rotate and revoke (local mode, or --remote with a catalogAdmin token); whoami shows the one in use');
  for (const verb of [create, list, rotate, revoke, whoami]) verb.declare(noun, invoke);
  return noun;
}
