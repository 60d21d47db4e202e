import { describe, expect, it } from 'vitest';
import { CatalogError } from '../../api/errors.js';
import { checkProjection, chooseName, parseProjectionParam, toSearchResult } from './result.js';
import { compareBinary, orderHits } from './rank.js';

const card = { cardId: 1, partId: 'p', serviceId: 's', names: { en: 'Nut', de: 'Mutter' }, createdAt: 1_700_000_000_000_001, modifiedAt: 1_700_000_000_000_002 };

describe('results', () => {
  it('chooses the name in the language, else the first language in sorted order', () => {
    expect(chooseName({ en: 'Nut', de: 'Mutter' }, 'en')).toEqual({ name: 'Nut', language: 'en' });
    expect(chooseName({ en: 'Nut', de: 'Mutter' }, 'EN')).toEqual({ name: 'Nut', language: 'en' });
    expect(chooseName({ en: 'Nut', de: 'Mutter' }, 'fr')).toEqual({ name: 'Mutter', language: 'de' });
    expect(chooseName({ en: 'Nut', de: 'Mutter' }, undefined)).toEqual({ name: 'Mutter', language: 'de' });
    expect(chooseName({}, 'en')).toBeUndefined();
  });
  it('projects fields in a fixed order; none = all six', () => {
    expect(toSearchResult(card, 'en', undefined)).toEqual({
      id: 'p', serviceId: 's', name: 'Nut', nameLanguage: 'en', createdAt: '2023-11-14T22:13:20.000001Z', modifiedAt: '2023-11-14T22:13:20.000002Z',
    });
    expect(toSearchResult(card, 'en', ['results.nameLanguage', 'results.id'])).toEqual({ id: 'p', nameLanguage: 'en' });
  });
  it('rejects unknown projection values naming the allowed ones', () => {
    expect(() => checkProjection(['results.id', 'name'], 'projection')).toThrow(CatalogError);
    expect(() => parseProjectionParam('results.id,bogus')).toThrow(/allowed: results\.id, results\.serviceId/);
    expect(parseProjectionParam(' results.id , results.name ')).toEqual(['results.id', 'results.name']);
    expect(parseProjectionParam('')).toBeUndefined();
  });
});

describe('hit order', () => {
  it('tier, then score, then part id in binary order; unscored after their tier', () => {
    const hits = [
      { id: 1, tier: 1 as const, score: -2, partId: 'a' },
      { id: 2, tier: 0 as const, score: -1, partId: 'b' },
      { id: 3, tier: 0 as const, score: -1, partId: 'a' },
      { id: 4, tier: 0 as const, score: -3, partId: 'z' },
    ];
    expect(orderHits(hits, [9, 7], [8], 10)).toEqual([4, 3, 2, 9, 7, 1, 8]);
    expect(orderHits(hits, [], [], 2)).toEqual([4, 3]);
  });
  it('compares like SQLite BINARY (code points)', () => {
    expect(compareBinary('a', 'b')).toBe(-1);
    expect(compareBinary('ab', 'a')).toBe(1);
    expect(compareBinary('\uffff', '\u{1F600}')).toBe(-1); // UTF-16 order would say the opposite
  });
});
