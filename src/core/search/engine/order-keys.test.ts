import { describe, expect, it } from 'vitest';
import { compareValues, parseNumberValue, partIdKeys, rankBoost, RANK_BOOST_UNIT, sortKeys, valueRanks } from './order-keys.js';

describe('order keys', () => {
  it('reads numbers as a custom ranking attribute states them, and nothing else', () => {
    expect(['12', ' -3.5 ', '+7', '.5', '1e6', '2.', '0010'].map(parseNumberValue)).toEqual([12, -3.5, 7, 0.5, 1e6, 2, 10]);
    expect(['', 'n/a', '1,5', '12 kg', '0x10', 'Infinity', 'NaN', '1e400'].map(parseNumberValue)).toEqual(Array(8).fill(undefined));
  });

  it('orders numbers by value before texts in code point order; equal numbers compare equal', () => {
    const values = ['beta', '10', 'alpha', '9.5', '1e1', 'Zeta'];
    expect([...values].sort(compareValues)).toEqual(['9.5', '10', '1e1', 'Zeta', 'alpha', 'beta']);
    expect(compareValues('10', '1e1')).toBe(0);
  });

  it('ranks each doc by its best value, densely over the values that are some doc\'s best', () => {
    // doc 0: 1 and 99; doc 1: 50; doc 2: 'x' (not a number); doc 3: none; doc 4: 50 written as 5e1.
    const holders = [{ value: '1', docs: [0] }, { value: '99', docs: [0] }, { value: '50', docs: [1] }, { value: 'x', docs: [2] }, { value: '5e1', docs: [4] }];
    const desc = valueRanks(holders, 'desc', true, 5);
    expect([...desc.rank]).toEqual([0, 1, -1, -1, 1]);
    expect(desc.distinct).toBe(2);
    const asc = valueRanks(holders, 'asc', true, 5);
    expect([...asc.rank]).toEqual([0, 1, -1, -1, 1]);
    expect([...rankBoost(asc)]).toEqual([2 * RANK_BOOST_UNIT, RANK_BOOST_UNIT, 0, 0, RANK_BOOST_UNIT]);
    // A sort ranks texts too, after the numbers.
    expect([...valueRanks(holders, 'asc', false, 5).rank]).toEqual([0, 1, 2, -1, 1]);
  });

  it('gives valued docs sort keys below every other doc, ties by part order key', () => {
    const ranks = { rank: Int32Array.from([1, -1, 0, 1, -1]) };
    const key = [40, 10, 30, 20, 0];
    const keys = sortKeys(ranks, key);
    const order = [0, 1, 2, 3, 4].sort((a, b) => (keys[a] ?? 0) - (keys[b] ?? 0));
    expect(order).toEqual([2, 3, 0, 4, 1]);
    expect([...partIdKeys(key, 5, 'desc')]).toEqual([-40, -10, -30, -20, -0]);
  });
});
