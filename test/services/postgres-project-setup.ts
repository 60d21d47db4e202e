/**
 * setupFiles of the `contract-postgres` vitest project (vitest.config.ts): every test of the
 * client contract suite runs against a PostgreSQL-backed catalog; when PostgreSQL could not be
 * started they are skipped (global-setup.ts printed why, and fails the run under
 * CATALOG_REQUIRE_SERVICES=1).
 */
import { beforeEach } from 'vitest';
import { postgresAvailable } from './services.js';

beforeEach((context) => {
  if (!postgresAvailable()) context.skip();
});
