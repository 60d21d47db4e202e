/**
 * Contract: an upload never takes another part's image or changes an image's info tokens unasked
 * (docs/api.md "Part images", mode and kept info; docs/decisions/0014-create-only-uploads.md), both
 * clients (and PostgreSQL through the contract-postgres project).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { imageExistsMessage } from '../../src/api/image-schemas.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';
import { expectCatalogError } from '../helpers/expect-error.js';
import { SHARED_IMAGES } from '../helpers/data.js';

const bytesOf = (name: string) => readFileSync(join(SHARED_IMAGES, name));

describe.each(MODES)('create-only uploads and kept info tokens (%s client)', (mode) => {
  let h: Harness;
  const lark = bytesOf('001penny.jpg');
  const seagull = bytesOf('4_mars.jpg');
  beforeEach(async () => {
    h = await createHarness(mode);
    await h.admin.upsertParts([
      { part_id: 'stamp:lark', name: { en: 'Lark stamp' } },
      { part_id: 'stamp:seagull', name: { en: 'Seagull stamp' } },
    ]);
    expect(await h.admin.uploadImages([{ image_id: 'lark', part_id: 'stamp:lark', info: 'searchable display weight=2' }], [{ filename: 'lark.jpg', data: lark }])).toEqual({ created: ['lark'], updated: [], errors: {} });
  });
  afterEach(async () => {
    await h.close();
  });

  it('mode=create refuses an image id that exists on another part, naming that part, and changes nothing', async () => {
    const result = await h.admin.uploadImages(
      [
        { image_id: 'lark', part_id: 'stamp:seagull', info: 'display' },
        { image_id: 'seagull', part_id: 'stamp:seagull', info: 'display' },
      ],
      [{ filename: 'lark.jpg', data: seagull }, { filename: 'seagull.jpg', data: seagull }],
      { mode: 'create' },
    );
    expect(result).toEqual({ created: ['seagull'], updated: [], errors: { lark: [imageExistsMessage('lark', 'stamp:lark')] } });
    expect(imageExistsMessage('lark', 'stamp:lark')).toBe(
      "image 'lark' already exists on part 'stamp:lark'; mode=create changes no existing image (choose another image_id, or upload with mode=upsert to replace it)",
    );
    expect(await h.admin.getImage('lark')).toEqual({ image_id: 'lark', part_id: 'stamp:lark', info: 'searchable display weight=2' });
    expect((await h.admin.downloadImage('lark')).size).toBe(lark.length);
  });

  it('mode=create refuses new bytes or new tokens for an existing id on its own part too', async () => {
    const other = await h.admin.uploadImages([{ image_id: 'lark', part_id: 'stamp:lark', info: 'searchable display weight=2' }], [{ filename: 'lark.jpg', data: seagull }], { mode: 'create' });
    expect(other.errors).toEqual({ lark: [imageExistsMessage('lark', 'stamp:lark')] });
    const retoken = await h.admin.uploadImages([{ image_id: 'lark', part_id: 'stamp:lark', info: 'display' }], [], { mode: 'create' });
    expect(retoken.errors).toEqual({ lark: [imageExistsMessage('lark', 'stamp:lark')] });
    expect(await h.admin.getImage('lark')).toEqual({ image_id: 'lark', part_id: 'stamp:lark', info: 'searchable display weight=2' });
  });

  it('mode=create accepts exactly what is stored again (a retried request), changing nothing', async () => {
    const retried = await h.admin.uploadImages([{ image_id: 'lark', part_id: 'stamp:lark', info: 'searchable display weight=2' }], [{ filename: 'lark.jpg', data: lark }], { mode: 'create' });
    expect(retried).toEqual({ created: [], updated: ['lark'], errors: {} });
    expect(await h.admin.getImage('lark')).toEqual({ image_id: 'lark', part_id: 'stamp:lark', info: 'searchable display weight=2' });
  });

  it('a definition without info keeps the stored tokens when its file is replaced; a new image needs info', async () => {
    const replaced = await h.admin.uploadImages([{ image_id: 'lark', part_id: 'stamp:lark' }], [{ filename: 'lark.jpg', data: seagull }]);
    expect(replaced).toEqual({ created: [], updated: ['lark'], errors: {} });
    expect(await h.admin.getImage('lark')).toEqual({ image_id: 'lark', part_id: 'stamp:lark', info: 'searchable display weight=2' });
    expect((await h.admin.downloadImage('lark')).size).toBe(seagull.length);
    const fresh = await h.admin.uploadImages([{ image_id: 'new', part_id: 'stamp:lark' }], [{ filename: 'new.jpg', data: lark }]);
    expect(fresh).toEqual({ created: [], updated: [], errors: { new: ["info: required for a new image (image 'new' does not exist yet)"] } });
  });

  it('the default stays the spec upsert: an explicit caller may still replace and move an image', async () => {
    const moved = await h.admin.uploadImages([{ image_id: 'lark', part_id: 'stamp:seagull', info: 'display' }], [{ filename: 'lark.jpg', data: seagull }], { mode: 'upsert' });
    expect(moved).toEqual({ created: [], updated: ['lark'], errors: {} });
    expect(await h.admin.getImage('lark')).toEqual({ image_id: 'lark', part_id: 'stamp:seagull', info: 'display' });
  });

  it('an unknown mode is a 400 naming the allowed ones, before anything is stored', async () => {
    await expectCatalogError(
      h.admin.uploadImages([{ image_id: 'x', part_id: 'stamp:lark', info: 'display' }], [{ filename: 'x.jpg', data: lark }], { mode: 'replace' as 'create' }),
      'bad_request',
      "mode: must be one of upsert, create (got 'replace')",
    );
    await expectCatalogError(h.admin.getImage('x'), 'not_found');
  });
});
