/**
 * In-memory index of reference images' local features for photo search (docs/search.md, "Photo
 * search"). Pure code.
 *
 * - Inverted file: one posting list per visual word (vocabulary.ts) holding, for every reference
 *   keypoint of that word, its image slot, its keypoint number and its full 256-bit descriptor
 *   (stored inline so a posting scan reads memory in order).
 * - Query: every query descriptor is assigned to its `multiAssign` nearest words; the postings of
 *   those words are compared by Hamming distance and only close ones (≤ `maxDistance` bits) vote for
 *   their image (Hamming embedding: a shared word alone is weak evidence in a cluttered scene),
 *   weighted by the word's idf. One vote per (image, query keypoint).
 * - The `shortlist` images with the most votes are verified geometrically (geometry.ts): the score is
 *   the number of matches consistent with one transform (inliers), which random clutter almost
 *   never produces.
 * - Stop words (held by more than 5 % of the images) are not scanned whole: up to
 *   {@link PhotoIndexOptions.maxSplitShare} of the images their postings are split into cells of
 *   alike descriptors (split-cells.ts), and a query descriptor scans only the
 *   {@link PhotoQueryOptions.splitProbes} cells whose pivots are nearest to it;
 *   words held by even more images are not scanned at all.
 * Memory per reference keypoint (memory): 32 (descriptor) + 4 (slot) + 2 (keypoint)
 * bytes in the postings, 8 bytes of geometry (x, y, angle, size as uint16 on the grid of the stored
 * record, local-features.ts: a record loaded from the store keeps exactly its values, so matches
 * and inliers are those of float32 coordinates) and 2 bytes of visual word (for df on
 * removal): 48 bytes, where float32 geometry would make 56.
 */
import { copyDescriptor, DESCRIPTOR_WORDS } from './hamming.js';
import { checkLocalFeatures, MAX_KEYPOINTS, type LocalFeatures } from './local-features.js';
import { matchSet, verify, type MatchSet } from './geometry.js';
import { HeapVocabulary } from './heap-vocabulary.js';
import { PostingHeap } from './posting-heap.js';
import { expectSnapshot, numberField, readArray, stringsField, type SnapshotReader, type SnapshotWriter } from './index-snapshot.js';
import { compactPostings, emptyPostings, grow, POSTINGS_SNAPSHOT_FIELDS, rebindPostings, reserveInArena, reservePostings, restoredPostings, writePostingsState, type Postings } from './postings.js';
import { SplitWord } from './split-cells.js';
import { TentativeMatches } from './tentative-matches.js';
import type { Vocabulary } from './vocabulary.js';

/** One image found by {@link PhotoIndex.query}. */
export interface LocalHit {
  image_id: string;
  part_id: string;
  /** Geometrically consistent matches (distinct keypoints). */
  inliers: number;
  /** Tentative matches with this image before verification. */
  matches: number;
  /** idf-weighted votes of the first pass. */
  votes: number;
  /** Rotation (degrees) and scale of the reference → query transform. */
  rotation: number;
  scale: number;
  /** The verified model, reference raster → query raster pixels: [a11, a12, a21, a22, tx, ty] (geometry.ts). */
  model: readonly number[];
}

/** Query options of {@link PhotoIndex.query}. */
export interface PhotoQueryOptions {
  /** Words per query descriptor (default 1 here; photo queries use 2, see PHOTO_LOCAL_DEFAULTS in photo-search.ts). */
  multiAssign?: number;
  /**
   * Largest Hamming distance of a tentative match, bits of 256 (default 40; 64 before: descriptors
   * sharing a word are alike, so 64 let ~60 % of the scanned postings through and at 10,000 images
   * verification drowned in chance matches; 40 also ranked more scenes first).
   */
  maxDistance?: number;
  /** Images verified geometrically (default 40). */
  shortlist?: number;
  /**
   * When above `shortlist`: this many images with the most votes are ranked again by how much their
   * votes agree on one change of orientation and size, and the shortlist taken from that order
   * (default 0: by votes).
   */
  consistentVotes?: number;
  /** Inlier tolerance as a fraction of the query raster's longer side (default 0.01, 6.4 px on a 640-px photo). */
  tolerance?: number;
  /** Hits with fewer inliers are left out (default 4). */
  minInliers?: number;
  /**
   * Largest distance of the first 128 bits (default 26): a posting further away there is skipped
   * before its second half is read, so most postings cost half a comparison; a true match
   * (≤ maxDistance over 256 bits) is over 26 in its first half only when its differences are
   * unevenly spread.
   */
  maxHalfDistance?: number;
  /**
   * Words held by more than this fraction of the images (and by more than 500) are not scanned
   * (default 0.05): these "stop words" cost the most (their lists are the longest) and carry the
   * least evidence (idf). At 10,000 images they were 60 % of the scan for the same recall.
   */
  maxWordShare?: number;
  /**
   * A query keypoint matching more images than this is bursty (flat patch, border, repeated
   * texture, a small enlarged icon's soft corner) and keeps only its {@link burstKeep} nearest
   * matches (default 64; max(64, 2 % of the images) while all were dropped: with the nearest kept,
   * a limit that does not grow with the index bounds what one keypoint adds to verification, and
   * at 10,000 bench references 64 found 2 more scenes first than 200).
   */
  maxMatchesPerKeypoint?: number;
  /**
   * Matches kept of a bursty query keypoint: its nearest ones by descriptor distance (default
   * {@link DEFAULT_BURST_KEEP}; 0 drops them all).
   */
  burstKeep?: number;
  /**
   * Cells scanned of a split stop word ({@link PhotoIndexOptions.maxSplitShare}): those whose pivots
   * are nearest to the query descriptor (default {@link DEFAULT_SPLIT_PROBES}, at most 64; 0 scans no
   * stop word).
   */
  splitProbes?: number;
}

