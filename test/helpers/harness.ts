/**
 * The two ways to reach one catalog, for the contract suite: the local client (in-process core)
 * and the HTTP client against a real server listening on 127.0.0.1. Both act through tokens
 * created the same way, so roles, 401 and 403 are exercised identically.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ROLES, type Role } from '../../src/api/schemas.js';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import type { CatalogClient } from '../../src/client/types.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import type { CatalogService } from '../../src/core/catalog/service.js';
import { buildApp } from '../../src/http/app.js';
import { openCatalog, openCatalogAt, type OpenCatalogOptions } from '../../src/open-catalog.js';
import type { SchemaSeed } from '../services/services.js';

export type Mode = 'local' | 'http';
/**
 * The stores the harness opens catalogs on: `sqlite` (a data directory, the default) or
 * `postgres` (a fresh schema on the test cluster, image files in the data directory), chosen by
 * CATALOG_TEST_BACKEND; vitest.config.ts runs the contract suite once per backend.
 */
export const BACKEND: 'sqlite' | 'postgres' = process.env.CATALOG_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
/**
 * The clients a contract test runs with: both on SQLite; on PostgreSQL the HTTP client only (the
 * server over PostgreSQL runs the same core the local client would, and local and HTTP are held
 * equal on SQLite), which halves the suite's second run.
 */
export const MODES: readonly Mode[] = BACKEND === 'postgres' ? ['http'] : ['local', 'http'];

export interface Harness {
  mode: Mode;
  catalog: Catalog;
  service: CatalogService;
  dataDir: string;
  /** A client whose token has every role. */
  admin: CatalogClient;
  /** A client acting with a new token of these roles (and organization). */
  as(roles: Role[], organization?: string): Promise<CatalogClient>;
  /** A client sending this raw token (undefined: no Authorization header). */
  withToken(token: string | undefined): CatalogClient;
  /** Base URL in http mode. */
  url?: string;
  close(): Promise<void>;
}

/** Makes a temp directory under the OS temp dir, removed by the harness's close(). */
export function tempDir(prefix = 'catalog-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}


/** One database per test file (this module is loaded once per file), a schema per harness. */
let postgresDatabase: Promise<string> | undefined;
/** What a freshly migrated schema holds (read from this file's first schema), to put used ones back to it. */
let postgresSeed: Promise<SchemaSeed> | undefined;
/** Migrated schemas of harnesses closed, free for the next harness once put back to the seed. */
const freeSchemas: { url: string; schema: string }[] = [];

/**
 * The catalog of a new harness. On PostgreSQL a schema migrates once and is reused: a closed
 * harness's schema is put back to its freshly migrated state (resetTestSchema) for the next, as a
 * new one would be, without its ~1 s of migrations.
 */
async function openHarnessCatalog(dataDir: string, options: Omit<OpenCatalogOptions, 'dataDir'>): Promise<{ catalog: Catalog; dispose(): Promise<void> }> {
  if (BACKEND === 'sqlite') return { catalog: openCatalog({ ...options, dataDir }), dispose: async () => undefined };
  const { createTestDatabase, createTestSchema, readSchemaSeed, resetTestSchema } = await import('../services/services.js');
  postgresDatabase ??= createTestDatabase('contract');
  const database = await postgresDatabase;
  const reused = freeSchemas.pop();
  const target = reused ?? await createTestSchema(database);
  if (reused && postgresSeed) await resetTestSchema(reused.url, await postgresSeed);
  const catalog = await openCatalogAt({ ...options, dataDir, databaseUrl: target.url });
  // The first schema, just migrated and opened, before any test writes: what every reused one gets back.
  postgresSeed ??= readSchemaSeed(target.url, target.schema);
  await postgresSeed;
  return { catalog, dispose: async () => void freeSchemas.push(target) };
}

/** Builds a fresh catalog, reachable in the given mode; `options` go to openCatalog (e.g. searchLimits). */
export async function createHarness(mode: Mode, options: Omit<OpenCatalogOptions, 'dataDir'> = {}): Promise<Harness> {
  const dataDir = tempDir();
  const { catalog, dispose } = await openHarnessCatalog(dataDir, options);
  const { service } = catalog;
  let app: FastifyInstance | undefined;
  let url: string | undefined;
  const clients: CatalogClient[] = [];
  // Per harness, so the same steps name their tokens alike in every mode (the names show in 403 details).
  let tokenCounter = 0;
  if (mode === 'http') {
    app = buildApp({ catalog, accessLog: null });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }
  const withToken = (token: string | undefined): CatalogClient => {
    const client = mode === 'http' ? new HttpCatalogClient({ url: url ?? '', token, retries: 0 }) : new LocalCatalogClient(catalog, { token });
    clients.push(client);
    return client;
  };
  const as = async (roles: Role[], organization?: string) => {
    const { secret } = await service.createToken(LOCAL_OWNER, { name: `t${++tokenCounter}`, roles, organization });
    return withToken(secret);
  };
  const admin = await as([...ROLES]);
  return {
    mode,
    catalog,
    service,
    dataDir,
    admin,
    as,
    withToken,
    ...(url ? { url } : {}),
    async close() {
      for (const c of clients) if (c instanceof HttpCatalogClient) await c.close();
      await app?.close();
      await catalog.close();
      await dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
