/**
 * Timestamps (decisions §1): stored as integer microseconds since the epoch, shown as ISO 8601 UTC
 * with six fractional digits, e.g. `2026-11-21T20:29:30.123456Z`.
 */

/**
 * The formatted second (`2026-11-21T20:29:30`) of recently formatted timestamps, direct-mapped by
 * second: a search answers 25–1,000 results with two timestamps each, mostly from parts written
 * in the same few seconds (an import), and Date#toISOString was ~15 % of a cached search's time.
 */
const SECONDS = new Float64Array(64).fill(Number.NaN);
const PREFIXES: string[] = new Array<string>(64).fill('');

/** Formats integer microseconds since the epoch as ISO 8601 UTC with microseconds. */
export function formatMicros(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  const slot = ((second % 64) + 64) % 64;
  if (SECONDS[slot] !== second) {
    SECONDS[slot] = second;
    PREFIXES[slot] = new Date(second * 1000).toISOString().slice(0, 19); // 2026-11-21T20:29:30
  }
  const fraction = String(micros - second * 1_000_000).padStart(6, '0');
  return `${PREFIXES[slot]}.${fraction}Z`;
}
