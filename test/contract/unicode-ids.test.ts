/**
 * Contract: ids and texts with an unpaired UTF-16 surrogate are item errors, like control
 * characters, in both modes. Such strings have no UTF-8 form: stored, they could not be read back
 * and two different ids would collapse into one. An id in NFC and the same id in NFD are one id.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SHARED_IMAGES } from '../helpers/data.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';

const MESSAGE = 'must not contain unpaired UTF-16 surrogates (it must be valid Unicode)';

describe.each(MODES)('unpaired surrogates (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
  });
  afterEach(async () => {
    await h.close();
  });

  it('an id or a name with a lone surrogate is an item error; the other items are written', async () => {
    const result = await h.admin.upsertParts([
      { part_id: 'p\uD800', name: { en: 'High surrogate' } },
      { part_id: 'p\uDC00', name: { en: 'Low surrogate' } },
      { part_id: 'named', name: { en: 'Bad \uDBFF name' } },
      { part_id: 'emoji\uD83D\uDE00', name: { en: 'A pair is fine \uD83D\uDE00' } },
    ]);
    expect(result.created).toEqual(['emoji\uD83D\uDE00']);
    expect(result.errors).toEqual({
      'items[0]': [`part_id: ${MESSAGE}`],
      'items[1]': [`part_id: ${MESSAGE}`],
      named: [`name.en: ${MESSAGE}`],
    });
    expect((await h.admin.getPart('emoji\uD83D\uDE00')).name).toEqual({ en: 'A pair is fine \uD83D\uDE00' });
    const page = await h.admin.listParts({ paging: { limit: 10 } });
    expect(page.result.map((p) => p.part_id)).toEqual(['emoji\uD83D\uDE00']);

    const attributes = await h.admin.upsertAttributes([{ attribute_id: 'a\uD800', type: 'text', name: { en: 'x' } }]);
    expect(attributes.errors).toEqual({ 'items[0]': [`attribute_id: ${MESSAGE}`] });
    const organizations = await h.admin.upsertOrganizations([{ org_id: 'o\uDC00' }]);
    expect(organizations.errors).toEqual({ 'items[0]': [`org_id: ${MESSAGE}`] });
  });
});

describe.each(MODES)('ids in NFC and NFD (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
  });
  afterEach(async () => {
    await h.close();
  });

  // 'Café-1' typed on most keyboards (é one code point) and as macOS file names spell it (e + U+0301).
  const NFC = 'Caf\u00e9-1';
  const NFD = 'Cafe\u0301-1';

  it('are one part, attribute, organization, image and relation end, written and read in either form', async () => {
    expect(NFC).not.toBe(NFD);
    expect((await h.admin.upsertAttributes([{ attribute_id: `colour-${NFD}`, type: 'text', name: { en: 'Colour' }, per_org_values: true }])).created).toEqual([`colour-${NFC}`]);
    expect((await h.admin.upsertOrganizations([{ org_id: `org-${NFD}` }])).created).toEqual([`org-${NFC}`]);
    expect((await h.admin.upsertParts([{ part_id: NFC, name: { en: 'first' } }])).created).toEqual([NFC]);
    const second = await h.admin.upsertParts([{ part_id: NFD, name: { en: 'second' }, attributes: [{ attribute_id: `colour-${NFC}`, values: [{ organization: `org-${NFD}`, value: { en: 'red' } }] }] }]);
    expect(second).toEqual({ created: [], updated: [NFC], errors: {} });
    const page = await h.admin.listParts({ paging: { limit: 10 } });
    expect(page.result.map((p) => p.part_id)).toEqual([NFC]);
    for (const id of [NFC, NFD]) {
      const part = await h.admin.getPart(id);
      expect([part.part_id, part.name]).toEqual([NFC, { en: 'second' }]);
      expect(part.attributes).toEqual([{ attribute_id: `colour-${NFC}`, values: [{ organization: `org-${NFC}`, value: { en: 'red' } }] }]);
    }
    expect((await h.admin.selectParts({ part_ids: [NFD] })).map((p) => p.part_id)).toEqual([NFC]);

    await h.admin.upsertParts([{ part_id: 'other', name: { en: 'other' } }]);
    expect(await h.admin.createRelations([{ anchor_part_id: NFD, related_part_id: 'other', type: 'duplicate' }])).toEqual({ created: 1 });
    expect((await h.admin.getRelations(NFD)).map((r) => r.part_id)).toEqual(['other']);
    expect((await h.admin.getRelations('other')).map((r) => r.part_id)).toEqual([NFC]);

    // An image uploaded from a macOS file name (NFD) is the image of the NFC id, and the reverse.
    const penny = readFileSync(join(SHARED_IMAGES, '001penny.jpg'));
    expect((await h.admin.uploadImages([{ image_id: `img-${NFC}`, part_id: NFD, info: 'display' }], [{ filename: `img-${NFD}.jpg`, data: penny }])).created).toEqual([`img-${NFC}`]);
    expect(await h.admin.getImage(`img-${NFD}`)).toEqual({ image_id: `img-${NFC}`, part_id: NFC, info: 'display' });
    const twice = await h.admin.uploadImages([{ image_id: `img-${NFC}`, part_id: NFC, info: 'display' }, { image_id: `img-${NFD}`, part_id: NFC, info: 'display' }], []);
    expect(twice.errors[`img-${NFC}`]).toEqual([`image 'img-${NFC}' is defined more than once in this request`]);

    expect(await h.admin.deleteParts([NFD])).toMatchObject({ deleted: [] });
  });
});
