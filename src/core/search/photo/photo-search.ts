/**
 * Photo search (issue 14; docs/search.md, "Photo search"): the stored features of a reference image
 * (the global descriptor of image-similarity.ts plus local ORB features), their versioned container,
 * and the in-memory index that answers a query photo with parts and a confidence score. Pure code:
 * decoding and feature extraction are adapters (src/adapters/images/local-features/).
 */
import { decodeFeatures, encodeFeatures, ImageFeatureIndex, ENCODED_LENGTH, type Features, type ImageHit } from '../image-similarity.js';
import { comparePartHits, CONFIDENT_SCORE, fuse, type PhotoPartHit } from './confidence.js';
import { decodeLocalFeatures, encodeLocalFeatures, LOCAL_FEATURE_VERSION, type LocalFeatures } from './local-features.js';
import { PhotoIndex, type PhotoIndexOptions, type PhotoQueryOptions } from './photo-index.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * Version of the container written by {@link encodePhotoFeatures} (images.features "feature
 * version 3"). 3 (issue 14, sixth round) has the layout of 2; its reference keypoints also come from
 * the picture on a grey backdrop (extract.ts `backdropVariant`), so records of version 2 are stale:
 * the backfill recomputes them, and until then they are still read ({@link decodePhotoFeatures}).
 */
export const PHOTO_FEATURE_VERSION = 3;

/** Container versions {@link decodePhotoFeatures} reads: the current one and 2 (same layout, older extraction). */
const READABLE_PHOTO_VERSIONS: readonly number[] = [2, PHOTO_FEATURE_VERSION];

/** Stored features of one reference image; `local` is absent in records of feature version 1. */
export interface PhotoReference {
  global: Features;
  local?: LocalFeatures;
}

/** Features of one query photo: the global descriptor upright and turned 90°, 180°, 270°, and local features. */
export interface PhotoQuery {
  views: readonly Features[];
  local: LocalFeatures;
}

/**
 * The first bytes of every record written with this code and the vocabulary `vocabularyId`: "PF", the container
 * version, the local format version, the vocabulary id (uint16 LE). A stored record that does not
 * start with them is stale (the backfill recomputes it).
 */
export function currentPhotoPrefix(vocabularyId: number): Uint8Array {
  return Uint8Array.of(0x50, 0x46, PHOTO_FEATURE_VERSION, LOCAL_FEATURE_VERSION, vocabularyId & 0xff, (vocabularyId >>> 8) & 0xff);
}

/**
 * Encodes a reference's features: the 6-byte prefix of {@link currentPhotoPrefix} (vocabulary id
 * taken from the local features), uint32 LE length of the global record, the global record
 * (encodeFeatures), then the local record (encodeLocalFeatures).
 */
export function encodePhotoFeatures(global: Features, local: LocalFeatures): Uint8Array {
  const g = encodeFeatures(global);
  const l = encodeLocalFeatures(local);
  const out = new Uint8Array(10 + g.length + l.length);
  out.set([0x50, 0x46, PHOTO_FEATURE_VERSION, LOCAL_FEATURE_VERSION, local.vocabulary & 0xff, (local.vocabulary >>> 8) & 0xff]);
  new DataView(out.buffer).setUint32(6, g.length, true);
  out.set(g, 10);
  out.set(l, 10 + g.length);
  return out;
}

/**
 * Decodes a stored record of feature version 3 or 2 ({@link encodePhotoFeatures}) or 1 (a bare
 * global record, "IF": `local` is then absent).
 * @throws Error on an unknown or corrupt record.
 */
export function decodePhotoFeatures(bytes: Uint8Array): PhotoReference {
  if (bytes[0] === 0x49 && bytes[1] === 0x46) return { global: decodeFeatures(bytes) };
  if (bytes.length < 10 || bytes[0] !== 0x50 || bytes[1] !== 0x46 || !READABLE_PHOTO_VERSIONS.includes(bytes[2] ?? 0)) {
    throw new Error('decodePhotoFeatures: not a photo feature record of a known version');
  }
  const gl = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(6, true);
  if (gl !== ENCODED_LENGTH || bytes.length < 10 + gl) throw new Error('decodePhotoFeatures: corrupt record');
  return {
    global: decodeFeatures(bytes.subarray(10, 10 + gl)),
    local: decodeLocalFeatures(bytes.subarray(10 + gl)),
  };
}

/**
 * Local-search options of a photo query unless the caller overrides them (issue 14, third round;
 * docs/search.md): every query descriptor scans the postings of its 2 nearest words (a turned or
 * blurred keypoint often lands in a neighbouring word: at 514 references rotated queries found
 * first 33 → 39 of 40), and 100 images are verified instead of 40 (a part in clutter collects few
 * votes: scenes with camera effects 21 → 24 of 40). Distractors above 0.5 stayed at 2 of 100.
 */
