/**
 * A pooled `catalog serve` (worker threads) on a fresh data directory, with a catalogAdmin token,
 * for the tests of one describe block: registers beforeAll/afterAll and returns an accessor.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { Catalog } from '../../src/core/services.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/http/server.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from './harness.js';

/** The running server and a catalogAdmin token's secret (valid inside tests). */
export interface PooledServer {
  readonly server: RunningServer;
  readonly token: string;
}

/**
 * Starts the server once for the block, after `seed` (if given) has written to the catalog directly.
 * `options` are added to the defaults (loopback, port 0, no access log, one reader thread).
 */
export function pooledServer(folderPrefix: string, options: Partial<ServeOptions> = {}, seed?: (catalog: Catalog) => Promise<unknown>): PooledServer {
  let dir = '';
  let server: RunningServer | undefined;
  let token = '';
  beforeAll(async () => {
    dir = tempDir(folderPrefix);
    const catalog = openCatalog({ dataDir: dir });
    token = (await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] })).secret;
    await seed?.(catalog);
    await catalog.close();
    server = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 1, ...options });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get server() {
      if (!server) throw new Error('the pooled server is started in beforeAll');
      return server;
    },
    get token() {
      return token;
    },
  };
}
