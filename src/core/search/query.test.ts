import { describe, expect, it } from 'vitest';
import { parseQueryText } from './query.js';
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
    expect(parseQueryText('gigabit contr')).toEqual([{ tokens: ['gigabit'], prefix: false, typo: true }, { tokens: ['contr'], prefix: true, typo: true }]);
    expect(parseQueryText('gigabit contr ')).toEqual([{ tokens: ['gigabit'], prefix: false, typo: true }, { tokens: ['contr'], prefix: false, typo: true }]);
  });
  it('keeps punctuated words as phrases and drops pure punctuation', () => {
    expect(parseQueryText('pci:8086:1539 -- "x"')).toEqual([{ tokens: ['pci', '8086', '1539'], prefix: false, typo: false }, { tokens: ['x'], prefix: false, typo: false }]);
  });
  it('marks a word typed beginning with a name separator (a scoped name), not one in quotes', () => {
    expect(parseQueryText('@types/rea')).toEqual([{ tokens: ['types', 'rea'], prefix: true, typo: false, leadingSeparator: true }]);
    expect(parseQueryText('.env')).toEqual([{ tokens: ['env'], prefix: true, typo: false, leadingSeparator: true }]);
    expect(parseQueryText('"types" (x)')).toEqual([{ tokens: ['types'], prefix: false, typo: true }, { tokens: ['x'], prefix: false, typo: false }]);
  });
  it('does not make a one-character last word a prefix', () => {
    expect(parseQueryText('lamp a')).toEqual([{ tokens: ['lamp'], prefix: false, typo: false }, { tokens: ['a'], prefix: false, typo: false }]);
    expect(parseQueryText('')).toEqual([]);
  });
});
