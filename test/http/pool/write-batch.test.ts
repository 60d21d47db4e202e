/**
 * Group commit on the writer thread (http/pool/write-batch.ts over adapters/{sqlite,postgres}/group-commit.ts),
 * the same on both stores:
 * a batch of queued writes runs in one transaction, each write answered with its own result in
 * the batch's order; a failing write is rolled back alone; a write given up before the batch
 * commits is never stored, whether it was given up before or after it ran.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../../src/core/permissions.js';
import type { GroupCommit } from '../../../src/core/ports.js';
import type { Catalog } from '../../../src/core/services.js';
import { withStorageFullErrors } from '../../../src/adapters/storage-full.js';
import { runWriteBatch } from '../../../src/http/pool/write-batch.js';
import type { PoolResult, PoolTask } from '../../../src/http/pool/protocol.js';
import pgDriver from 'pg';
import { openCatalog, openCatalogAt } from '../../../src/open-catalog.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../../services/services.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const partsWrite = (...ids: string[]): PoolTask => ({ service: 'service', method: 'upsertParts', args: [LOCAL_OWNER, ids.map((id) => ({ part_id: id, name: { en: `gizmo ${id}` } }))] });
const flag = (): Int32Array => new Int32Array(new SharedArrayBuffer(4));

/** A catalog on one store, and how to end it. */
interface StoreUnderTest {
  open(): Promise<Catalog>;
  close(catalog: Catalog): Promise<void>;
}

const sqlite: StoreUnderTest = {
  open: () => Promise.resolve(openCatalog({ dataDir: undefined })),
  close: (catalog) => catalog.close(),
};

