import { describe, expect, it } from 'vitest';
import type { ResultCard } from '../../../core/model.js';
import { CardCache } from './card-cache.js';

const card = (id: number): ResultCard => ({ cardId: id, partId: `p${id}`, serviceId: 's', names: { en: `P ${id}` }, createdAt: 1, modifiedAt: 1 });

describe('CardCache (readCards, issue 12)', () => {
  // Chunks of 10 ids; ids below 100 are never reused (no chunk).
  const cacheOf = (capacity: number) => new CardCache(capacity, (id) => (id >= 100 ? Math.floor(id / 10) : undefined));

  it('drops exactly the cards of the changed chunks, never an id without a chunk', () => {
    const cache = cacheOf(100);
    for (const id of [5, 101, 105, 111, 125]) cache.set(id, card(id));
    cache.dropChunks([10, 12, 99]);
    expect([5, 101, 105, 111, 125].filter((id) => cache.has(id))).toEqual([5, 111]);
    cache.set(105, card(105));
    cache.dropChunks([11]);
    expect([5, 105, 111].filter((id) => cache.has(id))).toEqual([5, 105]);
    cache.dropChunks([10]);
    expect(cache.size).toBe(1);
  });

  it('makes room oldest first, keeping the cards asked for, and forgets evicted ones in its chunk index', () => {
    const cache = cacheOf(3);
    for (const id of [101, 102, 103]) cache.set(id, card(id));
    cache.makeRoom(2, [101]);
    expect([101, 102, 103].filter((id) => cache.has(id))).toEqual([101]);
    cache.set(104, card(104));
    cache.set(112, card(112));
    expect(cache.size).toBe(3);
    // 104 goes now (102 and 103 went before): a re-read 102 is dropped with its chunk, 112 stays.
    cache.makeRoom(1, [101, 112]);
    cache.set(102, card(102));
    cache.dropChunks([10]);
    expect([101, 102, 104, 112].filter((id) => cache.has(id))).toEqual([112]);
    cache.clear();
    expect(cache.size).toBe(0);
    cache.dropChunks([11]);
    expect(cache.get(112)).toBeUndefined();
  });
});
