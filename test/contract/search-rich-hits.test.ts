/**
 * Contract (richer hits): projection `results.images` (the hit's shown display images in
 * UI order, with the path of each original) and `results.attributes` (the values the caller may
 * see, organization values as the search's organization sees them), on the first page and on
 * every page of the session; both clients.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { SHARED_IMAGES } from '../helpers/data.js';

const attributes = [
  { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true },
  { attribute_id: 'cost', type: 'text', name: { en: 'Cost' }, visibility: 'admin' },
  { attribute_id: 'price', type: 'text', name: { en: 'Price' }, per_org_values: true, org_visibility: 'sub', default_value: { en: 'list price' } },
];

describe.each(MODES)('search richer hits (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
    expect((await h.admin.upsertOrganizations([{ org_id: 'acme' }])).errors).toEqual({});
    await h.admin.upsertParts([
      {
        part_id: 'valve-1', name: { en: 'Valve one' },
        attributes: [
          { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme Corporation' } }] },
          { attribute_id: 'cost', values: [{ organization: '', value: { en: '12 EUR' } }] },
          { attribute_id: 'price', values: [{ organization: 'acme', value: { en: '9 EUR' } }] },
        ],
      },
      { part_id: 'valve-2', name: { en: 'Valve two' } },
    ]);
    const jpeg = readFileSync(join(SHARED_IMAGES, '001penny.jpg'));
    const uploaded = await h.admin.uploadImages(
      [
        { image_id: 'v1-side', part_id: 'valve-1', info: 'display' },
        { image_id: 'v1-front', part_id: 'valve-1', info: 'display', position: 1 },
        { image_id: 'v1-hidden', part_id: 'valve-1', info: 'searchable' },
      ],
      ['v1-side', 'v1-front', 'v1-hidden'].map((id) => ({ filename: `${id}.jpg`, data: jpeg })),
    );
    expect(uploaded.errors).toEqual({});
  });
  afterEach(async () => {
    await h.close();
  });

  it('images in UI order with the original path, and the attributes the caller may see, on the first page and later pages', async () => {
    const projection = ['results.id', 'results.images', 'results.attributes'];
    const first = await h.admin.search({ matches: { text: 'valve' }, projection, resultOptions: { limit: 1 } });
    const page2 = await h.admin.searchState(first.sessionId, { skip: 1, limit: 1, projection });
    const hits = [...first.results, ...page2.results].sort((x, y) => String(x.id).localeCompare(String(y.id)));
    expect(hits).toEqual([
      {
        id: 'valve-1',
        images: [{ image_id: 'v1-front', path: '/1/catalog/images/v1-front/original' }, { image_id: 'v1-side', path: '/1/catalog/images/v1-side/original' }],
        attributes: [
          { attribute_id: 'cost', values: [{ organization: '', value: { en: '12 EUR' } }] },
          { attribute_id: 'price', values: [{ organization: 'acme', value: { en: '9 EUR' } }] },
          { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme Corporation' } }] },
        ],
      },
      { id: 'valve-2', images: [], attributes: [] },
    ]);
    // The same order as the display-images read.
    expect((await h.admin.displayImages('valve-1')).shown).toEqual(['v1-front', 'v1-side']);

    // A factory worker does not see the admin-only cost; searching as organization acme shows its price with its source.
    const worker = await h.as(['factoryWorker']);
    const seen = await worker.search({ matches: { text: 'valve one', organization: 'acme' }, projection: ['results.attributes'] });
    expect(seen.results[0]?.attributes).toEqual([
      { attribute_id: 'price', values: [{ organization: 'acme', value: { en: '9 EUR' }, source: 'own' }] },
      { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme Corporation' }, source: 'global' }] },
    ]);
    // The session remembers the organization: its pages resolve the same way.
    expect((await worker.searchState(seen.sessionId, { projection: ['results.attributes'] })).results[0]?.attributes).toEqual(seen.results[0]?.attributes);

    // Without the projection values the default six fields only.
    const plain = await h.admin.search({ matches: { text: 'valve one' } });
    expect(Object.keys(plain.results[0] ?? {}).sort()).toEqual(['createdAt', 'id', 'modifiedAt', 'name', 'nameLanguage', 'serviceId']);
  });
});