/** A catalog in a schema of its own on the test PostgreSQL server (services.ts). */
function postgres(): StoreUnderTest & { url: () => string } {
  let database = '';
  let schema = '';
  let url = '';
  let dataDir = '';
  return {
    async open() {
      database = await createTestDatabase('writebatch');
      const created = await createTestSchema(database);
      schema = created.schema;
      url = created.url;
      dataDir = mkdtempSync(join(tmpdir(), 'write-batch-pg-'));
      return openCatalogAt({ dataDir, databaseUrl: url });
    },
    async close(catalog) {
      await catalog.close();
      if (schema) await dropTestSchema(database, schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
    url: () => url,
  };
}

const pg = postgres();
const stores: [string, StoreUnderTest, boolean][] = [['SQLite', sqlite, true], ['PostgreSQL', pg, postgresAvailable()]];

describe.each(stores)('a batch of writes on the writer thread, %s', (_name, store, available) => {
  let catalog: Catalog;
  beforeEach(async (context) => {
    if (!available) context.skip();
    catalog = await store.open();
    await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'anchor', name: { en: 'anchor gizmo' } }]);
  });
  afterEach(async () => {
    if (available) await store.close(catalog);
  });

  const stored = async (...ids: string[]) => (await catalog.service.selectParts(LOCAL_OWNER, { part_ids: ids })).map((part) => part.part_id);
  const found = async (word: string) => (await catalog.search.search(LOCAL_OWNER, { matches: { text: word }, resultOptions: { limit: 100 } })).results.map((hit) => hit.id).sort();

  it('runs in one transaction, answering each write with its own result in order; a failing write fails alone', async () => {
    expect(catalog.groupCommit).toBeDefined();
    const results = await runWriteBatch(catalog, {
      writes: [
        partsWrite('a1', 'a2'),
        // Not an array: a 400 of its own.
        { service: 'service', method: 'upsertParts', args: [LOCAL_OWNER, { part_id: 'bad' }] },
        // Unknown parts: the relation write fails after the parts before it were written in the batch.
        { service: 'relations', method: 'createRelations', args: [LOCAL_OWNER, [{ anchor_part_id: 'a1', related_part_id: 'nowhere', type: 'substitute' }]] },
        partsWrite('b1'),
        { service: 'relations', method: 'createRelations', args: [LOCAL_OWNER, [{ anchor_part_id: 'a1', related_part_id: 'b1', type: 'substitute' }]] },
        // The same part again, renamed: the index holds its last name only.
        { service: 'service', method: 'upsertParts', args: [LOCAL_OWNER, [{ part_id: 'a1', name: { en: 'widget a1' } }]] },
      ],
    });
    expect(results.map((result) => (result.ok ? 'ok' : 'problem' in result ? result.problem.status : 'internal'))).toEqual(['ok', 400, 400, 'ok', 'ok', 'ok']);
    const values = results.map((result) => (result.ok ? result.value : undefined)) as ({ created?: string[]; updated?: string[] } | number | undefined)[];
    expect(JSON.stringify(results[2])).toContain('nowhere');
    expect(values[0]).toMatchObject({ created: ['a1', 'a2'] });
    expect(values[3]).toMatchObject({ created: ['b1'] });
    expect(values[4]).toEqual({ created: 1 });
    // Decided against what the writes before it stored in the same transaction.
    expect(values[5]).toMatchObject({ updated: ['a1'] });
    expect(await stored('a1', 'a2', 'b1', 'bad')).toEqual(['a1', 'a2', 'b1']);
    expect(await found('gizmo')).toEqual(['a2', 'anchor', 'b1']);
    expect(await found('widget')).toEqual(['a1']);
  });

  it('rolls back a write that throws after its store writes, and only it', async () => {
    // A service whose write stores its parts and then fails (a bug after the store call).
    const failing = Object.create(catalog.service) as Catalog['service'];
    Object.defineProperty(failing, 'upsertParts', {
      value: async (principal: unknown, body: unknown) => {
        await catalog.service.upsertParts(principal as typeof LOCAL_OWNER, body);
        throw new Error('failed after writing');
      },
    });
    const wrapped: Catalog = { ...catalog, service: failing };
    const results = await runWriteBatch(wrapped, { writes: [{ ...partsWrite('c1'), service: 'relations', method: 'createRelations', args: [LOCAL_OWNER, []] }, partsWrite('lost'), { ...partsWrite('c2'), method: 'upsertValidatedParts', args: [LOCAL_OWNER, [{ part_id: 'c2', name: { en: 'gizmo c2' } }]] }] });
    expect(results[0]).toEqual({ ok: true, value: { created: 0 } });
    expect(results[1]).toMatchObject({ ok: false, internal: expect.stringContaining('failed after writing') as string });
    expect(results[2]).toMatchObject({ ok: true, value: { created: ['c2'] } });
    expect(await stored('lost', 'c2')).toEqual(['c2']);
    expect(await found('gizmo')).toEqual(['anchor', 'c2']);
    // The writer's own state follows what committed: a next write of the rolled-back id creates it.
    expect(await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'lost', name: { en: 'gizmo found' } }])).toMatchObject({ created: ['lost'] });
    expect(await found('found')).toEqual(['lost']);
  });

  it('leaves the search index as the writes one after the other would, when writes of a batch rename the same parts', async () => {
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 40 }, (_, i) => ({ part_id: `m${i}`, name: { en: `pump m${i}` } })));
    const names = new Map(Array.from({ length: 40 }, (_, i) => [`m${i}`, 'pump']));
    const rename = (word: string, ids: number[]): PoolTask => ({ service: 'service', method: 'upsertParts', args: [LOCAL_OWNER, ids.map((i) => ({ part_id: `m${i}`, name: { en: `${word} m${i}` } }))] });
    // A write that fails after it reached the store: the batch runs again without it.
    const failing = Object.create(catalog.service) as Catalog['service'];
    Object.defineProperty(failing, 'upsertValidatedParts', {
      value: async (principal: typeof LOCAL_OWNER, items: never[]) => {
        await catalog.service.upsertValidatedParts(principal, items);
        throw new Error('failed after writing');
      },
    });
    const plan: [string, number[]][] = [['valve', [0, 1, 2, 3, 4, 5]], ['pump', [2, 3, 30]], ['valve', [3, 30, 31, 39]], ['gasket', [0, 39]]];
    const results = await runWriteBatch({ ...catalog, service: failing }, {
      writes: [rename(...plan[0]!), rename(...plan[1]!), { service: 'service', method: 'upsertValidatedParts', args: [LOCAL_OWNER, [{ part_id: 'm7', name: { en: 'valve m7' } }]] }, rename(...plan[2]!), rename(...plan[3]!)],
    });
    expect(results.map((result) => result.ok)).toEqual([true, true, false, true, true]);
    for (const [word, ids] of plan) for (const i of ids) names.set(`m${i}`, word);
    const expected = (word: string) => [...names].filter(([, name]) => name === word).map(([id]) => id).sort();
    expect(await found('pump')).toEqual(expected('pump'));
    expect(await found('valve')).toEqual(expected('valve'));
    expect(await found('gasket')).toEqual(['m0', 'm39']);
    expect(await found('m7')).toEqual(['m7']);
    expect((await catalog.search.search(LOCAL_OWNER, { matches: { text: 'pump' } })).resultsTotalCount).toBe(expected('pump').length);
  });

  it('commits what ran once its time budget is spent, and runs the rest in further transactions, each in a turn of its own', async () => {
    const group = catalog.groupCommit!;
    const first = await group.run([partsWrite('e1'), partsWrite('e2')].map((task) => ({ run: () => catalog.service.upsertParts(LOCAL_OWNER, task.args[1]), wanted: () => true })), 0);
    expect(first).toHaveLength(1);
    expect(await stored('e1', 'e2')).toEqual(['e1']);
    let turns = 0;
    const answered: { from: number; results: number }[] = [];
    const results = await runWriteBatch({ ...catalog, groupCommit: { run: (writes) => group.run(writes, 0) } }, { writes: [partsWrite('e2'), partsWrite('e3'), partsWrite('e2')] }, (work) => {
      turns++;
      return work();
    }, (answer) => {
      answered.push({ from: answer.from, results: answer.results.length });
    });
    expect(turns).toBe(3);
    // Each transaction's write answered as it committed.
    expect(answered.map(({ from, results: n }) => [from, n])).toEqual([[0, 1], [1, 1], [2, 1]]);
    expect(results.map((result) => (result.ok ? result.value : undefined))).toMatchObject([{ created: ['e2'] }, { created: ['e3'] }, { updated: ['e2'] }]);
  });

  it('never commits a write given up before the batch commits: before it ran, or after', async () => {
    const before = flag();
    before[0] = 1;
    const during = flag();
    // The third write's call gives up on the second's request after the second has run: the
    // connection of a write the batch already ran closes before the batch commits.
    const service = Object.create(catalog.service) as Catalog['service'];
    let calls = 0;
    Object.defineProperty(service, 'upsertParts', {
      value: (principal: typeof LOCAL_OWNER, body: unknown) => {
        calls++;
        if ((body as { part_id: string }[])[0]?.part_id === 'd3') Atomics.store(during, 0, 1);
        return catalog.service.upsertParts(principal, body);
      },
    });
    const results: PoolResult[] = await runWriteBatch({ ...catalog, service }, {
      writes: [{ ...partsWrite('d0'), givenUp: before }, { ...partsWrite('d1', 'd2'), givenUp: during }, partsWrite('d3'), partsWrite('d2')],
    });
    expect(results.map((result) => (result.ok ? 'ok' : 'problem' in result ? result.problem.code : 'internal'))).toEqual(['request_timeout', 'request_timeout', 'ok', 'ok']);
    // Run again without the given-up write: d2 is new to the last write then.
    expect(results[3]).toMatchObject({ ok: true, value: { created: ['d2'] } });
    expect(calls).toBe(3 + 2);
    expect(await stored('d0', 'd1', 'd2', 'd3')).toEqual(['d2', 'd3']);
    expect(await found('gizmo')).toEqual(['anchor', 'd2', 'd3']);
  });
});

