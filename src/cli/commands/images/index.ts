/** `catalog images ...` (design/cli.md; spec 2.2, 4.2; decisions §4): the noun and its verbs. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import * as audit from './audit.js';
import * as del from './delete.js';
import * as download from './download.js';
import * as exportVerb from './export.js';
import * as get from './get.js';
import * as list from './list.js';
import * as order from './order.js';
import * as sync from './sync.js';
import * as upload from './upload.js';

/** Adds the `images` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('images').description('part images: upload, list, download, display order, audit');
  for (const verb of [upload, sync, exportVerb, list, get, download, del, order, audit]) verb.declare(noun, invoke);
  return noun;
}
