/**
 * `catalog serve`: the HTTP API over a data directory, with graceful shutdown on SIGINT/SIGTERM.
 */
import type { FastifyInstance } from 'fastify';
import { CatalogError } from '../api/errors.js';
import { openCatalog, openCatalogAt } from '../open-catalog.js';
import type { Catalog } from '../core/services.js';
import type { ImageLimits } from '../core/images/service.js';
import type { ImageSearchLimits } from '../adapters/images/image-search.js';
import type { SearchLimits } from '../core/search/service.js';
import { buildApp, type AccessLogSink, type AppOptions } from './app.js';
import { StartupGate } from './startup-gate.js';
import { MAIN_THREAD_POSTING_CACHE, poolCatalog } from './pool/pooled-catalog.js';
import { SessionBatcher } from './pool/session-batcher.js';
import { WebhookDeliverer, type DelivererOptions } from './webhooks/deliverer.js';
import { ThreadLock } from '../adapters/sqlite/thread-lock.js';
import { WriteTurns } from '../adapters/sqlite/write-turns.js';
import { startSessionWriterThread } from '../adapters/sqlite/session-writer/session-writer-thread.js';

export interface ServeOptions {
  dataDir: string;
  /** The catalog in PostgreSQL instead of dataDir (docs/deploy.md). */
  databaseUrl?: string | undefined;
  /** Image originals in S3-compatible storage instead of dataDir/images. */
  blobUrl?: string | undefined;
  host: string;
  port: number;
  /** Access log sink (default stderr); null for none. */
  accessLog?: AccessLogSink | null;
  /** Image upload limits (decisions §9). */
  imageLimits?: Partial<ImageLimits>;
  /** Search session budget (per token, total bytes, purge interval, docs/api.md). */
  searchLimits?: Partial<SearchLimits>;
  /** Query-image pixel limit and decode pool (docs/api.md). */
  imageSearchLimits?: Partial<ImageSearchLimits>;
  /** Timeouts, connection cap, JSON body limits per endpoint (src/http/limits.ts, docs/api.md). */
  limits?: AppOptions['limits'];
  /**
   * Reader threads for reads and text searches, besides one writer thread (pool/pooled-catalog.ts);
   * default: the machine's parallelism, at most 4. 0 runs everything on the main thread. On
   * PostgreSQL (`databaseUrl`) reads and searches run on the main thread whatever the number, and
   * writes on a writer thread unless it is 0.
   */
  readers?: number | undefined;
  /** Writes that may wait for the writer thread (pool/pooled-catalog.ts DEFAULT_MAX_QUEUED_WRITES); beyond, a 503 with Retry-After. */
  maxQueuedWrites?: number | undefined;
  /** Serve `GET /metrics` without a token (AppOptions `metrics`; `catalog serve --public-metrics`). Default false. */
  publicMetrics?: boolean | undefined;
  /** How webhooks are delivered (src/http/webhooks/deliverer.ts; defaults there). */
  webhooks?: DelivererOptions | undefined;
  /**
   * Hears what the start-up is doing before it listens (`opening the catalog`, `loading the search
   * index on 4 reader threads`): on a large catalog that takes seconds, and `catalog serve` says so.
   */
  onStage?: ((stage: string) => void) | undefined;
  /**
   * Hears the URL as soon as the server accepts connections, before it can answer API requests
   * (startup-gate.ts): `GET /healthz` answers from then on, `GET /readyz` once it is ready.
   */
  onListening?: ((url: string) => void) | undefined;
}

/**
 * How old an unreferenced image original or temp object in SHARED object storage must be before a
 * sweep removes it: far longer than any upload takes from its put to its metadata commit (requests
 * time out after 120 s by default), so no server's upload in flight loses its blob.
 */
export const SHARED_BLOB_GRACE_MS = 60 * 60 * 1000;
/** How often a server sweeps shared object storage for orphans older than the grace period. */
export const SHARED_BLOB_SWEEP_INTERVAL_MS = 30 * 60 * 1000;