/**
 * Default of {@link PhotoQueryOptions.burstKeep} (docs/search.md): dropping
 * every match of a bursty keypoint also dropped its true match, and the keypoints of small or soft
 * parts are the bursty ones. Keeping the 8 nearest (a k-nearest-neighbour match) keeps the true one
 * when it is nearer than the look-alikes, and still bounds what the keypoint adds to verification:
 * at 1,000 bench references scenes found first 25 → 30 of 40, scenes with camera effects 23 → 30.
 * 4 and 16 found as many (±1) with more distractors above 0.5 (3 and 5 of 100 against 2).
 */
export const DEFAULT_BURST_KEEP = 8;

/** Options of a {@link PhotoIndex}. */
export interface PhotoIndexOptions {
  /**
   * Drop the postings of the words no query scans (memory): a bulk load into an empty
   * index keeps no posting of a word held by more than 1.5 × the most a query with the default
   * options scans (the split limit of {@link maxSplitShare}, max(2,000, 20 % of the images) by
   * default; the stop-word limit max(minStopDf, 5 %) when nothing is split); only their document
   * frequency is kept. Query answers are unchanged while every dropped word stays above that
   * limit; when removals or growth could bring one under it, {@link PhotoIndex.complete} turns
   * false and the owner reloads (a query asking for it throws). Default false.
   */
  dropStopWords?: boolean;
  /** Least document frequency of a stop word (default 500; tests lower it). */
  minStopDf?: number;
  /**
   * Stop words held by up to this share of the images (scaled from the stop-word limit: 4 × it by
   * default, max(2,000, 20 % of the images)) are split into cells that a query probes
   * ({@link PhotoQueryOptions.splitProbes}; split-cells.ts); words above it are neither split nor
   * scanned, and their postings are the ones {@link dropStopWords} drops. At or below the stop-word
   * share (0.05) nothing is split. Default {@link DEFAULT_MAX_SPLIT_SHARE}.
   */
  maxSplitShare?: number;
  /** Postings a cell of a split word, about (default 256). */
  splitCellSize?: number;
}

/**
 * Words a group of the bulk fill writes at once, as a shift (addMany's pass 3): 4,096 words, a
 * quarter of the vocabulary. At 10,000 references (bench/photo-startup.js, bulk add CPU) groups of
 * 4,096 words took 1.39–1.41 s, 256 words 1.8–2.2 s, 1,024 1.9 s, 2,048 1.6 s, 8,192 1.4–1.8 s and
 * one group (image order) 1.6–1.8 s.
 */
const FILL_GROUP_SHIFT = 12;

/** Descriptors of no keypoint. */
const EMPTY_DESCRIPTORS = new Uint32Array(0);

/** Share of the images above which a word is a stop word, by default ({@link PhotoQueryOptions.maxWordShare}). */
const DEFAULT_MAX_WORD_SHARE = 0.05;

/**
 * Default of {@link PhotoIndexOptions.maxSplitShare} (docs/search.md): at
 * 10,000 bench references scanning stop words up to 20 % found as many parts first as scanning all.
 */
export const DEFAULT_MAX_SPLIT_SHARE = 0.2;

/**
 * Default of {@link PhotoQueryOptions.splitProbes} (docs/search.md): at
 * 10,000 bench references the local search alone found 113 of 160 photo queries' parts first
 * without split words, 132 probing 1 cell, 133 probing 2 or 4, 134 scanning every word in full,
 * for +24 % / +47 % / +90 % / +270 % postings compared a query (678,000 at p50 without).
 */
export const DEFAULT_SPLIT_PROBES = 2;

/**
 * A word kept in memory is split once its document frequency exceeds the stop-word limit and
 * stays split; bulk loads drop words above this multiple of the split limit (hysteresis: a dropped
 * word stays unscanned until the index grows by half or loses a third of that word's images).
 */
const DROP_HYSTERESIS = 1.5;

/**
 * The index. Images are added and removed one at a time (removal leaves a tombstone, compacted when
 * a quarter of the postings are dead). Not thread-safe; synchronous.
 */
export class PhotoIndex {
  readonly vocabulary: Vocabulary;
  /** The memory of the postings, cells and the scan's matches (posting-heap.ts). */
  private readonly heap = new PostingHeap();
  /** The tentative matches, one set for every query (their arrays are ranges of the heap). */
  private matchesOfQueries: TentativeMatches | undefined;
  /** The vocabulary's centres in the heap, for queries that assign more than their own word. */
  private vocabularyInHeap: HeapVocabulary | undefined;
  private readonly postings: Postings[];
  /** Number of live images whose keypoints include each word (document frequency). */
  private readonly df: Int32Array;
  /** Per word, the slot of the image that last counted it in `df` (add()). */
  private readonly lastSlot: Int32Array;
  private imageIds: string[] = [];
  private partIds: string[] = [];
  private kpOffset: number[] = [];
  private kpCount: number[] = [];
  private alive: boolean[] = [];
  /**
   * Visual word of every keypoint, at the keypoint's offset (as {@link geo}): for df on removal and
   * recounts. One array, not one a slot (a start-up's 10,000 small arrays held the whole decoded
   * records they were views of).
   */
  private kpWords = new Uint16Array(0);
  private slots = new Map<string, number>();
  /** Geometry of every keypoint, 4 uint16 each: x·8, y·8, angle·65536/360, size·16 (the stored record's grid). */
  private geo = new Uint16Array(0);
  private kpUsed = 0;
  private livePostings = 0;
  private deadPostings = 0;
  private liveImages = 0;
  /** Diagnostics of the last query (bench/photo-profile.js): tentative matches, postings compared. */
  lastStats: { matches: number; compared: number } = { matches: 0, compared: 0 };

