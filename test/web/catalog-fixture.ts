/**
 * The catalog the browser tests read, built in a temp data directory through the local
 * client, then served by the real `catalog serve`:
 * - 45 parts named "Widget <n>" (page 2 of a 20-hit page exists), vendor Acme or Globex (filterable);
 * - `gear:seven` with 7 display images whose shown 5 follow rule 4 of spec 2.2, and a reference image;
 * - `cost`, an attribute only `admin` may see, with a value on gear:seven;
 * - three photographed parts with searchable photos (photo search);
 * - `gear:upload` with two weighted display images (a contributor uploads a third between them);
 * - relations of gear:seven (substitute, equivalent).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Role } from '../../src/api/schemas.js';
import { LocalCatalogClient } from '../../src/client/local-client.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { openCatalog } from '../../src/open-catalog.js';
import { SHARED_IMAGES } from '../helpers/data.js';

/** The 7 display images of gear:seven, created in this order (the default order). */
export const SEVEN = [
  { image_id: 'seven-a', info: 'display' },
  { image_id: 'seven-b', info: 'display weight=3' },
  { image_id: 'seven-c', info: 'display', position: 2 },
  { image_id: 'seven-d', info: 'display weight=1' },
  { image_id: 'seven-f', info: 'display weight=7' },
  { image_id: 'seven-g', info: 'display', position: 1 },
  { image_id: 'seven-h', info: 'display weight=9' },
] as const;
/**
 * Rule 4 by hand: (a) the positioned images g (1), c (2); (b) the weighted ones fill the 3 slots
 * left, lower weight first (ascending configuration), so h (9) is discarded; (c) nothing left for a.
 */
export const SEVEN_SHOWN = ['seven-g', 'seven-c', 'seven-d', 'seven-b', 'seven-f'];
/** The rest in display order (rule 3): the weighted h before a, which has no priority token. */
export const SEVEN_NOT_SHOWN = ['seven-h', 'seven-a'];

/** Photos of the photo-search parts (../shared/data/images). */
export const PHOTOS = [
  { part_id: 'photo:penny', file: '001penny.jpg', name: 'Old penny' },
  { part_id: 'photo:frog', file: 'frog-1.jpg', name: 'Frog stamp' },
  { part_id: 'photo:crane', file: 'crowned_crane.jpg', name: 'Crowned crane stamp' },
];

export interface Fixture {
  tokens: Record<'admin' | 'contributor' | 'worker', string>;
}

/** A small JPEG of one colour (distinct images for the gallery), `label` drawn nowhere: sizes differ. */
async function swatch(r: number, g: number, b: number, width = 320, height = 240): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } }).jpeg({ quality: 80 }).toBuffer();
}

