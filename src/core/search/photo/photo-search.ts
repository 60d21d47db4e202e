/**
 * Photo search (docs/search.md, "Photo search"): the stored features of a reference image
 * (the global descriptor of image-similarity.ts plus local ORB features), their versioned container,
 * and the in-memory index that answers a query photo with parts and a confidence score. Pure code:
 * decoding and feature extraction are adapters (src/adapters/images/local-features/).
 */
import { decodeFeatures, encodeFeatures, ImageFeatureIndex, ENCODED_LENGTH, type Features, type ImageHit } from '../image-similarity.js';
import { comparePartHits, CONFIDENT_SCORE, fuse, type PhotoPartHit } from './confidence.js';
import { decodeLocalFeatures, encodeLocalFeatures, LOCAL_FEATURE_VERSION, type LocalFeatures } from './local-features.js';
import { expectSnapshot, PHOTO_INDEX_SNAPSHOT_FORMAT, type SnapshotReader, type SnapshotWriter } from './index-snapshot.js';
import { PhotoIndex, type PhotoIndexOptions, type PhotoQueryOptions } from './photo-index.js';
import { SMALL_LOOK_QUERY_OPTIONS, smallLookHits } from './small-look.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * Version of the container written by {@link encodePhotoFeatures} (images.features "feature
 * version 4"). 3 had the layout of 2, its reference keypoints also taken
 * from the picture on a grey backdrop (extract.ts `backdropVariant`). 4
 * adds the small-reference record: AKAZE features of a reference whose original image is at most
 * 70 px on its long side (akaze.ts `SMALL_REFERENCE_SIDE`), and the AKAZE vocabulary's id in the
 * prefix. Records of versions 2 and 3 are stale (the backfill recomputes them) and still read
 * ({@link decodePhotoFeatures}), without a small-reference record.
 */
export const PHOTO_FEATURE_VERSION = 4;

/** Container versions {@link decodePhotoFeatures} reads: the current one, and 2 and 3 (one layout, older extraction). */
const READABLE_PHOTO_VERSIONS: readonly number[] = [2, 3, PHOTO_FEATURE_VERSION];

/** Bytes of the prefix of a current record ({@link currentPhotoPrefix}). */
const PREFIX_BYTES = 8;

/** Stored features of one reference image; `local` is absent in records of feature version 1. */
export interface PhotoReference {
  global: Features;
  local?: LocalFeatures;
  /**
   * AKAZE features of a small reference (feature version 4; akaze.ts): present only when the
   * original image is at most 70 px on its long side, where ORB finds too few corners once a photo
   * shows the part enlarged (docs/search.md).
   */
  small?: LocalFeatures;
}

/** Features of one query photo: the global descriptor upright and turned 90°, 180°, 270°, and local features. */
export interface PhotoQuery {
  views: readonly Features[];
  local: LocalFeatures;
}

/**
 * The vocabularies of a record: `local`, the id of the ORB vocabulary its local features' words
 * come from; `small`, the id of the AKAZE vocabulary of small references (whether or not this
 * record has a small-reference record: a new AKAZE vocabulary makes every record stale).
 */
export interface PhotoVocabularyIds {
  local: number;
  small: number;
}

/**
 * The first bytes of every record written with this code and these vocabularies: "PF", the container
 * version, the local format version, the ORB vocabulary id and the AKAZE vocabulary id (uint16 LE
 * each). A stored record that does not start with them is stale (the backfill recomputes it).
 */
export function currentPhotoPrefix(vocabularies: PhotoVocabularyIds): Uint8Array {
  const { local, small } = vocabularies;
  return Uint8Array.of(0x50, 0x46, PHOTO_FEATURE_VERSION, LOCAL_FEATURE_VERSION, local & 0xff, (local >>> 8) & 0xff, small & 0xff, (small >>> 8) & 0xff);
}

/**
 * Encodes a reference's features: the prefix of {@link currentPhotoPrefix} (the ORB vocabulary id
 * taken from `local`, the AKAZE one from `small.vocabulary`), uint32 LE length of the global
 * record, the global record (encodeFeatures), uint32 LE length of the local record, the local record
 * (encodeLocalFeatures), then the small-reference record (encodeLocalFeatures) when there is one.
 * `small.vocabulary` defaults to 0: no AKAZE vocabulary (such a record is stale for a catalog that
 * has one).
 */
export function encodePhotoFeatures(global: Features, local: LocalFeatures, small: { vocabulary: number; features?: LocalFeatures } = { vocabulary: 0 }): Uint8Array {
  const g = encodeFeatures(global);
  const l = encodeLocalFeatures(local);
  const s = small.features ? encodeLocalFeatures(small.features) : new Uint8Array(0);
  const out = new Uint8Array(PREFIX_BYTES + 4 + g.length + 4 + l.length + s.length);
  out.set(currentPhotoPrefix({ local: local.vocabulary, small: small.vocabulary }));
  const dv = new DataView(out.buffer);
  dv.setUint32(PREFIX_BYTES, g.length, true);
  out.set(g, PREFIX_BYTES + 4);
  dv.setUint32(PREFIX_BYTES + 4 + g.length, l.length, true);
  out.set(l, PREFIX_BYTES + 8 + g.length);
  out.set(s, PREFIX_BYTES + 8 + g.length + l.length);
  return out;
}

