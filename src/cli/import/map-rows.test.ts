import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWriteStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Attribute, Part } from '../../api/schemas.js';
import { writeRecords } from '../output/write.js';
import {
  attributeRowColumns, attributeToRow, imageIdFromFile, mapAttributeRow, mapImageManifestRow, mapPartRow, mapRecord,
  mapRelationRow, parseAttrColumn, partRowColumns, partToRow, validateAttributeItem, validateImageManifestItem,
} from './map-rows.js';
import type { MapResult } from './map-rows.js';
import { readRecords } from './read-records.js';

function problemsOf<T>(result: MapResult<T>): string[] {
  return 'problems' in result ? result.problems : [];
}

describe('mapAttributeRow', () => {
  it.each<[string, Record<string, string>, unknown]>([
    [
      'every column',
      {
        attribute_id: 'color', type: 'enum', 'name.en': 'Colour', 'name.de': 'Farbe', searchable: 'yes', filterable: '0',
        visibility: 'csa', org_visibility: 'sub', labels: 'sku | ean', per_org_values: ' TRUE', 'default_value.en': 'red', display_order: '7',
      },
      {
        attribute_id: 'color', type: 'enum', name: { en: 'Colour', de: 'Farbe' }, searchable: true, filterable: false, visibility: 'csa',
        org_visibility: 'sub', labels: ['sku', 'ean'], per_org_values: true, default_value: { en: 'red' }, display_order: 7,
      },
    ],
    ['empty cells are absent fields', { attribute_id: 'x', type: '', 'name.en': '', searchable: '', labels: '', display_order: '' }, { attribute_id: 'x' }],
    ['meta columns of an errors file are ignored', { attribute_id: 'x', _line: '3', _error: 'boom' }, { attribute_id: 'x' }],
  ])('%s', (_name, row, expected) => {
    expect(mapAttributeRow(row)).toEqual({ item: expected });
  });

  it.each<[string, Record<string, string>, string[]]>([
    [
      'every problem of the row is reported',
      { attribute_id: '', type: 'number', searchable: 'maybe', filterable: 'Y', display_order: '1.5', labels: 'sku|nope', 'name.english': 'x', colour: 'red', size: '' },
      [
        "searchable: expected true/false/1/0/yes/no, got 'maybe'",
        "filterable: expected true/false/1/0/yes/no, got 'Y'",
        "display_order: expected an integer, got '1.5'",
        "unknown columns 'colour', 'size'; valid columns: attribute_id, type, name.<lang>, searchable, filterable, visibility, org_visibility, labels, per_org_values, default_value.<lang>, display_order",
        'attribute_id: required',
        "type: must be one of text, enum, got 'number'",
        "name.english: 'english' must be a language tag such as \"en\" or \"pt-BR\"",
        "labels[1]: must be one of description, identifier, manufacturer_name, manufacturer_part_number, oem_name, oem_id, upc, ean, serial_number, sku, supplier_name, supplier_part_number, got 'nope'",
      ],
    ],
    ['language column without a language', { attribute_id: 'a', name: 'x' }, ['name: needs a language suffix, e.g. name.en']],
    ['negative display_order', { attribute_id: 'a', display_order: '-1' }, ['display_order: Too small: expected number to be >=0']],
    ['id with a slash', { attribute_id: 'a/b' }, ['attribute_id: must not contain control characters or "/"']],
  ])('%s', (_name, row, expected) => {
    expect(problemsOf(mapAttributeRow(row))).toEqual(expected);
  });
});

