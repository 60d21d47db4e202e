/**
 * The shipped visual vocabularies of photo search: binary assets beside this module
 * (assets/orb-vocabulary.bin, assets/akaze-vocabulary.bin, each {@link Vocabulary.serialize}d words
 * in little-endian order), made by scripts/make-vocabularies.js from ../shared/data/images. Each is
 * read and decoded once, on first use: only photo search, uploads and the backfill need them.
 *
 * A vocabulary's id is part of every stored record's words, so the ids are known here without
 * reading the files (the backfill compares them with the stored ones); a file whose id differs is
 * refused. `npm run build` copies the assets next to the built module and into the CLI bundle
 * (scripts/copy-assets.js).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Vocabulary } from '../../../core/search/photo/vocabulary.js';

/** Id of the shipped ORB vocabulary (128 × 128 words). */
export const ORB_VOCABULARY_ID = 1;
/** Id of the shipped AKAZE vocabulary (128 × 128 words): not the ORB one's, so a record's words say their family. */
export const AKAZE_VOCABULARY_ID = 2;

const loaded = new Map<string, Promise<Vocabulary>>();

/**
 * The vocabulary in asset `file`, read once.
 * @throws Error "photo search: cannot read the shipped vocabulary <path> (…)" when the file is
 * missing or unreadable (a broken installation), or when its id is not `id`.
 */
function load(file: string, id: number): Promise<Vocabulary> {
  let vocabulary = loaded.get(file);
  if (!vocabulary) {
    vocabulary = read(file, id);
    loaded.set(file, vocabulary);
    // A failed read is not cached: the next search tries again (and reports it again).
    vocabulary.catch(() => loaded.delete(file));
  }
  return vocabulary;
}

async function read(file: string, id: number): Promise<Vocabulary> {
  const path = fileURLToPath(new URL(`./assets/${file}`, import.meta.url));
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new Error(`photo search: cannot read the shipped vocabulary ${path} (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  // Copied into a fresh buffer: a Uint32Array view needs 4-byte alignment, which a pooled Buffer lacks.
  const words = new Uint32Array(new Uint8Array(bytes).buffer, 0, bytes.length >>> 2);
  const vocabulary = Vocabulary.deserialize(words);
  if (vocabulary.id !== id) throw new Error(`photo search: cannot read the shipped vocabulary ${path} (its id is ${vocabulary.id}, not ${id})`);
  return vocabulary;
}

/** The shipped ORB vocabulary (decoded once). @throws Error when its asset cannot be read (see {@link load}). */
export function shippedVocabulary(): Promise<Vocabulary> {
  return load('orb-vocabulary.bin', ORB_VOCABULARY_ID);
}

/** The shipped ORB vocabulary's id (part of every stored record's prefix), without reading it. */
export async function shippedVocabularyId(): Promise<number> {
  return ORB_VOCABULARY_ID;
}

/**
 * The shipped AKAZE vocabulary (decoded once): the visual words of the AKAZE records of small
 * references and of query photos (src/adapters/images/local-features/akaze.ts).
 * @throws Error when its asset cannot be read (see {@link load}).
 */
export function shippedAkazeVocabulary(): Promise<Vocabulary> {
  return load('akaze-vocabulary.bin', AKAZE_VOCABULARY_ID);
}

/** The shipped AKAZE vocabulary's id, without reading it. */
export async function shippedAkazeVocabularyId(): Promise<number> {
  return AKAZE_VOCABULARY_ID;
}
