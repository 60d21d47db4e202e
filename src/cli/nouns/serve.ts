/** `catalog serve` : the HTTP API over the local data directory. */
import type { Command } from 'commander';
import { UsageError } from '../output/usage-error.js';
import { positiveInt, type Invoke } from '../runner.js';

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new Error(`--port must be 0..65535, got '${value}'`);
  return Number(value);
}

export function registerServe(program: Command, invoke: Invoke): void {
  program
    .command('serve')
    .description('serve the catalog API of api-spec.md over the data directory (needs a token: catalog tokens create)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 = any free port)', port, 8080)
    .option('--max-image-mb <n>', 'largest image file in MiB (default 20)', positiveInt('--max-image-mb'))
    .option('--max-upload-mb <n>', 'largest image upload request in MiB (default 256)', positiveInt('--max-upload-mb'))
    .option('--max-image-definitions <n>', 'image definitions per upload (default 1000)', positiveInt('--max-image-definitions'))
    .action(async (_o: unknown, command: Command) => {
      const opts = command.opts<{ host: string; port: number; maxImageMb?: number; maxUploadMb?: number; maxImageDefinitions?: number }>();
      const imageLimits = {
        ...(opts.maxImageMb !== undefined ? { maxFileBytes: opts.maxImageMb * 1024 * 1024 } : {}),
        ...(opts.maxUploadMb !== undefined ? { maxRequestBytes: opts.maxUploadMb * 1024 * 1024 } : {}),
        ...(opts.maxImageDefinitions !== undefined ? { maxDefinitions: opts.maxImageDefinitions } : {}),
      };
      await invoke(command, async (ctx) => {
        if (ctx.config.remote.value !== undefined) throw new UsageError('serve works on a local data directory; drop --remote / CATALOG_URL');
        const { startServer, closeOnSignals } = await import('../../http/server.js');
        const server = await startServer({ dataDir: ctx.config.dataDir.value, host: opts.host, port: opts.port, imageLimits });
        ctx.io.stderr.write(`catalog serving ${ctx.config.dataDir.value} at ${server.url} (Ctrl-C to stop)\n`);
        await closeOnSignals(server, ctx.io.stderr);
        return 0;
      });
    });
}