/** Builds the fixture catalog in `dataDir` and closes it; returns the tokens. */
export async function buildFixture(dataDir: string): Promise<Fixture> {
  const catalog = openCatalog({ dataDir });
  try {
    const owner = new LocalCatalogClient(catalog, LOCAL_OWNER);
    const token = async (name: string, roles: Role[]) => (await catalog.service.createToken(LOCAL_OWNER, { name, roles })).secret;
    const tokens = {
      admin: await token('web-admin', ['catalogAdmin', 'admin', 'factoryWorker']),
      contributor: await token('web-contributor', ['dataContributor', 'factoryWorker']),
      worker: await token('web-worker', ['factoryWorker']),
    };
    const contributor = new LocalCatalogClient(catalog, { token: tokens.contributor });

    const attrs = await owner.upsertAttributes([
      { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor', de: 'Hersteller' }, searchable: true, filterable: true, visibility: 'factoryWorker', display_order: 1 },
      { attribute_id: 'colour', type: 'text', name: { en: 'Colour', de: 'Farbe' }, searchable: true, filterable: true, visibility: 'factoryWorker', display_order: 2 },
      { attribute_id: 'cost', type: 'text', name: { en: 'Unit cost', de: 'Stückkosten' }, searchable: false, filterable: false, visibility: 'admin' },
      { attribute_id: 'bin', type: 'text', name: { en: 'Bin', de: 'Fach' }, searchable: false, filterable: false, visibility: 'factoryWorker' },
    ]);
    if (Object.keys(attrs.errors).length) throw new Error(JSON.stringify(attrs.errors));

    const widgets = Array.from({ length: 45 }, (_, i) => ({
      part_id: `widget:${String(i + 1).padStart(2, '0')}`,
      name: { en: `Widget ${i + 1}`, de: `Bauteil ${i + 1}` },
      attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: i % 3 === 0 ? 'Globex' : 'Acme' } }] }],
    }));
    const parts = await owner.upsertParts([
      ...widgets,
      {
        part_id: 'gear:seven',
        name: { en: 'Seven-image gear', de: 'Zahnrad mit sieben Bildern' },
        attributes: [
          { attribute_id: 'bin', values: [{ organization: '', value: { en: 'B-17' } }] },
          { attribute_id: 'cost', values: [{ organization: '', value: { en: '12.40 EUR' } }] },
          { attribute_id: 'colour', values: [{ organization: '', value: { en: 'grey', de: 'grau' } }] },
          { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Acme' } }] },
        ],
      },
      { part_id: 'gear:successor', name: { en: 'Successor gear' } },
      { part_id: 'gear:twin', name: { en: 'Twin gear', fr: 'Engrenage jumeau' } },
      { part_id: 'gear:upload', name: { en: 'Upload target gear' } },
      ...PHOTOS.map((p) => ({ part_id: p.part_id, name: { en: p.name } })),
    ]);
    if (Object.keys(parts.errors).length) throw new Error(JSON.stringify(parts.errors));

    // One image per request, so creation times (the default order) follow SEVEN's order.
    for (const [i, image] of SEVEN.entries()) {
      const data = await swatch(40 + i * 30, 200 - i * 20, 90 + i * 15);
      const result = await contributor.uploadImages([{ ...image, part_id: 'gear:seven' }], [{ filename: `${image.image_id}.jpg`, data }]);
      if (Object.keys(result.errors).length) throw new Error(JSON.stringify(result.errors));
    }
    const ref = readFileSync(join(SHARED_IMAGES, '002.jpg'));
    await owner.uploadImages([{ image_id: 'seven-ref', part_id: 'gear:seven', info: 'searchable' }], [{ filename: 'seven-ref.jpg', data: ref }]);
    await owner.uploadImages(
      [
        { image_id: 'upload-low', part_id: 'gear:upload', info: 'display weight=1' },
        { image_id: 'upload-high', part_id: 'gear:upload', info: 'display weight=5' },
      ],
      [
        { filename: 'upload-low.jpg', data: await swatch(10, 120, 200) },
        { filename: 'upload-high.jpg', data: await swatch(200, 60, 20) },
      ],
    );
    for (const photo of PHOTOS) {
      const data = readFileSync(join(SHARED_IMAGES, photo.file));
      const result = await owner.uploadImages([{ image_id: photo.part_id.replace(':', '-'), part_id: photo.part_id, info: 'searchable display' }], [{ filename: `${photo.part_id.replace(':', '-')}.jpg`, data }]);
      if (Object.keys(result.errors).length) throw new Error(JSON.stringify(result.errors));
    }
    await owner.createRelations([
      { anchor_part_id: 'gear:seven', related_part_id: 'gear:successor', type: 'substitute' },
      { anchor_part_id: 'gear:seven', related_part_id: 'gear:twin', type: 'equivalent' },
    ]);
    await owner.close();
    await contributor.close();
    return { tokens };
  } finally {
    await catalog.close();
  }
}

/** The query photo: a cropped, half-size, brighter copy of a reference photo (as the demo makes). */
export async function alteredPhoto(file: string): Promise<Buffer> {
  const source = join(SHARED_IMAGES, file);
  const meta = await sharp(source).metadata();
  const w = meta.width ?? 100;
  const h = meta.height ?? 100;
  const cx = Math.round(w * 0.05);
  const cy = Math.round(h * 0.05);
  return sharp(source).extract({ left: cx, top: cy, width: w - 2 * cx, height: h - 2 * cy }).resize({ width: Math.round(w / 2) }).modulate({ brightness: 1.1 }).jpeg({ quality: 60 }).toBuffer();
}
