/**
 * vitest globalSetup: starts the services the PostgreSQL and S3 suites need (a throwaway
 * PostgreSQL cluster, an S3-compatible server) once per `npm test`, and stops them at the end.
 *
 * When one cannot be started, its suites are SKIPPED with a loud message saying how to get it;
 * with CATALOG_REQUIRE_SERVICES=1 (set by .ci/run) that is a FAILURE instead, so CI never goes
 * green without having run them.
 */
import type { TestProject } from 'vitest/node';
import { POSTGRES_INSTALL_HINT, startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';
import { startS3Server, type S3TestServer } from './s3-server.js';
import { loud } from '../helpers/loud.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test cluster's superuser URL; '' when PostgreSQL could not be started. */
    postgresUrl: string;
    /** The S3 test server; null when it could not be started. */
    s3: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string; bucket: string } | null;
  }
}

const required = process.env.CATALOG_REQUIRE_SERVICES === '1';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: PostgresCluster | undefined;
  let s3: S3TestServer | undefined;
  try {
    cluster = await startPostgresCluster();
  } catch (error) {
    const why = (error as Error).message;
    if (required) throw new Error(`CATALOG_REQUIRE_SERVICES=1 and ${why}`);
    loud([
      'THE POSTGRESQL SUITES ARE SKIPPED: PostgreSQL could not be started.',
      why,
      `Install it (Debian/Ubuntu): ${POSTGRES_INSTALL_HINT}`,
      'CI sets CATALOG_REQUIRE_SERVICES=1, where this is a failure.',
    ]);
  }
  try {
    s3 = await startS3Server();
  } catch (error) {
    const why = (error as Error).message;
    if (required) {
      cluster?.stop();
      throw new Error(`CATALOG_REQUIRE_SERVICES=1 and the S3 test server (s3rver) did not start: ${why}`);
    }
    loud(['THE S3 BLOB SUITES ARE SKIPPED: the S3 test server (s3rver) did not start.', why, 'Run `npm ci` to install it (a devDependency).']);
  }
  project.provide('postgresUrl', cluster?.url ?? '');
  project.provide('s3', s3 ? { endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, bucket: s3.bucket } : null);
  return async () => {
    await s3?.stop();
    cluster?.stop();
  };
}
