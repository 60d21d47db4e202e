/**
 * Inside a PostgreSQL group transaction (PgDatabase.joinedTo, group commit) the stores read what
 * the group wrote so far, and keep none of it in a cache other callers read: a group rolled back
 * leaves no trace, even when a later commit reaches the same synonyms version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStores, type PostgresStores } from '../../src/adapters/postgres/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import type { SynonymSet } from '../../src/api/schemas.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

describe.skipIf(!postgresAvailable())('reads inside a PostgreSQL group transaction', () => {
  let stores: PostgresStores;
  let database = '';
  let schema = '';
  beforeAll(async () => {
    database = await createTestDatabase('groupreads');
    const created = await createTestSchema(database);
    schema = created.schema;
    stores = await openPostgresStores(created.url, { clock: systemClock(), max: 4 });
  });
  afterAll(async () => {
    await stores?.close();
    if (schema) await dropTestSchema(database, schema);
  });

  const write = (set: SynonymSet) => stores.catalog.upsertSynonyms([set], () => ({ kind: 'write', value: set, created: true }));
  const ids = async () => (await stores.catalog.allSynonyms()).map((set) => set.synonym_id);

  it('see the group\'s writes, and a rolled-back group leaves no synonyms cached', async () => {
    const client = await stores.db.pool.connect();
    try {
      await client.query('BEGIN');
      await stores.db.joinedTo(client, async () => {
        await write({ synonym_id: 'rolled-back', synonyms: ['nut', 'bolt'] });
        // The group's own write, not yet committed.
        expect(await ids()).toEqual(['rolled-back']);
      });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    // A commit that reaches the same synonyms version as the rolled-back write: its sets, not those.
    await write({ synonym_id: 'committed', synonyms: ['washer', 'shim'] });
    expect(await ids()).toEqual(['committed']);
  });

  it('work a write leaves running after it settles reads outside the group, not its uncommitted writes', async () => {
    const client = await stores.db.pool.connect();
    let later: Promise<string[]> | undefined;
    try {
      await client.query('BEGIN');
      await stores.db.joinedTo(client, async () => {
        await write({ synonym_id: 'uncommitted', synonyms: ['gear', 'cog'] });
        // A read the write starts and does not wait for (a timer), run once the write has settled.
        later = new Promise((resolve) => setTimeout(() => resolve(stores.db.query<{ synonym_id: string }>("SELECT synonym_id FROM synonyms WHERE synonym_id = 'uncommitted'").then((rows) => rows.map((r) => r.synonym_id))), 50));
      });
      // The group's transaction is still open while that read runs.
      expect(await later).toEqual([]);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});
