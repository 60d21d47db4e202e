/**
 * Snapshots of the photo index (start-up): a restored index answers every query exactly
 * as the index that was written — split stop words, dropped ones, uploads after the bulk load and
 * their freed heap ranges, tombstones, the global descriptors and the small references' index
 * included — and keeps doing so through later uploads and removals. A snapshot of another
 * vocabulary, options, format or a damaged one is refused with a SnapshotError.
 */
import { describe, expect, it } from 'vitest';
import { noisyPhotoOf, randomFeatures } from '../../../../test/helpers/photo-features.js';
import { rng } from '../../../../test/helpers/random.js';
import { featuresFromRgb, type Features } from '../image-similarity.js';
import { SnapshotError, type SnapshotReader, type SnapshotWriter } from './index-snapshot.js';
import type { LocalFeatures } from './local-features.js';
import type { PhotoIndex, PhotoIndexOptions } from './photo-index.js';
import { PhotoReferenceIndex, type PhotoQuery } from './photo-search.js';
import { trainVocabulary } from './vocabulary.js';

/** Sections kept in memory, copied when written (as a file would hold them); `reader` reads them back. */
class MemorySnapshot implements SnapshotWriter {
  private readonly sections = new Map<string, Uint8Array | string>();

  bytes(name: string, data: ArrayBufferView): void {
    this.sections.set(name, new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice());
  }

  json(name: string, value: unknown): void {
    this.sections.set(name, JSON.stringify(value));
  }

  readonly reader: SnapshotReader = {
    bytes: (name) => {
      const s = this.sections.get(name);
      if (!(s instanceof Uint8Array)) throw new SnapshotError(`no section ${name}`);
      return s.slice();
    },
    json: (name) => {
      const s = this.sections.get(name);
      if (typeof s !== 'string') throw new SnapshotError(`no section ${name}`);
      return JSON.parse(s) as unknown;
    },
    into: (name, target) => {
      const s = this.reader.bytes(name);
      if (s.length !== target.length) throw new SnapshotError(`section ${name}: ${s.length} bytes`);
      target.set(s);
    },
  };
}

/** A global descriptor of a flat colour (distinct per image). */
function globalOf(seed: number): Features {
  const r = rng(seed);
  const rgb = new Uint8Array(32 * 32 * 3);
  for (let i = 0; i < rgb.length; i++) rgb[i] = Math.floor(r() * 256);
  return featuresFromRgb(rgb, 32, 32, 3);
}

// Every reference shares its first 6 descriptors with all the others (a logo on every part): their
// words are held by every image and dropped; the other words are spread thin enough that some are
// kept whole and some split.
const logo = randomFeatures(6, 320, 320, 499);
const refs = Array.from({ length: 120 }, (_, i) => {
  const f = randomFeatures(90, 320, 320, 500 + i);
  f.descriptors.set(logo.descriptors);
  return f;
});
const vocabulary = trainVocabulary(new Uint32Array(refs.slice(0, 40).flatMap((f) => [...f.descriptors])), 32, 32, 3, 7, 41);
const smallVocabulary = trainVocabulary(new Uint32Array(refs.slice(40, 80).flatMap((f) => [...f.descriptors])), 8, 8, 3, 7, 42);
// Stop words from 10 images on, split up to 6 × that (cells of 24), dropped above 1.5 × 60: every
// kind of word a start-up's index holds, at the size of a unit test.
const options: PhotoIndexOptions = { dropStopWords: true, minStopDf: 10, maxSplitShare: 0.3, splitCellSize: 24 };
const withWords = (f: LocalFeatures, v = vocabulary): LocalFeatures => ({ ...f, words: v.assign(f.descriptors), vocabulary: v.id });
const reference = (i: number) => ({
  imageId: `img${i}`,
  partId: `part${i % 50}`,
  ref: { global: globalOf(i), local: withWords(refs[i] as LocalFeatures), ...(i % 3 === 0 ? { small: withWords(refs[(i + 7) % refs.length] as LocalFeatures, smallVocabulary) } : {}) },
});

/** The index a start-up then a few uploads and removals leave: bulk load, then single adds (grown lists, freed ranges) and tombstones. */
function built(): PhotoReferenceIndex {
  const index = new PhotoReferenceIndex(vocabulary, options, smallVocabulary);
  index.addMany(Array.from({ length: 100 }, (_, i) => reference(i)));
  for (let i = 100; i < 110; i++) {
    const r = reference(i);
    index.add(r.imageId, r.partId, r.ref);
  }
  index.remove('img4');
  index.remove('img33');
  const again = reference(57);
  index.add('img57', 'part-moved', again.ref);
  return index;
}

const queries: PhotoQuery[] = [3, 9, 27, 57, 66, 104, 4].map((i, k) => ({ views: [globalOf(i)], local: noisyPhotoOf(refs[i] as LocalFeatures, 20 + k, 10 + k / 2, 12, 150, 900 + k) }));
const smallQueries = [0, 21, 51].map((i, k) => noisyPhotoOf(refs[(i + 7) % refs.length] as LocalFeatures, 10, 5, 10, 100, 950 + k));

/** Every answer of the index to the fixed queries, with the figures that rank them. */
function answers(index: PhotoReferenceIndex): string {
  const main = queries.map((q) => index.query(q, 10).map((h) => [h.part_id, h.image_id, h.score.toFixed(6), h.inliers]));
  const small = smallQueries.map((q) => index.querySmall(q, 5).map((h) => [h.part_id, h.image_id, h.score.toFixed(6)]));
  return JSON.stringify({ main, small });
}

