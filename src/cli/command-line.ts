/**
 * Commands the CLI prints for the user to run (design/cli.md, "Conventions"): the resume command of
 * a bulk run, the next page of a search. Each repeats the global options in force (`--data-dir`,
 * `--remote`, `--profile`, `--token-file`, `-o`; never a `--token` value, which is a secret) and the
 * command's own options as the user gave them, every word quoted for a POSIX shell, so that copying
 * the line works in another shell too.
 *
 * Quoting is POSIX single quotes, as Python's `shlex.quote` does (the norm of the field; no library
 * is needed for one rule): a word of safe characters stays as it is, any other is wrapped in `'…'`
 * with each `'` written as `'"'"'`.
 */
import type { Command } from 'commander';
import type { CommandContext } from './context.js';

/** Characters that never need quoting in a POSIX shell word. */
const SAFE_WORD = /^[A-Za-z0-9@%+=:,./_-]+$/;

/**
 * Quotes one word for a POSIX shell (sh, bash, zsh, dash): `a b` → `'a b'`, `it's` → `'it'"'"'s'`,
 * `` → `''`. Words of only `[A-Za-z0-9@%+=:,./_-]` are returned unchanged.
 */
export function shellQuote(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

/** Joins words into one shell command line, each quoted by {@link shellQuote}. */
export function shellJoin(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/** What to change in a rebuilt command line. */
export interface CommandLineChanges {
  /** Positional arguments of the command, as the user gave them (default none). */
  args?: readonly string[];
  /**
   * Options to set (by commander attribute name, e.g. `resume`, `page`): `true` adds the flag,
   * a string or number adds `--flag value`, `undefined` or `false` drops it.
   */
  set?: Readonly<Record<string, string | number | boolean | undefined>>;
}

/** The words of the global options in force: from flags, or from the environment (which another shell may lack). */
function globalWords(ctx: CommandContext): string[] {
  const words: string[] = [];
  const { config, flags } = ctx;
  if (config.profile.value !== undefined && (config.profile.source === 'flag' || config.profile.source === 'env')) words.push('--profile', config.profile.value);
  if (config.remote.value !== undefined) {
    if (config.remote.source === 'flag' || config.remote.source === 'env') words.push('--remote', config.remote.value);
    // The token's secret is never printed: a token file is named, CATALOG_TOKEN stays in the environment.
    if (flags.tokenFile !== undefined && flags.token === undefined) words.push('--token-file', flags.tokenFile);
  } else if (config.dataDir.source === 'flag') {
    words.push('--data-dir', flags.dataDir ?? config.dataDir.value);
  } else if (config.dataDir.source === 'env') {
    words.push('--data-dir', config.dataDir.value);
  }
  // Where image originals live (S3) is no secret; a database URL may hold a password and is left to the environment.
  if (config.blobUrl.value !== undefined && (config.blobUrl.source === 'flag' || config.blobUrl.source === 'env')) words.push('--blob-url', config.blobUrl.value);
  if (flags.output !== undefined) words.push('-o', flags.output);
  return words;
}

/** The `catalog <noun> <verb>` path of `command`. */
function commandPath(command: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  names[0] = 'catalog';
  return names;
}

/** The words of `command`'s own options that the user gave on the command line, with `changes.set` applied. */
function optionWords(command: Command, set: Readonly<Record<string, string | number | boolean | undefined>>): string[] {
  const words: string[] = [];
  const push = (flag: string, value: unknown): void => {
    if (value === undefined || value === false) return;
    if (value === true) words.push(flag);
    else if (Array.isArray(value)) for (const v of value) words.push(flag, String(v));
    else words.push(flag, String(value));
  };
  // The options set by the caller first, in the caller's order (`--session <id> --page 3`), then the
  // ones the user gave, in the command's order.
  for (const [name, value] of Object.entries(set)) {
    const option = command.options.find((o) => o.attributeName() === name);
    push(option?.long ?? option?.short ?? `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, value);
  }
  for (const option of command.options) {
    const name = option.attributeName();
    const flag = option.long ?? option.short ?? '';
    if (Object.hasOwn(set, name)) continue;
    if (command.getOptionValueSource(name) !== 'cli') continue;
    const value: unknown = command.getOptionValue(name);
    // A negatable option (`--no-x`) stores false when given.
    if (option.negate) {
      if (value === false) words.push(flag);
      continue;
    }
    push(flag, value);
  }
  return words;
}

/**
 * Rebuilds the command line of the running `command` for the user to run again: `catalog`, the
 * global options in force (see the module doc), the noun and verb, `changes.args`, then the
 * command's own options as given (commander's value sources tell which were typed) with
 * `changes.set` applied. Every word is shell-quoted.
 *
 * Example: `catalog --data-dir '/tmp/my data' parts import parts.csv --batch-size 500 --resume`.
 */
export function commandLine(command: Command, ctx: CommandContext, changes: CommandLineChanges = {}): string {
  const path = commandPath(command);
  const words = [path[0] ?? 'catalog', ...globalWords(ctx), ...path.slice(1), ...(changes.args ?? []), ...optionWords(command, changes.set ?? {})];
  return shellJoin(words);
}

/**
 * Another command to suggest (e.g. after an export, the upload that takes it back): `catalog`, the
 * global options in force, then `words`, every word shell-quoted.
 */
export function suggestedCommand(ctx: CommandContext, words: readonly string[]): string {
  return shellJoin(['catalog', ...globalWords(ctx), ...words]);
}
