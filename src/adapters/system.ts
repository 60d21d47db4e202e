/**
 * The real Clock and Ids (ports of src/core/ports.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock, Ids } from '../core/ports.js';

/** Wall-clock time in integer microseconds, strictly increasing within the process. */
export function systemClock(): Clock {
  let last = 0;
  return {
    nowMicros() {
      const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
      last = now > last ? now : last + 1;
      return last;
    },
  };
}

/** Random UUIDs and 32-byte base64url secrets prefixed `cat_` (so leaked tokens are recognisable). */
export function systemIds(): Ids {
  return {
    uuid: () => randomUUID(),
    secret: () => `cat_${randomBytes(32).toString('base64url')}`,
  };
}