function snapshotOf(index: PhotoReferenceIndex): MemorySnapshot {
  const snapshot = new MemorySnapshot();
  index.writeSnapshot(snapshot);
  return snapshot;
}

describe('photo index snapshots (start-up)', () => {
  it('restores an index that answers exactly as the one written, with split, dropped and uploaded words', () => {
    const original = built();
    const snapshot = snapshotOf(original);
    const restored = PhotoReferenceIndex.fromSnapshot(snapshot.reader, vocabulary, options, smallVocabulary);
    const expected = answers(original);
    const parsed = JSON.parse(expected) as { main: unknown[][]; small: unknown[][] };
    // The fixture exercises what it claims: hits everywhere, a removed image gone, the small index used.
    expect(parsed.main.every((hits) => hits.length > 0)).toBe(true);
    expect(parsed.small.some((hits) => hits.length > 0)).toBe(true);
    expect(restored.size).toBe(original.size);
    expect(restored.smallSize).toBe(original.smallSize);
    // Whole, split and dropped words all present.
    const local = (index: PhotoReferenceIndex) => (index as unknown as { local: PhotoIndex }).local;
    expect(local(original).splitWords).toBeGreaterThan(0);
    expect(local(original).droppedWords).toBeGreaterThan(0);
    expect(local(original).splitWords + local(original).droppedWords).toBeLessThan(vocabulary.size / 2);
    expect(local(restored).splitStats()).toEqual(local(original).splitStats());
    // The same postings and cells; no growth headroom in the per-keypoint arrays.
    expect(restored.memoryBytes).toBeLessThanOrEqual(original.memoryBytes);
    expect(restored.memoryBytes).toBeGreaterThan(original.memoryBytes * 0.9);
    expect(answers(restored)).toBe(expected);
  });

  it('keeps answering as the original through the same uploads and removals after the restore', () => {
    const original = built();
    const restored = PhotoReferenceIndex.fromSnapshot(snapshotOf(original).reader, vocabulary, options, smallVocabulary);
    for (const index of [original, restored]) {
      for (let i = 110; i < 120; i++) {
        const r = reference(i);
        index.add(r.imageId, r.partId, r.ref);
      }
      index.remove('img9');
      index.remove('img105');
      index.add('img3', 'part-replaced', reference(3).ref);
    }
    expect(restored.size).toBe(original.size);
    expect(answers(restored)).toBe(answers(original));
    expect(answers(restored)).not.toBe(answers(built()));
  });

  it('refuses a snapshot of another vocabulary, other options, another small look or another format', () => {
    const snapshot = snapshotOf(built());
    const otherVocabulary = trainVocabulary(new Uint32Array(refs.slice(80, 120).flatMap((f) => [...f.descriptors])), 8, 8, 3, 7, 43);
    expect(() => PhotoReferenceIndex.fromSnapshot(snapshot.reader, otherVocabulary, options, smallVocabulary)).toThrow(SnapshotError);
    expect(() => PhotoReferenceIndex.fromSnapshot(snapshot.reader, vocabulary, { ...options, splitCellSize: 32 }, smallVocabulary)).toThrow(/other options/);
    expect(() => PhotoReferenceIndex.fromSnapshot(snapshot.reader, vocabulary, options)).toThrow(/wanted without/);
    snapshot.json('photo', { format: 999, small: true });
    expect(() => PhotoReferenceIndex.fromSnapshot(snapshot.reader, vocabulary, options, smallVocabulary)).toThrow(/format 999/);
  });

  it('refuses a posting list outside the heap, and a heap with a free range beyond its top', () => {
    const snapshot = snapshotOf(built());
    const lists = new Uint32Array(snapshot.reader.bytes('local.lists').buffer);
    const w = lists.findIndex((_, i) => i % 5 === 1 && (lists[i] ?? 0) > 0) - 1;
    lists[w + 4] = 2 ** 31;
    snapshot.bytes('local.lists', lists);
    expect(() => PhotoReferenceIndex.fromSnapshot(snapshot.reader, vocabulary, options, smallVocabulary)).toThrow(/outside the heap/);

    const other = snapshotOf(built());
    const meta = other.reader.json('local.meta') as { heap: { top: number; free: number[][] } };
    meta.heap.free[6] = [meta.heap.top, 64];
    other.json('local.meta', meta);
    expect(() => PhotoReferenceIndex.fromSnapshot(other.reader, vocabulary, options, smallVocabulary)).toThrow(SnapshotError);
  });

  it("snapshots an index that has been queried without its queries' memory, and answers the same", () => {
    const index = built();
    const expected = answers(index);
    const local = (i: PhotoReferenceIndex) => (i as unknown as { local: { heapBytes: number; heap: { allocatedBytes: number } } }).local;
    const queried = local(index).heap.allocatedBytes;
    const restored = PhotoReferenceIndex.fromSnapshot(snapshotOf(index).reader, vocabulary, options, smallVocabulary);
    // The matches and the vocabulary's copy in the heap (~1 MB here) are free in the restored heap.
    expect(local(restored).heap.allocatedBytes).toBeLessThan(queried - 100_000);
    expect(answers(restored)).toBe(expected);
    // And its own queries take that room again: about the original's allocation, not twice the query memory.
    expect(local(restored).heap.allocatedBytes).toBeLessThan(queried * 1.01);
  });
});
