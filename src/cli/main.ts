/**
 * The CLI entry point and the ONLY place that decides the process exit code (design/cli.md, "Exit
 * codes"; the codes live in ./exit-codes.ts). CatalogError codes map to exit codes through
 * src/api/errors.ts; usage errors (ours and commander's) exit 2; mistakes of the environment (busy
 * or full database, port in use, bad path) get a message naming the path or port
 * (./environment-errors.ts); anything else is a bug and says so, with versions.
 */
import { CommanderError, type Command } from 'commander';
import { CatalogError, ERROR_CODES } from '../api/errors.js';
import type { CommandContext } from './context.js';
import { classifyEnvironmentError, type ErrorScene } from './environment-errors.js';
import { EXIT } from './exit-codes.js';
import { processIo, type CliIo } from './io.js';
import { InputReadError } from './import/input-read-error.js';
import { installEpipeHandler } from './output/epipe.js';
import { UsageError } from './output/usage-error.js';
import { buildProgram, invokedCommand, VERSION } from './program.js';
import type { Runner } from './runner.js';

/** Explains an error on stderr and returns its exit code. `scene` names the data directory in force. */
export function reportError(error: unknown, io: CliIo, scene: ErrorScene = {}): number {
  if (error instanceof CatalogError) {
    io.stderr.write(`error: ${error.detail}\n`);
    // A detail that already names every problem (most do) is not followed by the same text again.
    for (const p of error.errors ?? []) if (!error.detail.includes(`${p.path}: ${p.message}`)) io.stderr.write(`  ${p.path}: ${p.message}\n`);
    return ERROR_CODES[error.code].exitCode;
  }
  if (error instanceof UsageError) {
    io.stderr.write(`error: ${error.message}\n`);
    return EXIT.USAGE;
  }
  if (error instanceof InputReadError) {
    io.stderr.write(`error: ${error.message}\n`);
    return EXIT.ERROR;
  }
  const environment = classifyEnvironmentError(error, scene);
  if (environment) {
    io.stderr.write(`error: ${environment.message}\n`);
    return environment.exitCode;
  }
  const err = error as Error;
  io.stderr.write(
    `bug: an unexpected error occurred; please report it with this text.\n` +
      `catalog ${VERSION}, node ${process.version}, ${process.platform}-${process.arch}\n${err?.stack ?? String(error)}\n`,
  );
  return EXIT.ERROR;
}

/**
 * Applies the parse settings to every command of the tree: commander throws instead of exiting (so
 * its usage errors become exit 2 here), writes to `io`, suggests near misses ("did you mean") for
 * commands and options, and refuses excess arguments.
 */
function configureTree(command: Command, io: CliIo): void {
  command
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showSuggestionAfterError(true)
    .allowExcessArguments(false);
  const verbs = command.commands.map((c) => c.name());
  if (verbs.length > 0) {
    // A noun without its verb: commander prints the help as an error; lead it with an error line
    // like its other usage errors (the exit code is 2 below).
    command.addHelpText('before', ({ error }) => (error ? `error: missing command for '${command.name()}'; one of: ${verbs.join(', ')}\n` : ''));
  }
  for (const sub of command.commands) configureTree(sub, io);
}

/**
 * Runs the CLI with `argv` (as process.argv: node, script, args...) and returns the exit code.
 * Tests call it in-process with their own `io`.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let code: number = EXIT.OK;
  const invoke = async (command: Command, runner: Runner) => {
    let ctx: CommandContext | undefined;
    const scene = (): ErrorScene => (ctx && ctx.config.remote.value === undefined ? { dataDir: ctx.config.dataDir.value } : {});
    try {
      // Loaded here, not at start-up: the configuration needs zod, which `--version` and `--help` do not.
      const { createContext } = await import('./context.js');
      ctx = createContext(io, command.optsWithGlobals());
      // A catalog in PostgreSQL does not live in the data directory.
      if (ctx.config.remote.value === undefined && ctx.config.databaseUrl.value === undefined) {
        const { READ_VERBS, assertDataDirExists } = await import('./local-catalog.js');
        if (READ_VERBS.has(command.name())) assertDataDirExists(ctx.config.dataDir.value);
      }
      code = await runner(ctx);
    } catch (error) {
      code = reportError(error, io, scene());
      if (error instanceof CatalogError && error.code === 'unauthorized' && ctx?.config.remote.value !== undefined && ctx.config.token.value === undefined) {
        io.stderr.write('hint: remote mode needs a token: set CATALOG_TOKEN or pass --token-file <file>\n');
      }
    } finally {
      try {
        await ctx?.close();
      } catch (error) {
        if (code === EXIT.OK) code = reportError(error, io, scene());
      }
    }
  };
  // Only the command being run (all of them for help, a typo's did-you-mean or completion).
  const only = invokedCommand(argv.slice(2));
  const program = buildProgram(invoke, only === 'completion' ? undefined : only);
  configureTree(program, io);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version "fail" with exit code 0; every other commander error is a usage error
      // (unknown command or option, missing argument, invalid value, a noun without its verb).
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    return reportError(error, io);
  }
  return code;
}

/** The `bin/catalog.js` entry: runs and sets process.exitCode. */
export async function main(argv: readonly string[]): Promise<void> {
  installEpipeHandler(process.stdout);
  process.exitCode = await runCli(argv);
}
