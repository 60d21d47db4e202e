/**
 * What a test file needs of the services started by global-setup.ts: the PostgreSQL URL (one
 * fresh database per test file, one fresh schema per test, or one put back to its migrated state),
 * and the S3 test server.
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

/** What a migrated schema holds before any test writes: each table's rows and each sequence's state. */
export interface SchemaSeed {
  tables: { name: string; rows: unknown[] }[];
  sequences: { name: string; lastValue: string; isCalled: boolean }[];
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The rows and sequence states of `schema` now (createTestSchema's URL `url`): call it right after migrating. */
export async function readSchemaSeed(url: string, schema: string): Promise<SchemaSeed> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY 1`, [schema])).rows;
    const seed: SchemaSeed = { tables: [], sequences: [] };
    for (const { name } of tables) {
      const rows = (await client.query<{ rows: unknown[] | null }>(`SELECT json_agg(t) AS rows FROM ${quote(name)} t`)).rows[0]?.rows ?? [];
      seed.tables.push({ name, rows });
    }
    const sequences = (await client.query<{ name: string }>(`SELECT sequence_name AS name FROM information_schema.sequences WHERE sequence_schema = $1 ORDER BY 1`, [schema])).rows;
    for (const { name } of sequences) {
      const state = (await client.query<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${quote(name)}`)).rows[0];
      if (state) seed.sequences.push({ name, lastValue: state.last_value, isCalled: state.is_called });
    }
    return seed;
  } finally {
    await client.end();
  }
}

/**
 * Puts `schema` (createTestSchema's URL `url`, migrated, no connection of a catalog open on it)
 * back to `seed` in one transaction: every table emptied and refilled with its seed rows, every
 * sequence set back, triggers off meanwhile (the rows are the migrations' own, not writes). A
 * test then starts from the same state as on a freshly migrated schema, without migrating again.
 */
export async function resetTestSchema(url: string, seed: SchemaSeed): Promise<void> {
  const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;
  // One round trip: a test leaves few rows, so DELETE (TRUNCATE makes every table a new file, ~0.9 s for all).
  const statements = [
    'BEGIN',
    'SET LOCAL session_replication_role = replica',
    'SET LOCAL synchronous_commit = off',
    ...seed.tables.map((t) => `DELETE FROM ${quote(t.name)}`),
    ...seed.tables.filter((t) => t.rows.length > 0).map((t) => `INSERT INTO ${quote(t.name)} SELECT * FROM json_populate_recordset(NULL::${quote(t.name)}, ${literal(JSON.stringify(t.rows))}::json)`),
    ...seed.sequences.map((q) => `SELECT setval(${literal(quote(q.name))}::regclass, ${BigInt(q.lastValue)}, ${q.isCalled})`),
    'COMMIT',
  ];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statements.join(';\n'));
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
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
