import { describe, expect, it } from 'vitest';
import { highlight, markSpans } from './highlight.js';
import { parseQueryText } from './query.js';

describe('highlight', () => {
  const fields = [{ field: 'name' as const, language: 'fr', text: 'Crème brûlée, Crémerie' }];

  it('marks exact, prefix and typo matches by the search rules; typos only for a word found nowhere exactly', () => {
    const [h] = highlight(fields, parseQueryText('creme bru'));
    expect(h?.matches).toEqual([{ word: 0, start: 0, end: 5, how: 'exact' }, { word: 1, start: 6, end: 9, how: 'prefix' }]);
    expect(markSpans(h ?? { text: '', matches: [] })).toBe('[Crème] [brû]lée, Crémerie');
    expect(highlight(fields, parseQueryText('brulle '))[0]?.matches).toEqual([{ word: 0, start: 6, end: 12, how: 'typo' }]);
    // "cremerie" is found exactly, so its typo neighbour "creme" is not marked.
    expect(highlight(fields, parseQueryText('cremerie '))[0]?.matches).toEqual([{ word: 0, start: 14, end: 22, how: 'exact' }]);
    expect(highlight(fields, parseQueryText('pump'))).toEqual([]);
  });

  it('marks a punctuated word as its tokens in sequence and merges overlapping spans', () => {
    const [h] = highlight([{ field: 'id', text: 'pci:8086:15b8' }], parseQueryText('8086:15b8 8086'));
    expect(h?.matches.map((m) => [m.word, m.start, m.end])).toEqual([[0, 4, 13], [1, 4, 8]]);
    expect(markSpans(h ?? { text: '', matches: [] }, '<', '>')).toBe('pci:<8086:15b8>');
  });
});
