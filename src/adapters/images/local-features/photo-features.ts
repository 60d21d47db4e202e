/**
 * Photo-search features of encoded images (issue 14; docs/search.md, "Photo search"): what is stored
 * for a reference image at upload or backfill, and what is computed for a query photo. Decoding is
 * sharp's, keypoints OpenCV's; the records, the index and the scoring are pure core code
 * (src/core/search/photo/).
 */
import type { LocalFeatures } from '../../../core/search/photo/local-features.js';
import { encodePhotoFeatures, type PhotoQuery } from '../../../core/search/photo/photo-search.js';
import { shippedVocabulary } from '../../../core/search/photo/shipped-vocabulary.js';
import type { Vocabulary } from '../../../core/search/photo/vocabulary.js';
import { extractFeatures, predecode, type ImageInput } from '../sharp-features.js';
import { decodeGrey, extractLocalFeatures, localFeaturesFromGrey, LOCAL_SETTINGS, secondLookFeatures, type GreyRaster } from './extract.js';
import { openCv } from './opencv.js';
import { rotatedGlobalFeatures } from './global-views.js';

/**
 * The stored features (feature version 3) of a reference image: the global descriptor and the
 * local features with the shipped vocabulary's words. ~35 ms for an image of a few hundred pixels
 * on the bench machine (docs/search.md).
 * @throws Error when sharp cannot decode the image.
 */
export async function extractPhotoReference(input: Uint8Array | string): Promise<Uint8Array> {
  // One decode for both when the image is large (predecode); both pipelines then run at once.
  const [source, vocabulary] = await Promise.all([predecode(input, LOCAL_SETTINGS.reference.maxSide), shippedVocabulary()]);
  const [global, local] = await Promise.all([extractFeatures(source), extractLocalFeatures(source, 'reference', vocabulary)]);
  return encodePhotoFeatures(global, local);
}

/** A query photo's features and, when asked for, the grey raster a second look would look at again. */
export interface ExtractedPhotoQuery extends PhotoQuery {
  /**
   * The query's working grey raster (≤ 640 px a side, ~300 KB), kept for {@link extractSecondLook}
   * when the caller asks for it and `LOCAL_SETTINGS.query.secondLook` is set (issue 14, fourteenth
   * round); absent otherwise, so that it does not cross a thread for nothing.
   */
  raster?: GreyRaster;
}

/**
 * The features of a query photo (global views and local features), with its grey raster when
 * `options.raster` asks for it (the search will look again at an unconfident photo) and a second
 * look is configured.
 * @throws Error when sharp cannot decode the image.
 */
export async function extractPhotoQuery(input: Uint8Array | string, options: { raster?: boolean } = {}): Promise<ExtractedPhotoQuery> {
  const [source, vocabulary] = await Promise.all([predecode(input, LOCAL_SETTINGS.query.maxSide), shippedVocabulary()]);
  const [views, [local, raster]] = await Promise.all([rotatedGlobalFeatures(source), extractQueryLocal(source, vocabulary)]);
  return options.raster === true && LOCAL_SETTINGS.query.secondLook ? { views, local, raster } : { views, local };
}

/**
 * The local features of a query photo's second look (issue 14, fourteenth round; extract.ts
 * `secondLookFeatures`), from the raster of its first ({@link ExtractedPhotoQuery.raster}), or
 * undefined when no second look is configured.
 */
export async function extractSecondLook(raster: GreyRaster): Promise<LocalFeatures | undefined> {
  const [cv, vocabulary] = await Promise.all([openCv(), shippedVocabulary()]);
  return secondLookFeatures(cv, raster, LOCAL_SETTINGS.query, vocabulary);
}

/** The first look's local features of a query photo and the raster they came from. */
async function extractQueryLocal(source: ImageInput, vocabulary: Vocabulary): Promise<[LocalFeatures, GreyRaster]> {
  const [cv, raster] = await Promise.all([openCv(), decodeGrey(source, 'query')]);
  return [localFeaturesFromGrey(cv, raster, LOCAL_SETTINGS.query, vocabulary), raster];
}
