/**
 * Contract: ranking depends only on what the caller may see (decisions §3, §8). Two
 * parts that look identical to a caller rank as a tie, ordered by part id, whatever values of a
 * visibility the caller may not see one of them carries.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { ids } from '../helpers/search-fixtures.js';

const attributes = [
  { attribute_id: 'note', type: 'text', name: { en: 'Note' }, searchable: true },
  { attribute_id: 'memo', type: 'text', name: { en: 'Memo' }, searchable: true, visibility: 'csa' },
  { attribute_id: 'cost', type: 'text', name: { en: 'Cost' }, searchable: true, filterable: true, visibility: 'admin' },
  { attribute_id: 'secret', type: 'text', name: { en: 'Secret' }, searchable: true, visibility: 'superAdmin' },
  { attribute_id: 'rebate', type: 'text', name: { en: 'Rebate' }, searchable: true, per_org_values: true, visibility: 'admin' },
];

const value = (attribute_id: string, text: string, organization = '') => ({ attribute_id, values: [{ organization, value: { en: text } }] });

describe.each(MODES)('ranking sees only visible values (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
    await h.admin.upsertOrganizations([{ organization_id: 'acme' }]);
    // Other parts, so the words have a positive IDF.
    await h.admin.upsertParts(Array.from({ length: 8 }, (_, i) => ({ part_id: `z${i}`, name: { en: `Sprocket ${i}` } })));
  });
  afterEach(async () => {
    await h.close();
  });

  it('a part differing only by hidden values ties with its twin, by part id', async () => {
    // `a` wins the tie by id; its hidden values must not push it below `b`.
    const hidden = [
      value('memo', 'many many words only a csa may read about this bracket'),
      value('cost', 'twelve euros and some more words in the admin column'),
      value('secret', 'a long superAdmin remark that nobody else may see at all'),
      value('rebate', 'five percent rebate', 'acme'),
    ];
    await h.admin.upsertParts([
      { part_id: 'b', name: { en: 'Steel bracket' }, attributes: [value('note', 'zinc plated')] },
      { part_id: 'a', name: { en: 'Steel bracket' }, attributes: [value('note', 'zinc plated'), ...hidden] },
    ]);
    const worker = await h.as(['factoryWorker']);
    for (const text of ['bracket', 'steel bracket', 'zinc', 'bracket zinc plated', 'brack']) {
      expect(ids(await worker.search({ matches: { text } }))).toEqual(['a', 'b']);
    }
    // A csa sees `memo`: now the parts differ, but not by admin or superAdmin values.
    const csa = await h.as(['csa']);
    await h.admin.upsertParts([{ part_id: 'c', name: { en: 'Steel bracket' }, attributes: [value('note', 'zinc plated'), hidden[0]!] }]);
    const csaHits = ids(await csa.search({ matches: { text: 'bracket' } }));
    expect(csaHits.indexOf('a') + 1).toBe(csaHits.indexOf('c'));
  });
});
