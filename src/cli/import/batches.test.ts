import { describe, expect, it } from 'vitest';
import { batch } from './batches.js';

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of source) out.push(x);
  return out;
}

async function* numbers(n: number): AsyncGenerator<number> {
  for (let i = 1; i <= n; i += 1) yield i;
}

describe('batch', () => {
  it.each<[number, number, number[][]]>([
    [0, 3, []],
    [2, 3, [[1, 2]]],
    [3, 3, [[1, 2, 3]]],
    [7, 3, [[1, 2, 3], [4, 5, 6], [7]]],
    [3, 1, [[1], [2], [3]]],
  ])('%i items in batches of %i', async (n, size, expected) => {
    expect(await collect(batch(numbers(n), size))).toEqual(expected);
  });

  it('pulls lazily: one batch ahead at most', async () => {
    let pulled = 0;
    async function* counted(): AsyncGenerator<number> {
      for (let i = 0; i < 1000; i += 1) {
        pulled += 1;
        yield i;
      }
    }
    const batches = batch(counted(), 10);
    await batches.next();
    expect(pulled).toBe(10);
    await batches.return();
  });

  it.each([0, -1, 2.5])('size %s is a RangeError', async (size) => {
    await expect(collect(batch(numbers(3), size))).rejects.toBeInstanceOf(RangeError);
  });
});
