/** `catalog maintenance off` (catalogAdmin; decisions §7): writes are accepted again. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import { declareSwitch } from './switch.js';

/** Declares the verb on the `maintenance` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareSwitch(noun, invoke, false);
}