  private readonly minStopDf: number;
  private readonly dropStopWords: boolean;
  /** Words whose postings were dropped (stop words at the bulk load), and the least df among them. */
  private readonly dropped: Uint8Array;
  private minDroppedDf = Infinity;
  /** Split-limit multiple of the stop-word limit (maxSplitShare / 0.05; ≤ 1: nothing is split). */
  private readonly splitFactor: number;
  private readonly splitCellSize: number;
  /** The cells of each split word (its `postings` entry is then empty). */
  private readonly split: (SplitWord | undefined)[];
  /** Integer parts of the stop and drop limits at the last full pass of splitStopWords. */
  private splitPassLimits: [number, number] = [-1, -1];

  constructor(vocabulary: Vocabulary, options: PhotoIndexOptions = {}) {
    this.vocabulary = vocabulary;
    this.minStopDf = options.minStopDf ?? 500;
    this.dropStopWords = options.dropStopWords ?? false;
    this.splitFactor = (options.maxSplitShare ?? DEFAULT_MAX_SPLIT_SHARE) / DEFAULT_MAX_WORD_SHARE;
    this.splitCellSize = options.splitCellSize ?? 256;
    this.dropped = new Uint8Array(vocabulary.size);
    this.split = new Array<SplitWord | undefined>(vocabulary.size).fill(undefined);
    this.postings = Array.from({ length: vocabulary.size }, emptyPostings);
    this.df = new Int32Array(vocabulary.size);
    this.lastSlot = new Int32Array(vocabulary.size).fill(-1);
    // A growth of the heap detaches every view of it: lists and cells rebuild theirs from offsets.
    this.heap.onGrow(() => {
      for (const p of this.postings) rebindPostings(this.heap, p);
      for (const s of this.split) s?.rebind();
    });
  }

  /** Number of images in the index. */
  get size(): number {
    return this.liveImages;
  }

  /**
   * False when a word whose postings were dropped ({@link PhotoIndexOptions.dropStopWords}) is no
   * longer a stop word for the default query options (its images were removed, or the index grew):
   * queries would then miss its postings, and the owner must reload the index.
   */
  get complete(): boolean {
    return this.minDroppedDf > this.scannedDf(this.liveImages);
  }

  /** Split words, their cells, the postings in them (dead ones until compaction) and the largest cell. */
  splitStats(): { words: number; cells: number; postings: number; largestCell: number } {
    const stats = { words: 0, cells: 0, postings: 0, largestCell: 0 };
    for (const s of this.split) {
      if (!s) continue;
      stats.words++;
      stats.cells += s.cellCount;
      for (let c = 0; c < s.cellCount; c++) {
        const n = s.cell(c).length;
        stats.postings += n;
        stats.largestCell = Math.max(stats.largestCell, n);
      }
    }
    return stats;
  }

  /** Words whose postings are split into cells. */
  get splitWords(): number {
    let n = 0;
    for (const s of this.split) if (s) n++;
    return n;
  }

  /** Words whose postings were dropped. */
  get droppedWords(): number {
    let n = 0;
    for (const d of this.dropped) n += d;
    return n;
  }

  /** The document frequency above which a word is a stop word, for `share` and `n` images. */
  private stopDf(share: number, n: number): number {
    return Math.max(this.minStopDf, share * n);
  }

  /**
   * The document frequency up to which a query with the default options scans a word (whole, or
   * its nearest cells when split), for `n` images.
   */
  private scannedDf(n: number): number {
    return this.stopDf(DEFAULT_MAX_WORD_SHARE, n) * Math.max(1, this.splitFactor);
  }

  /**
   * Bytes held by the index's arrays: postings and cells at their allocated capacity (the posting
   * heap's allocated bytes but the queries' matches: its memory adds page rounding and growth
   * headroom, {@link heapBytes}), pivots, geometry, words.
   */
  get memoryBytes(): number {
    const postings = this.heap.allocatedBytes - (this.matchesOfQueries?.heapBytes ?? 0) - (this.vocabularyInHeap?.bytes ?? 0);
    let bytes = this.geo.byteLength + this.df.byteLength + this.kpWords.byteLength + postings;
    for (const s of this.split) if (s) bytes += s.pivotBytes;
    return bytes;
  }

  /** Bytes of the posting heap's memory (allocated or not; see posting-heap.ts). */
  get heapBytes(): number {
    return this.heap.byteLength;
  }

  /**
   * Adds an image (or replaces the one with the same id). The words must come from this index's
   * vocabulary; when `features.vocabulary` differs they are recomputed (slow: ~0.1 ms a keypoint).
   * @throws RangeError on inconsistent feature arrays.
   */
  add(imageId: string, partId: string, features: LocalFeatures): void {
    this.addMany([{ imageId, partId, features }]);
  }

