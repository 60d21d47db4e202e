/** `catalog maintenance on` (catalogAdmin; decisions §7): while on, every catalog write answers 503. */
import type { Command } from 'commander';
import type { Invoke } from '../../runner.js';
import { declareSwitch } from './switch.js';

/** Declares the verb on the `maintenance` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareSwitch(noun, invoke, true);
}
