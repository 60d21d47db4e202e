import { describe, expect, it } from 'vitest';
import { randomUuid, systemIds } from './system.js';

describe('randomUuid (session ids without node:crypto)', () => {
  it('makes version 4 UUIDs in the form crypto.randomUUID gives, all different, across many reads of /dev/urandom', () => {
    const ids = Array.from({ length: 5000 }, () => randomUuid()); // ~78 batches of 64
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is what the catalog names its sessions with', () => {
    expect(systemIds().uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('spreads its random bits evenly (each of the 122 random bits set in about half of 5,000 UUIDs)', () => {
    const counts = new Array<number>(128).fill(0);
    const n = 5000;
    for (let i = 0; i < n; i++) {
      const hex = randomUuid().replaceAll('-', '');
      for (let bit = 0; bit < 128; bit++) if ((parseInt(hex[bit >> 2]!, 16) >> (3 - (bit & 3))) & 1) counts[bit]!++;
    }
    const fixed = new Set([48, 49, 50, 51, 64, 65]); // the version (0100) and variant (10) bits
    for (let bit = 0; bit < 128; bit++) {
      if (fixed.has(bit)) continue;
      // 5,000 fair coins: 2,500 ± 35 (one standard deviation); ±250 is over seven.
      expect(Math.abs(counts[bit]! - n / 2), `bit ${bit}`).toBeLessThan(250);
    }
  });
});
