/** Part images as a CLI resource (spec 2.2, 4.2): list, get and delete share the generic verbs. */
import { IMAGE_PROJECTION, MAX_IMAGE_DEFINITIONS, type ImageView } from '../../api/image-schemas.js';
import { mapImageManifestRow } from '../import/map-rows.js';
import type { ResourceSpec } from './resource.js';

export const imagesResource: ResourceSpec<ImageView> = {
  noun: 'images',
  singular: 'image',
  idField: 'image_id',
  maxBatch: MAX_IMAGE_DEFINITIONS,
  fields: ['image_id', ...IMAGE_PROJECTION],
  defaultFields: ['image_id', ...IMAGE_PROJECTION],
  mapCsvRow: (record) => mapImageManifestRow(record) as { item: Record<string, unknown> } | { problems: string[] },
  // Images are not imported through the generic loop: `images upload` sends files (src/cli/commands/image-upload.ts).
  send: () => Promise.reject(new Error('images are uploaded with `catalog images upload`, not imported')),
  async existing(client, ids) {
    const found = await client.selectImages({ image_ids: ids, projection: ['part_id'] });
    return new Set(found.map((i) => i.image_id));
  },
  list: (client, request) => client.listImages(request),
  select: (client, ids) => client.selectImages({ image_ids: ids }),
  delete: (client, ids) => client.deleteImages(ids),
  toCsvRow: (image) => {
    const row: Record<string, string> = { image_id: image.image_id };
    if (image.part_id !== undefined) row.part_id = image.part_id;
    if (image.info !== undefined) row.info = image.info;
    row.position = image.position !== undefined ? String(image.position) : '';
    return row;
  },
};