describe('mapPartRow', () => {
  it('groups values by attribute and organization; ids may contain dots (language = after the LAST dot)', () => {
    const row = {
      part_id: 'P-1', 'name.en': 'Bolt', 'name.de': 'Schraube',
      'attr:color.en': 'red', 'attr:color.de': 'rot',
      'attr:color@acme.en': 'crimson',
      'attr:dim.width.en': '5 mm',
      'attr:dim.width@acme.eu.en': '5.0 mm', 'attr:dim.width@acme.eu.fr': '5,0 mm',
      'attr:empty.en': '',
      serviceId: 'ignored', createdAt: 'ignored',
    };
    expect(mapPartRow(row)).toEqual({
      item: {
        part_id: 'P-1',
        name: { en: 'Bolt', de: 'Schraube' },
        attributes: [
          { attribute_id: 'color', values: [{ organization: '', value: { en: 'red', de: 'rot' } }, { organization: 'acme', value: { en: 'crimson' } }] },
          { attribute_id: 'dim.width', values: [{ organization: '', value: { en: '5 mm' } }, { organization: 'acme.eu', value: { en: '5.0 mm', fr: '5,0 mm' } }] },
        ],
      },
    });
  });

  it('a row with only part_id', () => {
    expect(mapPartRow({ part_id: 'P-2', 'name.en': '' })).toEqual({ item: { part_id: 'P-2' } });
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['missing part_id', { 'name.en': 'x' }, ['part_id: required']],
    [
      'bad attr columns and unknown columns',
      { part_id: 'P', 'attr:color': 'x', 'attr:color.english': 'y', 'attr:.en': 'z', 'attr:a@.en': 'w', weight: '3', name: 'n' },
      [
        'attr:color: expected attr:<attribute_id>.<lang> or attr:<attribute_id>@<organization>.<lang>',
        "attr:color.english: 'english' is not a language tag (the part after the last dot)",
        'attr:.en: expected attr:<attribute_id>.<lang> or attr:<attribute_id>@<organization>.<lang>',
        'attr:a@.en: organization must not be empty',
        'name: needs a language suffix, e.g. name.en',
        "unknown column 'weight'; valid columns: part_id, name.<lang>, attr:<attribute_id>.<lang>, attr:<attribute_id>@<organization>.<lang>",
      ],
    ],
    ['a too long value names its column', { part_id: 'P', 'attr:c@o.en': 'x'.repeat(10_001) }, ['attr:c@o.en: must be at most 10,000 characters']],
  ])('%s', (_name, row, expected) => {
    expect(problemsOf(mapPartRow(row))).toEqual(expected);
  });

  it.each<[string, unknown]>([
    ['attr:color.en', { attributeId: 'color', organization: '', lang: 'en' }],
    ['attr:a.b.c.pt-BR', { attributeId: 'a.b.c', organization: '', lang: 'pt-BR' }],
    ['attr:a@org@x.y.de', { attributeId: 'a', organization: 'org@x.y', lang: 'de' }],
  ])('parseAttrColumn(%s)', (column, expected) => {
    expect(parseAttrColumn(column)).toEqual(expected);
  });
});

describe('mapRelationRow', () => {
  it.each<[Record<string, string>, unknown]>([
    [{ anchor_part_id: 'A', related_part_id: 'B', type: 'substitute', source: '' }, { item: { anchor_part_id: 'A', related_part_id: 'B', type: 'substitute' } }],
    [{ anchor_part_id: 'A', related_part_id: 'B', type: 'duplicate', source: 'confirmed_by_user' }, { item: { anchor_part_id: 'A', related_part_id: 'B', type: 'duplicate', source: 'confirmed_by_user' } }],
    [
      { anchor_part_id: 'A', related_part_id: '', type: 'twin', source: 'me', note: 'x' },
      {
        problems: [
          "unknown column 'note'; valid columns: anchor_part_id, related_part_id, type, source",
          'related_part_id: required',
          "type: must be one of duplicate, substitute, equivalent, not_related, got 'twin'",
          "source: must be one of confirmed_by_user, ingested, got 'me'",
        ],
      },
    ],
    [{ anchor_part_id: 'A', related_part_id: 'A', type: 'equivalent' }, { problems: ['related_part_id: anchor_part_id and related_part_id must differ'] }],
  ])('%j', (row, expected) => {
    expect(mapRelationRow(row)).toEqual(expected);
  });
});

