/**
 * What every command receives: the streams, the resolved configuration, the output format, and a
 * lazily opened CatalogClient (local data directory or remote server). Heavy modules (undici,
 * better-sqlite3 + the core) load only when a command first asks for a client.
 */
import type { CatalogClient } from '../client/types.js';
import { resolveConfig, type CliConfig, type GlobalFlags } from './config.js';
import type { CliIo } from './io.js';
import { resolveFormat, type OutputFormat } from './output/format.js';
import { colorEnabled } from './output/color.js';

export interface CommandContext {
  io: CliIo;
  config: CliConfig;
  flags: GlobalFlags & { fields?: string; color?: boolean; quiet?: boolean; rawCsv?: boolean };
  /** Output format for data on stdout. */
  format: OutputFormat;
  /** Whether to colour output (NO_COLOR, --no-color, TTY). */
  color: boolean;
  /** Opens the client for the configured mode (once). */
  client(): Promise<CatalogClient>;
  /** Closes the client if one was opened. */
  close(): Promise<void>;
  /** Writes a line to stderr unless --quiet. */
  info(line: string): void;
}

/** Builds the context of one command run. Throws UsageError for bad configuration. */
export function createContext(io: CliIo, flags: CommandContext['flags']): CommandContext {
  const config = resolveConfig(flags, io.env, io.cwd);
  const format = resolveFormat(config.output.value, io.stdout.isTTY === true);
  let opened: Promise<CatalogClient> | undefined;
  const color = colorEnabled(io.stderr as NodeJS.WriteStream, { color: flags.color !== false }, io.env);
  return {
    io,
    config,
    flags,
    format,
    color,
    client() {
      opened ??= openClient(config);
      return opened;
    },
    async close() {
      if (opened) await (await opened).close();
    },
    info(line: string) {
      if (!flags.quiet) io.stderr.write(`${line}\n`);
    },
  };
}

async function openClient(config: CliConfig): Promise<CatalogClient> {
  if (config.remote.value !== undefined) {
    const { HttpCatalogClient } = await import('../client/http-client.js');
    return new HttpCatalogClient({ url: config.remote.value, token: config.token.value });
  }
  const [{ openLocalCatalog }, { LocalCatalogClient }] = await Promise.all([import('./local-catalog.js'), import('../client/local-client.js')]);
  return new LocalCatalogClient(await openLocalCatalog(config.dataDir.value, { databaseUrl: config.databaseUrl.value, blobUrl: config.blobUrl.value }));
}
