/**
 * Timestamps (decisions §1): stored as integer microseconds since the epoch, shown as ISO 8601 UTC
 * with six fractional digits, e.g. `2026-11-21T20:29:30.123456Z`.
 */

/**
 * The formatted day (`2026-11-21T`) of recently formatted timestamps, direct-mapped by day: a
 * search answers 25-1,000 results with two timestamps each. Cached by second, a rare-word search
 * at 1,000,000 parts (parts imported over many seconds) would miss nearly every time and spend
 * ~2 µs a timestamp in Date#toISOString; cached by day, parts written on a few days always hit.
 */
const DAYS = new Float64Array(16).fill(Number.NaN);
const DAY_PREFIXES: string[] = new Array<string>(16).fill('');
/** Days since the epoch of 0000-01-01 and 9999-12-31: outside, ISO 8601 needs more than 4 year digits. */
const FIRST_DAY = -719_528;
const LAST_DAY = 2_932_896;

/** `n` (0-99) in two digits. */
function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/** Formats integer microseconds since the epoch as ISO 8601 UTC with microseconds. */
export function formatMicros(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  const fraction = String(micros - second * 1_000_000).padStart(6, '0');
  const day = Math.floor(second / 86_400);
  if (day < FIRST_DAY || day > LAST_DAY) return `${new Date(second * 1000).toISOString().slice(0, -5)}.${fraction}Z`;
  const slot = day & 15;
  if (DAYS[slot] !== day) {
    DAYS[slot] = day;
    DAY_PREFIXES[slot] = new Date(day * 86_400_000).toISOString().slice(0, 11); // 2026-11-21T
  }
  const inDay = second - day * 86_400;
  const minutes = Math.floor(inDay / 60);
  return `${DAY_PREFIXES[slot]}${twoDigits(Math.floor(minutes / 60))}:${twoDigits(minutes % 60)}:${twoDigits(inDay % 60)}.${fraction}Z`;
}
