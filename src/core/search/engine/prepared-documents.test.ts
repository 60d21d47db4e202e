import { describe, expect, it } from 'vitest';
import type { Attribute, PartInput } from '../../../api/schemas.js';
import { decidePartUpsert } from '../../catalog/parts.js';
import { buildEngineDocument } from './document.js';
import { buildOrgDocument } from './org-document.js';
import { definitionsKey, PreparedDictionary, PreparedDocumentsPacker, preparePartDocuments, unpackPreparedDocuments, type PackedBlock, type PartDocuments, type PreparedPartDocuments } from './prepared-documents.js';

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
  /** Packs `documents` as the reader thread does (blocks of `perBlock`, the dictionary at most `maxWords`) and unpacks them as the writer reads them, through structured clone. */
  function roundTrip(documents: PartDocuments[], perBlock: number, maxWords = 1000): PartDocuments[] {
    const packer = new PreparedDocumentsPacker(maxWords);
    const dictionary = new PreparedDictionary();
    const handles: PreparedPartDocuments[] = [];
    for (let from = 0; from < documents.length; from += perBlock) {
      const offsets = documents.slice(from, from + perBlock).map((d) => packer.add(d));
      const block = dictionary.block(structuredClone(packer.take()) as PackedBlock);
      handles.push(...offsets.map((at) => ({ definitions: '', block, at })));
    }
    // Unpacked once every block arrived (the writer reads a block after newer ones came): each keeps its words.
    return handles.map(unpackPreparedDocuments);
  }

  it('prepare, pack and unpack give what the writer builds for the new part, term by term and in vocabulary order', () => {
    const unpackedAll = roundTrip(INPUTS.map((input) => preparePartDocuments(input, ATTRIBUTES) as PartDocuments), 1);
    for (const [i, input] of INPUTS.entries()) {
      const unpacked = unpackedAll[i] as PartDocuments;
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

  it('many parts across blocks and dictionary resets: every one unpacks as built, also when read after later blocks arrived', () => {
    const inputs: PartInput[] = Array.from({ length: 300 }, (_, i) => ({
      part_id: `p-${i}`,
      name: { en: `Word${i} shared ${i % 7 === 0 ? 'crème' : 'plain'}` },
      attributes: [
        { attribute_id: 'vendor', values: [{ organization: '', value: { en: `Vendor ${i % 13} v${i}` } }] },
        ...(i % 5 === 0 ? [{ attribute_id: 'bin', values: [{ organization: 'acme', value: { en: `Bin ${i}` } }] }] : []),
      ],
    }));
    const documents = inputs.map((input) => preparePartDocuments(input, ATTRIBUTES) as PartDocuments);
    // A dictionary of 50 words is emptied many times over 300 parts of ~6 new words each.
    const unpacked = roundTrip(documents, 7, 50);
    for (const [i, d] of documents.entries()) {
      expect([...(unpacked[i]?.engine.terms ?? [])]).toEqual([...d.engine.terms]);
      expect(unpacked[i]?.engine.lengths).toEqual(d.engine.lengths);
      expect(unpacked[i]?.org).toEqual(d.org);
    }
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
