/**
 * The PostgreSQL engine writer's memory of where posting lists end
 * (src/adapters/postgres/search/engine-tails.ts): a write appending to a list whose last block
 * this process wrote reads that block by its key, and the memory is forgotten when another writer
 * (another server, a CLI) wrote since or the write that made it rolled back. Either way the stored
 * list is the one a writer without memory leaves: every doc once, in order, every block but the
 * last full. Skipped, loudly (global-setup.ts), when PostgreSQL cannot be started.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStores } from '../../src/adapters/postgres/stores.js';
import { PgEngineWrite } from '../../src/adapters/postgres/search/engine-store.js';
import { PgEngineTails } from '../../src/adapters/postgres/search/engine-tails.js';
import { systemClock } from '../../src/adapters/system.js';
import { BLOCK_SIZE, decodeBlock, emptyPostings } from '../../src/core/search/engine/postings.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

describe.skipIf(!postgresAvailable())('PostgreSQL engine writer: where lists end', () => {
  let database = '';
  let schema = '';
  let client: pg.Client;
  /** The touched-blocks statement's parameters of each write: [docs looked up by term, ids read by key]. */
  const touchedReads: { pairs: number; keys: number[] }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('tails');
    const created = await createTestSchema(database);
    schema = created.schema;
    await (await openPostgresStores(created.url, { clock: systemClock(), max: 1 })).close();
    client = new pg.Client({ connectionString: created.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await dropTestSchema(database, schema);
  });

  /** Parts `from`..`to` (doc ids) holding 'impeller', written by a writer with memory `tails`; rolled back when `rollback`. */
  async function write(tails: PgEngineTails, from: number, to: number, rollback = false): Promise<void> {
    const recording = {
      query: (text: string, values?: unknown[]) => {
        if (text.includes('lasts AS')) touchedReads.push({ pairs: (values?.[0] as number[]).length, keys: values?.[2] as number[] });
        return client.query(text, values);
      },
    };
    await client.query('BEGIN');
    const engine = new PgEngineWrite(tails);
    for (let pk = from; pk <= to; pk++) engine.put(pk, `p${String(pk).padStart(5, '0')}`, pk, { terms: new Map([['impeller', [1, 0, 0, 0, 0]]]), lengths: [1, 0, 0, 0, 0], holder: false }, undefined);
    await engine.flush(recording as never);
    await client.query(rollback ? 'ROLLBACK' : 'COMMIT');
  }

  /** The stored list of 'impeller': each block's docs. */
  async function blocks(): Promise<number[][]> {
    const rows = (await client.query<{ first_doc: number; data: Buffer }>("SELECT p.first_doc, p.data FROM engine_postings p JOIN engine_terms t ON t.id = p.term_id WHERE t.term = 'impeller' ORDER BY p.first_doc")).rows;
    return rows.map((r) => {
      const postings = emptyPostings();
      decodeBlock(r.data, r.first_doc, postings);
      return postings.docs;
    });
  }

  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('reads a last block it wrote by its key, forgets when another writer or a rollback came between, and stores the same list', async () => {
    const a = new PgEngineTails();
    const b = new PgEngineTails();
    await write(a, 1, 200); // a new term: no read
    await write(a, 201, 300); // looked up: a did not know where the list ends
    expect(touchedReads.at(-1)?.pairs).toBe(100);
    await write(a, 301, 400); // a wrote the list's end last: read by key
    expect(touchedReads.at(-1)).toEqual({ pairs: 0, keys: [expect.any(Number)] });
    await write(b, 401, 450); // b knows nothing
    expect(touchedReads.at(-1)?.pairs).toBe(50);
    await write(a, 451, 500); // b wrote since a did: a forgets
    expect(touchedReads.at(-1)?.pairs).toBe(50);
    await write(a, 501, 600, true); // rolled back
    await write(a, 601, 700); // the end a remembers was never committed: looked up
    expect(touchedReads.at(-1)?.pairs).toBe(100);
    const stored = await blocks();
    expect(stored.flat()).toEqual([...range(1, 500), ...range(601, 700)]);
    expect(stored.slice(0, -1).every((docs) => docs.length === BLOCK_SIZE)).toBe(true);
  });
});
