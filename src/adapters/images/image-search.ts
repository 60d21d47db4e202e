/**
 * Image search adapters (decisions §8): features of reference images computed at upload (the
 * ImageFeatureIndexer hook of the image service) and the similarity ranking of a query image
 * against them. sharp is loaded on first use only, so commands that never touch images do not pay
 * its start-up cost (measurements.md: ~80 ms).
 */
import { CatalogError } from '../../api/errors.js';
import { detectImageType } from '../../core/images/file-type.js';
import type { ImageFeatureIndexer, ImageSimilaritySearch, ReferenceFeatureStore } from '../../core/ports.js';
import { decodeFeatures, encodeFeatures, ImageFeatureIndex, rankParts, type Features } from '../../core/search/image-similarity.js';
import type { ImageMatch } from '../../core/model.js';

async function features(bytes: Uint8Array | string): Promise<Features> {
  const { extractFeatures } = await import('./sharp-features.js');
  return extractFeatures(bytes);
}

/** Computes the stored features of a searchable reference image. Throws when sharp cannot decode it. */
export const sharpFeatureIndexer: ImageFeatureIndexer = {
  async index(_imageId, _partId, image) {
    return encodeFeatures(await features(image instanceof Uint8Array ? image : image.path));
  },
  async remove() {
    // Nothing to do: features live in the images row, which the image service updates or deletes.
  },
};

/** Images considered per query: the shortlist of the SimHash filter (image-similarity.ts). */
const SHORTLIST = 200;

/**
 * Ranks parts by the similarity of their best searchable image to a query image. The reference
 * features are decoded once into an in-memory ImageFeatureIndex and reloaded when the store's
 * fingerprint changes, which also sees writes by other processes on the same catalog.
 */
export class FeatureIndexSimilaritySearch implements ImageSimilaritySearch {
  private readonly references: ReferenceFeatureStore;
  private fingerprint = '';
  private index = new ImageFeatureIndex();

  constructor(references: ReferenceFeatureStore) {
    this.references = references;
  }

  /** Number of reference images in the in-memory index after the last sync. */
  get size(): number {
    return this.index.size;
  }

  private async sync(): Promise<void> {
    const fingerprint = await this.references.fingerprint();
    if (fingerprint === this.fingerprint) return;
    const index = new ImageFeatureIndex();
    for await (const row of this.references.all()) {
      try {
        index.add(row.image_id, row.part_id, decodeFeatures(row.features));
      } catch {
        // Features of an older, unknown format: that image is not searchable until re-uploaded.
      }
    }
    this.index = index;
    this.fingerprint = fingerprint;
  }

  async rankParts(image: Uint8Array, limit: number): Promise<ImageMatch[]> {
    if (!detectImageType(image.subarray(0, 64))) {
      throw new CatalogError('unsupported_media_type', 'the query image is not a JPEG, PNG, WebP, GIF, TIFF or AVIF image');
    }
    let query: Features;
    try {
      query = await features(image);
    } catch (error) {
      throw new CatalogError('unsupported_media_type', `the query image cannot be decoded: ${(error as Error).message}`);
    }
    await this.sync();
    const hits = this.index.query(query, SHORTLIST, { shortlist: SHORTLIST });
    return rankParts(hits).slice(0, limit);
  }
}