describe.skipIf(!postgresAvailable())('a batch of writes on a PostgreSQL catalog', () => {
  let catalog: Catalog;
  beforeEach(async () => {
    catalog = await pg.open();
  });
  afterEach(async () => {
    await pg.close(catalog);
  });

  it('commits in one PostgreSQL transaction, not one per write', async () => {
    // Another connection looks for the first write's part while the second runs: not there yet
    // while the batch's one transaction is open, there once it committed.
    const outside = new pgDriver.Client({ connectionString: pg.url() });
    await outside.connect();
    const seen = async (id: string) => (await outside.query('SELECT 1 FROM parts WHERE part_id = $1', [id])).rowCount === 1;
    try {
      const service = Object.create(catalog.service) as Catalog['service'];
      const seenDuring: boolean[] = [];
      Object.defineProperty(service, 'upsertParts', {
        value: async (principal: typeof LOCAL_OWNER, body: unknown) => {
          if ((body as { part_id: string }[])[0]?.part_id === 't2') seenDuring.push(await seen('t1'));
          return catalog.service.upsertParts(principal, body);
        },
      });
      const results = await runWriteBatch({ ...catalog, service }, { writes: [partsWrite('t1'), partsWrite('t2', 't3'), { service: 'relations', method: 'createRelations', args: [LOCAL_OWNER, [{ anchor_part_id: 't1', related_part_id: 't3', type: 'substitute' }]] }] });
      expect(results.map((result) => result.ok)).toEqual([true, true, true]);
      expect(seenDuring).toEqual([false]);
      expect(await seen('t1')).toBe(true);
    } finally {
      await outside.end();
    }
  });

});

describe('a batch of writes whose transaction cannot begin', () => {
  it('answers each write with the 503 of a database that cannot be reached, not a 500', async () => {
    const catalog = openCatalog({ dataDir: undefined });
    try {
      // The PostgreSQL stores' group commit, every connection refused (a restart): wrapped as the stores wrap it.
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      const groupCommit = withStorageFullErrors({ run: () => Promise.reject(refused) } as GroupCommit, 'the catalog database (PostgreSQL)', { unavailable: true });
      const results = await runWriteBatch({ ...catalog, groupCommit }, { writes: [partsWrite('u1'), partsWrite('u2')] });
      expect(results.map((result) => (result.ok ? 'ok' : 'problem' in result ? [result.problem.status, result.retryAfterSeconds !== undefined] : 'internal'))).toEqual([[503, true], [503, true]]);
    } finally {
      await catalog.close();
    }
  });
});
