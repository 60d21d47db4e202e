/**
 * Photo-search features of encoded images (docs/search.md, "Photo search"): what is stored
 * for a reference image at upload or backfill, and what is computed for a query photo. Decoding is
 * sharp's, keypoints OpenCV's; the records, the index and the scoring are pure core code
 * (src/core/search/photo/).
 */
import type { LocalFeatures } from '../../../core/search/photo/local-features.js';
import { encodePhotoFeatures, type PhotoQuery } from '../../../core/search/photo/photo-search.js';
import { shippedAkazeVocabulary, shippedAkazeVocabularyId, shippedVocabulary } from './shipped-vocabulary.js';
import type { Vocabulary } from '../../../core/search/photo/vocabulary.js';
import { extractFeatures, LIMIT_INPUT_PIXELS, predecode, type ImageInput } from '../sharp-features.js';
import { akazeFeaturesFromGrey, SMALL_REFERENCE_SIDE } from './akaze.js';
import { decodeGrey, localFeaturesFromGrey, LOCAL_SETTINGS, secondLookFeatures, type GreyRaster } from './extract.js';
import { openCv } from './opencv.js';
import { rotatedGlobalFeatures } from './global-views.js';

/**
 * The stored features (feature version 4) of a reference image: the global descriptor, the local
 * features with the shipped vocabulary's words, and, for a small reference (original long side at
 * most {@link SMALL_REFERENCE_SIDE} px), its AKAZE features with the AKAZE vocabulary's words
 * (decisions/0008). ~35 ms for an image of a few hundred pixels on the bench machine, ~50 ms
 * more for a small one (docs/search.md).
 * @throws Error when sharp cannot decode the image.
 */
export async function extractPhotoReference(input: Uint8Array | string): Promise<Uint8Array> {
  // One decode for both when the image is large (predecode); both pipelines then run at once.
  const [source, vocabulary, smallVocabularyId] = await Promise.all([predecode(input, LOCAL_SETTINGS.reference.maxSide), shippedVocabulary(), shippedAkazeVocabularyId()]);
  const [global, [local, small]] = await Promise.all([extractFeatures(source), extractReferenceLocal(source, vocabulary)]);
  return encodePhotoFeatures(global, local, small ? { vocabulary: smallVocabularyId, features: small } : { vocabulary: smallVocabularyId });
}

/** A reference's local features and, when it is small, its AKAZE features (one grey raster for both). */
async function extractReferenceLocal(source: ImageInput, vocabulary: Vocabulary): Promise<[LocalFeatures, LocalFeatures | undefined]> {
  const [cv, raster, side] = await Promise.all([openCv(), decodeGrey(source, 'reference'), longSide(source)]);
  const local = localFeaturesFromGrey(cv, raster, LOCAL_SETTINGS.reference, vocabulary);
  if (side > SMALL_REFERENCE_SIDE) return [local, undefined];
  return [local, akazeFeaturesFromGrey(cv, raster, 'reference', await shippedAkazeVocabulary())];
}

/** The long side in pixels of the image `source` was decoded from (a predecoded raster is large: over 1,280 px). */
async function longSide(source: ImageInput): Promise<number> {
  if (typeof source === 'object' && 'raw' in source) return Number.POSITIVE_INFINITY;
  const { default: sharp } = await import('sharp');
  const meta = await sharp(source, { limitInputPixels: LIMIT_INPUT_PIXELS }).metadata();
  return Math.max(meta.width ?? 0, meta.height ?? 0);
}

/** A query photo's features and, when asked for, the grey raster a second look would look at again. */
export interface ExtractedPhotoQuery extends PhotoQuery {
  /**
   * The query's working grey raster (≤ 640 px a side, ~300 KB), kept for {@link extractSecondLook}
   * when the caller asks for it and `LOCAL_SETTINGS.query.secondLook` is set;
   * absent otherwise, so that it does not cross a thread for nothing.
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
 * The local features of a query photo's second look (extract.ts
 * `secondLookFeatures`), from the raster of its first ({@link ExtractedPhotoQuery.raster}), or
 * undefined when no second look is configured.
 */
export async function extractSecondLook(raster: GreyRaster): Promise<LocalFeatures | undefined> {
  const [cv, vocabulary] = await Promise.all([openCv(), shippedVocabulary()]);
  return secondLookFeatures(cv, raster, LOCAL_SETTINGS.query, vocabulary);
}

/**
 * The AKAZE features of a query photo for the small references (
 * akaze.ts): decoded as for its first look ({@link extractPhotoQuery}), described at the query
 * settings of akaze.ts (a long side of at most 480 px), without words.
 * @throws Error when sharp cannot decode the image.
 */
export async function extractSmallLook(input: Uint8Array | string): Promise<LocalFeatures> {
  const source = await predecode(input, LOCAL_SETTINGS.query.maxSide);
  const [cv, raster] = await Promise.all([openCv(), decodeGrey(source, 'query')]);
  // No words: the small references' index assigns a query's words itself (8 a descriptor,
  // small-look.ts SMALL_LOOK_QUERY_OPTIONS), so one word each here would cost ~2.5 ms for nothing.
  return akazeFeaturesFromGrey(cv, raster, 'query');
}

/** The first look's local features of a query photo and the raster they came from. */
async function extractQueryLocal(source: ImageInput, vocabulary: Vocabulary): Promise<[LocalFeatures, GreyRaster]> {
  const [cv, raster] = await Promise.all([openCv(), decodeGrey(source, 'query')]);
  return [localFeaturesFromGrey(cv, raster, LOCAL_SETTINGS.query, vocabulary), raster];
}
