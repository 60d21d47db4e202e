/**
 * Contract (synonyms): the synonym resource (POST /1/catalog/synonyms create/replace,
 * list, delete; item errors, limits, roles, maintenance mode) and its effect on search at query
 * time: multi-way and one-way sets, multi-word terms, a synonym match ranked below an exact one,
 * highlights that say a match came through a synonym; both clients (and PostgreSQL through the
 * contract-postgres project).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SYNONYM_TERM_WORDS, type SearchResult } from '../../src/api/schemas.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';

const attributes = [{ attribute_id: 'kind', type: 'text', name: { en: 'Kind' }, searchable: true, filterable: true }];

const parts = [
  { part_id: 'p-bolt', name: { en: 'Bolt M8' } },
  { part_id: 'p-screw', name: { en: 'Wood screw' } },
  { part_id: 'p-hex', name: { en: 'Hex key' } },
  { part_id: 'p-hexagon', name: { en: 'Hexagon nut' } },
  { part_id: 'p-usb', name: { en: 'USB stick 32 GB' } },
  { part_id: 'p-flash', name: { en: 'Flash drive 64 GB' } },
  { part_id: 'p-other', name: { en: 'Drive belt' }, attributes: [{ attribute_id: 'kind', values: [{ organization: '', value: { en: 'Flash memory' } }] }] },
];

const ids = (results: SearchResult[]) => results.map((r) => r.id);

describe.each(MODES)('synonyms (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
    expect((await h.admin.upsertParts(parts)).errors).toEqual({});
  });
  afterEach(async () => {
    await h.close();
  });

  it('creates, lists (paged), replaces and deletes sets; bad sets are item errors', async () => {
    const created = await h.admin.upsertSynonyms([
      { synonym_id: 'fasteners', synonyms: ['bolt', 'screw'] },
      { synonym_id: 'hex', input: 'hex', synonyms: ['hexagon'] },
      { synonym_id: 'empty', synonyms: ['bolt', 'BOLT'] },
      { synonym_id: 'punct', synonyms: ['--', 'nut'] },
      { synonym_id: 'long', synonyms: ['a b c d e', 'x'] },
      { synonym_id: 'one-way-self', input: 'Bolt', synonyms: ['bölt'] },
    ]);
    expect(created.created).toEqual(['fasteners', 'hex']);
    expect(Object.keys(created.errors).sort()).toEqual(['empty', 'long', 'one-way-self', 'punct']);
    expect(created.errors.empty?.[0]).toMatch(/at least two different terms/);
    expect(created.errors.punct?.[0]).toMatch(/synonyms\[0\].*no letter or digit/);
    expect(created.errors.long?.[0]).toMatch(new RegExp(`at most ${MAX_SYNONYM_TERM_WORDS}`));
    expect(created.errors['one-way-self']?.[0]).toMatch(/other than its input/);

    const first = await h.admin.listSynonyms({ paging: { limit: 1 } });
    expect(first).toEqual({ result: [{ synonym_id: 'fasteners', synonyms: ['bolt', 'screw'] }], last_object_id: 'fasteners', more_data: true });
    const second = await h.admin.listSynonyms({ paging: { limit: 1, last_object_id: 'fasteners' } });
    expect(second.result).toEqual([{ synonym_id: 'hex', input: 'hex', synonyms: ['hexagon'] }]);

    const replaced = await h.admin.upsertSynonyms([{ synonym_id: 'fasteners', synonyms: ['bolt', 'screw', 'rivet'] }]);
    expect(replaced).toEqual({ created: [], updated: ['fasteners'], errors: {} });
    const deleted = await h.admin.deleteSynonyms(['hex', 'nope']);
    expect(deleted.deleted).toEqual(['hex']);
    expect(deleted.errors.nope?.[0]).toMatch(/does not exist/);
    expect((await h.admin.listSynonyms({})).result).toEqual([{ synonym_id: 'fasteners', synonyms: ['bolt', 'screw', 'rivet'] }]);
  });

  it('writes need a writer role and are refused in maintenance mode; anyone may list', async () => {
    const worker = await h.as(['factoryWorker']);
    await expect(worker.upsertSynonyms([{ synonym_id: 's', synonyms: ['a1', 'b1'] }])).rejects.toMatchObject({ status: 403 });
    expect((await worker.listSynonyms({})).result).toEqual([]);
    await h.admin.setMaintenance(true);
    await expect(h.admin.upsertSynonyms([{ synonym_id: 's', synonyms: ['a1', 'b1'] }])).rejects.toMatchObject({ status: 503 });
    await expect(h.admin.deleteSynonyms(['s'])).rejects.toMatchObject({ status: 503 });
    await h.admin.setMaintenance(false);
  });

  it('a multi-way set: each term finds the other, applied at once (no reindex), exact match first', async () => {
    const before = await h.admin.search({ matches: { text: 'bolt ' } });
    expect(ids(before.results)).toEqual(['p-bolt']);
    await h.admin.upsertSynonyms([{ synonym_id: 'fasteners', synonyms: ['Bolt', 'screw'] }]);
    const bolt = await h.admin.search({ matches: { text: 'bolt ' } });
    expect(ids(bolt.results)).toEqual(['p-bolt', 'p-screw']);
    expect(bolt.resultsTotalCount).toBe(2);
    const screw = await h.admin.search({ matches: { text: 'SCREW ' } });
    expect(ids(screw.results)).toEqual(['p-screw', 'p-bolt']);
    // Deleted: gone from the next search.
    await h.admin.deleteSynonyms(['fasteners']);
    expect(ids((await h.admin.search({ matches: { text: 'screw ' } })).results)).toEqual(['p-screw']);
  });

  it('a one-way set: hex also finds hexagon, hexagon never finds hex', async () => {
    await h.admin.upsertSynonyms([{ synonym_id: 'hex', input: 'hex', synonyms: ['hexagon'] }]);
    expect(ids((await h.admin.search({ matches: { text: 'hex ' } })).results)).toEqual(['p-hex', 'p-hexagon']);
    expect(ids((await h.admin.search({ matches: { text: 'hexagon ' } })).results)).toEqual(['p-hexagon']);
  });

  it('multi-word terms: usb stick finds flash drive and the reverse, as a phrase, below the exact match', async () => {
    await h.admin.upsertSynonyms([{ synonym_id: 'storage', synonyms: ['usb stick', 'flash drive'] }]);
    const usb = await h.admin.search({ matches: { text: 'usb stick ' } });
    expect(ids(usb.results)).toEqual(['p-usb', 'p-flash']);
    const flash = await h.admin.search({ matches: { text: 'flash drive ' } });
    // p-other holds "drive" and "flash" but not the phrase: it is an exact match of both words, so it stays, above the synonym.
    expect(ids(flash.results)).toEqual(['p-flash', 'p-other', 'p-usb']);
    // The synonym of a run of words combines with other words.
    expect(ids((await h.admin.search({ matches: { text: '64 usb stick ' } })).results)).toEqual(['p-flash']);
  });

  it('a synonym match ranks below an exact match even when it would score higher', async () => {
    await h.admin.upsertParts([
      { part_id: 'p-screws', name: { en: 'Screw screw screw' } },
      { part_id: 'p-long-bolt', name: { en: 'Bolt with a rather long name for a part to lower its score a lot' } },
    ]);
    await h.admin.upsertSynonyms([{ synonym_id: 'fasteners', synonyms: ['bolt', 'screw'] }]);
    const found = await h.admin.search({ matches: { text: 'bolt ' } });
    expect(ids(found.results)).toEqual(['p-bolt', 'p-long-bolt', 'p-screws', 'p-screw']);
  });

  it('highlights say a match came through a synonym', async () => {
    await h.admin.upsertSynonyms([
      { synonym_id: 'fasteners', synonyms: ['bolt', 'screw'] },
      { synonym_id: 'storage', synonyms: ['usb stick', 'flash drive'] },
    ]);
    const found = await h.admin.search({ matches: { text: 'bolt ' }, projection: ['results.id', 'results.highlights'] });
    expect(found.results.map((r) => [r.id, r.highlights])).toEqual([
      ['p-bolt', [
        { field: 'id', text: 'p-bolt', matches: [{ word: 0, start: 2, end: 6, how: 'exact' }] },
        { field: 'name', language: 'en', text: 'Bolt M8', matches: [{ word: 0, start: 0, end: 4, how: 'exact' }] },
      ]],
      ['p-screw', [{ field: 'name', language: 'en', text: 'Wood screw', matches: [{ word: 0, start: 5, end: 10, how: 'synonym' }] }]],
    ]);
    const usb = await h.admin.search({ matches: { text: 'usb stick ' }, projection: ['results.id', 'results.highlights'] });
    expect(usb.results[1]).toEqual({
      id: 'p-flash', highlights: [{ field: 'name', language: 'en', text: 'Flash drive 64 GB', matches: [{ word: 0, start: 0, end: 11, how: 'synonym' }] }],
    });
  });
});
