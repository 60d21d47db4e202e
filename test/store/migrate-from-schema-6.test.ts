/**
 * Migrations 8 and 9 (catalog on disk) on a catalog written by the code before them
 * (test/fixtures/catalog-schema-6: made by main at schema version 6 with a search session, an
 * update and a delete after that search; .expected.json is what that code showed). After the
 * migrations the catalog reads the same, the old session keeps its pages through later writes, and
 * the rows are in the new layout (cards only as copies, compact parts rows).
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openCatalog } from '../../src/open-catalog.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { tempDir } from '../helpers/harness.js';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'catalog-schema-6');

interface Expected {
  sessionId: string;
  session: { id: string; name: string; modifiedAt: string }[];
  parts: unknown;
  acme: string[];
  acmeTotal: number;
}

describe('migrations 8 and 9 on a catalog of schema version 6', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the same parts, search results and session pages after the migration, and the session survives later writes', async () => {
    const expected = JSON.parse(readFileSync(`${FIXTURE}.expected.json`, 'utf8')) as Expected;
    const dataDir = tempDir();
    dirs.push(dataDir);
    cpSync(FIXTURE, dataDir, { recursive: true });
    // The fixture's time, one minute on: its session (24 h) is still alive.
    const at = Date.parse(expected.session[0]?.modifiedAt ?? '') * 1000 + 60_000_000;
    const clock = { nowMicros: () => at };
    const catalog = openCatalog({ dataDir, clock });
    try {
      expect(await catalog.service.listParts(LOCAL_OWNER, { paging: { limit: 100 } })).toEqual(expected.parts);
      const page = await catalog.search.searchState(LOCAL_OWNER, expected.sessionId, { limit: 100 });
      expect(page.results).toEqual(expected.session);
      const acme = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'acme' }, resultOptions: { limit: 100 } });
      expect([acme.results.map((r) => r.id), acme.resultsTotalCount]).toEqual([expected.acme, expected.acmeTotal]);

      await catalog.service.upsertParts(LOCAL_OWNER, [{ part_id: 'pump-05', name: { en: 'Pump five' } }]);
      await catalog.service.deleteParts(LOCAL_OWNER, ['pump-07']);
      expect((await catalog.search.searchState(LOCAL_OWNER, expected.sessionId, { limit: 100 })).results).toEqual(expected.session);
      expect((await catalog.search.searchState(LOCAL_OWNER, acme.sessionId, { limit: 100 })).results.map((r) => r.id)).toEqual(expected.acme);
    } finally {
      await catalog.close();
    }

    const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
    try {
      // and every later migration after them;
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)?.version);
      // Every card row is a superseded copy; the parts rows are compact.
      expect(db.prepare('SELECT count(*) FROM search_cards WHERE superseded_at IS NULL').pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(*) FROM parts WHERE typeof(service_id) <> 'blob' OR attributes LIKE '%attribute_id%'").pluck().get()).toBe(0);
      const base = Number(db.prepare("SELECT value FROM search_state WHERE key = 'card_base'").pluck().get());
      expect(db.prepare('SELECT count(*) FROM search_current WHERE card_id < ?').pluck().get(base)).toBe(0);
    } finally {
      db.close();
    }
  });
});
