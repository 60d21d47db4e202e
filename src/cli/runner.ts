/**
 * The glue between commander and command modules: a command module exports `run(ctx, ...)`
 * returning its exit code; `Invoke` turns the parsed command into a context and calls it.
 */
import type { Command } from 'commander';
import type { CommandContext } from './context.js';

/** A command body: does its work and returns the exit code (cli.md "Exit codes"). */
export type Runner = (ctx: CommandContext) => Promise<number>;

/** Runs `runner` with the context of the parsed command `command` (its options merged with the globals). */
export type Invoke = (command: Command, runner: Runner) => Promise<void>;

/** Collects a repeatable option into an array (`--role a --role b`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Parses a positive integer option; commander shows the message as a usage error. */
export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`${name} must be a positive integer, got '${value}'`);
    return Number(value);
  };
}
