/**
 * Rehearsal searches (core/search/rehearsal.ts): a fresh reader thread of `catalog serve` runs
 * searches made of its catalog's own part names, of every kind clients send, while no client
 * needs it; they store nothing. And a pooled server's reader rehearses once it is ready, while a
 * client's write is still seen by its very next search.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { REHEARSAL_SEARCHES, rehearsalFacetValues, rehearsalSearches, rehearse } from '../../src/core/search/rehearsal.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

const NAMES = ['Intel Ethernet Controller I210', 'Logitech HD Webcam C920', 'Realtek Wireless Adapter RTL8821'];

describe('rehearsal searches', () => {
  it('are made of the names, in every kind a client sends: a word, two words, a word being typed, a typo', () => {
    const texts = rehearsalSearches(NAMES, 40).map((body) => body.matches?.text ?? '');
    const words = new Set(NAMES.flatMap((n) => n.split(' ')).filter((w) => w.length >= 3));
    expect(texts.length).toBe(12);
    expect(texts.filter((t) => words.has(t)).length).toBeGreaterThan(0);
    expect(texts.filter((t) => t.split(' ').length === 2 && t.split(' ').every((w) => words.has(w))).length).toBeGreaterThan(0);
    const typed = texts.filter((t) => !words.has(t) && [...words].some((w) => w.startsWith(t) && t.length >= 2 && t.length <= 5));
    expect(typed.length).toBeGreaterThan(0);
    const typos = texts.filter((t) => !t.includes(' ') && !words.has(t) && !typed.includes(t));
    expect(typos.length).toBeGreaterThan(0);
    for (const typo of typos) expect([...words].some((w) => w.length === typo.length && [...w].sort().join('') === [...typo].sort().join(''))).toBe(true);
    // Deterministic, bounded, and nothing from names without a word of 3 letters.
    expect(rehearsalSearches(NAMES, 40)).toEqual(rehearsalSearches(NAMES, 40));
    expect(rehearsalSearches(NAMES, 5)).toHaveLength(5);
    expect(rehearsalSearches(['a b', '--'], 10)).toEqual([]);
  });

  it('count the facet values of each filterable attribute, over every part and over a word', () => {
    expect(rehearsalFacetValues([{ attribute_id: 'vendor', filterable: true }, { attribute_id: 'notes', filterable: false }], NAMES)).toEqual([
      { attribute_id: 'vendor' },
      { attribute_id: 'vendor', matches: { text: 'Intel' } },
    ]);
  });

  describe('on a catalog', () => {
    let catalog: Catalog;
    let dataDir = '';
    beforeAll(async () => {
      dataDir = tempDir('catalog-rehearsal-');
      catalog = openCatalog({ dataDir });
      expect(await catalog.service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true }])).toMatchObject({ errors: {} });
      const parts = Array.from({ length: 300 }, (_, i) => ({
        part_id: `p-${i}`,
        name: { en: `${NAMES[i % 3]} rev${i}` },
        attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: ['Intel', 'Logitech', 'Realtek'][i % 3] as string } }] }],
      }));
      expect(await catalog.service.upsertParts(LOCAL_OWNER, parts)).toMatchObject({ errors: {} });
    });
    afterAll(async () => {
      await catalog?.close();
    });

    it('runs every search and facet count, each after the thread is idle, and stores nothing', async () => {
      const before = await catalog.operations.sizes();
      const names = await catalog.search.sampleNames(120);
      expect(names.length).toBe(120);
      expect(names.every((n) => NAMES.some((known) => n.startsWith(known)))).toBe(true);
      let idle = 0;
      const ran = await rehearse(catalog.search, catalog.service.store, LOCAL_OWNER, () => {
        idle++;
        return Promise.resolve();
      }, { facets: true, budgetMs: Number.POSITIVE_INFINITY });
      expect(ran).toBe(REHEARSAL_SEARCHES + 2);
      expect(idle).toBe(ran);
      expect(await catalog.operations.sizes()).toEqual(before);
      expect((await catalog.service.getPart(LOCAL_OWNER, 'p-7')).name).toEqual({ en: `${NAMES[1]} rev7` });
    });

    it('stops when its time is spent, and within postings skips the searches that would read more', async () => {
      let idle = 0;
      const count = () => {
        idle++;
        return Promise.resolve();
      };
      expect(await rehearse(catalog.search, catalog.service.store, LOCAL_OWNER, count, { budgetMs: 0 })).toBe(0);
      expect(idle).toBe(0);
      // One search at most once the budget is spent: a budget of 1 ms ends after the first that takes longer.
      const few = await rehearse(catalog.search, catalog.service.store, LOCAL_OWNER, count, { budgetMs: 1e-9 });
      expect(few).toBe(1);
      // Every name word is in 100 parts: within 50 postings only typos of nothing and prefixes of model numbers fit.
      const within = await rehearse(catalog.search, catalog.service.store, LOCAL_OWNER, () => Promise.resolve(), { maxPostings: 50, budgetMs: Number.POSITIVE_INFINITY });
      const whole = await rehearse(catalog.search, catalog.service.store, LOCAL_OWNER, () => Promise.resolve(), { budgetMs: Number.POSITIVE_INFINITY });
      expect(whole).toBe(REHEARSAL_SEARCHES);
      expect(within).toBeGreaterThan(0);
      expect(within).toBeLessThan(whole);
    });

    /** The catalog's store, each endTurn recorded in `events`. */
    const recordingStore = (events: string[]) => ({
      allAttributes: () => catalog.service.store.allAttributes(),
      endTurn: () => {
        events.push('endTurn');
        catalog.service.store.endTurn?.();
      },
    });

    it('ends quietly when the catalog fails under it, having ended the turn of the failed request too', async () => {
      const failing = Object.create(catalog.search) as typeof catalog.search;
      failing.rankPlan = () => Promise.reject(new Error('disk I/O error'));
      const events: string[] = [];
      expect(await rehearse(failing, recordingStore(events), LOCAL_OWNER, () => Promise.resolve())).toBe(0);
      // One after the sample and the attributes, one after the failed search.
      expect(events).toEqual(['endTurn', 'endTurn']);
    });

    it('ends the turn after every read, before the next waits for an idle server', async () => {
      const events: string[] = [];
      const ran = await rehearse(catalog.search, recordingStore(events), LOCAL_OWNER, () => {
        events.push('idle');
        return Promise.resolve();
      }, { facets: true, budgetMs: Number.POSITIVE_INFINITY });
      expect(events).toHaveLength(1 + 2 * ran);
      expect(events.every((e, i) => e === (i % 2 === 0 ? 'endTurn' : 'idle'))).toBe(true);
    });

    it('leaves no view of the catalog for a later read of the same turn (CatalogStore.endTurn)', async () => {
      // Another connection commits while this one holds the turn's data version: a read in the same
      // turn still sees the catalog as before; after endTurn it sees the commit.
      const other = new Database(join(dataDir, 'catalog.db'));
      try {
        const seen = async () => (await catalog.service.store.allAttributes()).map((a) => a.attribute_id).sort();
        expect(await seen()).toEqual(['vendor']);
        const colour = { attribute_id: 'colour', type: 'text', name: { en: 'Colour' }, searchable: true, filterable: true, visibility: 'factoryWorker', per_org_values: false, default_value: null, display_order: null, serviceId: 's-colour', createdAt: 1, modifiedAt: 1 };
        other.prepare('INSERT INTO attributes (attribute_id, body) VALUES (?, ?)').run('colour', JSON.stringify(colour));
        expect(await seen()).toEqual(['vendor']);
        catalog.service.store.endTurn?.();
        expect(await seen()).toEqual(['colour', 'vendor']);
      } finally {
        other.close();
      }
    });
  });
});
