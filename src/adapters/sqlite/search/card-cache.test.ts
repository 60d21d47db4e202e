import { describe, expect, it } from 'vitest';
import type { ResultCard } from '../../../core/model.js';
import { CardCache } from './card-cache.js';

const card = (id: number): ResultCard => ({ cardId: id, partId: `p${id}`, serviceId: 's', names: { en: `P ${id}` }, createdAt: 1, modifiedAt: 1 });

describe('CardCache (readCards)', () => {
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

  it('evicts the least recently used card when full, and forgets evicted cards in its chunk index', () => {
    const cache = cacheOf(3);
    for (const id of [101, 102, 103]) cache.set(id, card(id));
    cache.get(101);
    cache.set(104, card(104));
    expect([101, 102, 103, 104].filter((id) => cache.has(id))).toEqual([101, 103, 104]);
    // 102 was evicted: set again, it belongs to chunk 10 once more and goes with it.
    cache.set(102, card(102));
    cache.dropChunks([10]);
    expect(cache.size).toBe(0);
    cache.set(112, card(112));
    cache.clear();
    cache.dropChunks([11]);
    expect(cache.get(112)).toBeUndefined();
  });

  it('keeps the newest reads over many rounds, with chunks dropped and ids read again between', () => {
    const cache = cacheOf(50);
    const order: number[] = [];
    const read = (ids: number[]) => {
      for (const id of ids) {
        if (cache.get(id)) continue;
        cache.set(id, card(id));
        order.push(id);
      }
    };
    for (let round = 0; round < 200; round++) {
      read(Array.from({ length: 7 }, (_, i) => 100 + ((round * 7 + i) % 400)));
      if (round % 13 === 0) cache.dropChunks([10 + (round % 40)]);
    }
    expect(cache.size).toBeLessThanOrEqual(50);
    for (const id of order.slice(-7)) expect(cache.has(id)).toBe(true);
    expect(cache.get(order.at(-1) as number)).toEqual(card(order.at(-1) as number));
  });
});
