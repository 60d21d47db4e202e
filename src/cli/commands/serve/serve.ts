/** `catalog serve`: the HTTP API of api-spec.md over the local data directory. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import { intInRange, positiveInt, type Invoke } from '../../runner.js';

interface ServeFlags {
  host: string;
  port: number;
  maxImageMb?: number;
  maxUploadMb?: number;
  maxImageDefinitions?: number;
  accessLog?: string;
}

/** Declares `catalog serve` on the program. */
export function declare(program: Command, invoke: Invoke): Command {
  return program
    .command('serve')
    .description('serve the catalog HTTP API over the local data directory (needs a token first: catalog tokens create); stops on Ctrl-C or SIGTERM')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port, 0..65535 (0 = any free port)', intInRange(0, 65535), 8080)
    .option('--max-image-mb <n>', 'largest image file in MiB (default 20)', positiveInt)
    .option('--max-upload-mb <n>', 'largest image upload request in MiB (default 256)', positiveInt)
    .option('--max-image-definitions <n>', 'image definitions per upload (default 1000)', positiveInt)
    .option('--access-log <file>', 'append the access log (one line per request) to this file instead of stderr')
    .action(async (_o: unknown, command: Command) => {
      const flags = command.opts<ServeFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** Serves until SIGINT/SIGTERM. A port in use or a bad data directory exits 2 (src/cli/environment-errors.ts). */
export async function run(ctx: CommandContext, flags: ServeFlags): Promise<number> {
  if (ctx.config.remote.value !== undefined) throw new UsageError('serve works on a local data directory; drop --remote / CATALOG_URL');
  const imageLimits = {
    ...(flags.maxImageMb !== undefined ? { maxFileBytes: flags.maxImageMb * 1024 * 1024 } : {}),
    ...(flags.maxUploadMb !== undefined ? { maxRequestBytes: flags.maxUploadMb * 1024 * 1024 } : {}),
    ...(flags.maxImageDefinitions !== undefined ? { maxDefinitions: flags.maxImageDefinitions } : {}),
  };
  const dataDir = ctx.config.dataDir.value;
  const [{ prepareDataDir }, { startServer, closeOnSignals }] = await Promise.all([import('../../data-dir.js'), import('../../../http/server.js')]);
  prepareDataDir(dataDir);
  const accessLog = flags.accessLog !== undefined ? await openAccessLog(resolve(ctx.io.cwd, flags.accessLog)) : undefined;
  const server = await startServer({ dataDir, host: flags.host, port: flags.port, imageLimits, ...(accessLog ? { accessLog } : {}) });
  ctx.io.stderr.write(`catalog serving ${dataDir} at ${server.url} (Ctrl-C to stop)\n`);
  await closeOnSignals(server, ctx.io.stderr);
  if (accessLog) await new Promise<void>((done) => accessLog.end(done));
  return EXIT.OK;
}

/**
 * Opens the access log for appending before the server starts, so a path that cannot be written
 * fails at once (a UsageError naming it, exit 2) rather than on the first request.
 */
async function openAccessLog(path: string): Promise<NodeJS.WritableStream & { end(cb?: () => void): unknown }> {
  const { openSync, createWriteStream } = await import('node:fs');
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (error) {
    throw new UsageError(`cannot write --access-log ${path}: ${(error as Error).message}`);
  }
  return createWriteStream(path, { fd, flags: 'a' });
}
