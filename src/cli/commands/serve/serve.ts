/** `catalog serve`: the HTTP API of api-spec.md over the local data directory. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CatalogError } from '../../../api/errors.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import { intInRange, positiveInt, type Invoke } from '../../runner.js';
import { TWO_TYPOS_MIN_LENGTH, TYPO_MIN_LENGTH } from '../../../core/search/typo.js';

interface ServeFlags {
  host: string;
  port: number;
  maxImageMb?: number;
  maxUploadMb?: number;
  maxImageDefinitions?: number;
  accessLog?: string;
  readers?: number;
  maxSessionsPerToken?: number;
  maxSessionMb?: number;
  typoMinLength?: number;
  twoTyposMinLength?: number;
  facetValues?: number;
  maxQueryPixels?: number;
  decodeConcurrency?: number;
  decodeQueue?: number;
  maxPartsBodyMb?: number;
  maxAttributesBodyMb?: number;
  maxRelationsBodyMb?: number;
  maxBodyMb?: number;
  requestTimeout?: number;
  headersTimeout?: number;
  keepAliveTimeout?: number;
  maxConnections?: number;
  publicMetrics?: boolean;
  webhookTimeout?: number;
}

const MIB = 1024 * 1024;

/** Only the flags that were given, so every other limit keeps its documented default (docs/api.md). */
function given<T extends Record<string, number | undefined>>(values: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: number };
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
    .option('--readers <n>', 'reader threads for reads and text searches, besides one writer thread (default: CPUs, at most 4; with --database-url a writer thread only; 0 = all on the main thread)', intInRange(0, 64))
    .option('--max-sessions-per-token <n>', 'live search sessions per token; older ones are evicted (default 1000)', positiveInt)
    .option('--typo-min-length <n>', 'search words of at least n letters tolerate one typo (default 5)', positiveInt)
    .option('--two-typos-min-length <n>', 'search words of at least n letters tolerate two typos (default 9)', positiveInt)
    .option('--facet-values <n>', 'values per facet when a search does not say (default 10)', positiveInt)
    .option('--max-session-mb <n>', 'space all search sessions may take, in MiB (default 128)', positiveInt)
    .option('--max-query-pixels <n>', 'largest query image of an image search, width × height (default 50000000)', positiveInt)
    .option('--decode-concurrency <n>', 'image decodes at once (default: half the CPUs, 1 to 3)', positiveInt)
    .option('--decode-queue <n>', 'query images that may wait for a decode; beyond, 503 (default 16)', intInRange(0))
    .option('--max-parts-body-mb <n>', 'largest JSON body of POST /1/catalog/parts in MiB (default 16)', positiveInt)
    .option('--max-attributes-body-mb <n>', 'largest JSON body of POST /1/catalog/attributes in MiB (default 8)', positiveInt)
    .option('--max-relations-body-mb <n>', 'largest JSON body of POST /v1/parts/relations in MiB (default 4)', positiveInt)
    .option('--max-body-mb <n>', 'largest JSON body of every other endpoint in MiB (default 2)', positiveInt)
    .option('--request-timeout <s>', 'seconds a whole request may take to arrive (default 120)', positiveInt)
    .option('--headers-timeout <s>', 'seconds the headers may take to arrive (default 10)', positiveInt)
    .option('--keep-alive-timeout <s>', 'seconds an idle keep-alive connection stays open (default 5)', positiveInt)
    .option('--max-connections <n>', 'open connections at once (default 1024)', positiveInt)
    .option('--public-metrics', 'serve GET /metrics without a token (default: a token allowed the metrics scope; /healthz and /readyz never need one)')
    .option('--webhook-timeout <ms>', 'how long a webhook receiver may take to answer; a delivery in flight is retried after twice this when its server died (default 10000)', positiveInt)
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
  const { databaseUrl, blobUrl } = { databaseUrl: ctx.config.databaseUrl.value, blobUrl: ctx.config.blobUrl.value };
  // A data directory that does not exist holds no token either: refused as the server would refuse
  // an empty one, before anything is created (a typo in --data-dir leaves no stray directory).
  if (databaseUrl === undefined && !existsSync(dataDir)) {
    throw new CatalogError('unauthorized', `no access token exists in ${dataDir} (the directory does not exist), so no one could call this server. Create one first:\n  catalog tokens create --data-dir ${dataDir} --name admin --role catalogAdmin`);
  }
  if (databaseUrl === undefined || blobUrl === undefined) prepareDataDir(dataDir);
  const { openAccessLog } = await import('./access-log.js');
  const accessLog = openAccessLog(flags.accessLog !== undefined ? resolve(ctx.io.cwd, flags.accessLog) : undefined, (message) => ctx.io.stderr.write(`catalog serve: ${message}\n`));
  const mib = (n: number | undefined) => (n === undefined ? undefined : n * MIB);
  const seconds = (n: number | undefined) => (n === undefined ? undefined : n * 1000);
  const searchLimits = {
    ...given({ maxSessionsPerToken: flags.maxSessionsPerToken, maxSessionBytes: mib(flags.maxSessionMb), facetValues: flags.facetValues }),
    ...(flags.typoMinLength !== undefined || flags.twoTyposMinLength !== undefined
      ? { typoRules: { oneTypoMinLength: flags.typoMinLength ?? TYPO_MIN_LENGTH, twoTyposMinLength: flags.twoTyposMinLength ?? TWO_TYPOS_MIN_LENGTH } }
      : {}),
  };
  const imageSearchLimits = given({ maxQueryPixels: flags.maxQueryPixels, decodeConcurrency: flags.decodeConcurrency, maxQueuedDecodes: flags.decodeQueue });
  const jsonBody = given({ parts: mib(flags.maxPartsBodyMb), attributes: mib(flags.maxAttributesBodyMb), relations: mib(flags.maxRelationsBodyMb), other: mib(flags.maxBodyMb) });
  const limits = {
    ...given({ requestTimeoutMs: seconds(flags.requestTimeout), headersTimeoutMs: seconds(flags.headersTimeout), keepAliveTimeoutMs: seconds(flags.keepAliveTimeout), maxConnections: flags.maxConnections }),
    jsonBody,
  };
  const server = await startServer({
    dataDir, databaseUrl, blobUrl, host: flags.host, port: flags.port, imageLimits, searchLimits, imageSearchLimits, limits, readers: flags.readers,
    accessLog, publicMetrics: flags.publicMetrics === true,
    ...(flags.webhookTimeout !== undefined ? { webhooks: { timeoutMs: flags.webhookTimeout, leaseMs: 2 * flags.webhookTimeout } } : {}),
    // A large catalog takes seconds before it listens: say what it is doing meanwhile, to a person
    // watching (as the import's progress: a log gets the one line that it serves, or the error).
    ...((ctx.io.stderr as NodeJS.WriteStream).isTTY === true
      ? {
          onStage: (stage: string) => ctx.info(`catalog serve: ${stage}…`),
          onListening: (url: string) => ctx.info(`catalog serve: accepting connections at ${url} (GET /healthz answers; requests wait until it is ready)`),
        }
      : {}),
  }).catch(async (error: unknown) => {
    await accessLog.close();
    throw error;
  });
  // Never echo a database password: name the host and database only.
  const where = databaseUrl !== undefined ? `PostgreSQL ${new URL(databaseUrl).host}${new URL(databaseUrl).pathname}${blobUrl !== undefined ? ` and ${blobUrl}` : ''}` : dataDir;
  ctx.io.stderr.write(`catalog serving ${where} at ${server.url} (Ctrl-C to stop)\n`);
  await closeOnSignals(server, ctx.io.stderr);
  await accessLog.close();
  return EXIT.OK;
}

