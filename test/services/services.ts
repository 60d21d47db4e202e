/**
 * What a test file needs of the services started by global-setup.ts: the PostgreSQL URL (one
 * fresh database per test file, one fresh schema per test), and the S3 test server.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** Whether the PostgreSQL suites run (false: global-setup.ts printed why and how to fix it). */
export const postgresAvailable = (): boolean => inject('postgresUrl') !== '';
/** Whether the S3 suites run. */
export const s3Available = (): boolean => inject('s3') !== null;

/** The S3 test server's settings (throws when it is not running). */
export function s3Server(): NonNullable<ReturnType<typeof inject<'s3'>>> {
  const s3 = inject('s3');
  if (!s3) throw new Error('the S3 test server is not running');
  return s3;
}

/** A URL with a different database name. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates a fresh database on the test cluster and returns its URL. */
export async function createTestDatabase(prefix = 't'): Promise<string> {
  const admin = inject('postgresUrl');
  if (admin === '') throw new Error('PostgreSQL is not running');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(admin, name);
}

/**
 * Creates a fresh schema in `databaseUrl` and returns a URL whose connections use it (libpq's
 * `options=-c search_path=...`), so each test starts from an empty, migrated catalog cheaply.
 */
export async function createTestSchema(databaseUrl: string): Promise<{ url: string; schema: string }> {
  const schema = `s_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  const u = new URL(databaseUrl);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return { url: u.toString(), schema };
}

/** Drops a schema made by createTestSchema. */
export async function dropTestSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
