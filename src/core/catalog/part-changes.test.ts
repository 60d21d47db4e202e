import { describe, expect, it } from 'vitest';
import { partUpsertChanges } from './part-changes.js';

const stored = {
  name: { en: 'Nut', de: 'Mutter' },
  attributes: [
    { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme' } }] },
    { attribute_id: 'bin', values: [{ organization: 'o1', value: { en: 'A1' } }, { organization: 'o2', value: { en: 'B2' } }] },
  ],
};

describe('partUpsertChanges', () => {
  it('is false when every given field equals the stored one, in any order', () => {
    expect(partUpsertChanges({ part_id: 'p', name: { de: 'Mutter', en: 'Nut' } }, stored)).toBe(false);
    expect(partUpsertChanges({ part_id: 'p', attributes: [{ attribute_id: 'bin', values: [{ organization: 'o2', value: { en: 'B2' } }, { organization: 'o1', value: { en: 'A1' } }] }] }, stored)).toBe(false);
    expect(partUpsertChanges({ part_id: 'p' }, stored)).toBe(false);
  });

  it('is true for a new part, another name, another value, a removed or added attribute', () => {
    expect(partUpsertChanges({ part_id: 'p', name: { en: 'Nut' } }, undefined)).toBe(true);
    expect(partUpsertChanges({ part_id: 'p', name: { en: 'Nut' } }, stored)).toBe(true);
    expect(partUpsertChanges({ part_id: 'p', attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Other' } }] }] }, stored)).toBe(true);
    expect(partUpsertChanges({ part_id: 'p', attributes: [{ attribute_id: 'vendor', values: [] }] }, stored)).toBe(true);
    expect(partUpsertChanges({ part_id: 'p', attributes: [{ attribute_id: 'colour', values: [{ organization: '', value: { en: 'red' } }] }] }, stored)).toBe(true);
    expect(partUpsertChanges({ part_id: 'p', attributes: [{ attribute_id: 'bin', values: [{ organization: 'o1', value: { en: 'A1' } }] }] }, stored)).toBe(true);
  });

  it('an empty attribute list for an attribute the part lacks changes nothing', () => {
    expect(partUpsertChanges({ part_id: 'p', attributes: [{ attribute_id: 'colour', values: [] }] }, stored)).toBe(false);
  });
});