export interface RunningServer {
  app: FastifyInstance;
  catalog: Catalog;
  /** The URL the server listens on, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Stops accepting connections, finishes in-flight requests, closes the database. */
  close(): Promise<void>;
}

/**
 * Opens the catalog, listens, and resolves once the server can answer (the crash sweep done, the
 * reader threads loaded); meanwhile it accepts connections and answers probes. Throws a CatalogError (unauthorized) when no token exists: a
 * server nobody can call is a mistake, and the message says how to create one.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const catalogOptions = {
    dataDir: options.dataDir,
    ...(options.imageLimits ? { imageLimits: options.imageLimits } : {}),
    ...(options.searchLimits ? { searchLimits: options.searchLimits } : {}),
    ...(options.imageSearchLimits ? { imageSearchLimits: options.imageSearchLimits } : {}),
    // One sessions.db write lock for the main and the reader threads (adapters/sqlite/thread-lock.ts).
    sessionWriteLock: ThreadLock.newBuffer(),
  };
  // PostgreSQL and S3 do their work in other processes and their drivers never block the event
  // loop, so such a catalog is read and searched on the main thread (no reader threads). Writes to
  // PostgreSQL go to a writer thread of their own (docs/decisions/0038): each of a write's
  // statements holds the catalog write lock until its answer is read, and on the main thread that
  // waited for every turn of the event loop's ranking.
  const external = options.databaseUrl !== undefined || options.blobUrl !== undefined;
  const threaded = options.readers !== 0 && !external;
  const writerThread = options.readers !== 0 && options.databaseUrl !== undefined;
  // With threads, this thread's sessions are stored by a thread of their own: the SQLite write
  // left the event loop (~0.2-0.4 ms of a ~1.1 ms rare-word search).
  const stage = options.onStage ?? (() => undefined);
  stage('opening the catalog');
  const catalogWriteTurns = WriteTurns.newBuffer();
  const sessionThread = threaded ? startSessionWriterThread(options.dataDir, catalogOptions.sessionWriteLock) : undefined;
  const plain = external
    ? await openCatalogAt({ ...catalogOptions, databaseUrl: options.databaseUrl, blobUrl: options.blobUrl })
    // Sessions of this thread's searches are read through it alone (pooled-catalog.ts flushes them
    // before a reader thread pages one), so they are stored after answering. With threads, this
    // thread's searches are cheap ones (pooled-catalog.ts): small lists only.
    : openCatalog({
        ...catalogOptions,
        // This thread's own writes to catalog.db take turns with the writer thread's (write-turns.ts).
        ...(threaded ? { catalogWriteTurns } : {}),
        sessionSink: (sessions, clock) => new SessionBatcher({ sessions, clock, writer: sessionThread?.write }),
        ...(threaded ? { searchTuning: { postingCache: MAIN_THREAD_POSTING_CACHE } } : {}),
      });
  // The catalog's close stores its pending sessions through the thread, which then stops.
  const closeCatalog = async (catalog: Catalog): Promise<void> => {
    await catalog.close();
    await sessionThread?.close();
  };
  // sessions.db exists now (the catalog created it): the thread opens it before the first search.
  sessionThread?.start();
  if ((await plain.service.countTokens()) === 0) {
    await closeCatalog(plain);
    throw new CatalogError(
      'unauthorized',
      `no access token exists in ${options.databaseUrl !== undefined ? 'the PostgreSQL catalog' : options.dataDir}, so no one could call this server. Create one first:\n` +
        `  catalog tokens create ${options.databaseUrl !== undefined ? '--database-url <the same URL>' : `--data-dir ${options.dataDir}`} --name admin --role catalogAdmin`,
    );
  }
  let catalog: Catalog = plain;
  let deliverer: WebhookDeliverer | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  const pooled = threaded
    ? poolCatalog(plain, { catalog: catalogOptions, readers: options.readers, maxQueuedWrites: options.maxQueuedWrites, writeTurns: catalogWriteTurns })
    : writerThread
      ? poolCatalog(plain, { catalog: { ...catalogOptions, databaseUrl: options.databaseUrl, blobUrl: options.blobUrl }, readers: 0, maxQueuedWrites: options.maxQueuedWrites })
      : undefined;
  if (pooled) catalog = pooled;
  // The server listens before it can answer (startup-gate.ts): probes see it alive at once, and API
  // requests wait for the sweep and the threads below.
  const startup = new StartupGate();
  const enter = (name: string) => {
    startup.enter(name);
    stage(name);
  };
  const app = buildApp({
    catalog,
    ...(options.accessLog !== undefined ? { accessLog: options.accessLog } : {}), ...(options.limits ? { limits: options.limits } : {}),
    metrics: { public: options.publicMetrics ?? false },
    startup,
  });
  try {
    await app.listen({ host: options.host, port: options.port });
    options.onListening?.(serverUrl(app, options));
    // Image files left by a crash (temp files; blobs whose metadata never committed) go before any
    // write is let through. Object storage is shared with other servers, whose uploads may be
    // between their put and their commit right now: there only what is older than the grace period
    // goes, at start and periodically (blobs of deleted images are left to this sweep;
    // core/images/blob-gate.ts).
    const sharedBlobs = options.blobUrl !== undefined;
    enter('checking the image files a crash may have left');
    await plain.images.sweepOrphans(sharedBlobs ? { minAgeMs: SHARED_BLOB_GRACE_MS } : {});
    if (sharedBlobs) {
      sweeper = setInterval(() => void plain.images.sweepOrphans({ minAgeMs: SHARED_BLOB_GRACE_MS }).catch(() => undefined), SHARED_BLOB_SWEEP_INTERVAL_MS).unref();
    }
    if (pooled) enter(pooled.threads.readers === 0 ? 'starting the writer thread' : `loading the search index on ${pooled.threads.readers} reader thread${pooled.threads.readers === 1 ? '' : 's'} and a writer thread`);
    await pooled?.start();
    startup.open();
    // Webhooks go out from every server of a catalog (claims with a lease keep them apart).
    deliverer = new WebhookDeliverer(catalog.changes.webhooks, options.webhooks);
    deliverer.start();
    // Image search loads in the background (the photo index, from its snapshot file when there is
    // one): a query photo that arrives first waits for it, nothing else does. A store that cannot
    // be read now is left to that query to report.
    void plain.search.prepareImageSearch().catch(() => undefined);
    // The image decoder's library (libvips) loads now: loaded at the first upload, it would hold every
    // request of the event loop meanwhile. A failure is the first upload's to report.
    void plain.images.decoder?.prepare?.().catch(() => undefined);
  } catch (error) {
    // EADDRINUSE, a failed sweep or thread: nothing may stay open, and no request waits on.
    startup.fail((error as Error).message);
    if (sweeper) clearInterval(sweeper);
    await deliverer?.stop();
    await app.close();
    await closeCatalog(catalog);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    app,
    catalog,
    url: serverUrl(app, options),
    close() {
      closing ??= (async () => {
        if (sweeper) clearInterval(sweeper);
        await deliverer?.stop();
        await app.close();
        await closeCatalog(catalog);
      })();
      return closing;
    },
  };
}

/** The URL a listening app answers at, e.g. `http://127.0.0.1:8080` (`[::1]` for IPv6 hosts). */
function serverUrl(app: FastifyInstance, options: Pick<ServeOptions, 'host' | 'port'>): string {
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return `http://${host}:${port}`;
}

/** Closes the server on the first SIGINT/SIGTERM; resolves when it has closed. */
export function closeOnSignals(server: RunningServer, log: NodeJS.WritableStream = process.stderr): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      log.write(`${signal}: finishing in-flight requests and closing\n`);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      void server.close().then(resolve);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}
