/**
 * The typo vocabulary holds the words a typo may reach: letter words of 4 to 40 letters
 * (core/search/typo.ts isVocabularyTerm, docs/search.md "Typos"). A part number is never one: on a
 * real catalog every part brings its own, and a two-typo search read every one beginning with the
 * query's first letter. SQLite migration 19 takes the ones a catalog stored before out.
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

const LETTER_WORDS = MIGRATIONS.find((m) => m.name === 'typo vocabulary of letter words')?.version ?? MIGRATIONS.length + 1;

const PARTS = [
  { part_id: 'p1', name: { en: 'Thermostatic valve TV4471' } },
  { part_id: 'p2', name: { en: 'Controller board THERMOSTAT1C' } },
  { part_id: 'p3', name: { en: 'Ethernet controller GW94171 ABC' } },
];

describe('typo vocabulary (SQLite)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('holds letter words only; two typos reach a letter word, never a part number one edit away', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const catalog = openCatalog({ dataDir });
    try {
      expect(await catalog.service.upsertParts(LOCAL_OWNER, PARTS)).toMatchObject({ errors: {} });
      const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
      try {
        expect((db.prepare('SELECT term FROM search_term_levels ORDER BY term').pluck().all() as string[])).toEqual(['board', 'controller', 'ethernet', 'thermostatic', 'valve']);
      } finally {
        db.close();
      }
      const ids = async (text: string) => (await catalog.search.search(LOCAL_OWNER, { matches: { text } })).results.map((r) => r.id).sort();
      // Two edits from "thermostatic" (a substitution and a deletion): found through the first-letter range.
      expect(await ids('thermostaic ')).toEqual(['p1']);
      expect(await ids('tharmostatik ')).toEqual(['p1']);
      // "thermostat1c" is one edit from "thermostatic" but a part number, not a word a typo reaches.
      expect(await ids('thermostatyc ')).toEqual(['p1']);
      // Part numbers are still found as typed and as prefixes.
      expect(await ids('thermostat1c')).toEqual(['p2']);
      expect(await ids('gw941')).toEqual(['p3']);
    } finally {
      await catalog.close();
    }
  });

  it('migration: the part numbers and short words a catalog stored before leave the vocabulary, its words stay', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const before = openCatalog({ dataDir });
    try {
      expect(await before.service.upsertParts(LOCAL_OWNER, PARTS)).toMatchObject({ errors: {} });
    } finally {
      await before.close();
    }
    const db = new Database(join(dataDir, 'catalog.db'));
    try {
      // The vocabulary as the schema before filled it: every token of 3 to 40 characters with a letter.
      const add = db.prepare('INSERT INTO search_term_levels (level, term) VALUES (?, ?)');
      for (const [level, term] of [[0, 'tv4471'], [1, 'thermostat1c'], [2, 'gw94171'], [0, 'abc'], [1, 'żarówka']] as const) add.run(level, term);
      db.pragma(`user_version = ${LETTER_WORDS - 1}`);
      migrate(db, MIGRATIONS);
      const words = () => db.prepare('SELECT term FROM search_term_levels ORDER BY term').pluck().all();
      expect(words()).toEqual(['board', 'controller', 'ethernet', 'thermostatic', 'valve', 'żarówka']);
      // Safe to run again over its own result.
      db.pragma(`user_version = ${LETTER_WORDS - 1}`);
      migrate(db, MIGRATIONS);
      expect(words()).toEqual(['board', 'controller', 'ethernet', 'thermostatic', 'valve', 'żarówka']);
    } finally {
      db.close();
    }
    const after = openCatalog({ dataDir });
    try {
      const ids = async (text: string) => (await after.search.search(LOCAL_OWNER, { matches: { text } })).results.map((r) => r.id).sort();
      expect(await ids('tharmostatik ')).toEqual(['p1']);
      expect(await ids('gw94171')).toEqual(['p3']);
    } finally {
      await after.close();
    }
  });
});
