/**
 * An image search's scores are the same on its first answer and on every page of its session
 *: a session stores each score to 1/65,535 (SessionStore.create), and the projection
 * shows four decimals, so a score that the answer showed unstored could round the other way on a
 * page (0.00345 answered 0.0035, paged 0.0034). And `resultOptions.minScore` keeps exactly the hits
 * whose shown score reaches it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCatalogStore } from '../../src/adapters/sqlite/catalog-store.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteSearchIndex } from '../../src/adapters/sqlite/search/search-index.js';
import { openSessionDatabase, SqliteSessionStore } from '../../src/adapters/sqlite/session-store.js';
import { systemClock, systemIds } from '../../src/adapters/system.js';
import { CatalogService } from '../../src/core/catalog/service.js';
import { createServiceContext } from '../../src/core/context.js';
import type { ImageMatch } from '../../src/core/model.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { sessionScore } from '../../src/core/ports.js';
import { SearchService } from '../../src/core/search/service.js';

/** Scores on a four-decimal rounding edge, the stored value rounding the other way (checked below). */
const RAW_SCORES = [0.42675, 0.12345, 0.00345];
/** A minScore between a raw score (0.3101) and its stored value (0.31009...). */
const MIN_SCORE = 0.3101;

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

describe('image search scores in a session', () => {
  let service: CatalogService;
  let search: SearchService;
  let matches: ImageMatch[];

  beforeEach(async () => {
    const clock = systemClock();
    const store = new SqliteCatalogStore(openDatabase(':memory:'));
    const index = new SqliteSearchIndex(store.db, { clock });
    store.listeners.push(index);
    const context = createServiceContext({ store, clock, ids: systemIds() });
    service = new CatalogService({ context, store });
    const images = { rankParts: async (_image: Uint8Array, limit: number) => matches.slice(0, limit) };
    search = new SearchService({ context, index, sessions: new SqliteSessionStore(openSessionDatabase(':memory:')), images });
    await service.upsertParts(LOCAL_OWNER, ['a', 'b', 'c', 'd', 'e'].map((id) => ({ part_id: `p:${id}`, name: { en: `part ${id}` } })));
  });
  afterEach(async () => {
    await search.close();
    await service.close();
  });

  it('the first answer shows the scores every page of its session shows', async () => {
    // The premise: each raw score rounds to another fourth decimal than its stored value.
    for (const raw of RAW_SCORES) expect(round4(sessionScore(raw))).not.toBe(round4(raw));
    matches = RAW_SCORES.map((score, i) => ({ part_id: `p:${'abcd'[i]}`, image_id: `img-${i}`, score }));
    const projection = ['results.id', 'results.score'];
    const answer = await search.search(LOCAL_OWNER, { projection, resultOptions: { limit: 3 } }, { bytes: new Uint8Array([1]) });
    expect(answer.results).toEqual(RAW_SCORES.map((raw, i) => ({ id: `p:${'abcd'[i]}`, score: round4(sessionScore(raw)) })));
    const page = await search.searchState(LOCAL_OWNER, answer.sessionId, { skip: 0, limit: 3, projection });
    expect(page.results).toEqual(answer.results);
    const second = await search.searchState(LOCAL_OWNER, answer.sessionId, { skip: 1, limit: 2, projection });
    expect(second.results).toEqual(answer.results.slice(1));
  });

  it('minScore compares the score the caller is shown, so no hit below it is ever shown', async () => {
    expect(sessionScore(MIN_SCORE)).toBeLessThan(MIN_SCORE);
    matches = [
      { part_id: 'p:a', image_id: 'img-a', score: 0.9 },
      { part_id: 'p:b', image_id: 'img-b', score: MIN_SCORE },
      { part_id: 'p:c', image_id: 'img-c', score: 0.2 },
    ];
    const answer = await search.search(LOCAL_OWNER, { projection: ['results.id', 'results.score'], resultOptions: { limit: 10, minScore: MIN_SCORE } }, { bytes: new Uint8Array([1]) });
    expect(answer.results.map((r) => r.id)).toEqual(['p:a']);
    expect(answer.resultsTotalCount).toBe(1);
  });

  it('scores are clamped to [0, 1] and kept to 1/65,535', () => {
    expect(sessionScore(1.0000001)).toBe(1);
    expect(sessionScore(-0.0001)).toBe(0);
    expect(sessionScore(0.5)).toBe(32_768 / 65_535);
    expect(sessionScore(sessionScore(0.12345))).toBe(sessionScore(0.12345));
  });
});
