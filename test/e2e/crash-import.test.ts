/**
 * Crash safety of a local bulk import: SIGKILL at random points (10 times) must leave a database that
 * passes `PRAGMA integrity_check`, and `--resume` must complete the import with no duplicates.
 */
import { writeFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.js';
import { catalogSpawn, catalogSync, exited } from '../helpers/bin.js';

const ROWS = 30_000;

describe('SIGKILL during a local bulk import', () => {
  let dir: string;
  let csv: string;
  beforeAll(() => {
    dir = tempDir('catalog-crash-');
    csv = join(dir, 'parts.csv');
    const lines = ['part_id,name.en,attr:vendor.en'];
    for (let i = 0; i < ROWS; i++) lines.push(`crash:${String(i).padStart(6, '0')},Part ${i},Vendor ${i % 7}`);
    writeFileSync(csv, `${lines.join('\n')}\n`);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('10 kills at random points: integrity ok every time, --resume completes without duplicates', async () => {
    const dataDir = join(dir, 'catalog');
    writeFileSync(join(dir, 'attrs.ndjson'), '{"attribute_id":"vendor","type":"text","name":{"en":"Vendor"}}\n');
    expect(catalogSync(['--data-dir', dataDir, 'attributes', 'import', join(dir, 'attrs.ndjson')]).code).toBe(0);
    let killedMidway = 0;
    for (let round = 0; round < 10; round++) {
      const child = catalogSpawn(['--data-dir', dataDir, '-q', 'parts', 'import', csv, '--resume', '--batch-size', '500']);
      // Random points: from start-up to well into the import.
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.floor(Math.random() * 900)));
      child.kill('SIGKILL');
      const { signal } = await exited(child);
      if (signal === 'SIGKILL') killedMidway++;
      const db = new Database(join(dataDir, 'catalog.db'));
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('foreign_key_check')).toEqual([]);
        const count = (db.prepare('SELECT count(*) AS n FROM parts').get() as { n: number }).n;
        const refs = (db.prepare("SELECT count(*) AS n FROM part_attributes WHERE attribute_id = 'vendor'").get() as { n: number }).n;
        expect(refs).toBe(count); // every stored part is whole: its reference row committed with it
        expect(count).toBeLessThanOrEqual(ROWS);
      } finally {
        db.close();
      }
    }
    expect(killedMidway).toBeGreaterThanOrEqual(5);
    const resumed = catalogSync(['--data-dir', dataDir, 'parts', 'import', csv, '--resume', '--batch-size', '500']);
    expect(resumed.code).toBe(0);
    expect(existsSync(`${csv}.checkpoint.json`)).toBe(false);
    const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
    try {
      expect((db.prepare('SELECT count(*) AS n FROM parts').get() as { n: number }).n).toBe(ROWS);
      expect((db.prepare('SELECT count(DISTINCT part_id) AS n FROM parts').get() as { n: number }).n).toBe(ROWS);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});