  /**
   * Adds many images at once (start-up: the whole catalog). Each word's postings grow once, to
   * their exact final length, before any is written: a 10,000-image load then copies nothing twice
   * and leaves no slack (one-at-a-time growth spent most of the build in copies).
   * @throws RangeError on inconsistent feature arrays (nothing is added then).
   */
  addMany(items: readonly { imageId: string; partId: string; features: LocalFeatures }[]): void {
    for (const it of items) checkLocalFeatures(it.features);
    const wordsOf = items.map(({ features }) =>
      features.vocabulary === this.vocabulary.id && features.words.length === features.count
        ? features.words
        : this.vocabulary.assign(features.descriptors),
    );
    for (const it of items) if (this.slots.has(it.imageId)) this.remove(it.imageId);
    // Pass 1: new postings per word, then one exact growth per word that needs room.
    const extra = new Int32Array(this.postings.length);
    let total = 0;
    const bulk = this.dropStopWords && this.liveImages === 0 && this.imageIds.length === 0;
    // In a bulk load into an empty index, also each word's document frequency, to drop stop words'
    // postings before any is allocated.
    const dfNew = bulk ? new Int32Array(this.postings.length) : undefined;
    const seenAt = bulk ? new Int32Array(this.postings.length).fill(-1) : undefined;
    wordsOf.forEach((words, k) => {
      for (let i = 0; i < words.length; i++) {
        const w = words[i] ?? 0;
        extra[w] = (extra[w] ?? 0) + 1;
        if (dfNew && seenAt && seenAt[w] !== k) {
          seenAt[w] = k;
          dfNew[w] = (dfNew[w] ?? 0) + 1;
        }
      }
      total += words.length;
    });
    if (dfNew) {
      // Hysteresis (×1.5): a dropped word stays a stop word until the index grows by half or loses
      // a third of that word's images.
      const limit = DROP_HYSTERESIS * this.scannedDf(new Set(items.map((it) => it.imageId)).size);
      dfNew.forEach((df, w) => {
        if (df > limit) {
          this.dropped[w] = 1;
          this.minDroppedDf = Math.min(this.minDroppedDf, df);
        }
      });
    }
    // Words without postings yet (all of them in a bulk load): exact room, in one arena.
    const fresh = new Int32Array(this.postings.length);
    this.postings.forEach((p, w) => {
      if (!this.dropped[w] && !this.split[w] && p.length === 0 && p.capacity < (extra[w] ?? 0)) fresh[w] = extra[w] ?? 0;
    });
    reserveInArena(this.heap, this.postings, fresh);
    this.postings.forEach((p, w) => {
      // Headroom (×1.5) when the word already had postings (uploads).
      if (!this.dropped[w] && !this.split[w]) reservePostings(this.heap, p, p.length + (extra[w] ?? 0));
    });
    this.ensureGeometry(this.kpUsed + total);
    // Pass 2: image by image, the image's own arrays and df; its postings are written in pass 3.
    // Pass 3 writes the postings a group of words at a time ({@link FILL_GROUP_SHIFT}), instead of
    // every image's ~600 keypoints landing in ~600 lists spread over hundreds of MB
    // (at 10,000 references such a fill spends ~250 ns a posting in cache misses). Each list still gets
    // its postings in image order, then keypoint order: the lists are those an image-by-image fill
    // makes.
    const groups = (this.postings.length >>> FILL_GROUP_SHIFT) + 1;
    const groupStart = new Int32Array(groups + 1);
    for (let w = 0; w < this.postings.length; w++) if (!this.dropped[w]) groupStart[(w >>> FILL_GROUP_SHIFT) + 1] = (groupStart[(w >>> FILL_GROUP_SHIFT) + 1] ?? 0) + (extra[w] ?? 0);
    for (let g = 0; g < groups; g++) groupStart[g + 1] = (groupStart[g + 1] ?? 0) + (groupStart[g] ?? 0);
    // Per group, the (item, keypoint) pairs of its words, as item · MAX_KEYPOINTS + keypoint.
    const pending = new Int32Array(groupStart[groups] ?? 0);
    const groupAt = groupStart.slice(0, groups);
    const lastSlot = this.lastSlot;
    const firstSlot = this.imageIds.length;
    items.forEach(({ imageId, partId, features }, k) => {
      const words = wordsOf[k] ?? new Uint16Array(0);
      const slot = this.imageIds.length;
      const n = features.count;
      this.imageIds.push(imageId);
      this.partIds.push(partId);
      this.kpOffset.push(this.kpUsed);
      this.kpCount.push(n);
      this.alive.push(true);
      this.slots.set(imageId, slot);
      quantiseGeometry(features, this.geo, this.kpUsed * 4);
      this.kpWords.set(words.subarray(0, n), this.kpUsed);
      this.kpUsed += n;
      for (let i = 0; i < n; i++) {
        const w = words[i] ?? 0;
        // df counts an image once per word: `lastSlot` remembers which image last counted each word.
        if (lastSlot[w] !== slot) {
          lastSlot[w] = slot;
          this.df[w] = (this.df[w] ?? 0) + 1;
        }
        if (this.dropped[w]) continue;
        const g = w >>> FILL_GROUP_SHIFT;
        const at = groupAt[g] ?? 0;
        groupAt[g] = at + 1;
        pending[at] = k * MAX_KEYPOINTS + i;
      }
      this.livePostings += n;
      this.liveImages++;
    });
    // Pass 3.
    for (let e = 0; e < pending.length; e++) {
      const code = pending[e] ?? 0;
      const k = Math.floor(code / MAX_KEYPOINTS);
      const i = code - k * MAX_KEYPOINTS;
      const w = wordsOf[k]?.[i] ?? 0;
      const desc = items[k]?.features.descriptors ?? EMPTY_DESCRIPTORS;
      const slot = firstSlot + k;
      const cells = this.split[w];
      if (cells) {
        cells.add(slot, i, desc, i * DESCRIPTOR_WORDS);
        continue;
      }
      const p = this.postings[w];
      if (!p) continue;
      const at = p.length++;
      p.slot[at] = slot;
      p.kp[at] = i;
      copyDescriptor(p.desc, at * DESCRIPTOR_WORDS, desc, i * DESCRIPTOR_WORDS);
    }
    this.splitStopWords(wordsOf);
  }

  /**
   * Splits every word kept whole whose document frequency now exceeds the stop-word limit (and is
   * at most the drop limit above the split limit): after a bulk load, and after uploads or
   * removals moved a word or the limits. Only the words of `touched` (the images just added or
   * removed) can have crossed while the limits' integer parts stay where the last full pass left
   * them (document frequencies are integers); otherwise one pass over the vocabulary (~16,000
   * comparisons, 0.2 ms at 10,000 references: every 20th upload or removal there).
   */
  private splitStopWords(touched: readonly Uint16Array[]): void {
    if (this.splitFactor <= 1) return;
    const stop = this.stopDf(DEFAULT_MAX_WORD_SHARE, this.liveImages);
    const most = DROP_HYSTERESIS * this.scannedDf(this.liveImages);
    if (Math.floor(stop) === this.splitPassLimits[0] && Math.floor(most) === this.splitPassLimits[1]) {
      for (const words of touched) for (let i = 0; i < words.length; i++) this.splitIfStop(words[i] ?? 0, stop, most);
      return;
    }
    this.splitPassLimits = [Math.floor(stop), Math.floor(most)];
    for (let w = 0; w < this.df.length; w++) this.splitIfStop(w, stop, most);
  }

