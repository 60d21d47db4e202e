import { describe, expect, it } from 'vitest';
import { CatalogError } from '../../api/errors.js';

import {
  compareIds, latestPerPair, namedPartIds, pairKey, parseRelationBody, parseRelationType, relationBodyError,
  toStoredRelation, unknownPartProblems, viewRelation, viewRelations,
} from './rules.js';
import type { StoredRelation } from '../model.js';

function thrown(fn: () => unknown): CatalogError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CatalogError) return error;
    throw error;
  }
  throw new Error('expected a CatalogError');
}

const stored = (anchor: string, related: string, created: number, extra: Partial<StoredRelation> = {}): StoredRelation => ({
  anchor_part_id: anchor, related_part_id: related, type: 'substitute', source: 'ingested', user_id: 'u', created, ...extra,
});

describe('pairKey', () => {
  it('is the same for both orders of a pair and differs between pairs', () => {
    expect(pairKey('a', 'b')).toBe(pairKey('b', 'a'));
    expect(pairKey('a', 'bc')).not.toBe(pairKey('ab', 'c'));
    expect(pairKey('a', 'b')).not.toBe(pairKey('a', 'c'));
  });
});

describe('latestPerPair', () => {
  it('keeps one item per unordered pair, the later one', () => {
    const items = [
      { anchor_part_id: 'a', related_part_id: 'b', n: 1 },
      { anchor_part_id: 'c', related_part_id: 'd', n: 2 },
      { anchor_part_id: 'b', related_part_id: 'a', n: 3 },
    ];
    expect(latestPerPair(items).map((i) => i.n)).toEqual([3, 2]);
  });
});

describe('parseRelationBody', () => {
  it('accepts valid items and defaults source to ingested', () => {
    const parsed = parseRelationBody([{ anchor_part_id: 'a', related_part_id: 'b', type: 'equivalent' }], 10);
    expect(parsed.problems).toEqual([]);
    expect(parsed.items).toEqual([{ index: 0, anchor_part_id: 'a', related_part_id: 'b', type: 'equivalent', source: 'ingested' }]);
  });

  it('names every problem of every item by path', () => {
    const parsed = parseRelationBody([
      { anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate' },
      { anchor_part_id: 'a', related_part_id: 'b', type: 'twin', source: 'guess' },
      'nope',
      { anchor_part_id: 'x', related_part_id: 'x', type: 'duplicate' },
      { anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate', note: 'hi' },
      { related_part_id: 'a/b', type: 'duplicate' },
    ], 10);
    expect(parsed.items.map((i) => i.index)).toEqual([0]);
    expect(parsed.problems.map((p) => [p.index, p.path, p.message])).toEqual([
      [1, 'items[1].type', 'must be one of: duplicate, substitute, equivalent, not_related'],
      [1, 'items[1].source', 'must be one of: confirmed_by_user, ingested'],
      [2, 'items[2]', expect.stringMatching(/expected object/)],
      [3, 'items[3].related_part_id', "must differ from anchor_part_id: part 'x' cannot relate to itself"],
      [4, 'items[4]', 'unknown field(s): note'],
      [5, 'items[5].anchor_part_id', expect.stringMatching(/expected string/)],
      [5, 'items[5].related_part_id', 'must not contain control characters or "/"'],
    ]);
  });

  it('refuses a body that is not an array (400) or too long (413)', () => {
    expect(thrown(() => parseRelationBody({ anchor_part_id: 'a' }, 10)).code).toBe('bad_request');
    const tooMany = thrown(() => parseRelationBody(new Array(11).fill({}), 10));
    expect(tooMany.code).toBe('payload_too_large');
    expect(tooMany.detail).toBe('at most 10 relations per call; this one has 11');
  });
});

describe('unknown parts', () => {
  it('collects the well-formed ids of every item and names each field that references a missing part', () => {
    const body = parseRelationBody([
      { anchor_part_id: 'a', related_part_id: 'ghost', type: 'duplicate' },
      { anchor_part_id: 'ghost', related_part_id: 'b', type: 'bad' },
      { anchor_part_id: 7, related_part_id: 'c', type: 'duplicate' },
    ], 10);
    expect(namedPartIds(body).sort()).toEqual(['a', 'b', 'c', 'ghost']);
    expect(unknownPartProblems(body.raw, new Set(['ghost']))).toEqual([
      { index: 0, path: 'items[0].related_part_id', message: "part 'ghost' does not exist" },
      { index: 1, path: 'items[1].anchor_part_id', message: "part 'ghost' does not exist" },
    ]);
  });

  it('relationBodyError orders problems by item and lists them all in the detail', () => {
    const error = relationBodyError([
      { index: 2, path: 'items[2].type', message: 'bad type' },
      { index: 0, path: 'items[0].related_part_id', message: "part 'x' does not exist" },
    ]);
    expect(error.code).toBe('bad_request');
    expect(error.errors).toEqual([
      { path: 'items[0].related_part_id', message: "part 'x' does not exist" },
      { path: 'items[2].type', message: 'bad type' },
    ]);
    expect(error.detail).toBe("invalid relations (2 bad items, nothing was written): items[0].related_part_id: part 'x' does not exist; items[2].type: bad type");
  });
});

describe('parseRelationType', () => {
  it('accepts the four types and refuses others with 400', () => {
    expect(parseRelationType('not_related')).toBe('not_related');
    const error = thrown(() => parseRelationType('cousin'));
    expect(error.code).toBe('bad_request');
    expect(error.detail).toBe("unknown relation type 'cousin': must be one of: duplicate, substitute, equivalent, not_related");
  });
});

describe('views', () => {
  it('shows the other part and its role: the automatic inverse of substitute', () => {
    const r = stored('old', 'new', 1_700_000_000_123_456);
    expect(viewRelation('old', r)).toEqual({ part_id: 'new', part_role: 'related_part', type: 'substitute', source: 'ingested', user_id: 'u', created: '2023-11-14T22:13:20.123456Z' });
    expect(viewRelation('new', r)).toMatchObject({ part_id: 'old', part_role: 'anchor_part' });
    expect(viewRelation('new', { ...r, user_id: null })).not.toHaveProperty('user_id');
  });

  it('orders by created, then the other part id in binary order', () => {
    const views = viewRelations('p', [stored('p', 'z', 2), stored('b', 'p', 1), stored('p', 'a', 2), stored('\u{1F600}', 'p', 2), stored('p', '\uFFFD', 2)]);
    expect(views.map((v) => v.part_id)).toEqual(['b', 'a', 'z', '\uFFFD', '\u{1F600}']);
  });

  it('compareIds is code point order', () => {
    expect(compareIds('a', 'b')).toBe(-1);
    expect(compareIds('ab', 'a')).toBe(1);
    expect(compareIds('x', 'x')).toBe(0);
    // UTF-16 code units would put the emoji (a surrogate pair) before U+FFFD.
    expect(compareIds('\u{1F600}', '\uFFFD')).toBe(1);
  });

  it('toStoredRelation records who and when', () => {
    expect(toStoredRelation({ index: 0, anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate', source: 'confirmed_by_user' }, 'alice', 5)).toEqual({
      anchor_part_id: 'a', related_part_id: 'b', type: 'duplicate', source: 'confirmed_by_user', user_id: 'alice', created: 5,
    });
  });
});