describe('mapImageManifestRow', () => {
  it.each<[Record<string, string>, unknown]>([
    [{ part_id: 'P', info: 'display weight=2', file: 'img/p-front.v2.jpg' }, { item: { image_id: 'p-front.v2', part_id: 'P', info: 'display weight=2', file: 'img/p-front.v2.jpg' } }],
    [{ image_id: 'i1', part_id: 'P', info: 'display', position: '2', file: 'a.png' }, { item: { image_id: 'i1', part_id: 'P', info: 'display', position: 2, file: 'a.png' } }],
    [{ image_id: '', part_id: 'P', info: 'searchable', position: '', file: 'noext' }, { item: { image_id: 'noext', part_id: 'P', info: 'searchable', file: 'noext' } }],
    [
      { part_id: '', info: '', position: 'x', file: '', extra: '1' },
      {
        problems: [
          "position: expected an integer, got 'x'",
          "unknown column 'extra'; valid columns: image_id, part_id, info, position, file",
          'image_id: required',
          'part_id: required',
          'info: required',
          'file: required',
        ],
      },
    ],
    [{ part_id: 'P', info: 'display', position: '0', file: 'a.png' }, { problems: ['position: Too small: expected number to be >=1'] }],
  ])('%j', (row, expected) => {
    expect(mapImageManifestRow(row)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['a/b/c.jpeg', 'c'],
    ['C:\\pics\\d.png', 'd'],
    ['x.tar.gz', 'x.tar'],
    ['plain', 'plain'],
  ])('imageIdFromFile(%s) = %s', (file, id) => {
    expect(imageIdFromFile(file)).toBe(id);
  });

  it('JSON items get the default image_id too', () => {
    expect(validateImageManifestItem({ part_id: 'P', info: 'display', file: 'f/x.jpg' })).toEqual({ item: { image_id: 'x', part_id: 'P', info: 'display', file: 'f/x.jpg' } });
  });
});

describe('mapRecord', () => {
  it('csv rows go through the row mapper', () => {
    expect(mapRecord('attributes', 'csv', { attribute_id: 'a', searchable: '1' })).toEqual({ item: { attribute_id: 'a', searchable: true } });
  });

  it('json/ndjson records pass through (meta columns removed) and are validated with the API schema', () => {
    const part = { part_id: 'P', name: { en: 'x' }, attributes: [{ attribute_id: 'c', values: [{ organization: 'o', value: { en: 'v' } }] }] };
    expect(mapRecord('parts', 'ndjson', { ...part, _line: 4, _error: 'old' })).toEqual({ item: part });
    expect(mapRecord('relations', 'json', { anchor_part_id: 'A', related_part_id: 'B', type: 'duplicate' })).toEqual({
      item: { anchor_part_id: 'A', related_part_id: 'B', type: 'duplicate' },
    });
    expect(problemsOf(mapRecord('attributes', 'json', { attribute_id: 'a', searchable: 'yes', colour: 1 }))).toEqual([
      'searchable: Invalid input: expected boolean, received string',
      "item: unknown field 'colour'",
    ]);
    expect(validateAttributeItem({ type: 'text' })).toEqual({ problems: ['attribute_id: required'] });
  });
});

describe('export rows round-trip through import', () => {
  const attrs: Attribute[] = [
    {
      attribute_id: 'color', type: 'enum', name: { en: 'Colour', de: 'Farbe' }, searchable: true, filterable: false, visibility: 'admin',
      org_visibility: 'sub', labels: ['sku', 'ean'], per_org_values: true, default_value: { en: 'red, or "crimson"' }, display_order: 0,
    },
    { attribute_id: 'dim.width', type: 'text', name: { fr: 'Largeur' }, searchable: false, filterable: true, visibility: 'factoryWorker', org_visibility: 'parent', labels: [], per_org_values: false },
  ];
  const parts: Part[] = [
    {
      part_id: 'P-1', serviceId: '5b8c2f7e-0000-4000-8000-000000000001', name: { en: 'Bolt', de: 'Schraube' },
      attributes: [
        { attribute_id: 'color', values: [{ organization: '', value: { en: 'red' } }, { organization: 'acme.eu', value: { en: 'crimson', de: 'karmin' } }] },
        { attribute_id: 'dim.width', values: [{ organization: '', value: { fr: '5 mm\nmax' } }] },
      ],
      createdAt: '2026-01-01T00:00:00.000000Z', modifiedAt: '2026-01-02T00:00:00.000000Z',
    },
    { part_id: 'P-2', serviceId: '5b8c2f7e-0000-4000-8000-000000000002', name: { en: 'Nut' }, attributes: [], createdAt: '2026-01-01T00:00:00.000000Z', modifiedAt: '2026-01-01T00:00:00.000000Z' },
  ];
  const asPartInput = (p: Part): unknown => ({ part_id: p.part_id, name: p.name, ...(p.attributes.length > 0 ? { attributes: p.attributes } : {}) });
  // labels: [] exports as an empty cell, which imports as "absent": the only lossy spot, and harmless.
  const asAttributeInput = (a: Attribute): unknown => {
    const { labels, ...rest } = a;
    return labels.length > 0 ? a : rest;
  };

  it('in memory: attributeToRow → mapAttributeRow, partToRow → mapPartRow', () => {
    for (const a of attrs) expect(mapAttributeRow(attributeToRow(a))).toEqual({ item: asAttributeInput(a) });
    for (const p of parts) expect(mapPartRow(partToRow(p))).toEqual({ item: asPartInput(p) });
  });

  it('through a CSV file: list -o csv output is importable again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalog-roundtrip-'));
    try {
      for (const [kind, rows, columns, expected] of [
        ['attributes', attrs.map(attributeToRow), attributeRowColumns(attrs.map(attributeToRow)), attrs.map(asAttributeInput)],
        ['parts', parts.map(partToRow), partRowColumns(parts.map(partToRow)), parts.map(asPartInput)],
      ] as const) {
        const path = join(dir, `${kind}.csv`);
        const out = createWriteStream(path);
        await writeRecords(out, 'csv', rows, { fields: [...columns] });
        await new Promise<void>((resolve) => out.end(resolve));
        const items: unknown[] = [];
        for await (const entry of readRecords({ path }, 'csv')) {
          if ('error' in entry) throw new Error(entry.error);
          items.push(mapRecord(kind, 'csv', entry.record));
        }
        expect(items).toEqual(expected.map((item) => ({ item })));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('column helpers give a stable header', () => {
    expect(attributeRowColumns(attrs.map(attributeToRow))).toEqual([
      'attribute_id', 'type', 'name.de', 'name.en', 'name.fr', 'searchable', 'filterable', 'visibility', 'org_visibility', 'labels', 'per_org_values', 'default_value.en', 'display_order',
    ]);
    expect(partRowColumns(parts.map(partToRow))).toEqual([
      'part_id', 'name.de', 'name.en', 'attr:color.en', 'attr:color@acme.eu.de', 'attr:color@acme.eu.en', 'attr:dim.width.fr', 'serviceId', 'createdAt', 'modifiedAt',
    ]);
  });

  it('an attribute id with @, . or \\ is written escaped and reads back (-o csv crashed with "bug")', () => {
    const part: Partial<Part> & { part_id: string } = {
      part_id: ' P ',
      attributes: [
        { attribute_id: 'a@b.c', values: [{ organization: '', value: { en: ' x ' } }, { organization: 'org@x.y', value: { de: '\u00a0' } }] },
        { attribute_id: 'w\\@', values: [{ organization: '', value: { en: 'v' } }] },
      ],
    };
    const row = partToRow(part);
    expect(Object.keys(row)).toEqual(['part_id', 'attr:a\\@b.c.en', 'attr:a\\@b.c@org@x.y.de', 'attr:w\\\\\\@.en']);
    expect(mapPartRow(row)).toEqual({ item: part });
  });

});
