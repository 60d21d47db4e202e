import { describe, expect, it } from 'vitest';
import { ftsAnd, ftsClause, ftsNot, ftsPhrase, ftsWordClause, markedIdText, quoteFts } from './fts-query.js';

describe('FTS5 expressions', () => {
  it('quotes every string, doubling inner quotes', () => {
    expect(quoteFts('a"b')).toBe('"a""b"');
    expect(ftsPhrase({ tokens: ['pci', '8086'], prefix: true })).toBe('"pci 8086"*');
  });
  it('builds clauses with column filters, AND and NOT', () => {
    const clause = ftsClause([{ tokens: ['x'], prefix: false }, { tokens: ['y'], prefix: true }], ['pid', 'names']);
    expect(clause).toBe('{pid names} : ("x" OR "y"*)');
    expect(ftsAnd([clause, '{flt} : ("f1")'])).toBe('({pid names} : ("x" OR "y"*)) AND ({flt} : ("f1"))');
    expect(ftsAnd([])).toBeUndefined();
    expect(ftsNot('a', 'b')).toBe('(a) NOT (b)');
  });
  it('matches the id through its marked tokens, names and values through the alternatives', () => {
    expect(markedIdText(['pci', '8086'])).toBe('\uE001pci \uE0018086');
    const word = { word: { tokens: ['pci', '80'], prefix: true, typo: false }, alternatives: [{ tokens: ['pci', '80'], prefix: true }], idAlternatives: [{ tokens: ['pci', '80'], prefix: true }] };
    expect(ftsWordClause(word, ['names', 'v0'])).toBe('({pid} : ("\uE001pci \uE00180"*)) OR ({names v0} : ("pci 80"*))');
    expect(ftsWordClause(word, [])).toBe('{pid} : ("\uE001pci \uE00180"*)');
  });
  it('refuses anything but a column name in the column list', () => {
    expect(() => ftsClause([{ tokens: ['x'], prefix: false }], ['names} : x OR {pid'])).toThrow(/not a column name/);
    expect(() => ftsClause([], ['pid'])).toThrow();
  });
});
