/**
 * A reader thread answers a text search as soon as its first page is ranked, then ranks the
 * session's hits (http/pool/answer-early.ts). The session must be the snapshot
 * the answer came from: a write that commits in between (here: two parts deleted through another
 * connection, from inside the answer callback) is not in it, while a new search sees it.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStores } from '../../../src/adapters/sqlite/stores.js';
import { systemClock } from '../../../src/adapters/system.js';
import type { SearchResponse } from '../../../src/api/schemas.js';
import { LOCAL_OWNER } from '../../../src/core/permissions.js';
import type { Catalog } from '../../../src/core/services.js';
import { openCatalog } from '../../../src/open-catalog.js';
import { searchAnsweringEarly } from '../../../src/http/pool/answer-early.js';
import { tempDir } from '../../helpers/harness.js';

describe('searchAnsweringEarly', () => {
  let dir: string;
  let catalog: Catalog;

  beforeAll(async () => {
    dir = tempDir('catalog-early-');
    catalog = openCatalog({ dataDir: dir });
    // Equal scores: ranked by part id, p00 first.
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 60 }, (_, i) => ({ part_id: `p${String(i).padStart(2, '0')}`, name: { en: 'Gear pump' } })));
  });
  afterAll(async () => {
    await catalog?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ids = (r: SearchResponse) => r.results.map((x) => x.id);

  it('answers the first page as search() would, and stores the session of the same snapshot', async () => {
    const other = openSqliteStores({ dataDir: dir, clock: systemClock() });
    try {
      const plain = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'gear' }, resultOptions: { limit: 10 } });
      let answer: SearchResponse | undefined;
      await searchAnsweringEarly(catalog.search, LOCAL_OWNER, { matches: { text: 'gear' }, resultOptions: { limit: 10 } }, (response) => {
        answer = response;
        // Commits at once (better-sqlite3 is synchronous), before the session's hits are ranked.
        void other.catalog.deleteParts(['p30', 'p40'], () => ({ kind: 'write', value: null, created: false }));
      });
      expect(answer).toBeDefined();
      const early = answer as SearchResponse;
      expect({ ...early, sessionId: '' }).toEqual({ ...plain, sessionId: '' });
      expect(early.resultsTotalCount).toBe(60);
      expect(early.resultsPageableCount).toBe(60);
      // The session: all 60 of the snapshot, the two deleted parts included (their cards are the snapshot's).
      const page = await catalog.search.searchState(LOCAL_OWNER, early.sessionId, { skip: 25, limit: 20 });
      expect(ids(page)).toEqual(Array.from({ length: 20 }, (_, i) => `p${25 + i}`));
      expect(page.resultsTotalCount).toBe(60);
      // A new search sees the deletion.
      expect((await catalog.search.search(LOCAL_OWNER, { matches: { text: 'gear' } })).resultsTotalCount).toBe(58);
    } finally {
      await other.close();
    }
  });

  it('rejects a bad request before answering', async () => {
    let called = false;
    await expect(searchAnsweringEarly(catalog.search, LOCAL_OWNER, { matches: { text: 'gear', nope: 1 } }, () => (called = true))).rejects.toMatchObject({ status: 400 });
    expect(called).toBe(false);
  });
});
