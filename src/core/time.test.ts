import { describe, expect, it } from 'vitest';
import { rng } from '../../test/helpers/random.js';
import { formatMicros } from './time.js';

/** The plain formatting, without the per-day cache. */
function reference(micros: number): string {
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  const fraction = String(((micros % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0');
  return `${iso.slice(0, 19)}.${fraction}Z`;
}

describe('formatMicros', () => {
  it('formats ISO 8601 UTC with six fractional digits', () => {
    expect(formatMicros(1_795_379_370_123_456)).toBe('2026-11-22T20:29:30.123456Z');
    expect(formatMicros(0)).toBe('1970-01-01T00:00:00.000000Z');
    expect(formatMicros(-1)).toBe('1969-12-31T23:59:59.999999Z');
    expect(formatMicros(1_795_391_999_999_999)).toBe('2026-11-22T23:59:59.999999Z');
    expect(formatMicros(1_795_392_000_000_000)).toBe('2026-11-23T00:00:00.000000Z');
    expect(formatMicros(-62_167_219_200_000_000)).toBe('0000-01-01T00:00:00.000000Z');
    expect(formatMicros(253_402_300_799_000_000)).toBe('9999-12-31T23:59:59.000000Z');
  });

  it('agrees with plain formatting whatever the cache holds (same day, colliding slots, far apart)', () => {
    const rnd = rng(5);
    const base = 1_795_379_370_000_000;
    for (let i = 0; i < 20_000; i++) {
      const kind = rnd();
      const micros = kind < 0.4 ? base + Math.floor(rnd() * 3_000_000) // a few seconds: cache hits
        : kind < 0.7 ? base + Math.floor(rnd() * 200) * 16 * 86_400_000_000 + Math.floor(rnd() * 86_400_000_000) // same slot, other days
        : Math.floor((rnd() - 0.3) * 4e15);
      expect(formatMicros(micros)).toBe(reference(micros));
    }
  });
});