/**
 * Decodes a stored record of feature version 4, 3 or 2 ({@link encodePhotoFeatures}; 2 and 3: a
 * 6-byte prefix, the global record's length and record, then the local record) or 1 (a bare global
 * record, "IF": `local` is then absent).
 * @throws Error on an unknown or corrupt record.
 */
export function decodePhotoFeatures(bytes: Uint8Array): PhotoReference {
  if (bytes[0] === 0x49 && bytes[1] === 0x46) return { global: decodeFeatures(bytes) };
  const version = bytes[2] ?? 0;
  if (bytes.length < 10 || bytes[0] !== 0x50 || bytes[1] !== 0x46 || !READABLE_PHOTO_VERSIONS.includes(version)) {
    throw new Error('decodePhotoFeatures: not a photo feature record of a known version');
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = version >= 4 ? PREFIX_BYTES : 6;
  if (bytes.length < at + 4) throw new Error('decodePhotoFeatures: corrupt record');
  const gl = dv.getUint32(at, true);
  const localAt = at + 4 + gl;
  if (gl !== ENCODED_LENGTH || bytes.length < localAt) throw new Error('decodePhotoFeatures: corrupt record');
  const global = decodeFeatures(bytes.subarray(at + 4, localAt));
  if (version < 4) return { global, local: decodeLocalFeatures(bytes.subarray(localAt)) };
  if (bytes.length < localAt + 4) throw new Error('decodePhotoFeatures: corrupt record');
  const ll = dv.getUint32(localAt, true);
  const smallAt = localAt + 4 + ll;
  if (bytes.length < smallAt) throw new Error('decodePhotoFeatures: corrupt record');
  const local = decodeLocalFeatures(bytes.subarray(localAt + 4, smallAt));
  return smallAt < bytes.length ? { global, local, small: decodeLocalFeatures(bytes.subarray(smallAt)) } : { global, local };
}

/**
 * Local-search options of a photo query unless the caller overrides them (
 * docs/search.md): every query descriptor scans the postings of its 2 nearest words (a turned or
 * blurred keypoint often lands in a neighbouring word: at 514 references rotated queries found
 * first 33 → 39 of 40), and 200 images are verified instead of 40: a part in clutter, half covered
 * (a hand, a lamp's reflection), seen at an angle or smeared by a shaky hand keeps few matching
 * keypoints, so it collects fewer votes than references whose words the clutter happens to share,
 * and only verification tells its agreeing matches from their scattered ones (docs/search.md;
 * decisions/0028). The 200 are taken from the 2,000 with the most votes by how much their votes
 * agree on one turn and size (`consistentVotes`; decisions/0035): those few matches agree, the
 * clutter's scatter. Verification costs O(hypotheses × matches) an image, that ranking one pass
 * over the tentative matches.
 */
export const PHOTO_LOCAL_DEFAULTS: Readonly<PhotoQueryOptions> = { multiAssign: 2, shortlist: 200, consistentVotes: 2000 };

/** Options of {@link PhotoReferenceIndex.query}. */
export interface PhotoSearchOptions {
  /** Candidates of the global descriptor per query view (default 20). */
  globalHits?: number;
  /** Options of the local search (photo-index.ts), over {@link PHOTO_LOCAL_DEFAULTS}. */
  local?: PhotoQueryOptions;
}

/**
 * Reference images of the catalog for photo search: the global-descriptor index (near-exact copies,
 * weak-texture parts), the local-feature index (rotations, zoom, scenes), queried together and
 * fused into parts with a confidence (confidence.ts), and, when given an AKAZE vocabulary, the index
 * of small references' AKAZE features ({@link querySmall}). Not
 * thread-safe; synchronous.
 */
export class PhotoReferenceIndex {
  private readonly global: ImageFeatureIndex;
  private readonly local: PhotoIndex;
  /** AKAZE features of small references (undefined: no AKAZE vocabulary given, none kept). */
  private readonly small: PhotoIndex | undefined;

  /**
   * `vocabulary`: the ORB vocabulary of local features; `options`: of both local indexes;
   * `smallVocabulary`: the AKAZE vocabulary of small references' records (absent: their records
   * are ignored and {@link querySmall} finds nothing). `restored`: the indexes of a snapshot
   * ({@link fromSnapshot} only).
   */
  constructor(vocabulary: Vocabulary, options: PhotoIndexOptions = {}, smallVocabulary?: Vocabulary, restored?: { global: ImageFeatureIndex; local: PhotoIndex; small: PhotoIndex | undefined }) {
    this.global = restored?.global ?? new ImageFeatureIndex();
    this.local = restored?.local ?? new PhotoIndex(vocabulary, options);
    this.small = restored ? restored.small : smallVocabulary ? new PhotoIndex(smallVocabulary, options) : undefined;
  }

  /**
   * Writes the three indexes as sections of a snapshot (index-snapshot.ts, start-up).
   * Byte sections are views of the indexes' memory: flush the writer before the index changes
   * (queries may run meanwhile: photo-index.ts PhotoIndex.writeSnapshot).
   */
  writeSnapshot(writer: SnapshotWriter): void {
    writer.json('photo', { format: PHOTO_INDEX_SNAPSHOT_FORMAT, small: this.small !== undefined });
    this.global.writeSnapshot(writer, 'global.');
    this.local.writeSnapshot(writer, 'local.');
    this.small?.writeSnapshot(writer, 'small.');
  }

  /**
   * The index {@link writeSnapshot} wrote, with the constructor's arguments (the same
   * vocabularies and options as the writer's; `smallVocabulary` given exactly when the writer had
   * one).
   * @throws SnapshotError when the snapshot is of another format, vocabulary, options or small
   * look, or a section is missing or corrupt; RangeError when a heap cannot grow.
   */
  static fromSnapshot(reader: SnapshotReader, vocabulary: Vocabulary, options: PhotoIndexOptions = {}, smallVocabulary?: Vocabulary): PhotoReferenceIndex {
    const head = reader.json('photo') as { format?: unknown; small?: unknown } | null;
    expectSnapshot(head?.format === PHOTO_INDEX_SNAPSHOT_FORMAT, `a photo index snapshot of format ${String(head?.format)}, not ${PHOTO_INDEX_SNAPSHOT_FORMAT}`);
    expectSnapshot(head.small === (smallVocabulary !== undefined), head.small ? 'a snapshot with the small references, wanted without' : 'a snapshot without the small references, wanted with');
    const local = PhotoIndex.fromSnapshot(vocabulary, options, reader, 'local.');
    const small = smallVocabulary ? PhotoIndex.fromSnapshot(smallVocabulary, options, reader, 'small.') : undefined;
    return new PhotoReferenceIndex(vocabulary, options, smallVocabulary, { global: ImageFeatureIndex.fromSnapshot(reader, 'global.'), local, small });
  }

  /** False when a local index must be reloaded (photo-index.ts PhotoIndex.complete). */
  get complete(): boolean {
    return this.local.complete && (this.small?.complete ?? true);
  }

  /** Number of reference images. */
  get size(): number {
    return this.global.size;
  }

  /** Number of small references with AKAZE features ({@link querySmall} finds nothing while 0). */
  get smallSize(): number {
    return this.small?.size ?? 0;
  }

  /** Bytes held by the indexes' arrays (global ≈ 1.3 KB an image; local see photo-index.ts). */
  get memoryBytes(): number {
    return this.global.size * ENCODED_LENGTH + this.local.memoryBytes + (this.small?.memoryBytes ?? 0);
  }

  /** Adds or replaces an image. A record without local features is searchable by the global descriptor only. */
  add(imageId: string, partId: string, ref: PhotoReference): void {
    this.global.add(imageId, partId, ref.global);
    if (ref.local) this.local.add(imageId, partId, ref.local);
    else this.local.remove(imageId);
    if (ref.small && this.small) this.small.add(imageId, partId, ref.small);
    else this.small?.remove(imageId);
  }

  /**
   * Adds many images at once (start-up): as {@link add} for each, with the local indexes' postings
   * grown once to their final length.
   */
  addMany(items: readonly { imageId: string; partId: string; ref: PhotoReference }[]): void {
    const local: { imageId: string; partId: string; features: LocalFeatures }[] = [];
    const small: { imageId: string; partId: string; features: LocalFeatures }[] = [];
    for (const { imageId, partId, ref } of items) {
      this.global.add(imageId, partId, ref.global);
      if (ref.local) local.push({ imageId, partId, features: ref.local });
      else this.local.remove(imageId);
      if (ref.small && this.small) small.push({ imageId, partId, features: ref.small });
      else this.small?.remove(imageId);
    }
    this.local.addMany(local);
    this.small?.addMany(small);
  }

  /** Removes an image; false when absent. */
  remove(imageId: string): boolean {
    this.local.remove(imageId);
    this.small?.remove(imageId);
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

  /**
   * The small references found in a query photo's AKAZE features (
   * small-look.ts): parts ranked by their calibrated confidence, at most `limit`; empty without an
   * AKAZE vocabulary or small references. Asked for only when {@link query}'s answer is not
   * confident, and merged with it by {@link mergeLooks}.
   * @throws RangeError on inconsistent query arrays.
   */
  querySmall(features: LocalFeatures, limit: number): PhotoPartHit[] {
    if (!this.small || this.small.size === 0) return [];
    return smallLookHits(this.small.query(features, SMALL_LOOK_QUERY_OPTIONS), limit);
  }
}

/**
 * Whether a photo query's first answer asks for a second look (
 * docs/search.md): true when no hit reaches {@link CONFIDENT_SCORE} (an empty answer included).
 * A confident first answer is final.
 */
export function wantsSecondLook(first: readonly PhotoPartHit[]): boolean {
  return !((first[0]?.score ?? 0) >= CONFIDENT_SCORE);
}

/**
 * The answer of two looks at one query photo (docs/search.md): every
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
