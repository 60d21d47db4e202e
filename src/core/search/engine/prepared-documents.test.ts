import { describe, expect, it } from 'vitest';
import type { Attribute, PartInput } from '../../../api/schemas.js';
import { decidePartUpsert } from '../../catalog/parts.js';
import { buildEngineDocument } from './document.js';
import { buildOrgDocument } from './org-document.js';
import { definitionsKey, preparePartDocuments, replacePackedTerms, unpackPartDocuments } from './prepared-documents.js';

const attribute = (id: string, fields: Partial<Attribute>): Attribute => ({
  attribute_id: id, type: 'text', name: { en: id }, searchable: false, filterable: false, visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: false, ...fields,
});

const ATTRIBUTES = new Map([
  attribute('vendor', { searchable: true, filterable: true }),
  attribute('bin', { searchable: true, per_org_values: true, visibility: 'csa' }),
  attribute('secret', { searchable: true, visibility: 'superAdmin' }),
  attribute('code', { filterable: true }),
].map((a) => [a.attribute_id, a]));

/** Inputs that cover every part of a document: languages, repeated words in two groups, per-organization values, filters, non-ASCII text. */
const INPUTS: PartInput[] = [
  { part_id: 'pci:8086:1539', name: { en: 'Ethernet Controller I211', de: 'Ethernet-Steuerung' } },
  {
    part_id: 'x-1',
    name: { en: 'Crème brûlée torch' },
    attributes: [
      { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Torch Works', fr: 'Ateliers Torch' } }] },
      { attribute_id: 'bin', values: [{ organization: 'acme', value: { en: 'Shelf A-1' } }, { organization: 'beta', value: { en: 'ｂｏｘ 7' } }] },
      { attribute_id: 'secret', values: [{ organization: '', value: { en: 'torch torch' } }] },
      { attribute_id: 'code', values: [{ organization: '', value: { en: 'TW-99' } }] },
    ],
  },
];

/** What the writer builds for a new part (decidePartUpsert, then both builders). */
function built(input: PartInput) {
  const decision = decidePartUpsert(input, undefined, ATTRIBUTES, 1, () => 'id');
  if (decision.kind !== 'write') throw new Error('refused');
  return { engine: buildEngineDocument(decision.value, ATTRIBUTES), org: buildOrgDocument(decision.value, ATTRIBUTES) };
}

describe('prepared part documents', () => {
  it('unpack(prepare(input)) is what the writer builds for the new part, term by term and in vocabulary order', () => {
    for (const input of INPUTS) {
      const packed = preparePartDocuments(input, ATTRIBUTES);
      expect(packed).toBeDefined();
      const unpacked = unpackPartDocuments(packed ?? []);
      const expected = built(input);
      expect([...unpacked.engine.terms]).toEqual([...expected.engine.terms]);
      expect(unpacked.engine.lengths).toEqual(expected.engine.lengths);
      expect(unpacked.engine.holder).toBe(expected.engine.holder);
      expect(unpacked.org).toEqual(expected.org);
    }
    // Not equal by being empty: the second part has values in several groups and per-organization text.
    const second = built(INPUTS[1] as PartInput);
    expect(second.org.orgValues).not.toBeNull();
    expect([...second.engine.terms.values()].some((tf) => tf.filter((n) => n > 0).length > 1)).toBe(true);
  });

  it('survives a JSON round trip and a dictionary of term numbers (how the reader thread ships it)', () => {
    const packed = preparePartDocuments(INPUTS[1] as PartInput, ATTRIBUTES) ?? [];
    const words: string[] = [];
    const numbers = new Map<string, number>();
    const shipped = JSON.parse(JSON.stringify(packed)) as typeof packed;
    replacePackedTerms(shipped, (term) => {
      let n = numbers.get(term as string);
      if (n === undefined) {
        n = words.length;
        numbers.set(term as string, n);
        words.push(term as string);
      }
      return n;
    });
    expect(JSON.stringify(shipped)).not.toContain('torch"');
    replacePackedTerms(shipped, (n) => words[n as number] ?? '');
    expect(unpackPartDocuments(shipped)).toEqual(unpackPartDocuments(packed));
  });

  it('nothing for an input the part rules refuse (the writer writes nothing for it either)', () => {
    expect(preparePartDocuments({ part_id: 'n' }, ATTRIBUTES)).toBeUndefined();
    expect(preparePartDocuments({ part_id: 'u', name: { en: 'U' }, attributes: [{ attribute_id: 'nope', values: [{ organization: '', value: { en: 'x' } }] }] }, ATTRIBUTES)).toBeUndefined();
  });

  it('definitionsKey: the same for the same definitions in any order, different when a field the documents read changes', () => {
    const all = [...ATTRIBUTES.values()];
    const key = definitionsKey(all);
    expect(definitionsKey([...all].reverse())).toBe(key);
    // Fields the documents do not read do not matter.
    expect(definitionsKey(all.map((a) => ({ ...a, name: { en: 'renamed' }, display_order: 3 })))).toBe(key);
    for (const change of [{ searchable: false }, { filterable: false }, { visibility: 'admin' as const }, { per_org_values: true }]) {
      expect(definitionsKey(all.map((a) => (a.attribute_id === 'vendor' ? { ...a, ...change } : a)))).not.toBe(key);
    }
    expect(definitionsKey(all.slice(1))).not.toBe(key);
  });
});
