/**
 * The CLI entry point and the ONLY place that decides the process exit code (design/cli.md).
 * CatalogError codes map to exit codes through src/api/errors.ts; usage errors exit 2; anything
 * else is a bug and says so, with versions.
 */
import { CommanderError, type Command } from 'commander';
import { CatalogError, ERROR_CODES } from '../api/errors.js';
import { createContext, type CommandContext } from './context.js';
import { processIo, type CliIo } from './io.js';
import { installEpipeHandler } from './output/epipe.js';
import { UsageError } from './output/usage-error.js';
import { buildProgram, VERSION } from './program.js';
import type { Runner } from './runner.js';

/** Exit code of an interrupted run (Ctrl-C). */
export const EXIT_INTERRUPTED = 130;

/** Explains an error on stderr and returns its exit code. */
export function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CatalogError) {
    io.stderr.write(`error: ${error.detail}\n`);
    for (const p of error.errors ?? []) io.stderr.write(`  ${p.path}: ${p.message}\n`);
    return ERROR_CODES[error.code].exitCode;
  }
  if (error instanceof UsageError) {
    io.stderr.write(`usage error: ${error.message}\n`);
    return 2;
  }
  const err = error as Error;
  io.stderr.write(
    `bug: an unexpected error occurred; please report it with this text.\n` +
      `catalog ${VERSION}, node ${process.version}, ${process.platform}-${process.arch}\n${err?.stack ?? String(error)}\n`,
  );
  return 1;
}

/**
 * Runs the CLI with `argv` (as process.argv: node, script, args...) and returns the exit code.
 * Tests call it in-process with their own `io`.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let code = 0;
  const invoke = async (command: Command, runner: Runner) => {
    let ctx: CommandContext | undefined;
    try {
      ctx = createContext(io, command.optsWithGlobals());
      code = await runner(ctx);
    } catch (error) {
      code = reportError(error, io);
      if (error instanceof CatalogError && error.code === 'unauthorized' && ctx?.config.remote.value !== undefined && ctx.config.token.value === undefined) {
        io.stderr.write('hint: remote mode needs a token: set CATALOG_TOKEN or pass --token-file <file>\n');
      }
    } finally {
      try {
        await ctx?.close();
      } catch (error) {
        if (code === 0) code = reportError(error, io);
      }
    }
  };
  const program = buildProgram(invoke);
  program.exitOverride();
  program.configureOutput({
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => io.stderr.write(s),
  });
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version "fail" with exit code 0.
      return error.exitCode === 0 ? 0 : 2;
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
