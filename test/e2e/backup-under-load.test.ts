/**
 * `catalog backup` while a server takes a 50-connection write load (docs/deploy.md "Backup and
 * restore"): the backup verifies, `catalog restore` gives a catalog that passes SQLite's
 * integrity check and equals the source at the backup's change number — shown by applying the
 * source's changes after that number to the restored copy (the feed's delta) and finding it
 * equal to the source at the end.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import { openCatalog } from '../../src/open-catalog.js';
import { changedItems, deltaRecords, writeWithTombstones } from '../../src/cli/commands/changes/delta.js';
import { catalogSpawn, catalogSync, exited, startServe } from '../helpers/bin.js';
import { tempDir } from '../helpers/harness.js';
import { SHARED_IMAGES } from '../helpers/data.js';
import type { CatalogClient } from '../../src/client/types.js';
import Database from 'better-sqlite3';

async function parts(client: CatalogClient): Promise<unknown[]> {
  const out: unknown[] = [];
  let last: string | undefined;
  for (;;) {
    const page = await client.listParts({ paging: { limit: 1000, ...(last ? { last_object_id: last } : {}) } });
    out.push(...page.result.map(({ part_id, name }) => ({ part_id, name })));
    if (!page.more_data) return out;
    last = page.last_object_id;
  }
}

describe('catalog backup under a write load', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('restores to a catalog that passes the integrity check and equals the source at the backup\'s change number', async () => {
    const dir = tempDir();
    const dataDir = join(dir, 'data');
    const token = catalogSync(['--data-dir', dataDir, 'tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin', '--role', 'dataContributor']).stdout.trim();
    writeFileSync(join(dir, 'parts.ndjson'), Array.from({ length: 200 }, (_, i) => JSON.stringify({ part_id: `p${i}`, name: { en: `start ${i}` } })).join('\n'));
    expect(catalogSync(['--data-dir', dataDir, 'parts', 'import', join(dir, 'parts.ndjson')]).code).toBe(0);
    writeFileSync(join(dir, 'images.csv'), 'image_id,part_id,info,file\npenny,p1,display,001penny.jpg\nmars,p2,display,4_mars.jpg\n');
    expect(catalogSync(['--data-dir', dataDir, 'images', 'upload', join(dir, 'images.csv'), '--dir', SHARED_IMAGES]).code).toBe(0);

    const { url, child } = await startServe(dataDir);
    cleanups.push(async () => {
      child.kill('SIGTERM');
      await exited(child);
    });
    // 50 connections, each writing parts (new ones and updates) and now and then deleting one, until told to stop.
    const pool = new Pool(url, { connections: 50 });
    cleanups.push(() => pool.close());
    let stop = false;
    let writes = 0;
    const worker = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const body = n % 10 === 9
          ? { method: 'DELETE' as const, path: '/1/catalog/parts', body: JSON.stringify([`w${w}-${n - 5}`]) }
          : { method: 'POST' as const, path: '/1/catalog/parts', body: JSON.stringify([{ part_id: `w${w}-${n}`, name: { en: `new ${n}` } }, { part_id: `p${(w * 7 + n) % 200}`, name: { en: `by ${w} at ${n}` } }]) };
        const res = await pool.request({ ...body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
        await res.body.dump();
        expect(res.statusCode).toBe(200);
        writes++;
      }
    };
    const load = Promise.all(Array.from({ length: 50 }, (_, w) => worker(w)));
    while (writes < 200) await new Promise((r) => setTimeout(r, 20));
    const backupDir = join(dir, 'backup');
    const writesBeforeBackup = writes;
    const backup = catalogSpawn(['--data-dir', dataDir, '-o', 'json', 'backup', backupDir]);
    const ended = await exited(backup);
    const writesDuringBackup = writes;
    // The load went on while the backup ran.
    expect(writesDuringBackup).toBeGreaterThan(writesBeforeBackup);
    while (writes < writesDuringBackup + 200) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await load;
    expect(ended.code, backup.output().stderr).toBe(0);
    const manifest = JSON.parse(backup.output().stdout) as { change: number; counts: { parts: number; blobs: number } };
    expect(manifest.counts.blobs).toBe(2);

    const restoredDir = join(dir, 'restored');
    const restored = catalogSync(['--data-dir', restoredDir, 'restore', backupDir]);
    expect(restored.code, restored.stderr).toBe(0);
    const check = new Database(join(restoredDir, 'catalog.db'), { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    expect(readFileSync(join(restoredDir, 'images', 'blobs', ...sha(join(SHARED_IMAGES, '001penny.jpg'))))).toEqual(readFileSync(join(SHARED_IMAGES, '001penny.jpg')));

    const source = new HttpCatalogClient({ url, token });
    cleanups.push(() => source.close());
    const copyCatalog = openCatalog({ dataDir: restoredDir });
    cleanups.push(() => copyCatalog.close());
    const copy = new LocalCatalogClient(copyCatalog);
    // The restored catalog is the source at the backup's change: its own feed ends there...
    expect((await copy.changes({ since: manifest.change })).changes).toEqual([]);
    expect((await copy.changes({ since: Math.max(0, manifest.change - 1) })).changes.map((c) => c.change)).toEqual([manifest.change]);
    // ...and the source's changes after it bring it to the source's end.
    const changed = await changedItems(source, 'part', manifest.change);
    expect(changed.upserted.length).toBeGreaterThan(0);
    const records: Record<string, unknown>[] = [];
    for await (const r of deltaRecords(changed, 'part_id', (ids) => source.selectParts({ part_ids: ids }) as never)) records.push(r);
    for (let i = 0; i < records.length; i += 1000) {
      const batch = records.slice(i, i + 1000).map(({ serviceId: _s, createdAt: _c, modifiedAt: _m, ...rest }) => rest);
      const result = await writeWithTombstones(batch, 'part_id', (items) => copy.upsertParts(items), (ids) => copy.deleteParts(ids), async (ids) => new Set((await copy.selectParts({ part_ids: ids })).map((p) => p.part_id)));
      expect(result.errors).toEqual({});
    }
    expect(await parts(copy)).toEqual(await parts(source));
  }, 180_000);
});

function sha(path: string): string[] {
  const h = createHash('sha256').update(readFileSync(path)).digest('hex');
  return [h.slice(0, 2), h.slice(2, 4), h];
}
