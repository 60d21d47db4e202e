import { describe, expect, it } from 'vitest';
import { CatalogError } from '../../api/errors.js';

import { checkDefinitions, decideImageUpsert, describeImage, ifNoneMatchMatches, matchFile, type ValidDefinition } from './definitions.js';
import { parseImageInfo, POSITION_ROLE_ERROR } from './info-tokens.js';
import type { StoredImage } from '../model.js';

function valid(def: Omit<ValidDefinition, 'parsed'>): ValidDefinition {
  if (def.info === undefined) return { ...def, parsed: undefined };
  const parsed = parseImageInfo(def.info);
  if (!parsed.ok) throw new Error('bad info');
  return { ...def, parsed: parsed.info };
}

const stored: StoredImage = { image_id: 'a', part_id: 'p', sha256: 'f'.repeat(64), size: 3, mime: 'image/png', info: 'display', position: 2, createdAt: 10, modifiedAt: 10 };

describe('matchFile (decisions §4)', () => {
  const ids = new Set(['front', 'front.v2', 'x.jpg']);
  it.each([
    ['front', 'front'],
    ['front.jpg', 'front'],
    ['front.v2', 'front.v2'],
    ['front.v2.png', 'front.v2'],
    ['x.jpg', 'x.jpg'],
    ['dir/front.jpg', 'front'],
    ['back.jpg', undefined],
    ['.jpg', undefined],
  ])('%s → %s', (filename, id) => {
    expect(matchFile(filename, ids)).toBe(id);
  });
});

describe('checkDefinitions', () => {
  it('400 when not an array, 413 over the limit', () => {
    expect(() => checkDefinitions({}, 10, true)).toThrow(CatalogError);
    expect(() => checkDefinitions([{}, {}], 1, true)).toThrow(/at most 1 image definitions/);
  });

  it('collects every problem; the role error comes first and is exact (spec §7)', () => {
    const [a, b, c] = checkDefinitions([
      { image_id: 'a', part_id: 'p', info: 'searchable weight=x', position: 0 },
      { image_id: 'b', part_id: 'p', info: 'display', position: 3, extra: 1 },
      { image_id: 'c', part_id: 'p', info: 'display', position: null },
    ], 10, false);
    expect(a).toEqual({ key: 'a', index: 0, messages: [POSITION_ROLE_ERROR('a'), "info token 'weight=x': weight must be a finite decimal number", 'position must be an integer >= 1'] });
    expect(b).toEqual({ key: 'b', index: 1, messages: [POSITION_ROLE_ERROR('b'), 'unknown field(s): extra'] });
    expect(c).toMatchObject({ key: 'c', definition: { position: null } });
  });

  it('an id defined twice is one error for that id', () => {
    const checked = checkDefinitions([{ image_id: 'd', part_id: 'p', info: 'display' }, { image_id: 'd', part_id: 'p', info: 'searchable' }], 10, true);
    expect(checked).toEqual([{ key: 'd', index: 0, messages: ["image 'd' is defined more than once in this request"] }]);
  });
});

describe('decideImageUpsert', () => {
  const file = { sha256: 'e'.repeat(64), size: 9, mime: 'image/jpeg' };
  const ctx = { now: 20, mayPosition: false, features: undefined };
  it('creates with a file; a new image without one is an error', () => {
    const def = valid({ image_id: 'n', part_id: 'p', info: 'display', position: undefined });
    expect(decideImageUpsert(def, undefined, undefined, true, ctx)).toEqual({ kind: 'error', messages: ["no file for image 'n'"] });
    const created = decideImageUpsert(def, file, undefined, true, ctx);
    expect(created).toMatchObject({ kind: 'write', created: true, value: { image: { sha256: file.sha256, position: null, createdAt: 20 } } });
  });

  it('keeps the stored file and position when absent; clearing a position or moving a positioned image needs the role', () => {
    const keep = decideImageUpsert(valid({ image_id: 'a', part_id: 'p', info: 'display weight=1', position: undefined }), undefined, stored, true, ctx);
    expect(keep).toMatchObject({ kind: 'write', created: false, value: { image: { part_id: 'p', sha256: stored.sha256, position: 2, createdAt: 10, modifiedAt: 20 } } });
    // A move to another part carries the position.
    const move = valid({ image_id: 'a', part_id: 'q', info: 'display weight=1', position: undefined });
    expect(decideImageUpsert(move, undefined, stored, true, ctx)).toEqual({ kind: 'error', messages: [POSITION_ROLE_ERROR('a')] });
    expect(decideImageUpsert(move, file, stored, true, ctx)).toEqual({ kind: 'error', messages: [POSITION_ROLE_ERROR('a')] });
    expect(decideImageUpsert(move, undefined, stored, true, { ...ctx, mayPosition: true })).toMatchObject({ kind: 'write', value: { image: { part_id: 'q', position: 2 } } });
    // A move of an image without a position is not a change of position.
    expect(decideImageUpsert(move, undefined, { ...stored, position: null }, true, ctx)).toMatchObject({ kind: 'write', value: { image: { part_id: 'q', position: null } } });
    const clear = valid({ image_id: 'a', part_id: 'p', info: 'display', position: null });
    expect(decideImageUpsert(clear, undefined, stored, true, ctx)).toEqual({ kind: 'error', messages: [POSITION_ROLE_ERROR('a')] });
    expect(decideImageUpsert(clear, undefined, stored, true, { ...ctx, mayPosition: true })).toMatchObject({ kind: 'write', value: { image: { position: null } } });
  });

  it('unknown part; a kept position without display', () => {
    const def = valid({ image_id: 'a', part_id: 'ghost', info: 'searchable', position: undefined });
    const decision = decideImageUpsert(def, undefined, stored, false, { ...ctx, mayPosition: true });
    expect(decision.kind === 'error' && decision.messages).toEqual([
      "part_id: part 'ghost' does not exist",
      'position: the image keeps its position 2, which is only allowed when info contains the token display (send "position": null to clear it)',
    ]);
  });
});

