/**
 * `catalog serve` on PostgreSQL (src/http/server.ts, pool/pooled-catalog.ts with no readers):
 * catalog and relation writes run on a writer thread of their own, one after the other, while
 * reads and searches stay on the main thread; a write is read and found at once on the main
 * thread, and errors are answered as without the thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CatalogError } from '../../src/api/errors.js';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { openCatalogAt } from '../../src/open-catalog.js';
import { createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

describe.skipIf(!postgresAvailable())('catalog serve on PostgreSQL: writes on a writer thread', () => {
  let database = '';
  let schema = '';
  let dataDir = '';
  let server: RunningServer | undefined;
  let client: HttpCatalogClient;

  beforeAll(async () => {
    // A schema of the test cluster's database (no database of its own: creating one is the slow part).
    database = inject('postgresUrl');
    const created = await createTestSchema(database);
    schema = created.schema;
    dataDir = mkdtempSync(join(tmpdir(), 'pg-writer-'));
    const setup = await openCatalogAt({ dataDir, databaseUrl: created.url });
    const { secret } = await setup.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] });
    await setup.close();
    server = await startServer({ dataDir, databaseUrl: created.url, host: '127.0.0.1', port: 0, accessLog: null, readers: 2 });
    client = new HttpCatalogClient({ url: server.url, token: secret, retries: 0 });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    if (schema !== '') await dropTestSchema(database, schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs writes on one writer thread and reads on the main thread (no reader threads)', () => {
    expect((server?.catalog as { threads?: unknown }).threads).toEqual({ readers: 0, writer: 1 });
  });

  it('answers writes sent together in arrival order, each read and found at once', async () => {
    await client.upsertAttributes([{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true }]);
    // Four writes of the same part at once, queued for the writer thread: every one answered, the
    // last to arrive stored, and the search index in step with it (only its name is found).
    const names = Array.from({ length: 4 }, (_, i) => `Gear pump mark${i}`);
    const answers = await Promise.all(names.map((name) => client.upsertParts([{ part_id: 'p1', name: { en: name }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme' } }] }] }])));
    expect(answers.map((a) => a.errors)).toEqual(names.map(() => ({})));
    const stored = (await client.getPart('p1')).name.en ?? '';
    expect(names).toContain(stored);
    const found = await Promise.all(names.map(async (name) => (await client.search({ matches: { text: name.split(' ')[2] ?? '' } })).resultsTotalCount));
    expect(found).toEqual(names.map((name) => (name === stored ? 1 : 0)));
    await client.upsertParts([{ part_id: 'p2', name: { en: 'Gear motor' } }]);
    expect(await client.createRelations([{ anchor_part_id: 'p1', related_part_id: 'p2', type: 'substitute' }])).toEqual({ created: 1 });
    expect((await client.getRelations('p1')).map((r) => [r.part_id, r.type])).toEqual([['p2', 'substitute']]);
  });

  it('answers a write the core refuses with the same error, storing nothing of it', async () => {
    const error = await client.createRelations([
      { anchor_part_id: 'p2', related_part_id: 'p1', type: 'duplicate' },
      { anchor_part_id: 'ghost', related_part_id: 'p1', type: 'duplicate' },
    ]).then(() => undefined, (e: unknown) => e as CatalogError);
    expect({ status: error?.status, code: error?.code, errors: error?.errors }).toEqual({
      status: 400, code: 'bad_request', errors: [{ path: 'items[1].anchor_part_id', message: "part 'ghost' does not exist" }],
    });
    expect((await client.getRelations('p1')).map((r) => [r.part_id, r.type])).toEqual([['p2', 'substitute']]);
  });
});
