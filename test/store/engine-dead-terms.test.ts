/**
 * A term whose last posting a write removes leaves the dictionary in that write
 * (adapters/sqlite/search/engine-store.ts, docs/search.md "Index layout"): a part renamed again
 * and again (its old name's exact-name term and an old model number each lose their only part)
 * keeps the dictionary the size of what the parts hold, and the prefixes and names beginning with
 * a query read no dead terms. A reader on another connection that kept a dictionary range sees a
 * removed term come back under its new id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeTermIds } from '../../src/core/search/engine/term-ids.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';
import { inMemorySqliteCatalog, type InMemorySqliteCatalog } from '../helpers/sqlite-catalog.js';

/** Dictionary terms whose lists are empty (neither a stored block nor a run block). */
const DEAD_TERMS = `SELECT count(*) FROM engine_term_levels l
  WHERE NOT EXISTS (SELECT 1 FROM engine_postings p WHERE p.term_id = l.id)
    AND NOT EXISTS (SELECT 1 FROM engine_runs r WHERE r.term_id = l.id)`;

describe('terms a write empties (SQLite)', () => {
  let c: InMemorySqliteCatalog | undefined;
  const opened: Catalog[] = [];
  afterEach(async () => {
    await c?.close();
    c = undefined;
    for (const catalog of opened.splice(0)) await catalog.close();
  });

  it('leave the dictionary: renaming a part 40 times keeps it the size of what the parts hold', async () => {
    c = inMemorySqliteCatalog();
    const count = (sql: string) => c!.store.db.prepare(sql).pluck().get() as number;
    const write = async (items: { part_id: string; name: { en: string } }[]) => expect(await c!.service.upsertParts(LOCAL_OWNER, items)).toMatchObject({ errors: {} });
    await write([
      { part_id: 'p1', name: { en: 'Widget deluxe MX1000' } },
      { part_id: 'p2', name: { en: 'Widget plain MX2000' } },
    ]);
    const sizes = () => ['engine_term_levels', 'search_term_levels', 'search_term_keys'].map((table) => count(`SELECT count(*) FROM ${table}`));
    const atStart = sizes();
    // Each name its own model number and its own word of letters (a word of letters has typo keys).
    const letters = (i: number) => `qu${String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26))}x`;
    for (let i = 0; i < 40; i++) await write([{ part_id: 'p1', name: { en: `Widget ${letters(i)} MK${3000 + i}` } }]);
    await write([{ part_id: 'p1', name: { en: 'Widget deluxe MK3039' } }]);
    expect(count(DEAD_TERMS)).toBe(0);
    // The dictionary holds what a catalog of the same two parts written once holds (one model number
    // and one name each); the vocabulary (search_term_levels) and its typo keys hold no word of a name gone either.
    const fresh = inMemorySqliteCatalog();
    try {
      expect(await fresh.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p1', name: { en: 'Widget deluxe MK3039' } }, { part_id: 'p2', name: { en: 'Widget plain MX2000' } }])).toMatchObject({ errors: {} });
      expect(sizes()).toEqual(['engine_term_levels', 'search_term_levels', 'search_term_keys'].map((table) => fresh.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()));
    } finally {
      await fresh.close();
    }
    expect(sizes()[0]).toBeLessThanOrEqual(atStart[0]! + 1);
    // A removed term's id is never given again: the next id is above every id the writes took.
    const maxLoggedId = Math.max(...(c!.store.db.prepare('SELECT term_ids FROM engine_term_changes').pluck().all() as Buffer[]).flatMap((b) => decodeTermIds(b)));
    expect(count('SELECT next_term_id FROM engine_stats')).toBeGreaterThan(maxLoggedId);
    const ids = async (text: string) => (await c!.search.search(LOCAL_OWNER, { matches: { text } })).results.map((r) => r.id);
    expect(await ids('widget deluxe mk3039')).toEqual(['p1']);
    expect(await ids('mk3017 ')).toEqual([]);
    expect(await ids('mx1000 ')).toEqual([]);
    expect((await ids('widget')).sort()).toEqual(['p1', 'p2']);
    expect(count(DEAD_TERMS)).toBe(0);
  });

  it('a reader that kept a range finds a removed term again once a write brings it back', async () => {
    const dataDir = tempDir('catalog-dead-terms-');
    const writer = openCatalog({ dataDir });
    opened.push(writer);
    const write = async (name: string) => expect(await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p1', name: { en: name } }])).toMatchObject({ errors: {} });
    await write('Sprocket deluxe');
    expect(await writer.service.upsertParts(LOCAL_OWNER, [{ part_id: 'p2', name: { en: 'Sprocket plain' } }])).toMatchObject({ errors: {} });
    // Another connection (a reader thread of `catalog serve`, another process) keeps the range of "del".
    const reader = openCatalog({ dataDir });
    opened.push(reader);
    const ids = async (text: string) => (await reader.search.search(LOCAL_OWNER, { matches: { text } })).results.map((r) => r.id);
    expect(await ids('del')).toEqual(['p1']);
    expect(await ids('sprocket del')).toEqual(['p1']);
    // "deluxe" and the name's exact term lose their only part, then come back (new terms, new ids).
    await write('Gear plain');
    expect(await ids('del')).toEqual([]);
    await write('Sprocket deluxe');
    expect(await ids('del')).toEqual(['p1']);
    expect(await ids('sprocket del')).toEqual(['p1']);
    expect(await ids('sprocket deluxe')).toEqual(['p1']);
  });
});
