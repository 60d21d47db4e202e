/**
 * Contract: the role rule of spec §7 on image `position` applies to every change of
 * position, including a move to another part that carries the stored position; both clients.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POSITION_ROLE_ERROR } from '../../src/core/images/info-tokens.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { SHARED_IMAGES } from '../helpers/data.js';

describe.each(MODES)('image position role rule (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    await h.admin.upsertParts([{ part_id: 'p1', name: { en: 'One' } }, { part_id: 'p2', name: { en: 'Two' } }]);
  });
  afterEach(async () => {
    await h.close();
  });

  it('a catalogAdmin may not move a positioned image to another part, with or without a new file', async () => {
    const jpeg = readFileSync(join(SHARED_IMAGES, '001penny.jpg'));
    const contributor = await h.as(['dataContributor']);
    const admin = await h.as(['catalogAdmin']);
    expect((await contributor.uploadImages([{ image_id: 'front', part_id: 'p1', info: 'display', position: 1 }], [{ filename: 'front.jpg', data: jpeg }])).created).toEqual(['front']);
    expect((await contributor.uploadImages([{ image_id: 'side', part_id: 'p1', info: 'display' }], [{ filename: 'side.jpg', data: jpeg }])).created).toEqual(['side']);

    expect(await admin.uploadImages([{ image_id: 'front', part_id: 'p2', info: 'display' }], [])).toEqual({ created: [], updated: [], errors: { front: [POSITION_ROLE_ERROR('front')] } });
    expect(await admin.uploadImages([{ image_id: 'front', part_id: 'p2', info: 'display' }], [{ filename: 'front.jpg', data: jpeg }])).toEqual({ created: [], updated: [], errors: { front: [POSITION_ROLE_ERROR('front')] } });
    expect(await h.admin.getImage('front')).toEqual({ image_id: 'front', part_id: 'p1', info: 'display', position: 1 });
    expect((await h.admin.displayImages('p2')).ordered).toEqual([]);

    // What is not a change of position stays allowed: another info on the same part, moving an image without a position.
    expect(await admin.uploadImages([{ image_id: 'front', part_id: 'p1', info: 'display weight=2' }, { image_id: 'side', part_id: 'p2', info: 'display' }], [])).toEqual({ created: [], updated: ['front', 'side'], errors: {} });
    // The roles of spec §7 may move it.
    expect(await contributor.uploadImages([{ image_id: 'front', part_id: 'p2', info: 'display' }], [])).toEqual({ created: [], updated: ['front'], errors: {} });
    expect(await h.admin.getImage('front')).toEqual({ image_id: 'front', part_id: 'p2', info: 'display', position: 1 });
  });
});
