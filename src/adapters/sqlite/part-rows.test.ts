import { describe, expect, it } from 'vitest';
import type { PartAttribute } from '../../api/schemas.js';
import { decodeAttributes, decodeServiceId, encodeAttributes, encodeServiceId } from './part-rows.js';

describe('SQLite parts row encoding', () => {
  it('stores a lowercase UUID as 16 bytes and any other service id as given', () => {
    const id = '026bfc0c-1e63-4107-996a-d0b389fec602';
    expect(encodeServiceId(id)).toEqual(Buffer.from('026bfc0c1e634107996ad0b389fec602', 'hex'));
    expect(decodeServiceId(encodeServiceId(id))).toBe(id);
    for (const other of ['026BFC0C-1E63-4107-996A-D0B389FEC602', 'svc-1', '']) expect(encodeServiceId(other)).toBe(other);
  });

  it('stores attributes compactly and reads both forms back the same', () => {
    const attributes: PartAttribute[] = [
      { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme "x"' } }, { organization: 'north', value: { en: 'A', de: 'B' } }] },
      { attribute_id: '123', values: [] },
    ];
    const stored = encodeAttributes(attributes);
    expect(stored).toBe('[["vendor",[{"en":"Acme \\"x\\""},["north",{"en":"A","de":"B"}]]],["123",[]]]');
    expect(decodeAttributes(stored)).toEqual(attributes);
    expect(decodeAttributes(JSON.stringify(attributes))).toEqual(attributes);
    expect(decodeAttributes(encodeAttributes([]))).toEqual([]);
    // A value with another field keeps the object form.
    const resolved = [{ attribute_id: 'x', values: [{ organization: '', value: { en: 'y' }, source: 'own' as const }] }];
    expect(decodeAttributes(encodeAttributes(resolved))).toEqual(resolved);
  });
});
