import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trainVocabulary } from '../../../core/search/photo/vocabulary.js';
import { akazeFeaturesFromGrey } from './akaze.js';
import { decodeGrey, localFeaturesFromGrey } from './extract.js';
import { openCv } from './opencv.js';
import { AKAZE_VOCABULARY_ID, ORB_VOCABULARY_ID, shippedAkazeVocabulary, shippedAkazeVocabularyId, shippedVocabulary, shippedVocabularyId } from './shipped-vocabulary.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'make-vocabularies.js');

/** What the test uses of scripts/make-vocabularies.js (a plain ES module without types). */
interface MakeVocabularies {
  IMAGE_DIR: string;
  ASSET_DIR: string;
  MANIFEST: string;
  pipelineSample(family: string, code: object): Promise<Record<string, unknown>>;
}
const script = (await import(SCRIPT)) as MakeVocabularies;
const manifest = JSON.parse(readFileSync(script.MANIFEST, 'utf8')) as Record<string, Record<string, unknown> & { file: string; id: number; sha256: string }>;
const sources = { trainVocabulary, decodeGrey, localFeaturesFromGrey, akazeFeaturesFromGrey, openCv };

describe('shipped vocabularies', () => {
  it('reads the ORB and AKAZE vocabularies from their assets, once, with their own ids', async () => {
    const [orb, akaze, orbId, akazeId] = await Promise.all([shippedVocabulary(), shippedAkazeVocabulary(), shippedVocabularyId(), shippedAkazeVocabularyId()]);
    expect([orbId, akazeId]).toEqual([ORB_VOCABULARY_ID, AKAZE_VOCABULARY_ID]);
    expect(orb.id).toBe(1);
    expect(akaze.id).toBe(2);
    expect([orb.size, akaze.size]).toEqual([128 * 128, 128 * 128]);
    expect(await shippedVocabulary()).toBe(orb);
    // The words round-trip: what is read is the asset's bytes.
    const words = orb.serialize();
    expect(Buffer.from(words.buffer, words.byteOffset, words.byteLength).equals(readFileSync(join(script.ASSET_DIR, 'orb-vocabulary.bin')))).toBe(true);
  });

  it('ships the assets scripts/make-vocabularies.js made (their SHA-256 in assets/vocabularies.json)', () => {
    for (const family of ['orb', 'akaze']) {
      const entry = manifest[family]!;
      const bytes = readFileSync(join(script.ASSET_DIR, entry.file));
      expect({ family, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({ family, sha256: entry.sha256 });
    }
  });

  // Regenerating a vocabulary takes minutes (test/e2e/vocabulary-regeneration.test.ts runs
  // `node scripts/make-vocabularies.js --check` in CI); this test recomputes, on every run, the
  // manifest's sample of the same pipeline from the same images: the training list, the descriptors
  // of its first images and a small vocabulary trained on them. A change to the split, the
  // decoding, the detectors' settings or the clustering changes the sample, and so would change a
  // regenerated vocabulary.
  it.skipIf(!existsSync(script.IMAGE_DIR))('regenerates the same sample of each vocabulary from ../shared/data/images', async () => {
    for (const family of ['orb', 'akaze']) {
      const { file, id, bytes, sha256, ...sample } = manifest[family]!;
      expect({ family, ...(await script.pipelineSample(family, sources)) }).toEqual({ family, ...sample });
      expect([file, id, bytes, sha256].every((v) => v !== undefined)).toBe(true);
    }
  });
});
