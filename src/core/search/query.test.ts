import { describe, expect, it } from 'vitest';
import { ftsAnd, ftsClause, ftsNot, ftsPhrase, ftsWordClause, markedIdText, parseQueryText, quoteFts } from './query.js';
import { foldToken, tokenize } from './text.js';

describe('tokenize', () => {
  it('splits on everything but letters and digits, folds case and diacritics', () => {
    expect(tokenize('pci:8086:1539')).toEqual(['pci', '8086', '1539']);
    expect(tokenize('Crème BRÛLÉE, naïve')).toEqual(['creme', 'brulee', 'naive']);
    expect(tokenize('I211-AT (rev. 3)')).toEqual(['i211', 'at', 'rev', '3']);
    expect(tokenize(' -- ')).toEqual([]);
    expect(foldToken('Ångström')).toBe('angstrom');
  });
});

describe('parseQueryText', () => {
  it('makes words, the last one a prefix unless the text ends in a space', () => {
    expect(parseQueryText('gigabit contr')).toEqual([{ tokens: ['gigabit'], prefix: false }, { tokens: ['contr'], prefix: true }]);
    expect(parseQueryText('gigabit contr ')).toEqual([{ tokens: ['gigabit'], prefix: false }, { tokens: ['contr'], prefix: false }]);
  });
  it('keeps punctuated words as phrases and drops pure punctuation', () => {
    expect(parseQueryText('pci:8086:1539 -- "x"')).toEqual([{ tokens: ['pci', '8086', '1539'], prefix: false }, { tokens: ['x'], prefix: false }]);
  });
  it('does not make a one-character last word a prefix', () => {
    expect(parseQueryText('lamp a')).toEqual([{ tokens: ['lamp'], prefix: false }, { tokens: ['a'], prefix: false }]);
    expect(parseQueryText('')).toEqual([]);
  });
});

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
    const word = { word: { tokens: ['pci', '80'], prefix: true }, alternatives: [{ tokens: ['pci', '80'], prefix: true }], idAlternatives: [{ tokens: ['pci', '80'], prefix: true }] };
    expect(ftsWordClause(word, ['names', 'v0'])).toBe('({pid} : ("\uE001pci \uE00180"*)) OR ({names v0} : ("pci 80"*))');
    expect(ftsWordClause(word, [])).toBe('{pid} : ("\uE001pci \uE00180"*)');
  });
  it('refuses anything but a column name in the column list', () => {
    expect(() => ftsClause([{ tokens: ['x'], prefix: false }], ['names} : x OR {pid'])).toThrow(/not a column name/);
    expect(() => ftsClause([], ['pid'])).toThrow();
  });
});
