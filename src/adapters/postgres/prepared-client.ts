/**
 * Named prepared statements for a pool's connections: PostgreSQL parses, analyzes and plans a
 * statement's text once per connection (and, after a few executions, keeps a generic plan when it
 * costs no more than the custom ones), instead of at every execution of an unnamed statement. The
 * catalog's statements are a fixed set of texts run thousands of times a minute (a token's read, a
 * search batch's reads, a write's array statements); parsing and planning them was a large share
 * of PostgreSQL's CPU under load (docs/decisions/0055).
 *
 * Only texts with parameters are named: BEGIN, COMMIT, SET and the other simple statements keep
 * the simple protocol, which also lets one text hold several statements. And only the first
 * {@link StatementNames.max} distinct texts of a pool: a text built with values inside it would
 * otherwise leave a new prepared statement in every connection at each call.
 */
import pg from 'pg';

/** Distinct statement texts a pool names at most by default; later texts run unnamed. */
export const MAX_NAMED_TEXTS = 1024;

/** The statement names of one pool: text → name, in the order first seen, shared by its connections. */
export class StatementNames {
  private readonly names = new Map<string, string>();
  /** Texts that run unnamed from now on (retire); they keep their place in {@link max}. */
  private readonly retired = new Set<string>();

  constructor(readonly max = MAX_NAMED_TEXTS) {}

  /** The prepared statement name of `text`, or undefined once {@link max} other texts are named (or it was retired). */
  nameOf(text: string): string | undefined {
    if (this.retired.has(text)) return undefined;
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.max) return known;
    const name = `catalog_${this.names.size + 1}`;
    this.names.set(text, name);
    return name;
  }

  /** Runs `text` unnamed from now on (its prepared statements were refused: planChanged). */
  retire(text: string): void {
    this.retired.add(text);
  }
}

/**
 * Whether `error` is PostgreSQL refusing a prepared statement whose result columns changed since it
 * was prepared (a `*` over a table another server's migration added a column to). It refuses that
 * statement at every later execution on the connection too.
 */
function planChanged(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

/**
 * Makes `client` send its parameterized statements (a text and a non-empty array of values) as the
 * statements `names` names. Called once per new connection, before the pool hands it out. The
 * driver prepares a name on its first use on a connection (a Parse message) and only binds it
 * afterwards; a new connection (a reconnect after a restart) prepares again. A text refused
 * because its result columns changed runs unnamed from then on, on every connection, and the
 * refused call runs once more, unnamed, when it ran outside a transaction (inside one, the
 * transaction has failed and its caller sees the error, as after any failed statement).
 */
export function prepareStatements(client: pg.ClientBase, names: StatementNames): void {
  client.query = ((...args: unknown[]) => {
    // The prototype's method, looked up at each call (a test may wrap it after connections exist).
    const send = (Object.getPrototypeOf(client) as { query: (...a: unknown[]) => unknown }).query;
    const [text, values, callback] = args;
    const name = typeof text === 'string' && Array.isArray(values) && values.length > 0 ? names.nameOf(text) : undefined;
    if (name === undefined) return send.apply(client, args);
    const run = () => send.call(client, { name, text, values }) as Promise<pg.QueryResult>;
    const result = run().catch((error: unknown) => {
      if (!planChanged(error)) throw error;
      // Every connection that prepared it would refuse it again: the text runs unnamed from now on.
      names.retire(text as string);
      if (client.getTransactionStatus() !== 'I') throw error;
      return send.call(client, text, values) as Promise<pg.QueryResult>;
    });
    if (typeof callback !== 'function') return result;
    // Outside the promise chain, as the driver calls its callbacks: one that throws is not swallowed.
    result.then((r) => process.nextTick(callback, null, r), (error: unknown) => process.nextTick(callback, error));
    return undefined;
  }) as typeof client.query;
}
