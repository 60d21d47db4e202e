import { describe, expect, it } from 'vitest';
import { editDistance, typoNeighbours, typosAllowed } from './typo.js';
import { parseQueryText } from './query.js';

describe('typo rules', () => {
  it('one typo from 5 letters, two from 9, none for digits; thresholds configurable', () => {
    expect(['gskt', 'gasket', 'thermostat', 'pci8086'].map((w) => typosAllowed(w))).toEqual([0, 1, 2, 0]);
    expect(typosAllowed('gskt', { oneTypoMinLength: 4, twoTyposMinLength: 7 })).toBe(1);
    expect(parseQueryText('thermostat gasket')).toEqual([
      { tokens: ['thermostat'], prefix: false, typo: true, maxTypos: 2 },
      { tokens: ['gasket'], prefix: true, typo: true },
    ]);
  });

  it('edit distance with swaps, bounded; neighbours closest first', () => {
    expect(editDistance('thermostat', 'thermsotta', 2)).toBe(2);
    expect(editDistance('thermostat', 'thremostat', 2)).toBe(1);
    expect(editDistance('thermostat', 'xyz', 2)).toBe(3);
    expect(typoNeighbours('thermostat', ['thermostats', 'thermsotta', 'hermit', 'thermostat'], 2)).toEqual(['thermostats', 'thermsotta']);
  });
});
