/**
 * The PostgreSQL connection pool of one catalog (docs/deploy.md): node-postgres (`pg`),
 * chosen by measurement over `postgres` (bench/postgres-driver.js: equal within noise on single-row
 * round trips, `pg` ahead on 1,000-row batches, and its explicit client checkout is what a
 * transaction running the core's `decide` callbacks needs).
 *
 * Writes are serialised per catalog like SQLite's `BEGIN IMMEDIATE`: every write transaction first
 * takes a transaction-scoped advisory lock (the catalog write lock), so a `decide` callback sees
 * every earlier commit and nothing can change what it read before the transaction commits; no
 * serialization failure, no retry, `decide` runs exactly once per item. Reads never wait for it
 * (MVCC); reads of several statements run in one REPEATABLE READ READ ONLY snapshot.
 *
 * Inside {@link PgDatabase.joinedTo} (group commit, group-commit.ts) every statement of the stores
 * runs on the group's connection, in its transaction: the writes of a group see what the writes
 * before them stored, as they would after those had committed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { catalogWritten } from '../../core/request-scope.js';
import { prepareStatements, StatementNames } from './prepared-client.js';

/** int8 (bigint) and numeric columns as JS numbers: ids, sizes and microsecond times stay below 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
};

/** Advisory lock class of this program (first key of the two-key form); the second key is the schema's hash. */
export const LOCK_CLASS = 0x0ca7a106;
/** The lock taken by every catalog write transaction (second key: hashtext of the schema). */
export const WRITE_LOCK = 1;
/** The lock taken by session writes (kept apart so searches never wait on an import). */
export const SESSION_LOCK = 2;
/** The lock held while migrating. */
export const MIGRATION_LOCK = 3;

/** Options of {@link PgDatabase.write}. */
export interface WriteOptions {
  /**
   * false: the commit does not wait for PostgreSQL's WAL flush (`SET LOCAL synchronous_commit =
   * off`, sent with BEGIN): for a cache such as search sessions, which a crash may lose.
   */
  synchronousCommit?: boolean;
}

/** A client checked out of the pool, inside a transaction. */
export type PgClient = pg.PoolClient;

/** Options of {@link openPool}. */
export interface PoolOptions {
  /** Most connections this process opens (default 10). */
  max?: number;
}

/**
 * Sets up a new connection before the pool hands it out (pg-pool awaits `onConnect`): its
 * parameterized statements go as named prepared statements (prepared-client.ts), and JIT
 * compilation is off. The catalog's statements are short (index lookups, a few thousand rows at
 * most), but a join over an array of ranges is estimated at millions of rows, past
 * jit_above_cost: compiling it took 100-300 ms of a 15 ms statement (a search batch's prefix
 * ranges), most of PostgreSQL's CPU under load. A server without the setting (before PostgreSQL
 * 11) keeps its way.
 */
async function setUpConnection(client: pg.ClientBase, names: StatementNames): Promise<void> {
  prepareStatements(client, names);
  await client.query('SET jit = off').catch(() => undefined);
}

/**
 * Whether `url` turns named prepared statements off (`prepared_statements=false`, for a connection
 * pooler in transaction mode that does not keep them per client, such as PgBouncer before 1.21 or
 * without max_prepared_statements; docs/deploy.md). The driver ignores the parameter itself.
 */
export function preparedStatementsOff(url: string): boolean {
  let value: string | null;
  try {
    value = new URL(url).searchParams.get('prepared_statements');
  } catch {
    return false; // not a URL the parser takes: the driver reports it
  }
  return value !== null && ['false', 'off', '0', 'no'].includes(value.toLowerCase());
}

/** Opens a pool for `url` (postgres://user:password@host:port/database?options=...). Does not connect yet. */
export function openPool(url: string, options: PoolOptions = {}): pg.Pool {
  const names = new StatementNames(preparedStatementsOff(url) ? 0 : undefined);
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types, onConnect: (client) => setUpConnection(client, names) });
  // An idle client losing its server (restart, failover) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // Nor a checked-out one: pg-pool listens for errors only while a client is idle, and a client
  // between two statements of a transaction gets PostgreSQL's "terminating connection" as an
  // 'error' event with no query to fail. The statement that follows fails instead (the
  // connection is no longer queryable) and the transaction helper discards the client.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

/** BEGIN of a read: every statement sees the same snapshot. */
const READ_SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** The pool and the transaction helpers every PostgreSQL store of one catalog shares. */
export class PgDatabase {
  readonly pool: pg.Pool;
  /** Per advisory lock, the end of this process's queue of transactions for it (inTurn). */
  private readonly turns = new Map<number, Promise<void>>();
  /** The connection of the group transaction the running code has joined (joinedTo), while that work runs. */
  private readonly joined = new AsyncLocalStorage<{ client: PgClient | undefined }>();

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /**
   * Runs `work` so that every `query`, `read` and catalog `write` it makes runs on `client`, inside
   * the transaction `client` holds (which already has the catalog write lock): no BEGIN, no COMMIT
   * of their own. Session writes keep their own transactions. Work that `work` leaves running
   * after it settles (a timer, an unawaited promise) uses the pool again: the client goes back to
   * it once the group ends.
   */
  async joinedTo<T>(client: PgClient, work: () => Promise<T>): Promise<T> {
    const scope: { client: PgClient | undefined } = { client };
    try {
      return await this.joined.run(scope, work);
    } finally {
      scope.client = undefined;
    }
  }

