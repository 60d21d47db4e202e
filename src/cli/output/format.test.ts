import { describe, expect, it } from 'vitest';
import { resolveFormat, selectFields } from './format.js';
import type { OutputFormat } from './format.js';
import { UsageError } from './usage-error.js';

describe('resolveFormat', () => {
  it.each<[string | undefined, boolean, OutputFormat]>([
    [undefined, true, 'table'],
    [undefined, false, 'tsv'],
    ['json', true, 'json'],
    ['NDJSON', false, 'ndjson'],
    [' csv ', true, 'csv'],
    ['table', false, 'table'],
    ['tsv', true, 'tsv'],
  ])('flag %s, tty %s → %s', (flag, tty, expected) => {
    expect(resolveFormat(flag, tty)).toBe(expected);
  });

  it('rejects an unknown format with a usage error listing the valid ones', () => {
    expect(() => resolveFormat('yaml', true)).toThrow(UsageError);
    expect(() => resolveFormat('yaml', true)).toThrow("invalid output format 'yaml'; valid formats: table, json, ndjson, csv, tsv");
  });
});

describe('selectFields', () => {
  const available = ['attribute_id', 'type', 'name', 'labels'];
  const defaults = ['attribute_id', 'name'];
  it.each<[string | undefined, string[]]>([
    [undefined, ['attribute_id', 'name']],
    ['type', ['type']],
    ['labels, attribute_id', ['labels', 'attribute_id']],
    ['type,,type,name,', ['type', 'name']],
  ])('%s → %j', (requested, expected) => {
    expect(selectFields(requested, available, defaults)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['nope', "unknown field 'nope'; valid fields: attribute_id, type, name, labels"],
    ['type,x,y', "unknown fields 'x', 'y'; valid fields: attribute_id, type, name, labels"],
    [' , ', '--fields names no field; valid fields: attribute_id, type, name, labels'],
  ])('%s is a usage error', (requested, message) => {
    expect(() => selectFields(requested, available, defaults)).toThrow(UsageError);
    expect(() => selectFields(requested, available, defaults)).toThrow(message);
  });

  it('returns a copy of the defaults', () => {
    const result = selectFields(undefined, available, defaults);
    result.push('x');
    expect(defaults).toEqual(['attribute_id', 'name']);
  });
});