  /** Splits word `w` when it is kept whole and its document frequency is in (stop, most]. */
  private splitIfStop(w: number, stop: number, most: number): void {
    const f = this.df[w] ?? 0;
    if (f <= stop || f > most || this.split[w] || this.dropped[w]) return;
    const p = this.postings[w];
    if (!p || p.length === 0) return;
    compactPostings(p, this.alive);
    this.split[w] = SplitWord.build(this.heap, p, this.splitCellSize);
    this.postings[w] = emptyPostings();
  }

  /** Removes an image; false when absent. Its postings become tombstones until compaction. */
  remove(imageId: string): boolean {
    const slot = this.slots.get(imageId);
    if (slot === undefined) return false;
    this.slots.delete(imageId);
    this.alive[slot] = false;
    const n = this.kpCount[slot] ?? 0;
    // df: once per distinct word of this image (its words are kept per slot; no scan of the index).
    const words = this.wordsOf(slot);
    const seen = new Set<number>();
    for (let i = 0; i < words.length; i++) {
      const w = words[i] ?? 0;
      if (seen.has(w)) continue;
      seen.add(w);
      this.df[w] = (this.df[w] ?? 0) - 1;
      if (this.dropped[w]) this.minDroppedDf = Math.min(this.minDroppedDf, this.df[w] ?? 0);
    }
    const removedWords = words;
    this.livePostings -= n;
    this.deadPostings += n;
    this.liveImages--;
    if (this.deadPostings > 1000 && this.deadPostings * 3 > this.livePostings) this.compact();
    this.splitStopWords([removedWords]);
    return true;
  }

  /**
   * Images ranked by geometric verification, best first (inliers, then votes, then image id); only
   * those with at least `minInliers` inliers.
   * @throws RangeError on inconsistent query arrays.
   */
  query(q: LocalFeatures, options: PhotoQueryOptions = {}): LocalHit[] {
    checkLocalFeatures(q);
    const slots = this.imageIds.length;
    if (q.count === 0 || this.liveImages === 0) return [];
    const m = options.multiAssign ?? 1;
    const maxD = options.maxDistance ?? 40;
    const shortlist = options.shortlist ?? 40;
    const minInliers = options.minInliers ?? 4;
    const maxHalf = Math.min(maxD, options.maxHalfDistance ?? 26);
    const maxDf = this.stopDf(options.maxWordShare ?? DEFAULT_MAX_WORD_SHARE, this.liveImages);
    const probes = Math.min(64, options.splitProbes ?? DEFAULT_SPLIT_PROBES);
    // Words up to this document frequency are scanned: whole up to maxDf, above it through the
    // nearest cells of their split postings.
    const scanDf = probes > 0 ? Math.max(maxDf, this.scannedDf(this.liveImages)) : maxDf;
    // A dropped word the query would scan: its answer would silently lack those postings.
    if (this.minDroppedDf <= scanDf) throw new Error('PhotoIndex: the postings of words this query scans were dropped (reload the index)');
    const matches = (this.matchesOfQueries ??= new TentativeMatches(this.heap));
    matches.reset(slots, this.alive);
    const words = new Int32Array(m);
    const cells = new Int32Array(Math.max(1, probes));
    const n = this.liveImages;
    // The query's own words when it has them (one word each, this vocabulary): no second assignment.
    const ownWords = m === 1 && q.vocabulary === this.vocabulary.id && q.words.length === q.count;
    const maxPerKeypoint = options.maxMatchesPerKeypoint ?? 64;
    const burstKeep = options.burstKeep ?? DEFAULT_BURST_KEEP;
    const qd = q.descriptors;
    for (let qi = 0; qi < q.count; qi++) {
      const qo = qi * DESCRIPTOR_WORDS;
      matches.setQuery(qd, qo);
      let nw = 1;
      if (ownWords) words[0] = q.words[qi] ?? 0;
      else nw = (this.vocabularyInHeap ??= new HeapVocabulary(this.heap, this.vocabulary)).words(matches.queryAt, m, words);
      const before = matches.count;
      for (let k = 0; k < nw; k++) {
        const w = words[k] ?? 0;
        const df = this.df[w] ?? 0;
        if (df === 0 || df > scanDf) continue;
        const idf = Math.log(1 + n / df);
        const split = this.split[w];
        if (!split) {
          const p = this.postings[w];
          if (p && p.length > 0 && df <= maxDf) matches.scan(p, qi, idf, maxHalf, maxD);
          continue;
        }
        if (df <= maxDf) {
          // No longer a stop word (removals, or growth of the index): every cell.
          for (let c = 0; c < split.cellCount; c++) matches.scan(split.cell(c), qi, idf, maxHalf, maxD);
          continue;
        }
        const probed = split.nearestCells(qd, qo, probes, cells);
        for (let c = 0; c < probed; c++) matches.scan(split.cell(cells[c] ?? 0), qi, idf, maxHalf, maxD);
      }
      matches.limitBurst(before, maxPerKeypoint, burstKeep);
    }
    matches.refresh();
    const count = matches.count;
    const mSlot = matches.slot;
    const mQ = matches.q;
    const mKp = matches.kp;
    const mD = matches.dist;
    const mIdf = matches.idf;
    this.lastStats = { matches: count, compared: matches.compared };
    const votes = new Float32Array(slots);
    for (let i = 0; i < count; i++) {
      const slot = mSlot[i] ?? 0;
      votes[slot] = (votes[slot] ?? 0) + (mIdf[i] ?? 0) * (1 - (mD[i] ?? 0) / (maxD + 1));
    }
    // Shortlist by votes normalised by √(reference keypoints): an image with many keypoints collects
    // more chance votes.
    const scored: { slot: number; v: number }[] = [];
    for (let s = 0; s < slots; s++) {
      const v = votes[s] ?? 0;
      if (v > 0) scored.push({ slot: s, v: v / Math.sqrt(Math.max(16, this.kpCount[s] ?? 0)) });
    }
    scored.sort((a, b) => b.v - a.v);
    const consistent = options.consistentVotes ?? 0;
    const chosen = consistent > shortlist ? this.consistentShortlist(scored.slice(0, consistent), shortlist, q) : scored.slice(0, shortlist);
    const index = new Map<number, number>();
    chosen.forEach((c, i) => index.set(c.slot, i));
    const perSlot: number[][] = chosen.map(() => []);
    for (let i = 0; i < count; i++) {
      const at = index.get(mSlot[i] ?? -1);
      if (at !== undefined) perSlot[at]?.push(i);
    }
    const tolerance = (options.tolerance ?? 0.01) * Math.max(q.width, q.height);
    const hits: LocalHit[] = [];
    let set: MatchSet = matchSet(256);
    chosen.forEach((c, at) => {
      const list = perSlot[at] ?? [];
      if (list.length < minInliers) return;
      if (set.qx.length < list.length) set = matchSet(list.length * 2);
      set.n = list.length;
      const off = this.kpOffset[c.slot] ?? 0;
      list.forEach((mi, j) => {
        const qi = mQ[mi] ?? 0;
        const rk = mKp[mi] ?? 0;
        const ri = off + rk;
        set.qx[j] = q.xs[qi] ?? 0;
        set.qy[j] = q.ys[qi] ?? 0;
        set.qa[j] = q.angles[qi] ?? 0;
        set.qs[j] = q.sizes[qi] ?? 1;
        // Back from the stored grid into the match set's float32.
        const g = ri * 4;
        set.rx[j] = (this.geo[g] ?? 0) / 8;
        set.ry[j] = (this.geo[g + 1] ?? 0) / 8;
        set.ra[j] = ((this.geo[g + 2] ?? 0) * 360) / 65536;
        set.rs[j] = (this.geo[g + 3] ?? 16) / 16;
        set.dist[j] = mD[mi] ?? 0;
        set.qi[j] = qi;
        set.ri[j] = rk;
      });
      const v = verify(set, { tolerance });
      if (v.inliers < minInliers) return;
      hits.push({
        image_id: this.imageIds[c.slot] ?? '',
        part_id: this.partIds[c.slot] ?? '',
        inliers: v.inliers,
        matches: list.length,
        votes: c.v,
        rotation: v.rotation,
        scale: v.scale,
        model: v.model,
      });
    });
    hits.sort((a, b) => b.inliers - a.inliers || b.votes - a.votes || (a.image_id < b.image_id ? -1 : a.image_id > b.image_id ? 1 : 0));
    return hits;
  }

