import { describe, expect, it } from 'vitest';
import { deletionVariants, hasTypoKeys, isTypoEligible, isVocabularyTerm, lookupKeys, typoNeighbours, withinOneEdit } from './typo.js';

describe('typo tolerance', () => {
  it('is for letter-only words of at least five letters', () => {
    expect(isTypoEligible('contr')).toBe(true);
    expect(isTypoEligible('lamp')).toBe(false);
    expect(isTypoEligible('i211at')).toBe(false);
    expect(isVocabularyTerm('lamp')).toBe(true);
    expect(isVocabularyTerm('i211')).toBe(true);
    expect(isVocabularyTerm('ab')).toBe(false);
    expect(isVocabularyTerm('8086')).toBe(false);
    expect(hasTypoKeys('lamp')).toBe(true);
    expect(hasTypoKeys('abc')).toBe(false);
    expect(hasTypoKeys('i211')).toBe(false);
  });
  it('makes one-deletion variants, by code point', () => {
    expect(deletionVariants('abca').sort()).toEqual(['aba', 'abc', 'aca', 'bca']);
    expect(deletionVariants('naïve')).toContain('nave');
    // A code point outside the BMP is deleted whole, never half a surrogate pair.
    expect(deletionVariants('a😀b')).toEqual(['😀b', 'ab', 'a😀']);
    expect(lookupKeys('abc')).toEqual(['abc', 'bc', 'ac', 'ab']);
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
