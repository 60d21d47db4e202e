/**
 * What PostgreSQL spends per statement (docs/decisions/0055): the pool sends parameterized
 * statements as named prepared statements, so PostgreSQL parses and plans each text once per
 * connection (src/adapters/postgres/prepared-client.ts), checked in PostgreSQL's own view of a
 * connection's prepared statements; and the binary columns every write and search rewrites are
 * compressed with lz4 (migration 14), checked in the stored values.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPool } from '../../src/adapters/postgres/database.js';
import { migratePostgres } from '../../src/adapters/postgres/migrations.js';
import { createTestDatabase, createTestSchema, postgresAvailable } from '../services/services.js';

/** The prepared statements of the connection that runs this statement (a pool of one connection: every statement's). */
const PREPARED = 'SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time, name';

describe.skipIf(!postgresAvailable())('PostgreSQL prepared statements', () => {
  let url: string;
  const pools: pg.Pool[] = [];
  const pool = (at = url) => {
    const p = openPool(at, { max: 1 });
    pools.push(p);
    return p;
  };

  beforeAll(async () => {
    ({ url } = await createTestSchema(await createTestDatabase('prepared')));
  });
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
  });

  it('prepares a parameterized text once per connection and binds it afterwards', async () => {
    const p = pool();
    for (const n of [1, 2, 3]) expect((await p.query<{ v: number }>('SELECT $1::int + 1 AS v', [n])).rows[0]?.v).toBe(n + 1);
    expect((await p.query<{ v: string }>('SELECT $1::text AS v', ['x'])).rows[0]?.v).toBe('x');
    const prepared = (await p.query<{ name: string; statement: string }>(PREPARED)).rows;
    expect(prepared).toEqual([
      { name: 'catalog_1', statement: 'SELECT $1::int + 1 AS v' },
      { name: 'catalog_2', statement: 'SELECT $1::text AS v' },
    ]);
  });

  it('leaves texts without values to the simple protocol (one text may hold several statements)', async () => {
    const p = pool();
    await p.query('CREATE TEMP TABLE t (v int); INSERT INTO t VALUES (7)');
    expect((await p.query<{ v: number }>('SELECT v FROM t')).rows).toEqual([{ v: 7 }]);
    expect((await p.query(PREPARED)).rows).toEqual([]);
  });

  it('prepares again on a new connection after PostgreSQL ended the old one', async () => {
    const p = pool();
    const text = 'SELECT $1::int * 2 AS v';
    expect((await p.query<{ v: number }>(text, [4])).rows[0]?.v).toBe(8);
    const pid = (await p.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
    // The pool drops the ended client (its first statement may fail with the termination); the next one connects afresh.
    await p.query(text, [5]).catch(() => undefined);
    expect((await p.query<{ v: number }>(text, [6])).rows[0]?.v).toBe(12);
    expect((await p.query<{ name: string }>(PREPARED)).rows.map((r) => r.name)).toEqual(['catalog_1']);
  });

  /**
   * A pool that prepared `SELECT * FROM <table> WHERE a = $1` (one row: a = 1) before another
   * connection added a column, as another server's migration does while this one runs.
   */
  const widened = async (table: string) => {
    const p = pool();
    await p.query(`CREATE TABLE ${table} (a int)`);
    await p.query(`INSERT INTO ${table} VALUES (1)`);
    const text = `SELECT * FROM ${table} WHERE a = $1`;
    expect((await p.query(text, [1])).rows).toEqual([{ a: 1 }]);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`ALTER TABLE ${table} ADD COLUMN b int DEFAULT 7`);
    } finally {
      await admin.end();
    }
    return { p, text };
  };

  it('runs a prepared statement whose result columns another connection changed, outside a transaction', async () => {
    const { p, text } = await widened('widened');
    expect((await p.query(text, [1])).rows).toEqual([{ a: 1, b: 7 }]);
  });

  it('fails the transaction in which a prepared statement was refused for changed result columns, and runs it unnamed after', async () => {
    const { p, text } = await widened('widened_in_transaction');
    const client = await p.connect();
    try {
      await client.query('BEGIN');
      await expect(client.query(text, [1])).rejects.toMatchObject({ code: '0A000' });
      await client.query('ROLLBACK');
      // The same connection, in a new transaction: the statement no longer goes by its name.
      await client.query('BEGIN');
      expect((await client.query(text, [1])).rows).toEqual([{ a: 1, b: 7 }]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });

  it('prepares nothing with prepared_statements=false in the URL (a pooler in transaction mode)', async () => {
    const u = new URL(url);
    u.searchParams.set('prepared_statements', 'false');
    const p = pool(u.toString());
    expect((await p.query<{ v: number }>('SELECT $1::int + 1 AS v', [1])).rows[0]?.v).toBe(2);
    expect((await p.query(PREPARED)).rows).toEqual([]);
  });
});

describe.skipIf(!postgresAvailable())('PostgreSQL compression of rewritten binary columns', () => {
  it('stores the doc chunks and the session hit blocks with lz4 (values over the TOAST threshold)', async () => {
    const { url } = await createTestSchema(await createTestDatabase('compression'));
    const p = openPool(url, { max: 1 });
    try {
      await migratePostgres(p);
      const methods = await p.query<{ column: string; method: string }>(
        `SELECT a.attrelid::regclass::text || '.' || a.attname AS column, a.attcompression AS method FROM pg_attribute a
         WHERE (a.attrelid = 'engine_docs'::regclass AND a.attname = 'data') OR (a.attrelid = 'session_hits'::regclass AND a.attname IN ('card_ids', 'scores'))
         ORDER BY 1`,
      );
      expect(methods.rows).toEqual([
        { column: 'engine_docs.data', method: 'l' },
        { column: 'session_hits.card_ids', method: 'l' },
        { column: 'session_hits.scores', method: 'l' },
      ]);
      // A chunk as large as a real one (256 docs), compressible: stored with lz4.
      const chunk = Buffer.alloc(7000, 0);
      for (let i = 0; i < chunk.length; i += 28) chunk.writeUInt32LE(i, i);
      await p.query('INSERT INTO engine_docs (chunk, version, data) VALUES (1, 1, $1)', [chunk]);
      expect((await p.query('SELECT pg_column_compression(data) AS method FROM engine_docs WHERE chunk = 1')).rows).toEqual([{ method: 'lz4' }]);
    } finally {
      await p.end();
    }
  });
});
