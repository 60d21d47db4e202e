/**
 * SQLite migration 18: a term is stored once, in the leveled dictionary. A catalog written before
 * keeps its term ids, and the ids given after it are above every id it gave (an id is never given
 * to another term: a reader may still hold it).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from '../../src/adapters/sqlite/database.js';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

const TERMS_ONCE = MIGRATIONS.find((m) => m.name === 'terms stored once')?.version ?? MIGRATIONS.length + 1;

describe('terms stored once (SQLite migration)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the ids of a catalog written before, gives new terms ids above the highest, and searches as before', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const before = openCatalog({ dataDir });
    try {
      expect(await before.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p1', name: { en: 'Widget deluxe MX1000' } }])).toMatchObject({ errors: {} });
    } finally {
      await before.close();
    }
    // The catalog as the schema before wrote it: engine_terms (id -> term) beside the levels, and
    // a removed term's id (the highest) that only engine_terms still holds.
    const db = new Database(join(dataDir, 'catalog.db'));
    let highest: number;
    try {
      db.exec(`
        CREATE TABLE engine_terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
        INSERT INTO engine_terms (id, term) SELECT id, term FROM engine_term_levels;
        CREATE TABLE engine_dropped_terms (version INTEGER PRIMARY KEY, ids BLOB NOT NULL);
        ALTER TABLE engine_stats DROP COLUMN next_term_id;
        ALTER TABLE engine_term_changes DROP COLUMN terms;
      `);
      highest = (db.prepare('SELECT max(id) FROM engine_terms').pluck().get() as number) + 1000;
      db.prepare('INSERT INTO engine_terms (id, term) VALUES (?, ?)').run(highest, 'removed');
      db.pragma(`user_version = ${TERMS_ONCE - 1}`);
      migrate(db, MIGRATIONS);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name IN ('engine_terms', 'engine_dropped_terms')").all()).toEqual([]);
      expect(db.prepare('SELECT next_term_id FROM engine_stats').pluck().get()).toBe(highest + 1);
      // Run again over its own result (a step must be safe to repeat): nothing changes.
      db.pragma(`user_version = ${TERMS_ONCE - 1}`);
      migrate(db, MIGRATIONS);
      expect(db.prepare('SELECT next_term_id FROM engine_stats').pluck().get()).toBe(highest + 1);
    } finally {
      db.close();
    }

    const after = openCatalog({ dataDir });
    try {
      expect(await after.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p2', name: { en: 'Gadget QX4471' } }])).toMatchObject({ errors: {} });
      const store = new Database(join(dataDir, 'catalog.db'), { readonly: true });
      try {
        expect(store.prepare("SELECT id FROM engine_term_levels WHERE term = 'qx4471'").pluck().get()).toBeGreaterThan(highest);
      } finally {
        store.close();
      }
      const ids = async (text: string) => (await after.search.search(LOCAL_OWNER, { matches: { text } })).results.map((r) => r.id);
      expect(await ids('widget mx1000')).toEqual(['p1']);
      expect(await ids('qx4471')).toEqual(['p2']);
      expect(await ids('gadg')).toEqual(['p2']);
    } finally {
      await after.close();
    }
  });
});
