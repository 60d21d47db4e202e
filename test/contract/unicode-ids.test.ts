/**
 * Contract: ids and texts with an unpaired UTF-16 surrogate are item errors, like control
 * characters, in both modes. Such strings have no UTF-8 form: stored, they could not be read back
 * and two different ids would collapse into one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
