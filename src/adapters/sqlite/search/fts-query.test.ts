import { describe, expect, it } from 'vitest';
import { ftsClause, ftsPhrase, quoteFts } from './fts-query.js';

describe('FTS5 expressions', () => {
  it('quotes every string, doubling inner quotes', () => {
    expect(quoteFts('a"b')).toBe('"a""b"');
    expect(ftsPhrase({ tokens: ['pci', '8086'], prefix: true })).toBe('"pci 8086"*');
    expect(ftsClause([{ tokens: ['x" OR "y'], prefix: false }], ['o0'])).toBe('{o0} : ("x"" OR ""y")');
  });
  it('builds a clause over columns, any alternative', () => {
    expect(ftsClause([{ tokens: ['x'], prefix: false }, { tokens: ['y'], prefix: true }], ['o0', 'o1'])).toBe('{o0 o1} : ("x" OR "y"*)');
  });
  it('refuses anything but a column name in the column list', () => {
    expect(() => ftsClause([{ tokens: ['x'], prefix: false }], ['o0} : x OR {o1'])).toThrow(/not a column name/);
    expect(() => ftsClause([], ['o0'])).toThrow();
  });
});