  /**
   * The `shortlist` of `candidates` (the images with the most votes) whose votes agree most on one
   * change of orientation and size (weak geometric consistency): each tentative match votes, with
   * its weight, into a 12 × 8 histogram of (query − reference angle, log₂ of the size ratio) of its
   * image, and an image's score is its best 2 × 2 block of bins, normalised by √keypoints as the
   * votes are. A part seen through a hand, a reflection or at an angle keeps few matches, but they
   * agree; the clutter's chance matches that outvote them are spread over the histogram.
   * Reads the last query's tentative matches (call from {@link query}).
   */
  private consistentShortlist(candidates: { slot: number; v: number }[], shortlist: number, q: LocalFeatures): { slot: number; v: number }[] {
    const A = 12;
    const S = 8;
    const bins = new Float32Array(candidates.length * A * S);
    const at = new Map<number, number>();
    candidates.forEach((c, i) => at.set(c.slot, i));
    const matches = this.matchesOfQueries;
    if (!matches) return candidates.slice(0, shortlist);
    const mSlot = matches.slot;
    const mQ = matches.q;
    const mKp = matches.kp;
    const mD = matches.dist;
    const mIdf = matches.idf;
    const maxD = 41;
    for (let i = 0; i < matches.count; i++) {
      const c = at.get(mSlot[i] ?? -1);
      if (c === undefined) continue;
      const qi = mQ[i] ?? 0;
      const g = ((this.kpOffset[mSlot[i] ?? 0] ?? 0) + (mKp[i] ?? 0)) * 4;
      const ra = ((this.geo[g + 2] ?? 0) * 360) / 65536;
      const rs = (this.geo[g + 3] ?? 16) / 16;
      let da = ((q.angles[qi] ?? 0) - ra) % 360;
      if (da < 0) da += 360;
      const a = Math.floor(da / (360 / A)) % A;
      const ls = Math.log2(Math.max(1e-3, (q.sizes[qi] ?? 1) / Math.max(1e-3, rs)));
      const sb = Math.max(0, Math.min(S - 1, Math.floor(ls / 0.5) + S / 2));
      const k = (c * A + a) * S + sb;
      bins[k] = (bins[k] ?? 0) + (mIdf[i] ?? 0) * (1 - (mD[i] ?? 0) / maxD);
    }
    const scored = candidates.map((cand, c) => {
      let best = 0;
      const o = c * A * S;
      for (let a = 0; a < A; a++) {
        const a2 = (a + 1) % A;
        for (let sb = 0; sb < S - 1; sb++) {
          const v = (bins[o + a * S + sb] ?? 0) + (bins[o + a * S + sb + 1] ?? 0) + (bins[o + a2 * S + sb] ?? 0) + (bins[o + a2 * S + sb + 1] ?? 0);
          if (v > best) best = v;
        }
      }
      return { slot: cand.slot, v: best / Math.sqrt(Math.max(16, this.kpCount[cand.slot] ?? 0)) };
    });
    scored.sort((x, y) => y.v - x.v);
    return scored.slice(0, shortlist);
  }