  /**
   * Whether the running code is inside a group transaction (joinedTo): what it reads may not commit,
   * so it must not be cached for other callers.
   */
  get inGroup(): boolean {
    return this.groupClient() !== undefined;
  }

  /** The connection of the group transaction the running code has joined, while that work runs. */
  private groupClient(): PgClient | undefined {
    return this.joined.getStore()?.client;
  }

  /** One query on any pooled connection (autocommit), or on the joined group's connection. */
  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    const client = this.groupClient();
    return (await (client ?? this.pool).query<R>(text, values)).rows;
  }

  /**
   * Runs `fn` in one READ COMMITTED transaction holding the advisory lock `lock` (WRITE_LOCK: the
   * catalog write lock) from its first statement to its end; commits when `fn` resolves, rolls
   * back and rethrows when it throws. Inside a joined group (joinedTo), a catalog write runs in the
   * group's transaction instead, which commits or rolls it back. `options`: {@link WriteOptions}.
   */
  async write<T>(fn: (client: PgClient) => Promise<T>, lock = WRITE_LOCK, options: WriteOptions = {}): Promise<T> {
    // What the request read with its token (attributes, organizations, settings) may not hold after this.
    if (lock === WRITE_LOCK) catalogWritten();
    const client = lock === WRITE_LOCK ? this.groupClient() : undefined;
    if (client) return fn(client);
    return this.transaction(options.synchronousCommit === false ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN', fn, lock);
  }

  /**
   * Runs `fn` in one REPEATABLE READ READ ONLY transaction: every statement sees the same snapshot.
   * Inside a joined group, on the group's connection: it sees the group's writes so far.
   */
  async read<T>(fn: (client: PgClient) => Promise<T>): Promise<T> {
    const client = this.groupClient();
    if (client) return fn(client);
    return this.transaction(READ_SNAPSHOT, fn, undefined);
  }

  /**
   * {@link read} whose first statement `first` (a text without parameters) goes with BEGIN in one
   * round trip; `fn` gets its rows. Inside a joined group, `first` is a statement of its own.
   */
  async readFrom<R extends object, T>(first: string, fn: (client: PgClient, rows: R[]) => Promise<T>): Promise<T> {
    const client = this.groupClient();
    if (client) return fn(client, (await client.query<R>(first)).rows);
    let rows: R[] = [];
    return this.transaction(`${READ_SNAPSHOT}; ${first}`, (c) => fn(c, rows), undefined, (results) => {
      rows = (results.at(-1)?.rows ?? []) as R[];
    });
  }

  /**
   * Runs `fn` after every transaction of this process that asked for `lock` before it, first come
   * first served. The advisory lock alone serialises them too, but each waiter would hold a pooled
   * connection meanwhile: under 50 connections the queued writes took every connection of the
   * pool, and reads (a GET part, a page) waited behind them for one.
   */
  private async inTurn<T>(lock: number, fn: () => Promise<T>): Promise<T> {
    const before = this.turns.get(lock) ?? Promise.resolve();
    let done = (): void => undefined;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const tail = before.then(() => mine);
    this.turns.set(lock, tail);
    await before;
    try {
      return await fn();
    } finally {
      done();
      if (this.turns.get(lock) === tail) this.turns.delete(lock);
    }
  }

  private async transaction<T>(begin: string, fn: (client: PgClient) => Promise<T>, lock: number | undefined, begun?: (results: pg.QueryResult[]) => void): Promise<T> {
    if (lock !== undefined) return this.inTurn(lock, () => this.transactionNow(begin, fn, lock, begun));
    return this.transactionNow(begin, fn, lock, begun);
  }

  /** `begun` gets the results of the statements of `begin` (a simple query: one result per statement). */
  private async transactionNow<T>(begin: string, fn: (client: PgClient) => Promise<T>, lock: number | undefined, begun?: (results: pg.QueryResult[]) => void): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      // BEGIN and the lock in one round trip (a simple query of two statements): every round trip
      // of a transaction holding the catalog write lock waits for this process's event loop.
      const results: pg.QueryResult | pg.QueryResult[] = await client.query(lock === undefined ? begin : `${begin}; SELECT pg_advisory_xact_lock(${LOCK_CLASS + lock}, hashtext(current_schema()))`);
      begun?.(Array.isArray(results) ? results : [results]);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true; // the connection is gone: do not return it to the pool
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** Ends the pool (idempotent). */
  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
