import { describe, expect, it } from 'vitest';
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
});
