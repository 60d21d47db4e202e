/**
 * An update writes the postings of the terms it changes, and only those: a term the part holds as
 * often as before keeps its blocks, and the changed-terms log (engine_term_changes, which readers
 * evict by) does not name it, so a rename does not make every reader decode its words again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeTermIds } from '../../src/core/search/engine/term-ids.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { inMemorySqliteCatalog, type InMemorySqliteCatalog } from '../helpers/sqlite-catalog.js';

describe('the terms an update writes', () => {
  let catalog: InMemorySqliteCatalog | undefined;
  afterEach(async () => {
    await catalog?.close();
  });

  /** The terms the last write named in the changed-terms log, private-use marks as `<E00n>`. */
  const lastLoggedTerms = (c: InMemorySqliteCatalog): string[] => {
    const row = c.store.db.prepare('SELECT term_ids, terms FROM engine_term_changes ORDER BY version DESC LIMIT 1').get() as { term_ids: Buffer; terms: string };
    // The log names each term by id and, for a write this small, by the term itself.
    const named = new Map(JSON.parse(row.terms) as [number, string][]);
    expect([...named.keys()].sort((a, b) => a - b)).toEqual(decodeTermIds(row.term_ids));
    return decodeTermIds(row.term_ids)
      .map((id) => (named.get(id) as string).replace(/[\uE000-\uF8FF]/gu, (ch) => `<${ch.codePointAt(0)?.toString(16).toUpperCase()}>`))
      .sort();
  };

  it('a rename names the words it adds and removes and the name terms, not the words it keeps', async () => {
    catalog = inMemorySqliteCatalog();
    const { service, search } = catalog;
    await service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true }]);
    const vendor = [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel' } }] }];
    expect(await service.upsertParts(LOCAL_OWNER, [{ part_id: 'pci:8086:10d3', name: { en: 'Ethernet controller GW94171' }, attributes: vendor }, { part_id: 'other', name: { en: 'Ethernet switch' } }])).toMatchObject({ errors: {} });
    expect(await service.upsertParts(LOCAL_OWNER, [{ part_id: 'pci:8086:10d3', name: { en: 'Ethernet controller GW94171 rev2' }, attributes: vendor }])).toMatchObject({ errors: {} });
    // With the short prefixes' terms of the added word (`re`, `rev`) and the name bonus of a longer name (`et`, `eth`).
    expect(lastLoggedTerms(catalog)).toEqual(['<E004>ethernetcontrollergw94171', '<E004>ethernetcontrollergw94171rev2', 'rev2', '<E00A>re', '<E00A>rev', '<E00C>et', '<E00C>eth'].sort());
    // The old name's exact term lost its only part: out of the dictionary (its id stays in the log's reach).
    expect(catalog.store.db.prepare('SELECT count(*) FROM engine_term_levels WHERE term = ?').pluck().get('\uE004ethernetcontrollergw94171')).toBe(0);

    // The kept words still find the part, ranked with its new length; the removed name does not.
    const ids = async (text: string) => (await search.search(LOCAL_OWNER, { matches: { text }, resultOptions: { limit: 5 } })).results.map((r) => r.id);
    expect(await ids('controller rev2')).toEqual(['pci:8086:10d3']);
    expect(await ids('ethernet ')).toEqual(['other', 'pci:8086:10d3']);
    expect(await ids('intel')).toEqual(['pci:8086:10d3']);
    expect(await ids('ethernet controller gw94171 rev2')).toEqual(['pci:8086:10d3']);

    // A value change names the value's words only.
    expect(await service.upsertParts(LOCAL_OWNER, [{ part_id: 'pci:8086:10d3', name: { en: 'Ethernet controller GW94171 rev2' }, attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel Corporation' } }] }] }])).toMatchObject({ errors: {} });
    const logged = lastLoggedTerms(catalog);
    expect(logged).toContain('corporation');
    expect(logged).not.toContain('ethernet');
    expect(logged).not.toContain('intel');
    expect(await ids('corporation')).toEqual(['pci:8086:10d3']);
  });
});
