import { describe, expect, it } from 'vitest';
import { TermIdCache } from './term-id-cache.js';

describe('TermIdCache ranges', () => {
  const rows = (...terms: string[]) => terms.map((term, i) => ({ id: i + 1, term }));

  it('takes a written term into the kept ranges its prefix begins, in binary order, without reading them again', () => {
    const cache = new TermIdCache();
    let reads = 0;
    const lookup = (found: { id: number; term: string }[]) => () => {
      reads++;
      return found;
    };
    const first = cache.range('ab', lookup(rows('ab', 'abc', 'abe')));
    cache.range('x', lookup(rows('xy')));
    expect(reads).toBe(2);

    // A new term (a code point above the BMP sorts after U+E000..U+FFFF, as SQLite compares UTF-8).
    cache.written([{ id: 9, term: 'abd' }, { id: 10, term: 'ab\u{1F600}' }, { id: 11, term: 'ab\uFFFD' }]);
    const after = cache.range('ab', lookup([]));
    expect(reads).toBe(2);
    expect(after.map((r) => r.term)).toEqual(['ab', 'abc', 'abd', 'abe', 'ab\uFFFD', 'ab\u{1F600}']);
    expect(after.find((r) => r.term === 'abd')?.id).toBe(9);
    expect(first.map((r) => r.term)).toEqual(['ab', 'abc', 'abe']);

    // A term it holds whose postings changed: the same terms, a new array (what was built from the old one is stale).
    cache.written([{ id: 2, term: 'abc' }]);
    const changed = cache.range('ab', lookup([]));
    expect(changed).not.toBe(after);
    expect(changed).toEqual(after);

    // A range the term does not begin is the same array.
    const x = cache.range('x', lookup([]));
    cache.written([{ id: 12, term: 'abz' }]);
    expect(cache.range('x', lookup([]))).toBe(x);
    expect(reads).toBe(2);

    // Nothing named: everything forgotten, read again.
    cache.written();
    cache.range('ab', lookup(rows('ab')));
    expect(reads).toBe(3);
  });
});
