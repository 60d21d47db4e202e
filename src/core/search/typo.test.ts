import { describe, expect, it } from 'vitest';
import { deletionVariants, editDistance, isTypoEligible, isVocabularyTerm, lookupKeys, typoNeighbours, withinOneEdit } from './typo.js';

/** Optimal string alignment distance written plainly (whole matrix, code point arrays): the reference. */
function osaDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[x.length]![y.length]!;
}

describe('typo tolerance', () => {
  it('is for letter-only words of at least five letters', () => {
    expect(isTypoEligible('contr')).toBe(true);
    expect(isTypoEligible('lamp')).toBe(false);
    expect(isTypoEligible('i211at')).toBe(false);
    // The vocabulary is the words a typo may reach: letter words of 4 to 40 letters, never a part number.
    expect(isVocabularyTerm('lamp')).toBe(true);
    expect(isVocabularyTerm('żarówka')).toBe(true);
    expect(isVocabularyTerm('abc')).toBe(false);
    expect(isVocabularyTerm('i211')).toBe(false);
    expect(isVocabularyTerm('gw94171')).toBe(false);
    expect(isVocabularyTerm('8086')).toBe(false);
    expect(isVocabularyTerm('a'.repeat(41))).toBe(false);
  });
  it('makes one-deletion variants, by code point', () => {
    expect(deletionVariants('abca').sort()).toEqual(['aba', 'abc', 'aca', 'bca']);
    expect(deletionVariants('naïve')).toContain('nave');
    // A code point outside the BMP is deleted whole, never half a surrogate pair.
    expect(deletionVariants('a😀b')).toEqual(['😀b', 'ab', 'a😀']);
    expect(lookupKeys('abc')).toEqual(['abc', 'bc', 'ac', 'ab']);
  });
  it('measures edit distances as the plain optimal string alignment does, code point by code point', () => {
    // Seeded words over a small alphabet (so that near words are common), with accented letters
    // and a code point outside the BMP (a surrogate pair in UTF-16).
    const alphabet = ['a', 'b', 'c', 'é', '😀'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () => Array.from({ length: Math.floor(next() * 7) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    for (let n = 0; n < 3000; n++) {
      const a = word();
      const b = next() < 0.5 ? word() : [...a].map((c) => (next() < 0.2 ? alphabet[Math.floor(next() * alphabet.length)] : c)).join('');
      const want = osaDistance(a, b);
      for (const max of [1, 2]) expect({ a, b, max, d: editDistance(a, b, max) }).toEqual({ a, b, max, d: Math.min(want, max + 1) });
      expect({ a, b, near: withinOneEdit(a, b) }).toEqual({ a, b, near: want <= 1 });
    }
  });
  it('accepts exactly one insert, delete, substitution or neighbour swap', () => {
    expect(withinOneEdit('controller', 'controler')).toBe(true);
    expect(withinOneEdit('controler', 'controller')).toBe(true);
    expect(withinOneEdit('controller', 'controllar')).toBe(true);
    expect(withinOneEdit('controller', 'cnotroller')).toBe(true);
    expect(withinOneEdit('controller', 'cnotrollar')).toBe(false);
    expect(withinOneEdit('abcde', 'bcdef')).toBe(false);
    expect(withinOneEdit('abc', 'abcde')).toBe(false);
  });
  it('picks neighbours closest in length first, never the word itself', () => {
    expect(typoNeighbours('contoller', ['controller', 'contoller', 'controllers', 'contollers', 'zzz'])).toEqual(['contollers', 'controller']);
  });
});
