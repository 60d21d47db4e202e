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

  it('gives a card passed over (being read) a second chance: it goes once the eviction has gone round', () => {
    const cache = cacheOf(3);
    for (const id of [101, 102, 103]) cache.set(id, card(id));
    cache.makeRoom(1, [101]);
    expect([101, 102, 103].filter((id) => cache.has(id))).toEqual([101, 103]);
    cache.set(104, card(104));
    // 103 and 104 are newer than 101, but 101 was passed over this round: 103 goes, then 104.
    cache.makeRoom(1, []);
    expect([101, 103, 104].filter((id) => cache.has(id))).toEqual([101, 104]);
    cache.makeRoom(2, []);
    expect([101, 104].filter((id) => cache.has(id))).toEqual([101]);
    // Cards set since are ahead of the eviction, 101 behind it: they go first, in their order.
    cache.set(105, card(105));
    cache.set(106, card(106));
    cache.makeRoom(1, []);
    expect([101, 105, 106].filter((id) => cache.has(id))).toEqual([101, 106]);
    // Past the newest, the next round starts from the oldest: 106, then 101.
    cache.makeRoom(3, []);
    expect(cache.size).toBe(0);
    // Every card kept: nothing can go, and it returns (no endless loop).
    for (const id of [107, 108]) cache.set(id, card(id));
    cache.makeRoom(5, [107, 108]);
    expect(cache.size).toBe(2);
  });

  it('evicts oldest first over many rounds of reads, with chunks dropped and ids read again between', () => {
    const cache = cacheOf(50);
    const order: number[] = [];
    const read = (ids: number[]) => {
      const missing = ids.filter((id) => !cache.has(id));
      cache.makeRoom(missing.length, ids);
      for (const id of missing) {
        cache.set(id, card(id));
        order.push(id);
      }
    };
    for (let round = 0; round < 200; round++) {
      read(Array.from({ length: 7 }, (_, i) => 100 + ((round * 7 + i) % 400)));
      if (round % 13 === 0) cache.dropChunks([10 + (round % 40)]);
    }
    expect(cache.size).toBeLessThanOrEqual(50);
    // What is kept is the newest of what was read and not dropped since: the last 7 reads all there.
    for (const id of order.slice(-7)) expect(cache.has(id)).toBe(true);
    expect(cache.get(order.at(-1) as number)).toEqual(card(order.at(-1) as number));
  });
});
