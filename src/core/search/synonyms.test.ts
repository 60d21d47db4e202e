import { describe, expect, it } from 'vitest';
import { MAX_SYNONYM_SETS } from '../../api/schemas.js';
import { parseQueryText } from './query.js';
import { applySynonyms, compileSynonyms, decideSynonymUpsert, MAX_SYNONYMS_PER_WORD } from './synonyms.js';

describe('synonyms', () => {
  it('multi-way sets go every way, one-way sets one way, terms folded like search words', () => {
    const index = compileSynonyms([
      { synonym_id: 'a', synonyms: ['Bolt', 'scréw', 'rivet'] },
      { synonym_id: 'b', input: 'HEX', synonyms: ['hexagon'] },
    ]);
    expect(index.byTerm.get('screw')?.map((a) => a.tokens.join(' '))).toEqual(['bolt', 'rivet']);
    expect(index.byTerm.get('hex')?.map((a) => a.tokens.join(' '))).toEqual(['hexagon']);
    expect(index.byTerm.get('hexagon')).toBeUndefined();
  });

  it('a run of words that is a multi-word term gets the other terms on its first word, longest run first', () => {
    const index = compileSynonyms([{ synonym_id: 's', synonyms: ['usb stick', 'flash drive'] }, { synonym_id: 't', synonyms: ['usb', 'universal serial bus'] }]);
    const words = applySynonyms(parseQueryText('blue usb stick 32gb '), index);
    expect(words[1]?.synonymSpan).toEqual({ count: 2, alternatives: [{ tokens: ['flash', 'drive'], prefix: false }] });
    expect(words[1]?.synonyms).toEqual([{ tokens: ['universal', 'serial', 'bus'], prefix: false }]);
    expect(words.map((w) => w.synonymSpan?.count)).toEqual([undefined, 2, undefined, undefined]);
    // The input is not changed.
    const plain = parseQueryText('usb stick');
    applySynonyms(plain, index);
    expect(plain[0]?.synonymSpan).toBeUndefined();
  });

  it('bounds: sets per catalog, synonyms per word, words per term', () => {
    expect(decideSynonymUpsert({ synonym_id: 'n', synonyms: ['a1', 'b1'] }, undefined, MAX_SYNONYM_SETS)).toMatchObject({ kind: 'error' });
    expect(decideSynonymUpsert({ synonym_id: 'n', synonyms: ['a1', 'b1'] }, { synonym_id: 'n', synonyms: ['x'] }, MAX_SYNONYM_SETS)).toMatchObject({ kind: 'write', created: false });
    expect(decideSynonymUpsert({ synonym_id: 'n', synonyms: ['one two three four five', 'b1'] }, undefined, 0)).toMatchObject({ kind: 'error' });
    const many = Array.from({ length: 10 }, (_, i) => ({ synonym_id: `s${i}`, synonyms: ['bolt', ...Array.from({ length: 19 }, (_, j) => `w${i}x${j}`)] }));
    expect(compileSynonyms(many).byTerm.get('bolt')).toHaveLength(MAX_SYNONYMS_PER_WORD);
  });
});
