/**
 * Fixtures of the server-thread tests (test/http): a data directory written through a plain
 * catalog first and then opened the way `catalog serve` opens it, as when data was imported
 * before the server started.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { poolCatalog, type PooledCatalog } from '../../src/http/pool/pooled-catalog.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/http/server.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from './harness.js';

/** What {@link withSeededDataDir} made: the directory, what `seed` returned, and what `open` made of it. */
export interface SeededFixture<T, S> {
  dir: string;
  seeded: S;
  opened: T;
}

/**
 * For the calling describe block: before its tests, a temporary data directory (named after
 * `prefix`) that `seed` writes through a plain catalog, closed once it has; then `open(dir,
 * seeded)`. After them, what `open` made is closed and the directory removed. `timeoutMs`: of the
 * beforeAll (a large seed). Returns a getter, valid inside the block's tests.
 */
export function withSeededDataDir<T extends { close(): Promise<void> }, S>(
  prefix: string,
  seed: (catalog: Catalog) => Promise<S>,
  open: (dir: string, seeded: S) => Promise<T>,
  timeoutMs?: number,
): () => SeededFixture<T, S> {
  let fixture: SeededFixture<T, S> | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = tempDir(prefix);
    const setup = openCatalog({ dataDir: dir });
    let seeded: S;
    try {
      seeded = await seed(setup);
    } finally {
      await setup.close();
    }
    fixture = { dir, seeded, opened: await open(dir, seeded) };
  }, timeoutMs);
  afterAll(async () => {
    await fixture?.opened.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!fixture) throw new Error('withSeededDataDir: the fixture is made in beforeAll; use it inside a test');
    return fixture;
  };
}

/** Opens `dir` as a started pooled catalog (poolCatalog over openCatalog) with these pool options. */
export async function openPooled(dir: string, options: Omit<Parameters<typeof poolCatalog>[1], 'catalog'>): Promise<PooledCatalog> {
  const pooled = poolCatalog(openCatalog({ dataDir: dir }), { catalog: { dataDir: dir }, ...options });
  await pooled.start();
  await pooled.mainThreadReady();
  return pooled;
}

/** A server on 127.0.0.1 and a client of it; closing closes both. */
export interface ServedCatalog {
  server: RunningServer;
  client: HttpCatalogClient;
  close(): Promise<void>;
}

/** `catalog serve` over `dir` on a free port of 127.0.0.1 (no access log) with `options`, and a client holding `token`. */
export async function serveForTest(dir: string, token: string, options: Partial<ServeOptions> = {}): Promise<ServedCatalog> {
  const server = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, ...options });
  const client = new HttpCatalogClient({ url: server.url, token, retries: 0 });
  return {
    server,
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** A seed step: a token with the catalogAdmin role, its secret returned. */
export async function adminSecret(catalog: Catalog): Promise<string> {
  return (await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] })).secret;
}