export const PHOTO_LOCAL_DEFAULTS: Readonly<PhotoQueryOptions> = { multiAssign: 2, shortlist: 100 };

/** Options of {@link PhotoReferenceIndex.query}. */
export interface PhotoSearchOptions {
  /** Candidates of the global descriptor per query view (default 20). */
  globalHits?: number;
  /** Options of the local search (photo-index.ts), over {@link PHOTO_LOCAL_DEFAULTS}. */
  local?: PhotoQueryOptions;
}

/**
 * Reference images of the catalog for photo search: the global-descriptor index (near-exact copies,
 * weak-texture parts) and the local-feature index (rotations, zoom, scenes), queried together and
 * fused into parts with a confidence (confidence.ts). Not thread-safe; synchronous.
 */
export class PhotoReferenceIndex {
  private readonly global = new ImageFeatureIndex();
  private readonly local: PhotoIndex;

  constructor(vocabulary: Vocabulary, options: PhotoIndexOptions = {}) {
    this.local = new PhotoIndex(vocabulary, options);
  }

  /** False when the local index must be reloaded (photo-index.ts PhotoIndex.complete). */
  get complete(): boolean {
    return this.local.complete;
  }

  /** Number of reference images. */
  get size(): number {
    return this.global.size;
  }

  /** Bytes held by both indexes' arrays (global ≈ 1.3 KB an image; local see photo-index.ts). */
  get memoryBytes(): number {
    return this.global.size * ENCODED_LENGTH + this.local.memoryBytes;
  }

  /** Adds or replaces an image. A record without local features is searchable by the global descriptor only. */
  add(imageId: string, partId: string, ref: PhotoReference): void {
    this.global.add(imageId, partId, ref.global);
    if (ref.local) this.local.add(imageId, partId, ref.local);
    else this.local.remove(imageId);
  }

  /**
   * Adds many images at once (start-up): as {@link add} for each, with the local index's postings
   * grown once to their final length.
   */
  addMany(items: readonly { imageId: string; partId: string; ref: PhotoReference }[]): void {
    const local: { imageId: string; partId: string; features: LocalFeatures }[] = [];
    for (const { imageId, partId, ref } of items) {
      this.global.add(imageId, partId, ref.global);
      if (ref.local) local.push({ imageId, partId, features: ref.local });
      else this.local.remove(imageId);
    }
    this.local.addMany(local);
  }

  /** Removes an image; false when absent. */
  remove(imageId: string): boolean {
    this.local.remove(imageId);
    return this.global.remove(imageId);
  }

  /** Parts ranked by confidence (best first), at most `limit`. */
  query(q: PhotoQuery, limit: number, options: PhotoSearchOptions = {}): PhotoPartHit[] {
    const local = this.local.query(q.local, { ...PHOTO_LOCAL_DEFAULTS, ...options.local });
    const best = new Map<string, ImageHit>();
    for (const view of q.views) {
      for (const h of this.global.query(view, options.globalHits ?? 20, { shortlist: 200 })) {
        const cur = best.get(h.image_id);
        if (!cur || h.score > cur.score) best.set(h.image_id, h);
      }
    }
    return fuse(local, [...best.values()]).slice(0, limit);
  }
}

/**
 * Whether a photo query's first answer asks for a second look (issue 14, fourteenth round;
 * docs/search.md): true when no hit reaches {@link CONFIDENT_SCORE} (an empty answer included).
 * A confident first answer is final.
 */
export function wantsSecondLook(first: readonly PhotoPartHit[]): boolean {
  return !((first[0]?.score ?? 0) >= CONFIDENT_SCORE);
}

/**
 * The answer of two looks at one query photo (issue 14, fourteenth round; docs/search.md): every
 * part of either answer once, with the hit of the look that gave it more evidence (the higher
 * score; its image, inliers and cosine come with it; on a tie the first look's), ranked as
 * {@link fuse} ranks (confidence.ts `comparePartHits`), at most `limit`. Each answer is the top
 * `limit` of its look, so the merged top `limit` is the top `limit` of the per-part maxima.
 */
export function mergeLooks(first: readonly PhotoPartHit[], second: readonly PhotoPartHit[], limit: number): PhotoPartHit[] {
  const best = new Map<string, PhotoPartHit>();
  for (const hit of first) best.set(hit.part_id, hit);
  for (const hit of second) {
    const cur = best.get(hit.part_id);
    if (!cur || hit.evidence > cur.evidence) best.set(hit.part_id, hit);
  }
  return [...best.values()].sort(comparePartHits).slice(0, limit);
}
