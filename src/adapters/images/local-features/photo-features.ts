/**
 * Photo-search features of encoded images (issue 14; docs/search.md, "Photo search"): what is stored
 * for a reference image at upload or backfill, and what is computed for a query photo. Decoding is
 * sharp's, keypoints OpenCV's; the records, the index and the scoring are pure core code
 * (src/core/search/photo/).
 */
import { encodePhotoFeatures, type PhotoQuery } from '../../../core/search/photo/photo-search.js';
import { shippedVocabulary } from '../../../core/search/photo/shipped-vocabulary.js';
import { extractFeatures, predecode } from '../sharp-features.js';
import { extractLocalFeatures, LOCAL_SETTINGS } from './extract.js';
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

/**
 * The features of a query photo (global views and local features).
 * @throws Error when sharp cannot decode the image.
 */
export async function extractPhotoQuery(input: Uint8Array | string): Promise<PhotoQuery> {
  const [source, vocabulary] = await Promise.all([predecode(input, LOCAL_SETTINGS.query.maxSide), shippedVocabulary()]);
  const [views, local] = await Promise.all([rotatedGlobalFeatures(source), extractLocalFeatures(source, 'query', vocabulary)]);
  return { views, local };
}
