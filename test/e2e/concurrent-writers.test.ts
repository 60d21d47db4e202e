/**
 * Two CLI writers and a server on one data directory at once: no write is lost and no SQLITE_BUSY
 * ("database is locked") reaches anyone.
 */
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { tempDir } from '../helpers/harness.js';
import { catalogSpawn, catalogSync, exited, startServe } from '../helpers/bin.js';

function partsCsv(path: string, prefix: string, count: number): void {
  const lines = ['part_id,name.en,attr:vendor.en'];
  for (let i = 0; i < count; i++) lines.push(`${prefix}:${i},Part ${i},Vendor ${i % 5}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe('concurrent writers on one data directory', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('catalog-concurrent-');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('two CLI imports and HTTP writes at the same time lose nothing', async () => {
    const dataDir = join(dir, 'catalog');
    writeFileSync(join(dir, 'attrs.ndjson'), '{"attribute_id":"vendor","type":"text","name":{"en":"Vendor"}}\n');
    expect(catalogSync(['--data-dir', dataDir, 'attributes', 'import', join(dir, 'attrs.ndjson')]).code).toBe(0);
    const token = catalogSync(['--data-dir', dataDir, 'tokens', 'create', '--name', 'writer', '--role', 'dataContributor']).stdout.trim();
    partsCsv(join(dir, 'a.csv'), 'a', 15_000);
    partsCsv(join(dir, 'b.csv'), 'b', 15_000);
    const { url, child: server } = await startServe(dataDir);
    const client = new HttpCatalogClient({ url, token, retries: 0 });
    try {
      const writerA = catalogSpawn(['--data-dir', dataDir, 'parts', 'import', join(dir, 'a.csv'), '--batch-size', '100']);
      const writerB = catalogSpawn(['--data-dir', dataDir, 'parts', 'import', join(dir, 'b.csv'), '--batch-size', '100']);
      const httpWrites = (async () => {
        const results = [];
        for (let r = 0; r < 100; r++) {
          const items = Array.from({ length: 10 }, (_, i) => ({ part_id: `h:${r * 10 + i}`, name: { en: `HTTP ${r}` }, attributes: [{ attribute_id: 'vendor', values: [{ value: { en: 'V' } }] }] }));
          results.push(await client.upsertParts(items));
          await client.listParts({ paging: { limit: 5 } });
        }
        return results;
      })();
      const [a, b, http] = await Promise.all([exited(writerA), exited(writerB), httpWrites]);
      expect(a.code, writerA.output().stderr).toBe(0);
      expect(b.code, writerB.output().stderr).toBe(0);
      expect(http.every((res) => res.created.length === 10 && Object.keys(res.errors).length === 0)).toBe(true);
      for (const out of [writerA.output().stderr, writerB.output().stderr, server.output().stderr]) {
        expect(out).not.toMatch(/SQLITE_BUSY|database is locked/i);
      }
    } finally {
      await client.close();
      server.kill('SIGTERM');
      await exited(server);
    }
    const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
    try {
      const count = (prefix: string) => (db.prepare('SELECT count(*) AS n FROM parts WHERE part_id LIKE ?').get(`${prefix}:%`) as { n: number }).n;
      expect([count('a'), count('b'), count('h')]).toEqual([15_000, 15_000, 1000]);
    } finally {
      db.close();
    }
  });
});
