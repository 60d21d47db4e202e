/**
 * Postings a write appends to stored lists (an import's recurring words) go to a run of that write
 * (adapters/sqlite/search/engine-store.ts, docs/search.md "Posting runs"): no stored block of
 * engine_postings is rewritten for them; runs merge by size into engine_postings; updates and
 * deletes of parts whose postings lie in runs, and a rebuild, give the same answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_FANOUT } from '../../src/adapters/sqlite/search/engine-store.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';
import { inMemorySqliteCatalog, type InMemorySqliteCatalog } from '../helpers/sqlite-catalog.js';

const part = (i: number, name = `gizmo ${i % 2 === 0 ? 'even' : 'odd'} model${i}`) => ({ part_id: `p${String(i).padStart(4, '0')}`, name: { en: name } });

describe('posting runs (SQLite)', () => {
  let c: InMemorySqliteCatalog;
  afterEach(async () => {
    await c?.close();
  });

  const write = async (parts: ReturnType<typeof part>[]) => expect(await c.service.upsertParts(LOCAL_OWNER, parts)).toMatchObject({ errors: {} });
  const remove = async (ids: string[]) => expect(await c.service.deleteParts(LOCAL_OWNER, ids)).toMatchObject({ errors: {} });
  const found = async (text: string) => {
    const r = await c.search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 1000 } });
    return { total: r.resultsTotalCount, ids: r.results.map((h) => h.id).sort() };
  };
  const count = (sql: string) => c.store.db.prepare(sql).pluck().get() as number;
  /** What a search for each word of the parts answers. */
  const answers = async () => Promise.all(['gizmo', 'even', 'odd', 'model7', 'renamed', 'sprocket'].map(found));

  it('appends of recurring words rewrite no stored block, are searchable at once, and merge into engine_postings by size', async () => {
    c = inMemorySqliteCatalog();
    c.store.db.exec(`
      CREATE TEMP TABLE rewritten (term_id INTEGER);
      CREATE TEMP TRIGGER block_updated AFTER UPDATE ON engine_postings BEGIN INSERT INTO rewritten VALUES (OLD.term_id); END;
      CREATE TEMP TRIGGER block_deleted AFTER DELETE ON engine_postings BEGIN INSERT INTO rewritten VALUES (OLD.term_id); END;`);
    const writes = RUN_FANOUT * RUN_FANOUT;
    // The first write's words are new terms (written to engine_postings); each later write makes a run.
    for (let w = 0; w < writes; w++) {
      await write([part(3 * w), part(3 * w + 1), part(3 * w + 2)]);
      if (w === 1) {
        // The second write's "gizmo", "even", "odd" went to its run; nothing stored was rewritten.
        expect(count('SELECT count(*) FROM temp.rewritten')).toBe(0);
        expect(count('SELECT count(*) FROM engine_runs')).toBeGreaterThan(0);
        expect((await found('gizmo')).total).toBe(6);
      }
    }
    // Tier-0 runs merged into tier 1, never into engine_postings yet.
    expect(count('SELECT count(*) FROM temp.rewritten')).toBe(0);
    expect(count('SELECT count(*) FROM engine_run_list WHERE tier = 1')).toBe(RUN_FANOUT - 1);
    expect(count('SELECT count(*) FROM engine_run_list')).toBeLessThanOrEqual(2 * RUN_FANOUT);
    expect((await found('gizmo')).total).toBe(3 * writes);
    // The write that fills tier 1 merges every run into engine_postings.
    await write([part(3 * writes), part(3 * writes + 1)]);
    expect(count('SELECT count(*) FROM engine_runs') + count('SELECT count(*) FROM engine_run_list')).toBe(0);
    expect((await found('gizmo')).total).toBe(3 * writes + 2);
    expect((await found('model100')).ids).toEqual(['p0100']);
  });

  it('updates and deletes of parts whose postings lie in runs, and a rebuild, answer as the parts say', async () => {
    c = inMemorySqliteCatalog();
    for (let w = 0; w < RUN_FANOUT + 3; w++) await write(Array.from({ length: 4 }, (_, k) => part(4 * w + k)));
    expect(count('SELECT count(*) FROM engine_runs')).toBeGreaterThan(0);
    const all = 4 * (RUN_FANOUT + 3);
    // An update (loses "gizmo", "odd"), an update that keeps its words, a delete: in the runs, the first block and the last write.
    await write([part(7, 'sprocket renamed'), part(6, 'gizmo even renamed model6'), part(all - 1, 'gizmo odd renamed')]);
    await remove(['p0001', `p${String(all - 2).padStart(4, '0')}`]);
    // More appends after the updates, into runs again.
    await write([part(all), part(all + 1)]);
    const expected = {
      gizmo: all - 3 + 2,
      even: all / 2 - 1 + 1,
      odd: all / 2 - 2 + 1,
    };
    const before = await answers();
    expect(before.map((a) => a.total)).toEqual([expected.gizmo, expected.even, expected.odd, 0, 3, 1]);
    expect(before[4]?.ids).toEqual(['p0006', 'p0007', `p${String(all - 1).padStart(4, '0')}`]);
    c.index.rebuild();
    expect(await answers()).toEqual(before);
  });

  it('a process that did not write the runs appends after them and updates parts in them', async () => {
    const dataDir = tempDir('catalog-posting-runs-');
    const first = openCatalog({ dataDir });
    for (let w = 0; w < 4; w++) expect(await first.service.upsertParts(LOCAL_OWNER, [part(2 * w), part(2 * w + 1)])).toMatchObject({ errors: {} });
    await first.close();
    // A new process: its writer knows no list's end.
    const second = openCatalog({ dataDir });
    try {
      expect(await second.service.upsertParts(LOCAL_OWNER, [part(8), part(9), part(3, 'sprocket renamed')])).toMatchObject({ errors: {} });
      const total = async (text: string) => (await second.search.search(LOCAL_OWNER, { matches: { text } })).resultsTotalCount;
      expect([await total('gizmo'), await total('odd'), await total('even'), await total('renamed')]).toEqual([9, 4, 5, 1]);
    } finally {
      await second.close();
    }
  });
});