  /**
   * Writes the index as sections named `prefix` + … (index-snapshot.ts, start-up): the
   * posting heap's bytes as they are, the lists' and cells' offsets, the per-keypoint arrays up to
   * their use, document frequencies, ids. Byte sections are views of this index's memory: flush
   * the writer before the index changes again (queries may run meanwhile: the ranges of a query's
   * matches and of the vocabulary's copy are written as free ranges, so the restored index does not
   * hold them, and what queries write there is not read back).
   */
  writeSnapshot(writer: SnapshotWriter, prefix: string): void {
    const spare = [...(this.matchesOfQueries?.heapRanges() ?? []), ...(this.vocabularyInHeap?.heapRanges() ?? [])];
    const heapState = this.heap.allocatorState(spare);
    const V = this.postings.length;
    const lists = new Uint32Array(V * POSTINGS_SNAPSHOT_FIELDS);
    this.postings.forEach((p, w) => writePostingsState(p, lists, w * POSTINGS_SNAPSHOT_FIELDS));
    // Split words: [word, cell count] each; then every cell's list numbers; then the pivots.
    const splitWords: number[] = [];
    const cellLists: Postings[] = [];
    const pivots: Uint32Array[] = [];
    this.split.forEach((word, w) => {
      if (!word) return;
      const parts = word.snapshotParts();
      splitWords.push(w, parts.cells.length);
      cellLists.push(...parts.cells);
      pivots.push(parts.pivots);
    });
    const cells = new Uint32Array(cellLists.length * POSTINGS_SNAPSHOT_FIELDS);
    cellLists.forEach((p, i) => writePostingsState(p, cells, i * POSTINGS_SNAPSHOT_FIELDS));
    const pivotWords = new Uint32Array(pivots.reduce((n, p) => n + p.length, 0));
    pivots.reduce((at, p) => (pivotWords.set(p, at), at + p.length), 0);
    writer.json(`${prefix}meta`, {
      vocabulary: this.vocabulary.id,
      vocabularySize: V,
      options: { minStopDf: this.minStopDf, dropStopWords: this.dropStopWords, splitFactor: this.splitFactor, splitCellSize: this.splitCellSize },
      kpUsed: this.kpUsed,
      livePostings: this.livePostings,
      deadPostings: this.deadPostings,
      liveImages: this.liveImages,
      minDroppedDf: Number.isFinite(this.minDroppedDf) ? this.minDroppedDf : -1,
      splitPassLimits: this.splitPassLimits,
      heap: heapState,
      imageIds: this.imageIds,
      partIds: this.partIds,
    });
    writer.bytes(`${prefix}heap`, this.heap.u8.subarray(0, heapState.top));
    writer.bytes(`${prefix}lists`, lists);
    writer.bytes(`${prefix}splitWords`, Uint32Array.from(splitWords));
    writer.bytes(`${prefix}cells`, cells);
    writer.bytes(`${prefix}pivots`, pivotWords);
    writer.bytes(`${prefix}df`, this.df);
    writer.bytes(`${prefix}dropped`, this.dropped);
    writer.bytes(`${prefix}kpOffset`, Uint32Array.from(this.kpOffset));
    writer.bytes(`${prefix}kpCount`, Uint32Array.from(this.kpCount));
    writer.bytes(`${prefix}alive`, Uint8Array.from(this.alive, (a) => (a ? 1 : 0)));
    writer.bytes(`${prefix}kpWords`, this.kpWords.subarray(0, this.kpUsed));
    writer.bytes(`${prefix}geo`, this.geo.subarray(0, this.kpUsed * 4));
  }

  /**
   * The index {@link writeSnapshot} wrote under `prefix`, over `vocabulary` with `options` (both as
   * the writer's: a snapshot of another vocabulary or other options is refused). Answers every
   * query as the written index did, and takes uploads and removals as it would have.
   * @throws SnapshotError when a section is missing, corrupt or inconsistent, or the vocabulary or
   * options differ; RangeError when the heap cannot grow.
   */
  static fromSnapshot(vocabulary: Vocabulary, options: PhotoIndexOptions, reader: SnapshotReader, prefix: string): PhotoIndex {
    const index = new PhotoIndex(vocabulary, options);
    index.restore(reader, prefix);
    return index;
  }

