/** Part images as a CLI resource (spec 2.2, 4.2): get and delete share the generic verbs; upload has its own (./upload.ts). */
import { IMAGE_PROJECTION, type ImageView } from '../../../api/image-schemas.js';
import type { ResourceSpec } from '../resource.js';

export const imagesResource: ResourceSpec<ImageView> = {
  noun: 'images',
  singular: 'image',
  idField: 'image_id',
  fields: ['image_id', ...IMAGE_PROJECTION],
  defaultFields: ['image_id', ...IMAGE_PROJECTION],
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
