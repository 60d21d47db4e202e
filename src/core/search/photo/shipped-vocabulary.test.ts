import { describe, expect, it } from 'vitest';
import { Vocabulary } from './vocabulary.js';
import { shippedAkazeVocabulary, shippedAkazeVocabularyId, shippedVocabulary, shippedVocabularyId } from './shipped-vocabulary.js';

describe('shipped vocabularies', () => {
  it('ships an AKAZE vocabulary with its own id beside the ORB one (issue 14, fourteenth round)', async () => {
    const [akaze, akazeId, orbId] = await Promise.all([shippedAkazeVocabulary(), shippedAkazeVocabularyId(), shippedVocabularyId()]);
    expect(akazeId).toBe(2);
    expect(akaze.id).toBe(akazeId);
    expect(akazeId).not.toBe(orbId);
    expect(akaze.size).toBeGreaterThanOrEqual(64 * 64);
    // Decoded once: the same object on every call.
    expect(await shippedAkazeVocabulary()).toBe(akaze);
    expect((await shippedVocabulary()).id).toBe(orbId);
  });

  it('decodes a vocabulary from the base64 of its serialized words (Vocabulary.fromBase64)', async () => {
    const orb = await shippedVocabulary();
    const words = orb.serialize();
    const text = Buffer.from(words.buffer, words.byteOffset, words.byteLength).toString('base64');
    const back = Vocabulary.fromBase64(text);
    expect([...back.serialize()]).toEqual([...words]);
    const descriptors = Uint32Array.from({ length: 8 * 50 }, (_, i) => (i * 2654435761) >>> 0);
    expect([...back.assign(descriptors)]).toEqual([...orb.assign(descriptors)]);
    expect(() => Vocabulary.fromBase64('not base64!')).toThrow();
  });
});