  /** {@link fromSnapshot}'s work on a new, empty index. */
  private restore(reader: SnapshotReader, prefix: string): void {
    const meta = reader.json(`${prefix}meta`) as Record<string, unknown> | null;
    const V = this.postings.length;
    expectSnapshot(numberField(meta, 'vocabulary') === this.vocabulary.id && numberField(meta, 'vocabularySize') === V, `${prefix}: a snapshot of another vocabulary`);
    const o = (meta?.options ?? null) as Record<string, unknown> | null;
    const sameOptions = numberField(o, 'minStopDf') === this.minStopDf && o?.dropStopWords === this.dropStopWords && numberField(o, 'splitFactor') === this.splitFactor && numberField(o, 'splitCellSize') === this.splitCellSize;
    expectSnapshot(sameOptions, `${prefix}: a snapshot of an index with other options`);
    const imageIds = stringsField(meta, 'imageIds');
    const partIds = stringsField(meta, 'partIds');
    const slots = imageIds.length;
    expectSnapshot(partIds.length === slots, `${prefix}: ${slots} image ids and ${partIds.length} part ids`);
    const kpUsed = numberField(meta, 'kpUsed');
    const heapState = meta?.heap as { top: number; free: number[][] } | undefined;
    expectSnapshot(heapState !== undefined && Array.isArray(heapState.free) && heapState.free.every(Array.isArray), `${prefix}: no heap state`);
    const top = numberField(heapState, 'top');
    this.heap.restore(heapState, (bytes) => reader.into(`${prefix}heap`, bytes));
    const lists = readArray(reader, `${prefix}lists`, Uint32Array, V * POSTINGS_SNAPSHOT_FIELDS);
    for (let w = 0; w < V; w++) this.postings[w] = restoredPostings(this.heap, lists, w * POSTINGS_SNAPSHOT_FIELDS, top);
    const splitWords = readArray(reader, `${prefix}splitWords`, Uint32Array);
    const cells = readArray(reader, `${prefix}cells`, Uint32Array);
    const pivots = readArray(reader, `${prefix}pivots`, Uint32Array);
    let cellAt = 0;
    for (let i = 0; i + 1 < splitWords.length; i += 2) {
      const w = splitWords[i] ?? 0;
      const n = splitWords[i + 1] ?? 0;
      expectSnapshot(w < V && !this.split[w] && (cellAt + n) * POSTINGS_SNAPSHOT_FIELDS <= cells.length, `${prefix}: split word ${w} out of place`);
      const wordCells: Postings[] = [];
      for (let c = 0; c < n; c++) wordCells.push(restoredPostings(this.heap, cells, (cellAt + c) * POSTINGS_SNAPSHOT_FIELDS, top));
      this.split[w] = SplitWord.restored(this.heap, this.splitCellSize, wordCells, pivots.subarray(cellAt * DESCRIPTOR_WORDS, (cellAt + n) * DESCRIPTOR_WORDS));
      cellAt += n;
    }
    expectSnapshot(cellAt * POSTINGS_SNAPSHOT_FIELDS === cells.length && cellAt * DESCRIPTOR_WORDS === pivots.length, `${prefix}: cells or pivots left over`);
    this.df.set(readArray(reader, `${prefix}df`, Int32Array, V));
    this.dropped.set(readArray(reader, `${prefix}dropped`, Uint8Array, V));
    const kpOffset = readArray(reader, `${prefix}kpOffset`, Uint32Array, slots);
    const kpCount = readArray(reader, `${prefix}kpCount`, Uint32Array, slots);
    for (let s = 0; s < slots; s++) expectSnapshot((kpOffset[s] ?? 0) + (kpCount[s] ?? 0) <= kpUsed, `${prefix}: the keypoints of slot ${s} beyond ${kpUsed}`);
    const alive = readArray(reader, `${prefix}alive`, Uint8Array, slots);
    this.kpWords = readArray(reader, `${prefix}kpWords`, Uint16Array, kpUsed);
    this.geo = readArray(reader, `${prefix}geo`, Uint16Array, kpUsed * 4);
    this.imageIds = imageIds;
    this.partIds = partIds;
    this.kpOffset = Array.from(kpOffset);
    this.kpCount = Array.from(kpCount);
    this.alive = Array.from(alive, (a) => a === 1);
    // Live slots only, in slot order: a replaced image's later slot wins, as add() left it.
    this.alive.forEach((a, s) => {
      if (a) this.slots.set(imageIds[s] ?? '', s);
    });
    this.kpUsed = kpUsed;
    this.livePostings = numberField(meta, 'livePostings');
    this.deadPostings = numberField(meta, 'deadPostings');
    this.liveImages = numberField(meta, 'liveImages');
    expectSnapshot(this.liveImages === this.slots.size, `${prefix}: ${this.liveImages} live images, ${this.slots.size} live slots`);
    const minDroppedDf = numberField(meta, 'minDroppedDf');
    this.minDroppedDf = minDroppedDf < 0 ? Infinity : minDroppedDf;
    const limits = meta?.splitPassLimits;
    expectSnapshot(Array.isArray(limits) && limits.length === 2 && limits.every((v) => typeof v === 'number'), `${prefix}: no split limits`);
    this.splitPassLimits = [limits[0] as number, limits[1] as number];
  }

  private ensureGeometry(n: number): void {
    if (this.geo.length >= n * 4) return;
    // Exact on a bulk load into an empty index; +25 % for uploads (doubling a 50,000-reference
    // index's geometry for one upload would hold 150 MB of slack).
    const capacity = this.geo.length === 0 ? n : Math.max(1024, n, Math.ceil((this.geo.length / 4) * 1.25));
    this.geo = grow(this.geo, capacity * 4);
    this.kpWords = grow(this.kpWords, capacity);
  }

  /** The visual words of slot `slot`'s keypoints (a view). */
  private wordsOf(slot: number): Uint16Array {
    const at = this.kpOffset[slot] ?? 0;
    return this.kpWords.subarray(at, at + (this.kpCount[slot] ?? 0));
  }

  /** Recomputes document frequencies from the live images' words. */
  private recountDf(): void {
    // From each live image's own words: the postings of dropped stop words are not there to count.
    this.df.fill(0);
    const last = new Int32Array(this.postings.length).fill(-1);
    this.alive.forEach((alive, slot) => {
      if (!alive) return;
      const words = this.wordsOf(slot);
      for (let i = 0; i < words.length; i++) {
        const w = words[i] ?? 0;
        if (last[w] !== slot) {
          last[w] = slot;
          this.df[w] = (this.df[w] ?? 0) + 1;
        }
      }
    });
  }


  /** Drops the postings of removed images. Slots are not renumbered (their tombstones stay). */
  private compact(): void {
    for (const p of this.postings) compactPostings(p, this.alive);
    for (const s of this.split) s?.compact(this.alive);
    this.deadPostings = 0;
    this.recountDf();
  }
}

/**
 * Writes `f`'s keypoint geometry into `geo` from element `at`, 4 uint16 a keypoint, rounded as
 * encodeLocalFeatures rounds (positions 1/8 px, angles 360/65536°, sizes 1/16 px): values read
 * from a stored record come back unchanged.
 */
function quantiseGeometry(f: LocalFeatures, geo: Uint16Array, at: number): void {
  const clamp16 = (v: number): number => Math.max(0, Math.min(65535, Math.round(v)));
  for (let i = 0, o = at; i < f.count; i++, o += 4) {
    geo[o] = clamp16((f.xs[i] ?? 0) * 8);
    geo[o + 1] = clamp16((f.ys[i] ?? 0) * 8);
    const a = (((f.angles[i] ?? 0) % 360) + 360) % 360;
    geo[o + 2] = Math.round((a * 65536) / 360) & 0xffff;
    geo[o + 3] = clamp16((f.sizes[i] ?? 0) * 16);
  }
}

