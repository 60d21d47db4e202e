/**
 * The glue between commander and verb modules: a verb's run function returns its exit code;
 * `Invoke` turns the parsed command into a context and calls it. Also the option parsers shared by
 * the verbs. Kept light: every verb declaration imports it at start-up.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { CommandContext } from './context.js';

/** A command body: does its work and returns the exit code (src/cli/exit-codes.ts). */
export type Runner = (ctx: CommandContext) => Promise<number>;

/** Runs `runner` with the context of the parsed command `command` (its options merged with the globals). */
export type Invoke = (command: Command, runner: Runner) => Promise<void>;

/**
 * Declares a verb that takes no arguments and no options of its own (`maintenance status`,
 * `tokens list`, `config`): its name, description and run function, nothing else to repeat.
 */
export function declareSimpleVerb(parent: Command, invoke: Invoke, name: string, description: string, run: Runner): Command {
  return parent
    .command(name)
    .description(description)
    .action(async (_o: unknown, command: Command) => {
      await invoke(command, run);
    });
}

/** Collects a repeatable option into an array (`--role a --role b`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * An option parser for an integer in `[min, max]`. A bad value throws commander's
 * InvalidArgumentError, which commander reports as `error: option '--x <n>' argument 'v' is
 * invalid. ...` and src/cli/main.ts turns into exit 2.
 */
export function intInRange(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `Expected an integer of at least ${min}.` : `Expected an integer from ${min} to ${max}.`);
    }
    return n;
  };
}

/** An option parser for a positive integer (1, 2, ...). */
export const positiveInt = intInRange(1);
