/**
 * The shipped visual vocabulary (vocabulary-data.ts), imported on first use. That module is ~740 KB
 * of literal: imported statically it was compiled by every command that opens a catalog, ~15 ms of
 * start-up (issue 12), although only photo search, uploads and the backfill need it.
 */
import type { Vocabulary } from './vocabulary.js';

/** The shipped vocabulary (decoded once, by vocabulary-data.ts). */
export async function shippedVocabulary(): Promise<Vocabulary> {
  const { defaultVocabulary } = await import('./vocabulary-data.js');
  return defaultVocabulary();
}

/** The shipped vocabulary's id (part of every stored record's prefix), without decoding it. */
export async function shippedVocabularyId(): Promise<number> {
  const { DEFAULT_VOCABULARY_ID } = await import('./vocabulary-data.js');
  return DEFAULT_VOCABULARY_ID;
}

/**
 * The shipped AKAZE vocabulary (akaze-vocabulary-data.ts, decoded once): the visual words of the
 * AKAZE records of small references and of query photos (issue 14, fourteenth round;
 * src/adapters/images/local-features/akaze.ts). Imported on first use, as {@link shippedVocabulary}.
 */
export async function shippedAkazeVocabulary(): Promise<Vocabulary> {
  const { akazeVocabulary } = await import('./akaze-vocabulary-data.js');
  return akazeVocabulary();
}

/** The shipped AKAZE vocabulary's id (2; not the ORB vocabulary's), without decoding it. */
export async function shippedAkazeVocabularyId(): Promise<number> {
  const { AKAZE_VOCABULARY_ID } = await import('./akaze-vocabulary-data.js');
  return AKAZE_VOCABULARY_ID;
}