describe('describeImage and ETags', () => {
  it('position only when set', () => {
    expect(describeImage(stored)).toEqual({ image_id: 'a', part_id: 'p', info: 'display', position: 2 });
    expect(describeImage({ ...stored, position: null })).toEqual({ image_id: 'a', part_id: 'p', info: 'display' });
  });
  it.each([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abcd"', false],
  ])('If-None-Match %s → %s', (header, match) => {
    expect(ifNoneMatchMatches(header, '"abc"')).toBe(match);
  });
});

describe('decideImageUpsert: create-only uploads and kept info (docs/api.md "Part images")', () => {
  const context = { now: 20, mayPosition: false, features: undefined };
  const file = { sha256: 'e'.repeat(64), size: 4, mime: 'image/jpeg' };
  const searchable: StoredImage = { ...stored, info: 'searchable display weight=2', position: null };

  it('mode=create refuses an existing id on another part, or with another file or info, naming its part', () => {
    for (const def of [
      { image_id: 'a', part_id: 'q', info: 'display', position: undefined },
      { image_id: 'a', part_id: 'p', info: 'display', position: undefined },
    ]) {
      const decision = decideImageUpsert(valid(def), file, stored, true, { ...context, mode: 'create' });
      expect(decision).toEqual({ kind: 'error', messages: [expect.stringContaining("image 'a' already exists on part 'p'")] });
    }
    expect(decideImageUpsert(valid({ image_id: 'a', part_id: 'p', info: 'searchable', position: undefined }), undefined, stored, true, { ...context, mode: 'create' }).kind).toBe('error');
  });

  it('mode=create accepts the same definition and bytes again unchanged (a retry), and creates new ids', () => {
    const same = decideImageUpsert(valid({ image_id: 'a', part_id: 'p', info: 'display', position: undefined }), { sha256: stored.sha256, size: 3, mime: 'image/png' }, stored, true, { ...context, mode: 'create' });
    expect(same).toEqual({ kind: 'write', created: false, value: { image: stored, features: undefined } });
    const fresh = decideImageUpsert(valid({ image_id: 'b', part_id: 'p', info: 'display', position: undefined }), file, undefined, true, { ...context, mode: 'create' });
    expect(fresh).toMatchObject({ kind: 'write', created: true, value: { image: { image_id: 'b', info: 'display' } } });
  });

  it('a definition without info keeps the stored tokens; a new image needs info', () => {
    const kept = decideImageUpsert(valid({ image_id: 'a', part_id: 'p', info: undefined, position: undefined }), file, searchable, true, context);
    expect(kept).toMatchObject({ kind: 'write', created: false, value: { image: { info: 'searchable display weight=2', sha256: file.sha256 } } });
    const fresh = decideImageUpsert(valid({ image_id: 'b', part_id: 'p', info: undefined, position: undefined }), file, undefined, true, context);
    expect(fresh).toEqual({ kind: 'error', messages: ["info: required for a new image (image 'b' does not exist yet)"] });
    const noDisplay = decideImageUpsert(valid({ image_id: 'a', part_id: 'p', info: undefined, position: 3 }), file, { ...searchable, info: 'searchable' }, true, { ...context, mayPosition: true });
    expect(noDisplay).toEqual({ kind: 'error', messages: ['position is only allowed when info contains the token display'] });
  });
});
