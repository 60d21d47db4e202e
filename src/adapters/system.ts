/**
 * The real Clock and Ids (ports of src/core/ports.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock, Ids } from '../core/ports.js';

/** Wall-clock time in integer microseconds, strictly increasing within the process. */
export function systemClock(): Clock {
  let last = 0;
  // The wall clock when the monotonic clock read 0, as performance.timeOrigin is; the monotonic
  // clock itself from process.hrtime, not performance: the first use of the `performance` global
  // loads perf_hooks, ~1 ms of a one-shot `catalog search` (issue 12, start-up).
  const originMicros = Date.now() * 1000 - Number(process.hrtime.bigint() / 1000n);
  return {
    nowMicros() {
      const now = originMicros + Number(process.hrtime.bigint() / 1000n);
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
